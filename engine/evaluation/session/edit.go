package session

import (
	"fmt"
	"slices"
	"strconv"

	ev "github.com/agentdesk/agentdesk/engine/evaluation"
)

// EditKind names what an answer edit does.
type EditKind string

// The edits a page takes: every widget of every display answers through one of them.
const (
	// EditLabel ticks (Value "on") or unticks (Value "off") the choice Key of a multiselect
	// turn.
	EditLabel EditKind = "label"
	// EditScale answers the 1-5 scale Key (a Likert scale's label, a foreach choice's value
	// on a turn or label on the dialogue) with Value.
	EditScale EditKind = "scale"
	// EditComparative chooses the option Value of a comparative page.
	EditComparative EditKind = "comparative"
	// EditFlow clicks answer Value of the flow question Key (Click: radio, check, uncheck).
	EditFlow EditKind = "flow"
)

// Edit is one answer given on a page: what the participant clicked or typed, before it is
// applied. Turn is the turn's position, -1 for the dialogue-level widget.
type Edit struct {
	Turn  int          `json:"turn"`
	Kind  EditKind     `json:"kind"`
	Key   string       `json:"key"`
	Value string       `json:"value"`
	Click ev.ClickKind `json:"click,omitempty"`
}

// EditError is an edit the page does not take: the wrong kind for the type, a turn that is
// not asked, a value out of range. Nothing is stored.
type EditError struct{ Reason string }

func (e *EditError) Error() string { return "this answer is not taken: " + e.Reason }

func refuse(format string, args ...any) error {
	return &EditError{Reason: fmt.Sprintf(format, args...)}
}

// Apply validates an edit against the page and applies it to the page's answers; it returns
// the answer log's key and value (nil: cleared), as the store's answer log records them.
func (p *Page) Apply(e Edit) (key string, value any, err error) {
	t := p.Type
	if e.Turn >= 0 {
		if !t.Display.TurnLevel() {
			return "", nil, refuse("%s asks about the whole dialogue, not turn %d", ev.DisplayName(t.Title), e.Turn)
		}
		if !slices.Contains(p.Positions, e.Turn) || e.Turn >= len(p.Datapoint.Turns) {
			return "", nil, refuse("turn %d is not asked on this page", e.Turn)
		}
		if !p.Editable(e.Turn) {
			return "", nil, refuse("only the highlighted turn can be corrected")
		}
	} else if e.Turn != -1 || t.Display.TurnLevel() {
		return "", nil, refuse("%s asks about turns: the edit names no turn", ev.DisplayName(t.Title))
	} else if p.Feedback >= 0 {
		return "", nil, refuse("only the highlighted turn can be corrected")
	}
	switch e.Kind {
	case EditLabel:
		if t.Display != ev.Multiselect {
			break
		}
		turn := p.Datapoint.Turns[e.Turn]
		known := false
		for _, c := range t.ChoicesFor(turn.AgentIdx()) {
			known = known || c.Value == e.Key
		}
		if !known || (e.Value != "on" && e.Value != "off") {
			return "", nil, refuse("%q is not a choice of this turn", e.Key)
		}
		cur := p.Answers.TurnAt(e.Turn).List(t.LabelsKey())
		var next []string
		for _, c := range t.Choices { // the options' order
			has := slices.Contains(cur, c.Value)
			if (has && c.Value != e.Key) || (c.Value == e.Key && e.Value == "on") {
				next = append(next, c.Value)
			}
		}
		p.Answers.SetLabels(t, e.Turn, turn, next)
		if len(next) > 0 {
			return t.LabelsKey(), next, nil
		}
		return t.LabelsKey(), nil, nil
	case EditScale:
		v, err := strconv.Atoi(e.Value)
		if err != nil || v < 1 || v > 5 || strconv.Itoa(v) != e.Value {
			return "", nil, refuse("%q is not an answer from 1 to 5", e.Value)
		}
		switch t.Display {
		case ev.LikertTurn, ev.LikertDialogue:
			if !slices.ContainsFunc(t.Scales, func(s ev.Scale) bool { return s.Label == e.Key }) {
				return "", nil, refuse("%q is not a scale of %s", e.Key, ev.DisplayName(t.Title))
			}
			if e.Turn >= 0 {
				err = p.Answers.SetTurnLikert(e.Turn, p.Datapoint.Turns[e.Turn], e.Key, v)
			} else {
				err = p.Answers.SetDialogueLikert(e.Key, v)
			}
		case ev.ForeachSelect:
			if !slices.ContainsFunc(t.Choices, func(c ev.Choice) bool { return c.Value == e.Key }) {
				return "", nil, refuse("%q is not a choice of %s", e.Key, ev.DisplayName(t.Title))
			}
			err = p.Answers.SetTurnLikert(e.Turn, p.Datapoint.Turns[e.Turn], e.Key, v)
		case ev.ForeachSelectDialogue:
			if !slices.ContainsFunc(t.Choices, func(c ev.Choice) bool { return c.Label == e.Key }) {
				return "", nil, refuse("%q is not a choice of %s", e.Key, ev.DisplayName(t.Title))
			}
			err = p.Answers.SetRating(e.Key, v)
		default:
			return "", nil, refuse("%s has no 1-5 scales", ev.DisplayName(t.Title))
		}
		if err != nil {
			return "", nil, refuse("%v", err)
		}
		return e.Key, e.Value, nil
	case EditComparative:
		if t.Display != ev.Comparative {
			break
		}
		if !slices.Contains(t.Comparisons, e.Value) {
			return "", nil, refuse("%q is not one of the options", e.Value)
		}
		p.Answers.SetComparative(t, e.Value)
		return t.Question, e.Value, nil
	case EditFlow:
		if !t.Display.IsFlow() {
			break
		}
		q := t.Flow.Find(e.Key)
		if q == nil || q.Answer(e.Value) == nil {
			return "", nil, refuse("%q is not an answer of the question %q", e.Value, e.Key)
		}
		switch {
		case q.Checkbox && e.Click != ev.ClickCheck && e.Click != ev.ClickUncheck,
			!q.Checkbox && e.Click != ev.ClickRadio:
			return "", nil, refuse("%q takes no %q click", e.Key, string(e.Click))
		}
		if !flowShows(t.Flow, p.Answers.TurnAt(e.Turn), e.Key) {
			return "", nil, refuse("the question %q is not on show: answer the one above it first", e.Key)
		}
		ta := p.Answers.Turn(e.Turn, p.Datapoint.Turns[e.Turn])
		if err := ev.ApplyFlowClick(ta, t.Flow, ev.FlowClick{Kind: e.Click, Question: e.Key, Answer: e.Value}); err != nil {
			return "", nil, refuse("%v", err)
		}
		if e.Click == ev.ClickUncheck {
			return e.Key, nil, nil
		}
		return e.Key, e.Value, nil
	default:
		return "", nil, refuse("unknown kind of answer %q", string(e.Kind))
	}
	return "", nil, refuse("%s takes no %s answers", ev.DisplayName(t.Title), e.Kind)
}

// flowShows says whether a flow question is on show for a turn's answers: a top-level
// question always, a sub-question when the answer it hangs from is chosen.
func flowShows(f ev.Flow, ta ev.TurnAnswers, question string) bool {
	for _, q := range f {
		if q.Text == question {
			return true
		}
		for _, a := range q.Answers {
			if len(a.Sub) > 0 && ta.String(q.Text) == a.Text && flowShows(a.Sub, ta, question) {
				return true
			}
		}
	}
	return false
}
