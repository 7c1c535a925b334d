package evaluation

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/widget"

	"github.com/agentdesk/agentdesk/engine/evaluation/session"
	"github.com/agentdesk/agentdesk/engine/samples"
	"github.com/agentdesk/agentdesk/ui/workspace"
)

// The workspace's main tasks (workspace.Tasks), on the sample project: rating a page at the
// desk, serving the study, reading the agreement.
const (
	TaskAnnotate = "evaluation.annotate"
	TaskServe    = "evaluation.serve"
	TaskResults  = "evaluation.results"
)

// sampleAnnotator is who annotates the sample at the desk when a task asks for a rating page.
const sampleAnnotator = "sample-annotator"

// TaskNames implements workspace.Tasks.
func (w *Workspace) TaskNames() []string { return []string{TaskAnnotate, TaskServe, TaskResults} }

// StartTask implements workspace.Tasks: it opens the sample project and goes to a rating page
// (signing in the sample annotator, through the screening's opening pages), the Serve tab (with
// links for the project's participants) or the Results tab (its agreement computed).
func (w *Workspace) StartTask(name string) error {
	if w.store == nil {
		return errors.New("no store is open")
	}
	id, err := w.sampleProject()
	if err != nil {
		return err
	}
	if w.open == nil || w.open.info.ID != id {
		w.openProject(id)
		if w.open == nil {
			return fmt.Errorf("the sample project %d could not be opened", id)
		}
	}
	ctx := w.ctx()
	switch name {
	case TaskAnnotate:
		w.tabs.SelectIndex(0)
		s := w.session
		if s.page == nil {
			if s.core.Participant().ID == 0 {
				s.signIn(sampleAnnotator)
			}
			// The training's opening page and a message offering more work lead on to a page.
			for range 4 {
				v := s.core.View()
				if s.page != nil || !(v.Screen == session.ScreenTraining || v.Screen == session.ScreenMessage && v.More) {
					break
				}
				s.act(s.core.Next(ctx))
			}
		}
		if s.page == nil {
			return fmt.Errorf("the sample project shows no rating page: %s", s.core.View().Text)
		}
	case TaskServe:
		w.tabs.SelectIndex(2)
		t := w.serve
		if len(t.links) == 0 {
			ps, err := w.store.EvalParticipants(ctx, id)
			if err != nil {
				return err
			}
			ids := sampleAnnotator
			if len(ps) > 0 {
				ids = ""
				for i, p := range ps {
					if i > 0 {
						ids += ", "
					}
					ids += p.Name
				}
			}
			t.ids.SetText(ids)
			t.makeLinks()
		}
	case TaskResults:
		w.tabs.SelectIndex(1)
		d := w.dash
		d.views.SelectIndex(0)
		if d.stats == nil && d.cancelStats == nil {
			d.reload()
			d.computeStats()
		}
	default:
		return fmt.Errorf("the Evaluation workspace has no task %q", name)
	}
	return nil
}

// sampleProject is the id of the sample evaluation project (loaded from the samples' project
// file).
func (w *Workspace) sampleProject() (int64, error) {
	ps, err := w.store.EvalProjects(context.Background())
	if err != nil {
		return 0, err
	}
	for _, p := range ps {
		if filepath.Base(p.Source) == samples.EvaluationFile {
			return p.ID, nil
		}
	}
	return 0, errors.New("the sample evaluation project is not in the store (load the sample data)")
}

// TaskView implements workspace.Tasks.
func (w *Workspace) TaskView(name string) (workspace.TaskView, error) {
	var v workspace.TaskView
	if w.open == nil {
		return v, errors.New("no project is open")
	}
	switch name {
	case TaskAnnotate:
		s := w.session
		if s.page == nil {
			return v, errors.New("no rating page is on show")
		}
		p := s.page
		turn := p.focusedTurn()
		var dialogue fyne.CanvasObject = p.bubbles[turn]
		var choices fyne.CanvasObject = p.boxes[turn]
		if turn < 0 || choices == nil {
			dialogue, choices = p.firstTurn, p.dialogueBox
		}
		v.Widgets = map[string]fyne.CanvasObject{"next": s.next, "dialogue": dialogue, "choices": choices}
		v.Targets, v.Choose = answerTargets(choices)
	case TaskServe:
		v.Widgets = map[string]fyne.CanvasObject{"serve-button": w.serve.toggle, "links-table": w.serve.table}
	case TaskResults:
		v.Widgets = map[string]fyne.CanvasObject{"agreement-table": w.dash.agreement}
	default:
		return v, fmt.Errorf("the Evaluation workspace has no task %q", name)
	}
	return v, nil
}

// answerTargets are the answers under o a person clicks (checkboxes, and each question's
// choices), and the function that chooses the i-th as a click would.
func answerTargets(o fyne.CanvasObject) ([]fyne.CanvasObject, func(int)) {
	var targets []fyne.CanvasObject
	var choose []func()
	var walk func(fyne.CanvasObject)
	walk = func(o fyne.CanvasObject) {
		switch x := o.(type) {
		case *widget.Check:
			targets = append(targets, x)
			choose = append(choose, func() { x.SetChecked(!x.Checked) })
			return
		case *widget.RadioGroup:
			targets = append(targets, x)
			choose = append(choose, func() {
				next := x.Options[len(x.Options)/2]
				if x.Selected == next {
					next = x.Options[0]
				}
				x.SetSelected(next)
			})
			return
		case *fyne.Container:
			for _, c := range x.Objects {
				walk(c)
			}
		case *widget.Accordion:
			for _, it := range x.Items {
				if it.Open {
					walk(it.Detail)
				}
			}
		}
	}
	if o != nil {
		walk(o)
	}
	return targets, func(i int) {
		if i >= 0 && i < len(choose) {
			choose[i]()
		}
	}
}
