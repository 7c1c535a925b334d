package session

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	ev "github.com/agentdesk/agentdesk/engine/evaluation"
)

// ErrNotCorrected is returned by Next on a training feedback page whose turn still differs
// from the correct selection; the session's notice says what to do.
var ErrNotCorrected = ev.ErrNotCorrected

// startTraining opens a screening unit: the engine's TrainingFlow decides the pages.
func (s *Session) startTraining(ctx context.Context) error {
	tr := s.project.Def().Training
	var t *ev.AnnotationType
	if tr != nil {
		t = s.project.Def().Type(tr.TypeName)
	}
	if t == nil {
		return fmt.Errorf("this project's training is missing or names an unknown type; turn screening off in the project")
	}
	flow, err := ev.NewTrainingFlow(tr, s.project.Def().Settings.Grading)
	if err != nil {
		return err
	}
	if raw, ok := s.state.Extra[trainingKey]; ok {
		if err := json.Unmarshal(raw, flow); err != nil {
			return fmt.Errorf("unit %d: saved training: %w", s.unit.ID, err)
		}
		flow.Training = tr
	}
	// The flow's answer objects are the state's, so every answer lands in both.
	for k := range tr.Dialogues {
		if k >= len(flow.Answers) {
			continue
		}
		if a := s.state.Dialogues[k]; a != nil {
			flow.Answers[k] = a
		} else {
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
	return s.showTrainingStep(ctx)
}

// saveTraining records the flow in the answer state and saves it.
func (s *Session) saveTraining(ctx context.Context) error {
	b, err := json.Marshal(s.train)
	if err != nil {
		return err
	}
	s.state.Extra[trainingKey] = b
	setMistakes(s.state, s.train.Mistakes)
	if n := len(s.train.Grades); n > 0 {
		g := s.train.Grades[n-1]
		score := 0.0
		if g.Total > 0 {
			score = float64(g.Correct) / float64(g.Total)
		}
		s.state.Extra["lastIncorrectTurns"], _ = json.Marshal([]any{g.Mistakes, 0, score})
	}
	return s.saveProgress(ctx)
}

// setMistakes records the mistaken turn positions per training dialogue; nil removes them.
func setMistakes(st *ev.AnswerState, m [][]int) {
	if m == nil {
		delete(st.Extra, "mistakes")
		return
	}
	st.Extra["mistakes"], _ = json.Marshal(m)
}

// showTrainingStep shows the flow's current page.
func (s *Session) showTrainingStep(ctx context.Context) error {
	f := s.train
	s.i, s.a = f.Dialogue, 0
	switch f.Step {
	case ev.StepDialogue, ev.StepFeedback:
		return s.showPage(ctx)
	case ev.StepPassed, ev.StepFailed:
		return s.finishTraining(ctx)
	}
	button := "Next"
	switch f.Step {
	case ev.StepIntro:
		button = "Begin " + ev.DisplayName(f.Training.TypeName)
	case ev.StepMistakes:
		button = "Show the first mistake"
	case ev.StepInterlude:
		button = "Next conversation"
	}
	s.screen, s.title, s.text, s.button = ScreenTraining, "Training: "+ev.DisplayName(f.Training.TypeName), f.Message(), button
	s.disarm()
	return nil
}

// trainingNext is Next on any training page.
func (s *Session) trainingNext(ctx context.Context) error {
	f := s.train
	if f.Step == ev.StepDialogue {
		p := s.Page()
		if ok, _ := ev.IsComplete(p.Type, p.Answers, p.Positions); !ok {
			return ErrIncomplete
		}
		s.state.PageDone(s.i, 0, true, s.Now())
	}
	err := f.Next()
	if errors.Is(err, ev.ErrNotCorrected) {
		s.notice = "Not corrected yet: your answers on the highlighted turn still differ from the correct selection. Read the explanation and open the correct selection."
		return ErrNotCorrected
	}
	if err != nil {
		return err
	}
	s.notice = ""
	s.lastTurn = -1
	if err := s.saveTraining(ctx); err != nil {
		return err
	}
	return s.showTrainingStep(ctx)
}

// finishTraining submits the screening unit with its outcome: a pass grants the passed
// qualification, a failure the block qualification (spec §10, kept as the default).
func (s *Session) finishTraining(ctx context.Context) error {
	f := s.train
	delete(s.state.Extra, trainingKey)
	setMistakes(s.state, f.Mistakes)
	s.state.Extra["success"], _ = json.Marshal(f.Passed)
	state, err := json.Marshal(s.state)
	if err != nil {
		return err
	}
	result, _ := json.Marshal(map[string]any{"annotations": string(state), "mistakes": f.Mistakes,
		"success": f.Passed, "completed": true})
	grant := map[string]int{s.project.PassedName(): 1}
	if !f.Passed {
		grant = map[string]int{s.project.BlockName(): 1}
	}
	if err := s.st.CompleteEvalUnit(ctx, s.unit.ID, state, result, grant); err != nil {
		return err
	}
	s.train = nil
	if f.Passed {
		s.screen, s.title, s.text, s.button = ScreenTraining, "Congratulations!", f.Message(), "Start the real work"
		s.more = true
		return nil
	}
	s.showMessage("Training", f.Message()+" You cannot work on this project; an administrator can lift this in the Results tab.", false)
	return nil
}
