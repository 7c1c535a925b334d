package evaluation

import (
	"errors"
	"fmt"
	"strings"
)

// DisplayName is the name pages and headings use for a type title: the original's names for
// its built-in types, the label of a catalogue dimension for its types ("emotion_likert" is
// "Emotion Aware: rating"), else the title made readable ("dialogue_ratings" is "Dialogue
// ratings", "quality_comparative" is "Quality: comparison"); the title itself stays the
// storage key.
func DisplayName(title string) string {
	switch title {
	case "grammar":
		return "Interpretability"
	case "consistency_label":
		return "Consistency"
	case "sociality":
		return "Antisocial"
	case "transitions":
		return "Transitions"
	case "commonsense":
		return "Common Knowledge"
	case "knowledge":
		return "Knowledge"
	case "empathy":
		return "Empathy"
	case "personal_information":
		return "Personal Information"
	}
	// The catalogue's dimension types are "<stem>_likert", "<stem>_likert_turn" and
	// "<stem>_comparative".
	stem, kind := title, ""
	for _, k := range []struct{ suffix, kind string }{{"_likert_turn", "rating per turn"}, {"_likert", "rating"}, {"_comparative", "comparison"}} {
		if s, ok := strings.CutSuffix(title, k.suffix); ok && s != "" {
			stem, kind = s, k.kind
			break
		}
	}
	if kind != "" {
		// A catalogue dimension's types are named by the dimension's label ("Emotion Aware").
		if c, err := Catalogue(); err == nil {
			for _, d := range c.Dimensions {
				if d.Stem == stem && d.Label != "" {
					return d.Label + ": " + kind
				}
			}
		}
	}
	words := strings.Join(strings.FieldsFunc(stem, func(r rune) bool { return r == '_' || r == '-' }), " ")
	if words == "" {
		return title
	}
	words = strings.ToUpper(words[:1]) + words[1:]
	if kind != "" {
		return words + ": " + kind
	}
	return words
}

// TrainingStep is the kind of page a training shows.
type TrainingStep string

// Training pages, in the order of spec §10.
const (
	// StepIntro: three training conversations with feedback, the third graded; "Begin <Type>".
	StepIntro TrainingStep = "intro"
	// StepDialogue: the participant annotates training dialogue k like a normal page.
	StepDialogue TrainingStep = "dialogue"
	// StepMistakes: "You made N mistakes on the last <Type> training round…".
	StepMistakes TrainingStep = "mistakes"
	// StepFeedback: one mistaken turn highlighted and editable, with the explanation and the
	// correct selection; Next only once the turn grades as correct.
	StepFeedback TrainingStep = "feedback"
	// StepInterlude: "Good work!" after the first dialogue, "Test Round!" after the second.
	StepInterlude TrainingStep = "interlude"
	// StepFailed: "Better luck next time" (the third dialogue failed; no feedback).
	StepFailed TrainingStep = "failed"
	// StepPassed: "Congratulations! You passed the training…".
	StepPassed TrainingStep = "passed"
)

// ErrNotCorrected is returned by TrainingFlow.Next on a feedback page whose turn still grades
// as wrong (the original's alert that the answers were not properly corrected).
var ErrNotCorrected = errors.New("the answers on the highlighted turn are not corrected yet")

// TrainingFlow walks a participant through a screening (spec §10): three dialogues, grading on
// each Next, feedback and correction of every mistaken turn, and the pass rule on the third
// dialogue. The UI edits Answers[Dialogue] with the usual widgets and calls Next; the flow is a
// plain value the store can persist as JSON (Training is not part of it: set it again after
// decoding).
type TrainingFlow struct {
	Training *Training    `json:"-"`
	Mode     GradingMode  `json:"mode"`
	Step     TrainingStep `json:"step"`
	// Dialogue is the current training dialogue (0..2).
	Dialogue int `json:"dialogue"`
	// Feedback is the position in Mistakes[Dialogue] of the turn on a feedback page.
	Feedback int `json:"feedback"`
	// Answers are the answer objects of the three dialogues.
	Answers []*Answers `json:"answers"`
	// Mistakes are the mistaken positions of each graded dialogue (the original's mistakes).
	Mistakes [][]int `json:"mistakes"`
	// Grades are the per-dialogue results (lastIncorrectTurns of the snapshots).
	Grades []DialogueGrade `json:"grades"`
	// Passed is set when the third dialogue was graded.
	Passed bool `json:"passed"`
}

// NewTrainingFlow starts a training at its intro page.
func NewTrainingFlow(tr *Training, mode GradingMode) (*TrainingFlow, error) {
	if tr == nil || len(tr.Dialogues) != 3 {
		return nil, fmt.Errorf("a training has exactly three dialogues")
	}
	f := &TrainingFlow{Training: tr, Mode: mode, Step: StepIntro, Mistakes: [][]int{}}
	for k := range tr.Dialogues {
		f.Answers = append(f.Answers, NewAnswers(k))
	}
	return f, nil
}

// Done reports whether the training is over (passed or failed page shown).
func (f *TrainingFlow) Done() bool { return f.Step == StepPassed || f.Step == StepFailed }

// CurrentDialogue returns the training dialogue being annotated or reviewed.
func (f *TrainingFlow) CurrentDialogue() *TrainingDialogue { return &f.Training.Dialogues[f.Dialogue] }

// FeedbackTurn returns, on a feedback page, the highlighted position, its explanation and the
// answer shown as "correct selection".
func (f *TrainingFlow) FeedbackTurn() (pos int, explanation string, correct *Truth, ok bool) {
	if f.Step != StepFeedback {
		return 0, "", nil, false
	}
	pos = f.Mistakes[f.Dialogue][f.Feedback]
	t := f.CurrentDialogue().Turns[pos]
	if t.Explanation != nil {
		explanation = *t.Explanation
	}
	if t.Truth != nil {
		correct = t.Truth.CorrectSelection()
	}
	return pos, explanation, correct, true
}

// Message is the text of the current page (the UI adds the widgets). The mistakes page shows
// the real pass threshold (quirk 5: the original always said 1).
func (f *TrainingFlow) Message() string {
	name := DisplayName(f.Training.TypeName)
	switch f.Step {
	case StepIntro:
		return fmt.Sprintf("You will now annotate three training conversations for %s, with feedback after each. The third one is graded. Begin %s.", name, name)
	case StepDialogue:
		return fmt.Sprintf("Training conversation %d of 3", f.Dialogue+1)
	case StepMistakes:
		return fmt.Sprintf("You made %s on the last %s training round. Your goal is to make no more than %s per training round.",
			plural(len(f.Mistakes[f.Dialogue]), "mistake"), name, plural(f.Training.Dialogues[2].PassCriteria, "mistake"))
	case StepFeedback:
		return fmt.Sprintf("You are on feedback %d out of %d", f.Feedback+1, len(f.Mistakes[f.Dialogue]))
	case StepInterlude:
		if f.Dialogue == 0 {
			if len(f.Mistakes[0]) == 0 {
				return "Good work! You got a perfect score. On to the next training conversation."
			}
			return "Good work! On to the next training conversation."
		}
		return "Test Round! The next conversation is graded: it decides whether you can work on this task."
	case StepFailed:
		return fmt.Sprintf("Better luck next time. You made %s in the graded conversation; at most %d %s allowed.",
			plural(len(f.Mistakes[2]), "mistake"), f.Training.Dialogues[2].PassCriteria, map[bool]string{true: "was", false: "were"}[f.Training.Dialogues[2].PassCriteria == 1])
	case StepPassed:
		return fmt.Sprintf("Congratulations! You passed the %s training and can now work on the real task.", name)
	}
	return ""
}

// Next advances the training by one page. On a dialogue page it grades the dialogue; on a
// feedback page it refuses (ErrNotCorrected) until the highlighted turn grades as correct.
// On the third dialogue a failure skips feedback and ends the training.
func (f *TrainingFlow) Next() error {
	switch f.Step {
	case StepIntro:
		f.Step, f.Dialogue = StepDialogue, 0
	case StepDialogue:
		d := f.CurrentDialogue()
		g := GradeDialogue(d.Turns, f.Answers[f.Dialogue].Data, f.Mode)
		f.Grades = append(f.Grades, g)
		f.Mistakes = append(f.Mistakes, g.Mistakes)
		if f.Dialogue == 2 {
			f.Passed = TrainingPassed(g.Mistakes, d.PassCriteria)
			if !f.Passed {
				f.Step = StepFailed
				return nil
			}
		}
		if len(g.Mistakes) > 0 {
			f.Step = StepMistakes
		} else {
			f.afterFeedback()
		}
	case StepMistakes:
		f.Step, f.Feedback = StepFeedback, 0
	case StepFeedback:
		pos := f.Mistakes[f.Dialogue][f.Feedback]
		tg := GradeTurn(pos, f.Answers[f.Dialogue].Data, f.CurrentDialogue().Turns[pos].Truth, f.Mode)
		if !tg.Correct {
			return ErrNotCorrected
		}
		if f.Feedback+1 < len(f.Mistakes[f.Dialogue]) {
			f.Feedback++
		} else {
			f.afterFeedback()
		}
	case StepInterlude:
		f.Step, f.Dialogue = StepDialogue, f.Dialogue+1
	case StepPassed, StepFailed:
		return fmt.Errorf("the training is over")
	}
	return nil
}

func (f *TrainingFlow) afterFeedback() {
	if f.Dialogue == 2 {
		f.Step = StepPassed
	} else {
		f.Step = StepInterlude
	}
}
