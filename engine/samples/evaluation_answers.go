package samples

import (
	"encoding/json"
	"fmt"
	"slices"
	"time"

	ev "github.com/agentdesk/agentdesk/engine/evaluation"
)

// The Evaluation sample's answers: two made-up annotators, Sample annotator Ada and Sample
// annotator Ben, each judged every chat and the pair once, so that Results and the agreement
// table have rows before anyone annotates. Ada's judgements follow what each chat was written
// to show; Ben agrees on most turns and differs where a person plausibly would (a borderline
// topic change, how cold a curt reply is, a rating a point apart). A third unit of every
// bundle stays open for the user.

// EvalAnnotators are the sample annotators' names.
var EvalAnnotators = []string{Marker + " annotator Ada", Marker + " annotator Ben"}

// judgement is one annotator's answers on one chatbot turn.
type judgement struct {
	// labels are the consistency problems ticked.
	labels []string
	// takesUp, direction and fits answer the relevance questions by the answer's index:
	// takes up (0 yes, 1 no), where it goes (0 builds on, 1 new subject, 2 neither), fits
	// (0 yes, 1 no).
	takesUp, direction, fits int
	// empathy: 0 with understanding, 1 without, 2 does not apply.
	empathy int
	// facts: -1 states none, else the accuracy answer (0 right, 1 wrong, 2 misleading).
	facts int
}

// fine is a turn with nothing wrong: it takes up, builds on and fits, no feelings, no facts.
func fine() judgement { return judgement{empathy: 2, facts: -1} }

// chatJudgement is an annotator's answers on one chat: a judgement per chatbot turn, in order,
// and the three ratings (relevant, consistent, quality) from 1 to 5.
type chatJudgement struct {
	turns   []judgement
	ratings [3]int
}

// evalJudgements are Ada's answers, by chat id.
func evalJudgements() map[string]chatJudgement {
	with := func(f func(*judgement)) judgement { j := fine(); f(&j); return j }
	return map[string]chatJudgement{
		Marker + "-weekend-good": {turns: []judgement{
			with(func(j *judgement) { j.empathy = 0 }),
			with(func(j *judgement) { j.facts = 0 }),
			fine(),
			with(func(j *judgement) { j.empathy = 0 }),
		}, ratings: [3]int{5, 5, 5}},
		Marker + "-weekend-repetitive": {turns: []judgement{
			fine(),
			with(func(j *judgement) { j.labels = []string{"redundant"}; j.takesUp, j.direction = 1, 2 }),
			with(func(j *judgement) { j.labels = []string{"redundant"} }),
		}, ratings: [3]int{3, 4, 2}},
		Marker + "-pets-contradiction": {turns: []judgement{
			fine(),
			with(func(j *judgement) { j.labels = []string{"self_contradiction"} }),
			with(func(j *judgement) { j.labels = []string{"self_contradiction"} }),
		}, ratings: [3]int{4, 1, 2}},
		Marker + "-eggs-ignoring": {turns: []judgement{
			with(func(j *judgement) { j.takesUp, j.direction, j.fits = 1, 1, 1 }),
			with(func(j *judgement) { j.takesUp, j.direction, j.fits, j.empathy = 1, 1, 1, 1 }),
			with(func(j *judgement) { j.direction, j.empathy = 2, 1 }),
		}, ratings: [3]int{1, 4, 1}},
		Marker + "-rome-wrong-facts": {turns: []judgement{
			with(func(j *judgement) { j.facts = 1 }),
			with(func(j *judgement) { j.facts = 1 }),
			with(func(j *judgement) { j.takesUp, j.direction, j.facts = 1, 1, 0 }),
		}, ratings: [3]int{3, 3, 2}},
		Marker + "-driving-test": {turns: []judgement{
			with(func(j *judgement) { j.empathy = 1 }),
			with(func(j *judgement) { j.empathy = 1 }),
			with(func(j *judgement) { j.takesUp, j.direction, j.fits, j.empathy = 1, 1, 1, 1 }),
		}, ratings: [3]int{3, 4, 2}},
	}
}

// benDiffers changes Ada's answers into Ben's, where Ben sees a chat differently.
func benDiffers(chat string, c *chatJudgement) {
	switch chat {
	case Marker + "-weekend-good":
		c.turns[1].facts = -1 // walking advice is not "facts" to Ben
		c.ratings[1] = 4
	case Marker + "-weekend-repetitive":
		c.turns[2].takesUp, c.turns[2].direction = 1, 2 // the third reply ignores the question too
		c.ratings = [3]int{2, 4, 1}
	case Marker + "-pets-contradiction":
		c.turns[1].labels = []string{"self_contradiction", "partner_contradiction"}
		c.ratings[0] = 3
	case Marker + "-eggs-ignoring":
		c.turns[2].empathy = 2 // "Have a nice day" is plain small talk to Ben
		c.ratings[1] = 3
	case Marker + "-rome-wrong-facts":
		c.turns[2].takesUp, c.turns[2].direction = 0, 0 // Ben reads the Trevi tip as staying on Rome
		c.ratings = [3]int{2, 2, 1}
	case Marker + "-driving-test":
		c.turns[0].empathy = 0 // "most people pass" meant kindly
		c.ratings[2] = 1
	}
}

// EvalAnswers are the sample annotators' finished attempts on project p (the project
// SampleChatEvaluation.toml holds, as stored), to import with the store's ImportEvalAttempts:
// one per annotator per bundle, in bundle order. passed is the qualification the screening
// grants (both annotators passed it).
func EvalAnswers(p *ev.Project, passed string) ([]ev.ImportedAttempt, error) {
	ada := evalJudgements()
	var out []ev.ImportedAttempt
	for k, who := range EvalAnnotators {
		day := time.Date(2026, 1, 12+k, 9, 0, 0, 0, time.UTC)
		for b, bundle := range p.Bundles {
			if len(bundle.Datapoints) != 1 {
				return nil, fmt.Errorf("bundle %d: %d datapoints, the sample has one", b+1, len(bundle.Datapoints))
			}
			dp := bundle.Datapoints[0]
			state := ev.NewAnswerState(who)
			answers := ev.NewAnswers(0)
			state.Dialogues[0] = answers
			at := day.Add(time.Duration(b) * 6 * time.Minute)
			for a, name := range dp.AnnotationTasks {
				t := p.Type(name)
				if t == nil {
					return nil, fmt.Errorf("bundle %d: no type %q", b+1, name)
				}
				state.PageShown(0, a, false, at)
				at = at.Add(time.Duration(40+15*((a+b+k)%4)) * time.Second)
				if err := answerPage(answers, t, dp, ada, k == 1); err != nil {
					return nil, fmt.Errorf("%s, %s: %w", dp.DialogueID, name, err)
				}
				state.PageDone(0, a, false, at)
			}
			state.LastIndex, state.LastAnnot = 0, len(dp.AnnotationTasks)-1
			stateJSON, err := json.Marshal(state)
			if err != nil {
				return nil, err
			}
			shown, _ := json.Marshal(ev.UnitOrder{Datapoints: []int{0}, Tasks: [][]string{slices.Clone(dp.AnnotationTasks)}})
			out = append(out, ev.ImportedAttempt{File: EvaluationFile, Participant: who, Kind: ev.UnitTask, Position: b,
				Shown: shown, State: stateJSON, Result: json.RawMessage(`{"completed":true}`), CompletedAt: at,
				Grant: map[string]int{passed: 1}})
		}
	}
	return out, nil
}

// answerPage answers type t on datapoint dp as Ada (or Ben, when ben).
func answerPage(a *ev.Answers, t *ev.AnnotationType, dp ev.Datapoint, ada map[string]chatJudgement, ben bool) error {
	if t.Display == ev.Comparative {
		// the good chat is on the left: both prefer it
		a.SetComparative(t, t.Comparisons[0])
		return nil
	}
	c, ok := ada[dp.DialogueID]
	if !ok {
		return fmt.Errorf("no answers written for %s", dp.DialogueID)
	}
	c.turns = slices.Clone(c.turns)
	for i := range c.turns {
		c.turns[i].labels = slices.Clone(c.turns[i].labels)
	}
	if ben {
		benDiffers(dp.DialogueID, &c)
	}
	if t.Display == ev.LikertDialogue {
		for i, s := range t.Scales {
			if err := a.SetDialogueLikert(s.Label, c.ratings[i]); err != nil {
				return err
			}
		}
		return nil
	}
	bot := 0
	for pos, turn := range dp.Turns {
		if turn.Speaker != "bot" {
			continue
		}
		if bot >= len(c.turns) {
			return fmt.Errorf("more chatbot turns than answers")
		}
		j := c.turns[bot]
		bot++
		ta := a.Turn(pos, turn)
		radio := func(q int, answer int) error {
			question := t.Flow[q]
			return ev.ApplyFlowClick(ta, t.Flow, ev.FlowClick{Kind: ev.ClickRadio, Question: question.Text, Answer: question.Answers[answer].Text})
		}
		var err error
		switch t.Name {
		case "consistency":
			a.SetLabels(t, pos, turn, j.labels)
		case "relevance":
			err = radio(0, j.takesUp)
			if err == nil {
				err = radio(1, j.direction)
			}
			if err == nil {
				err = radio(2, j.fits)
			}
		case "empathy":
			err = radio(0, j.empathy)
		case "facts":
			if j.facts >= 0 {
				states := t.Flow[0]
				err = ev.ApplyFlowClick(ta, t.Flow, ev.FlowClick{Kind: ev.ClickCheck, Question: states.Text, Answer: states.Answers[0].Text})
				if err == nil {
					accurate := states.Answers[0].Sub[0]
					err = ev.ApplyFlowClick(ta, t.Flow, ev.FlowClick{Kind: ev.ClickRadio, Question: accurate.Text, Answer: accurate.Answers[j.facts].Text})
				}
			}
		default:
			return fmt.Errorf("the sample has no answers for type %q", t.Name)
		}
		if err != nil {
			return err
		}
	}
	return nil
}
