package evaluation

import (
	"encoding/json"
	"errors"
	"fmt"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	ev "github.com/agentdesk/agentdesk/engine/evaluation"
)

// trainingKey is the answer-state key holding the training's flow (step, dialogue, feedback
// position), so that a session resumes in the middle of feedback.
const trainingKey = "agentdeskTraining"

// startTraining opens a screening unit: the engine's TrainingFlow decides the pages, the
// session shows them with the usual widgets.
func (s *evalSession) startTraining() {
	tr := s.op.p.Training
	t := (*ev.AnnotationType)(nil)
	if tr != nil {
		t = s.op.p.Type(tr.TypeName)
	}
	if t == nil {
		s.fail(fmt.Errorf("this project's training is missing or names an unknown type; turn screening off in the project"))
		return
	}
	flow, err := ev.NewTrainingFlow(tr, s.op.p.Settings.Grading)
	if err != nil {
		s.fail(err)
		return
	}
	if raw, ok := s.state.Extra[trainingKey]; ok {
		if err := json.Unmarshal(raw, flow); err != nil {
			s.fail(fmt.Errorf("unit %d: saved training: %w", s.unit.ID, err))
			return
		}
		flow.Training = tr
	}
	// The flow's answer objects are the state's, so every answer lands in both.
	for k := range tr.Dialogues {
		if a := s.state.Dialogues[k]; a != nil {
			if k < len(flow.Answers) {
				flow.Answers[k] = a
			}
		} else if k < len(flow.Answers) {
			s.state.Dialogues[k] = flow.Answers[k]
		}
	}
	s.train = flow
	s.dps, s.types = nil, nil
	for _, d := range tr.Dialogues {
		s.dps = append(s.dps, ev.Datapoint{DialogueID: d.DialogueID, AnnotationTasks: []string{tr.TypeName},
			Turns: d.Turns, BotPersona: d.BotPersona})
		s.types = append(s.types, []*ev.AnnotationType{t})
	}
	s.lastTurn = s.unit.LastTurn
	s.showTrainingStep()
}

// saveTraining records the flow in the answer state and saves it.
func (s *evalSession) saveTraining() {
	b, err := json.Marshal(s.train)
	if err != nil {
		s.fail(err)
		return
	}
	s.state.Extra[trainingKey] = b
	s.state.setMistakes(s.train.Mistakes)
	if n := len(s.train.Grades); n > 0 {
		g := s.train.Grades[n-1]
		score := 0.0
		if g.Total > 0 {
			score = float64(g.Correct) / float64(g.Total)
		}
		s.state.Extra["lastIncorrectTurns"], _ = json.Marshal([]any{g.Mistakes, 0, score})
	}
	s.saveProgress()
}

// showTrainingStep shows the flow's current page.
func (s *evalSession) showTrainingStep() {
	f := s.train
	s.i, s.a = f.Dialogue, 0
	switch f.Step {
	case ev.StepDialogue:
		s.showPage()
	case ev.StepFeedback:
		pos, _, _, _ := f.FeedbackTurn()
		s.lastTurn = pos
		s.showPage()
	case ev.StepPassed, ev.StepFailed:
		s.finishTraining()
	default:
		button := "Next"
		switch f.Step {
		case ev.StepIntro:
			button = "Begin " + ev.TrainingDisplayName(f.Training.TypeName)
		case ev.StepMistakes:
			button = "Show the first mistake"
		case ev.StepInterlude:
			button = "Next conversation"
		}
		s.trainingPage("Training: "+ev.TrainingDisplayName(f.Training.TypeName), f.Message(), button, s.trainingNext)
	}
}

// applyFeedback limits the page to the mistaken turn under correction, with its explanation
// and the correct selection.
func (s *evalSession) applyFeedback() {
	pos, why, correct, ok := s.train.FeedbackTurn()
	if !ok {
		return
	}
	s.page.setFeedback([]int{pos}, map[int]string{pos: why}, map[int]*ev.Truth{pos: correct})
}

// trainingPage is one of the training's text pages with a single button.
func (s *evalSession) trainingPage(title, text, button string, next func()) {
	s.page, s.next = nil, nil
	t := widget.NewLabelWithStyle(title, fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	t.SizeName = theme.SizeNameSubHeadingText
	l := widget.NewLabel(text)
	l.Wrapping = fyne.TextWrapWord
	b := widget.NewButtonWithIcon(button, theme.NavigateNextIcon(), next)
	b.Importance = widget.HighImportance
	s.set(container.NewCenter(container.NewGridWrap(fyne.NewSize(640, 260), container.NewVBox(t, l, container.NewHBox(b)))))
	s.enter = next
	s.focusKeys()
}

// trainingNext is Next on any training page.
func (s *evalSession) trainingNext() {
	f := s.train
	if f.Step == ev.StepDialogue {
		if ok, _ := ev.IsComplete(s.page.typ, s.page.ans, s.page.positions); !ok {
			return
		}
		s.state.PageDone(s.i, 0, true, s.now())
	}
	err := f.Next()
	if errors.Is(err, ev.ErrNotCorrected) {
		s.pageText.SetText("Not corrected yet: your answers on the highlighted turn still differ from the correct selection. Read the explanation and open the correct selection.")
		s.pageText.Importance = widget.DangerImportance
		s.pageText.Refresh()
		return
	}
	if err != nil {
		s.fail(err)
		return
	}
	s.lastTurn = -1
	s.saveTraining()
	s.showTrainingStep()
}

// finishTraining submits the screening unit with its outcome: a pass grants the passed
// qualification, a failure the block qualification (spec §10, kept as the default).
func (s *evalSession) finishTraining() {
	f := s.train
	delete(s.state.Extra, trainingKey)
	s.state.setMistakes(f.Mistakes)
	s.state.Extra["success"], _ = json.Marshal(f.Passed)
	state, err := json.Marshal(s.state)
	if err != nil {
		s.fail(err)
		return
	}
	result, _ := json.Marshal(map[string]any{"annotations": string(state), "mistakes": f.Mistakes,
		"success": f.Passed, "completed": true})
	grant := map[string]int{s.passedName(): 1}
	if !f.Passed {
		grant = map[string]int{s.blockName(): 1}
	}
	if err := s.ws.store.CompleteEvalUnit(s.ws.ctx(), s.unit.ID, state, result, grant); err != nil {
		s.fail(err)
		return
	}
	s.train = nil
	if f.Passed {
		s.trainingPage("Congratulations!", f.Message(), "Start the real work", s.continueWork)
		return
	}
	s.page, s.next = nil, nil
	s.showMessage(f.Message()+" You cannot work on this project; an administrator can lift this in the Results tab.", false)
}
