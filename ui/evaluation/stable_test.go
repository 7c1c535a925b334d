package evaluation

import (
	"fmt"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/test"

	ev "github.com/agentdesk/agentdesk/engine/evaluation"
	"github.com/agentdesk/agentdesk/engine/evaluation/session"
	"github.com/agentdesk/agentdesk/ui/uitest"
)

// bounds are where each target is in the window, "" for one no longer on show.
func bounds(win fyne.Window, targets []fyne.CanvasObject) []string {
	out := make([]string, len(targets))
	for i, o := range targets {
		if r, _, ok := uitest.Locate(win, o); ok {
			out[i] = fmt.Sprintf("%.0f,%.0f %.0fx%.0f", r.Pos.X, r.Pos.Y, r.Size.Width, r.Size.Height)
		}
	}
	return out
}

// moved says which targets moved by more than a pixel between two records (rounded to pixels,
// so a move of exactly one pixel may show; more than one never hides).
func moved(before, after []string) []int {
	var out []int
	for i := range before {
		var x0, y0, w0, h0, x1, y1, w1, h1 float32
		fmt.Sscanf(before[i], "%f,%f %fx%f", &x0, &y0, &w0, &h0)
		fmt.Sscanf(after[i], "%f,%f %fx%f", &x1, &y1, &w1, &h1)
		if before[i] == "" || after[i] == "" || abs(x1-x0) > 1 || abs(y1-y0) > 1 || abs(w1-w0) > 1 || abs(h1-h0) > 1 {
			out = append(out, i)
		}
	}
	return out
}

func abs(f float32) float32 { return max(f, -f) }

// The tour's rule on the annotate task: every answer's bounds are recorded before and after
// each choice, and none moves by more than a pixel.
func TestEvaluationAnswersStayPut(t *testing.T) {
	skipUnderRace(t, "geometry of every page at every size, in one goroutine")
	for _, size := range taskSizes {
		w, win, _ := sampleWS(t, size)
		if err := w.StartTask(TaskAnnotate); err != nil {
			t.Fatal(err)
		}
		v, err := w.TaskView(TaskAnnotate)
		if err != nil || len(v.Targets) == 0 {
			t.Fatalf("no answers: %v", err)
		}
		for i := range v.Targets {
			before := bounds(win, v.Targets)
			v.Choose(i)
			if m := moved(before, bounds(win, v.Targets)); len(m) > 0 {
				t.Errorf("%.0fx%.0f: choosing answer %d moved answers %v: %v -> %v", size.Width, size.Height, i, m, before, bounds(win, v.Targets))
			}
		}
	}
}

// On every kind of rating page of the sample (per-turn labels, dialogue-level scales, the
// pairwise comparison, a turn-level scale) no answer moves when one is chosen, by mouse or by
// the number keys (which also move the focus on). On question flows the answers above the one
// chosen stay put (a chosen answer's follow-up question opens under it).
func TestEvaluationAnswersStayPutOnEveryPageKind(t *testing.T) {
	skipUnderRace(t, "geometry of every page at every size, in one goroutine")
	test.NewTempApp(t)
	p, _ := sampleDef(t)
	cat, _ := ev.Catalogue()
	var turnScale *ev.AnnotationType
	for _, d := range cat.Dimensions {
		turnScale = d.DimensionTypes()[1]
		break
	}
	pair := p.Bundles[len(p.Bundles)-1].Datapoints[0]
	single := p.Bundles[0].Datapoints[0]
	for _, c := range []struct {
		typ  *ev.AnnotationType
		dp   ev.Datapoint
		flow bool
	}{
		{p.Type("consistency"), single, false},
		{p.Type("dialogue_ratings"), single, false},
		{p.Type(pair.AnnotationTasks[0]), pair, false},
		{turnScale, single, false},
		{p.Type("relevance"), single, true},
	} {
		win := test.NewWindow(nil)
		win.Resize(fyne.NewSize(1024, 670))
		dp := c.dp
		ans := ev.NewAnswers(0)
		page := newEvalPage(win, &dp, c.typ, ans, false)
		sp := &session.Page{Datapoint: &dp, Type: c.typ, Answers: ans, Positions: page.positions, Feedback: -1}
		page.onEdit = func(e session.Edit) bool { _, _, err := sp.Apply(e); return err == nil }
		dialogue := page.content()
		win.SetContent(container.NewHSplit(dialogue, container.NewVScroll(page.dialogueBox)))
		page.setFocus(0)
		var all []fyne.CanvasObject
		var choose []func(int)
		collect := func() {
			all, choose = nil, nil
			for _, pos := range append([]int{-1}, page.positions...) {
				box := fyne.CanvasObject(page.dialogueBox)
				if pos >= 0 {
					box = page.boxes[pos]
				}
				ts, ch := answerTargets(box)
				for i := range ts {
					all = append(all, ts[i])
					choose = append(choose, func(int) { ch(i) })
				}
			}
		}
		collect()
		if len(all) == 0 {
			t.Fatalf("%s: no answers", c.typ.Name)
		}
		for i := range min(len(all), 12) {
			collect()
			before := bounds(win, all)
			choose[i](i)
			if c.flow {
				collect() // a flow's turn is built again with the follow-up question
			}
			after := bounds(win, all)
			for _, m := range moved(before, after[:min(len(after), len(before))]) {
				if !c.flow || m <= i {
					t.Errorf("%s: choosing answer %d moved answer %d: %s -> %s", c.typ.Name, i, m, before[m], after[m])
				}
			}
		}
		if len(page.slots) > 0 && page.slots[0].scale >= 0 {
			page.setFocus(0)
			collect()
			before := bounds(win, all)
			page.key(fyne.Key3) // answers the focused question and moves the focus on
			if m := moved(before, bounds(win, all)); len(m) > 0 {
				t.Errorf("%s: answering by key moved answers %v", c.typ.Name, m)
			}
		}
		win.Close()
	}
}

// Answering a page's dialogue-level questions by keys moves the focus down the side panel; the
// question the keys answer next is always in the panel's view, even where the panel cannot
// show all of them.
func TestEvaluationFocusedQuestionInView(t *testing.T) {
	w, win, _ := sampleWS(t, fyne.NewSize(820, 420))
	if err := w.StartTask(TaskResults); err != nil { // opens the sample project
		t.Fatal(err)
	}
	w.tabs.SelectIndex(0)
	p, _ := sampleDef(t)
	ratings := p.Type("dialogue_ratings")
	dp := p.Bundles[0].Datapoints[0]
	ans := ev.NewAnswers(0)
	pg := &session.Page{Datapoint: &dp, Type: ratings, Answers: ans, Positions: []int{}, Feedback: -1, Progress: "page"}
	s := w.session
	s.signIn("ada") // the training's first page; the page below is shown in its place
	s.view = session.View{Screen: session.ScreenPage, Page: pg}
	s.showPage(s.view)
	s.page.onEdit = func(e session.Edit) bool { _, _, err := pg.Apply(e); return err == nil }
	for i := range ratings.Scales {
		f := s.page.scaleFrames[evalSlot{-1, i}]
		if why := inView(win, f); why != "" {
			t.Fatalf("question %d, focused: %s", i+1, why)
		}
		s.page.key(fyne.Key4)
	}
	if len(ans.Likert) != len(ratings.Scales) {
		t.Fatalf("answers %v", ans.Likert)
	}
}
