package evaluation

import (
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	ev "github.com/agentdesk/agentdesk/engine/evaluation"
	"github.com/agentdesk/agentdesk/engine/evaluation/session"
	"github.com/agentdesk/agentdesk/ui/uitest"
)

// shownTexts collects what a desk page shows in words: labels, buttons, boxes and the options
// of radio groups.
func shownTexts(o fyne.CanvasObject) []string {
	var out []string
	uitest.Walk(o, func(c fyne.CanvasObject) {
		switch v := c.(type) {
		case *widget.Label:
			out = append(out, v.Text)
		case *widget.Button:
			out = append(out, v.Text)
		case *widget.Check:
			out = append(out, v.Text)
		case *widget.RadioGroup:
			out = append(out, v.Options...)
		}
	})
	return out
}

// Every type of the example project, each of its texts naming SPEAKER_X and SPEAKER_Y, is
// shown at the desk with the speakers' names (static annotation and a collected conversation)
// and its help too.
func TestEvalPagesNameTheSpeakers(t *testing.T) {
	test.NewTempApp(t)
	p, _, err := ev.ImportOriginal(evalExample, ev.ImportOptions{Config: "flags"})
	if err != nil {
		t.Fatal(err)
	}
	session.NameSpeakersEverywhere(p)
	turns := p.Bundles[0].Datapoints[0].Turns
	for _, ty := range p.Types {
		for _, collection := range []bool{false, true} {
			dp := &ev.Datapoint{DialogueID: "d", Turns: turns, Turns2: turns}
			pg := newEvalPage(nil, dp, ty, ev.NewAnswers(0), collection)
			texts := shownTexts(&fyne.Container{Objects: []fyne.CanvasObject{pg.content(), pg.dialogueBox}})
			for _, pos := range pg.positions {
				for _, q := range ty.Flow {
					texts = append(texts, pg.helpLabel(pos, q.Text).Text)
				}
			}
			shown := strings.Join(texts, "\n")
			if strings.Contains(shown, "SPEAKER_") {
				t.Errorf("%s (collection %v) shows a placeholder:\n%s", ty.Name, collection, shown)
			}
			want := map[bool]string{false: "Does Alex answer what Sam asked?", true: "Does your partner answer what you asked?"}[collection]
			if ty.Name == "answering" && !strings.Contains(shown, want) {
				t.Errorf("answering (collection %v) does not ask %q:\n%s", collection, want, shown)
			}
		}
	}
}
