package evaluation

import (
	"errors"
	"strings"
	"testing"
)

// answerTruths fills the training dialogue's answers with its truths (the correct answers),
// except the listed positions, which are left unanswered.
func answerTruths(a *Answers, d *TrainingDialogue, skip ...int) {
	for p, turn := range d.Turns {
		if turn.Truth == nil {
			continue
		}
		skipped := false
		for _, s := range skip {
			skipped = skipped || s == p
		}
		if skipped {
			continue
		}
		e := a.Turn(p, turn)
		for _, te := range turn.Truth.Entries {
			if s, ok := te.Value.(string); ok && s != "" {
				e[te.Key] = s
			}
		}
	}
}

func TestTrainingFlowPassWithFeedback(t *testing.T) {
	p, _ := importExample(t, "flags")
	f, err := NewTrainingFlow(p.Training, Compatible)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(f.Message(), "Begin Flags") {
		t.Errorf("intro %q", f.Message())
	}
	f.Next()
	// dialogue 1: nothing answered → the rude turn (3) is a mistake
	f.Next()
	if f.Step != StepMistakes || len(f.Mistakes[0]) != 1 || f.Mistakes[0][0] != 3 {
		t.Fatalf("step %s mistakes %v", f.Step, f.Mistakes)
	}
	if !strings.Contains(f.Message(), "You made 1 mistake on") || !strings.Contains(f.Message(), "no more than 1 mistake per") {
		t.Errorf("mistakes page %q", f.Message())
	}
	f.Next()
	pos, expl, correct, ok := f.FeedbackTurn()
	if !ok || pos != 3 || expl != "Mocking the partner is rude." || correct.Entries[0].Key != "rude_q" {
		t.Fatalf("feedback %d %q %+v", pos, expl, correct)
	}
	if err := f.Next(); !errors.Is(err, ErrNotCorrected) {
		t.Fatalf("uncorrected turn accepted: %v", err)
	}
	d := f.CurrentDialogue()
	ApplyFlowClick(f.Answers[0].Turn(3, d.Turns[3]), p.Type("flags").Flow, FlowClick{ClickCheck, "rude_q", "The reply is rude."})
	if err := f.Next(); err != nil {
		t.Fatal(err)
	}
	if f.Step != StepInterlude || !strings.HasPrefix(f.Message(), "Good work!") {
		t.Fatalf("after feedback: %s %q", f.Step, f.Message())
	}
	f.Next()
	answerTruths(f.Answers[1], f.CurrentDialogue())
	f.Next()
	if f.Step != StepInterlude || !strings.HasPrefix(f.Message(), "Test Round!") {
		t.Fatalf("after a perfect second dialogue: %s", f.Step)
	}
	f.Next()
	// third: one mistake allowed (pass_criteria 1): leave turn 7 unanswered
	answerTruths(f.Answers[2], f.CurrentDialogue(), 7)
	f.Next()
	if !f.Passed || f.Step != StepMistakes {
		t.Fatalf("passed %v step %s", f.Passed, f.Step)
	}
	f.Next()
	ApplyFlowClick(f.Answers[2].Turn(7, f.CurrentDialogue().Turns[7]), p.Type("flags").Flow, FlowClick{ClickCheck, "offtopic_q", "The reply is off-topic."})
	if err := f.Next(); err != nil {
		t.Fatal(err)
	}
	if f.Step != StepPassed || !f.Done() {
		t.Fatalf("end %s", f.Step)
	}
}

func TestTrainingFlowFailSkipsFeedback(t *testing.T) {
	p, _ := importExample(t, "flags")
	f, _ := NewTrainingFlow(p.Training, Compatible)
	for f.Dialogue < 2 || f.Step != StepDialogue {
		if f.Step == StepDialogue {
			answerTruths(f.Answers[f.Dialogue], f.CurrentDialogue())
		}
		if err := f.Next(); err != nil {
			t.Fatal(err)
		}
	}
	f.Next() // nothing answered on the graded dialogue: turns 1 and 7 are wrong
	if f.Passed || f.Step != StepFailed || len(f.Mistakes[2]) != 2 {
		t.Fatalf("passed %v step %s mistakes %v", f.Passed, f.Step, f.Mistakes)
	}
	if !strings.Contains(f.Message(), "Better luck next time") {
		t.Error(f.Message())
	}
	if f.Next() == nil {
		t.Error("a finished training went on")
	}
}

// Type titles are storage keys; pages and headings show them as words (issue #26: the sample
// showed "dialogue_ratings" and "quality_comparative" as headings).
func TestDisplayName(t *testing.T) {
	for title, want := range map[string]string{
		"grammar": "Interpretability", "mine": "Mine", "dialogue_ratings": "Dialogue ratings",
		"quality_comparative": "Quality: comparison", "relevant_likert": "Relevant: rating",
		"engaging_likert_turn": "Engaging: rating per turn", "consistency": "Consistency", "_": "_",
		"emotion_comparative": "Emotion Aware: comparison", "my_own_likert": "My own: rating",
	} {
		if got := DisplayName(title); got != want {
			t.Errorf("DisplayName(%q) = %q, want %q", title, got, want)
		}
	}
}

// The instructions name the speakers: no literal SPEAKER_X or SPEAKER_Y reaches a page.
func TestInstructionsNameTheSpeakers(t *testing.T) {
	c, err := Catalogue()
	if err != nil {
		t.Fatal(err)
	}
	for _, ty := range c.BehaviourTypes {
		got := ty.Instructions(false)
		if strings.Contains(got, "SPEAKER_") {
			t.Errorf("%s: %q", ty.Name, got)
		}
		if ty.Name == "consistency" && !strings.Contains(got, "what Sam said") {
			t.Errorf("consistency: the partner of the chatbot's turns is Sam: %q", got)
		}
	}
	d := &AnnotationType{Display: LikertDialogue, Description: "How does SPEAKER_X treat SPEAKER_Y?"}
	if got := d.Instructions(true); got != "How does your partner treat you?" {
		t.Errorf("collection: %q", got)
	}
}

// Names put in read as English: capitalised at the start of a sentence, "you's" is "your";
// on a collected conversation the turns' names are those its bubbles show.
func TestSubstituteReadsAsEnglish(t *testing.T) {
	x, y := TurnSpeakers(1, true)
	for in, want := range map[string]string{
		"SPEAKER_X shares a preference.":                  "Your partner shares a preference.",
		"How does SPEAKER_X treat SPEAKER_Y's feelings?":  "How does your partner treat your feelings?",
		"Is SPEAKER_X's reply polite? SPEAKER_Y asked it": "Is your partner's reply polite? You asked it",
		"SPEAKER X stays":                                 "SPEAKER X stays",
	} {
		if got := Substitute(in, x, y); got != want {
			t.Errorf("Substitute(%q) = %q, want %q", in, got, want)
		}
	}
	if x, y := TurnSpeakers(1, false); x != "Alex" || y != "Sam" {
		t.Errorf("static annotation: %s, %s", x, y)
	}
	if x, y := TurnSpeakers(0, true); x != "you" || y != "your partner" {
		t.Errorf("the participant's own turn: %s, %s", x, y)
	}
}
