package annotate_test

import (
	"errors"
	"strings"
	"testing"

	ev "github.com/agentdesk/agentdesk/engine/evaluation"
	"github.com/agentdesk/agentdesk/engine/evaluation/annotate"
	"github.com/agentdesk/agentdesk/engine/evaluation/session"
	"github.com/agentdesk/agentdesk/engine/samples"
)

// samplePage is a page of the sample project: type name on its first chat.
func samplePage(t *testing.T, name string) *session.Page {
	t.Helper()
	p, err := samples.EvaluationProject()
	if err != nil {
		t.Fatal(err)
	}
	ty := p.Type(name)
	dp := p.Bundles[0].Datapoints[0]
	pg := &session.Page{Datapoint: &dp, Type: ty, Answers: ev.NewAnswers(0), Feedback: -1, Positions: []int{}}
	if ty.Display.TurnLevel() {
		pg.Positions = ty.Positions(len(dp.Turns))
	}
	return pg
}

// Replies as models write them: answers by their text (any case, speakers named as the page
// names them), numbers, a code fence or a sentence around the object; and replies that are
// refused with what is wrong.
func TestParseReplies(t *testing.T) {
	flow := samplePage(t, "relevance") // bot turns 2, 4, 6, 8 as the prompt numbers them
	yes := `{"q1": "yes, it responds to it.", "q2": "It stays on the current subject and builds on it.", "q3": 1}`
	good := "Here is my annotation:\n```json\n{\"turns\": {\"2\": " + yes + ", \"4\": " + yes + ", \"6\": " + yes + ", \"8\": " + yes + "}}\n```"
	edits, err := annotate.Parse(flow, good)
	if err != nil {
		t.Fatal(err)
	}
	if len(edits) != 12 || edits[0].Turn != 1 || edits[0].Key != "Does SPEAKER_X take up what SPEAKER_Y just said?" || edits[0].Value != "Yes, it responds to it." ||
		edits[2].Value != "Yes, it is relevant." || edits[0].Click != ev.ClickRadio {
		t.Fatalf("edits %+v", edits)
	}
	// the question's text as the page shows it is taken as its id
	named := strings.Replace(good, `"q1"`, `"Does Alex take up what Sam just said?"`, 1)
	if _, err := annotate.Parse(flow, named); err != nil {
		t.Errorf("a question keyed by its text: %v", err)
	}
	for reply, why := range map[string]string{
		"The chatbot is relevant throughout.":                           "holds no JSON object",
		`{"turns": {"2": ` + yes + `}}`:                                 "turn 4 is not answered",
		strings.Replace(good, `"q3": 1}`, `"q3": 7}`, 1):                "q3: 7 is not one of its answers",
		strings.Replace(good, `"q2": "It stays`, `"q2": "It leaves`, 1): "q2: It leaves",
		`{"ratings": {}}`: `no "turns" object`,
	} {
		_, err := annotate.Parse(flow, reply)
		var re *annotate.ReplyError
		if !errors.As(err, &re) || !strings.Contains(re.Reason, why) {
			t.Errorf("%.60s: %v, want %q", reply, err, why)
		}
	}

	labels := samplePage(t, "consistency")
	if _, err := annotate.Parse(labels, `{"turns": {"2": ["Redundant"], "4": [], "6": ["repeats itself"], "8": []}}`); err == nil ||
		!strings.Contains(err.Error(), "turn 6: \"repeats itself\" is not a choice") {
		t.Errorf("an unknown label: %v", err)
	}
	edits, err = annotate.Parse(labels, `{"turns": {"2": ["redundant"], "4": [], "6": ["Contradicts what the chatbot said earlier"], "8": []}}`)
	if err != nil {
		t.Fatal(err)
	}
	on := 0
	for _, e := range edits {
		if e.Value == "on" {
			on++
		}
	}
	if on != 2 || len(edits) != 4*len(labels.Type.Choices) {
		t.Errorf("%d ticked in %d edits", on, len(edits))
	}

	ratings := samplePage(t, "dialogue_ratings")
	if _, err := annotate.Parse(ratings, `{"ratings": {"Relevant": 5, "Consistent": "4", "Quality": 2.5}}`); err == nil || !strings.Contains(err.Error(), `"Quality" wants a number from 1 to 5`) {
		t.Errorf("a rating of 2.5: %v", err)
	}
	if _, err := annotate.Parse(ratings, `{"ratings": {"Relevant": 5, "Consistent": "4", "Quality": 2}}`); err != nil {
		t.Error(err)
	}
}
