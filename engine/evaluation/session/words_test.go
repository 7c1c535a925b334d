package session_test

import (
	"context"
	"path/filepath"
	"slices"
	"strconv"
	"testing"

	ev "github.com/agentdesk/agentdesk/engine/evaluation"
	"github.com/agentdesk/agentdesk/engine/evaluation/session"
	"github.com/agentdesk/agentdesk/engine/samples"
	"github.com/agentdesk/agentdesk/store"
)

const example = "../../../testdata/conformance/evaluation/example-project"

func internalNames(text string, p *ev.Project) []string { return session.InternalNames(text, p) }

// deskProjects are the sample projects an annotator at the desk is given.
func deskProjects(t *testing.T) map[string]*ev.Project {
	sample, err := samples.EvaluationProject()
	if err != nil {
		t.Fatal(err)
	}
	var dialogues []ev.Datapoint
	for i, texts := range [][]string{{"I lost my keys.", "Where did you see them last?", "At the bakery.", "Ask the baker."},
		{"I lost my keys.", "Keys are metal.", "Okay?", "Metal is shiny."}} {
		d := ev.Datapoint{DialogueID: "d" + strconv.Itoa(i)}
		for k, s := range texts {
			sp := "user"
			if k%2 == 1 {
				sp = "bot"
			}
			d.Turns = append(d.Turns, ev.Turn{Speaker: sp, Text: s})
		}
		dialogues = append(dialogues, d)
	}
	cat, err := ev.CatalogueProject("Catalogue study", dialogues, ev.CatalogueOptions{Behaviours: true, DialogueLikert: true,
		TurnLikert: true, Pairs: [][2]int{{0, 1}}})
	if err != nil {
		t.Fatal(err)
	}
	flags, _, err := ev.ImportOriginal(example, ev.ImportOptions{Config: "flags"})
	if err != nil {
		t.Fatal(err)
	}
	every, _, err := ev.ImportOriginal(example, ev.ImportOptions{Config: "flags"})
	if err != nil {
		t.Fatal(err)
	}
	every.Settings.UseScreening = false
	session.NameSpeakersEverywhere(every)
	var single, pair []string
	for _, ty := range every.Types {
		if ty.Display == ev.Comparative {
			pair = append(pair, ty.Name)
		} else {
			single = append(single, ty.Name)
		}
	}
	turns := every.Bundles[0].Datapoints[0].Turns
	every.Bundles = []ev.Bundle{{Datapoints: []ev.Datapoint{{DialogueID: "all", GroupID: "all", AnnotationTasks: single, Turns: turns}}},
		{Datapoints: []ev.Datapoint{{DialogueID: "pair", GroupID: "pair", AnnotationTasks: pair, Turns: turns, Turns2: turns}}}}
	every.Units = map[string]int{"all": 1, "pair": 1}
	return map[string]*ev.Project{"sample": sample, "catalogue": cat, "flags": flags, "every-type": every}
}

// What the desk shows of a session (the views' titles, texts, buttons and notices, and every
// text of every page: the type's name, instructions, questions, choices, scales, options,
// training explanations and correct selections) names the types by their display names and the
// speakers by their names, through a whole study: training with its mistakes and feedback,
// every unit's pages, the messages.
func TestDeskShowsNoInternalNames(t *testing.T) {
	for name, p := range deskProjects(t) {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			st, err := store.Open(filepath.Join(t.TempDir(), "desk.db"))
			if err != nil {
				t.Fatal(err)
			}
			defer st.Close()
			id, err := st.SaveEvalProject(ctx, p.Name, "created", "", p, "")
			if err != nil {
				t.Fatal(err)
			}
			saved, err := st.EvalProject(ctx, id)
			if err != nil {
				t.Fatal(err)
			}
			s := session.New(st, session.NewProject(id, p.Name, saved))
			s.Desk = true
			if err := s.SignIn(ctx, "annotator"); err != nil {
				t.Fatal(err)
			}
			screens := map[session.Screen]int{}
			feedback := 0
			for step := 0; ; step++ {
				if step > 2000 {
					t.Fatal("the study does not end")
				}
				v := s.View()
				screens[v.Screen]++
				texts := []string{v.Title, v.Text, v.Button, v.Notice, v.Due()}
				if v.Page != nil {
					texts = append(texts, v.Page.Texts()...)
					if v.Page.Feedback >= 0 {
						feedback++
					}
				}
				for _, text := range texts {
					if bad := internalNames(text, saved); len(bad) > 0 {
						t.Errorf("a %s screen shows %q: %q", v.Screen, bad, text)
					}
				}
				if v.Screen == session.ScreenMessage {
					if !v.More {
						break
					}
					if err := s.Continue(ctx); err != nil {
						t.Fatal(err)
					}
					continue
				}
				if v.Screen == session.ScreenPage {
					answer(t, s)
				}
				if err := s.Next(ctx); err != nil {
					t.Fatalf("next on %s: %v", v.Screen, err)
				}
			}
			if screens[session.ScreenPage] == 0 || (saved.Settings.UseScreening && (screens[session.ScreenTraining] == 0 || feedback == 0)) {
				t.Errorf("the study showed %v (%d feedback pages)", screens, feedback)
			}
		})
	}
}

// answer completes a page: a training page's editable turns get their truth (the first
// training conversation is left as it is, so that its mistakes show), other pages the first
// answer of every question until the page is complete.
func answer(t *testing.T, s *session.Session) {
	t.Helper()
	ctx := context.Background()
	edit := func(e session.Edit) {
		if err := s.Edit(ctx, e); err != nil {
			t.Fatalf("%+v: %v", e, err)
		}
	}
	if tr := s.Training(); tr != nil {
		if tr.Dialogue == 0 && tr.Step == ev.StepDialogue {
			return
		}
		pg := s.Page()
		for _, pos := range pg.Positions {
			truth := pg.Datapoint.Turns[pos].Truth
			if truth == nil || !pg.Editable(pos) {
				continue
			}
			for _, e := range truth.Entries {
				switch v := e.Value.(type) {
				case string:
					q := pg.Type.Flow.Find(e.Key)
					if v == "" || q == nil || pg.Answers.TurnAt(pos).String(e.Key) == v {
						continue
					}
					click := ev.ClickRadio
					if q.Checkbox {
						click = ev.ClickCheck
					}
					edit(session.Edit{Turn: pos, Kind: session.EditFlow, Key: e.Key, Value: v, Click: click})
				case []string:
					have := pg.Answers.TurnAt(pos).List(e.Key)
					for _, c := range pg.Type.Choices {
						if on := slices.Contains(v, c.Value); on != slices.Contains(have, c.Value) {
							edit(session.Edit{Turn: pos, Kind: session.EditLabel, Key: c.Value, Value: map[bool]string{true: "on", false: "off"}[on]})
						}
					}
				}
			}
		}
		return
	}
	for guard := 0; guard < 50; guard++ {
		pg := s.Page()
		if pg.Complete() {
			return
		}
		t0 := pg.Type
		done := false
		for _, pos := range pg.Positions {
			ta := pg.Answers.TurnAt(pos)
			switch {
			case t0.Display.IsFlow():
				var walk func(f ev.Flow) bool
				walk = func(f ev.Flow) bool {
					for _, q := range f {
						chosen := ta.String(q.Text)
						if !q.Checkbox && chosen == "" && len(q.Answers) > 0 {
							edit(session.Edit{Turn: pos, Kind: session.EditFlow, Key: q.Text, Value: q.Answers[0].Text, Click: ev.ClickRadio})
							return true
						}
						for _, a := range q.Answers {
							if a.Text == chosen && walk(a.Sub) {
								return true
							}
						}
					}
					return false
				}
				done = walk(t0.Flow) || done
			case t0.Display == ev.LikertTurn:
				for _, sc := range t0.Scales {
					if ta.String(sc.Label) == "" {
						edit(session.Edit{Turn: pos, Kind: session.EditScale, Key: sc.Label, Value: "3"})
						done = true
					}
				}
			case t0.Display == ev.ForeachSelect:
				for _, c := range t0.Choices {
					if ta.String(c.Value) == "" {
						edit(session.Edit{Turn: pos, Kind: session.EditScale, Key: c.Value, Value: "3"})
						done = true
					}
				}
			}
		}
		switch t0.Display {
		case ev.LikertDialogue:
			for _, sc := range t0.Scales {
				edit(session.Edit{Turn: -1, Kind: session.EditScale, Key: sc.Label, Value: "3"})
				done = true
			}
		case ev.ForeachSelectDialogue:
			for _, c := range t0.Choices {
				edit(session.Edit{Turn: -1, Kind: session.EditScale, Key: c.Label, Value: "3"})
				done = true
			}
		case ev.Comparative:
			edit(session.Edit{Turn: -1, Kind: session.EditComparative, Value: t0.Comparisons[0]})
			done = true
		}
		if !done {
			// Checkbox questions the type requires: tick the first answer of each.
			for _, pos := range pg.Positions {
				for _, q := range t0.Flow {
					if q.Checkbox && len(q.Answers) > 0 && pg.Answers.TurnAt(pos).String(q.Text) == "" {
						edit(session.Edit{Turn: pos, Kind: session.EditFlow, Key: q.Text, Value: q.Answers[0].Text, Click: ev.ClickCheck})
						done = true
					}
				}
				if t0.Display == ev.Multiselect && len(pg.Answers.TurnAt(pos).List(t0.LabelsKey())) == 0 {
					if cs := t0.ChoicesFor(pg.Datapoint.Turns[pos].AgentIdx()); len(cs) > 0 {
						edit(session.Edit{Turn: pos, Kind: session.EditLabel, Key: cs[0].Value, Value: "on"})
						done = true
					}
				}
			}
		}
		if !done {
			t.Fatalf("%s: nothing left to answer and the page is incomplete", t0.Name)
		}
	}
	t.Fatal("the page never completes")
}
