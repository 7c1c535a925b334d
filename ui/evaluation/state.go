package evaluation

import (
	"encoding/json"

	ev "github.com/agentdesk/agentdesk/engine/evaluation"
)

// answerState is a unit's answer state as the store keeps it: the engine's AnswerState (the
// original's shape, spec §11), whose Extra holds the keys a screening or collection unit adds
// at the same level: the training's mistakes and the session bookkeeping that lets a unit
// resume where it stopped.
type answerState struct {
	*ev.AnswerState
}

func newAnswerState(worker string) *answerState {
	st := ev.NewAnswerState(worker)
	st.Extra = map[string]json.RawMessage{}
	return &answerState{AnswerState: st}
}

// answers returns the answer object of dialogue i, creating it.
func (s *answerState) answers(i int) *ev.Answers { return s.Dialogue(i) }

// dialogueData returns Answers.Data of dialogue i (nil when nothing was answered), the shape
// grading takes.
func (s *answerState) dialogueData(i int) map[string]ev.TurnAnswers {
	if a := s.Dialogues[i]; a != nil {
		return a.Data
	}
	return nil
}

// setMistakes records the mistaken turn positions per training dialogue (screening units);
// nil removes them.
func (s *answerState) setMistakes(m [][]int) {
	if m == nil {
		delete(s.Extra, "mistakes")
		return
	}
	s.Extra["mistakes"], _ = json.Marshal(m)
}

func (s *answerState) UnmarshalJSON(b []byte) error {
	st := ev.NewAnswerState("")
	if err := json.Unmarshal(b, st); err != nil {
		return err
	}
	if st.Extra == nil {
		st.Extra = map[string]json.RawMessage{}
	}
	s.AnswerState = st
	return nil
}
