package evaluation

import (
	"encoding/json"
	"fmt"
	"strings"
)

// Flow is a question flow (spec §2.1): questions in order, each with its answers and the
// sub-flow an answer opens.
//
//	flow           = "{" , [ question-entry , { "," , question-entry } ] , "}" ;
//	question-entry = question-text , ":" , answer-map ;
//	answer-map     = "{" , answer-entry , { "," , answer-entry } , "}" ;
//	answer-entry   = answer-text , ":" , flow
//	               | "_type_" , ":" , "{" , '"checkbox"' , ":" , "{}" , "}"
//	               | "_dep_" , ":" , "{" , dependency-name , ":" , "{}" , "}" ;
type Flow []Question

// Question is one flow question. Its Text is the storage key of its answer (and, for radio
// questions, the text shown).
type Question struct {
	Text string
	// Checkbox is true for a checkbox question: its text is not shown, only its answers, and
	// ticking nothing is a valid answer.
	Checkbox bool
	// Dep is the name of a `_dep_` predicate; the original's only predicate refers to questions
	// that no longer exist, so the app shows the question anyway and the importer warns.
	Dep     string
	Answers []FlowAnswer
	// Help is what the question's help icon shows (the app's own project format; the original
	// linked to a section of a hand-written page). Empty: the type's description.
	Help string
}

// FlowAnswer is one answer of a question and the sub-flow shown when it is chosen.
type FlowAnswer struct {
	Text string
	Sub  Flow
}

// Reserved answer-map keys of the flow grammar.
const (
	flowTypeKey = "_type_"
	flowDepKey  = "_dep_"
)

// ParseFlow parses a flow from its JSON object, keeping the order of questions and answers.
func ParseFlow(raw json.RawMessage) (Flow, error) {
	return parseFlow(raw, "")
}

func parseFlow(raw json.RawMessage, where string) (Flow, error) {
	members, err := objectMembers(raw)
	if err != nil {
		return nil, fmt.Errorf("flow%s: %w", where, err)
	}
	flow := Flow{}
	for _, m := range members {
		q := Question{Text: m.Key}
		qwhere := fmt.Sprintf("%s > %q", where, m.Key)
		answers, err := objectMembers(m.Value)
		if err != nil {
			return nil, fmt.Errorf("flow%s: answers: %w", qwhere, err)
		}
		for _, a := range answers {
			switch a.Key {
			case flowTypeKey:
				kind, err := objectMembers(a.Value)
				if err != nil {
					return nil, fmt.Errorf("flow%s: _type_: %w", qwhere, err)
				}
				q.Checkbox = len(kind) > 0 && kind[0].Key == "checkbox"
			case flowDepKey:
				dep, err := objectMembers(a.Value)
				if err != nil {
					return nil, fmt.Errorf("flow%s: _dep_: %w", qwhere, err)
				}
				if len(dep) > 0 {
					q.Dep = dep[0].Key
				}
			default:
				sub, err := parseFlow(a.Value, fmt.Sprintf("%s > %q", qwhere, a.Key))
				if err != nil {
					return nil, err
				}
				q.Answers = append(q.Answers, FlowAnswer{Text: a.Key, Sub: sub})
			}
		}
		flow = append(flow, q)
	}
	return flow, nil
}

// MarshalJSON writes the flow in the original's grammar, in order.
func (f Flow) MarshalJSON() ([]byte, error) {
	obj := orderedJSON{}
	for _, q := range f {
		answers := orderedJSON{}
		if q.Checkbox {
			answers = append(answers, member{flowTypeKey, json.RawMessage(`{"checkbox":{}}`)})
		}
		if q.Dep != "" {
			answers = append(answers, member{flowDepKey, mustRaw(orderedJSON{{q.Dep, json.RawMessage(`{}`)}})})
		}
		for _, a := range q.Answers {
			sub, err := a.Sub.MarshalJSON()
			if err != nil {
				return nil, err
			}
			answers = append(answers, member{a.Text, sub})
		}
		b, err := answers.MarshalJSON()
		if err != nil {
			return nil, err
		}
		obj = append(obj, member{q.Text, b})
	}
	return obj.MarshalJSON()
}

// UnmarshalJSON parses a flow (see ParseFlow).
func (f *Flow) UnmarshalJSON(b []byte) error {
	flow, err := ParseFlow(b)
	if err != nil {
		return err
	}
	*f = flow
	return nil
}

// Find returns the first question with that text anywhere in the flow (depth first, in order).
func (f Flow) Find(text string) *Question {
	for i := range f {
		if f[i].Text == text {
			return &f[i]
		}
		for j := range f[i].Answers {
			if q := f[i].Answers[j].Sub.Find(text); q != nil {
				return q
			}
		}
	}
	return nil
}

// Answer returns the answer with that text, or nil.
func (q *Question) Answer(text string) *FlowAnswer {
	for i := range q.Answers {
		if q.Answers[i].Text == text {
			return &q.Answers[i]
		}
	}
	return nil
}

// QuestionTexts returns every question text in the flow, at any depth, in order.
func (f Flow) QuestionTexts() []string {
	var out []string
	var walk func(Flow)
	walk = func(fl Flow) {
		for _, q := range fl {
			out = append(out, q.Text)
			for _, a := range q.Answers {
				walk(a.Sub)
			}
		}
	}
	walk(f)
	return out
}

// Deps returns the `_dep_` predicate names used anywhere in the flow.
func (f Flow) Deps() []string {
	var out []string
	var walk func(Flow)
	walk = func(fl Flow) {
		for _, q := range fl {
			if q.Dep != "" {
				out = append(out, q.Dep)
			}
			for _, a := range q.Answers {
				walk(a.Sub)
			}
		}
	}
	walk(f)
	return out
}

// ClickKind is the kind of a click on a flow answer.
type ClickKind string

// The three clicks of flow_edits.json.
const (
	ClickRadio   ClickKind = "radio"
	ClickCheck   ClickKind = "check"
	ClickUncheck ClickKind = "uncheck"
)

// FlowClick is one click on a flow answer of one turn.
type FlowClick struct {
	Kind     ClickKind `json:"type"`
	Question string    `json:"question"`
	Answer   string    `json:"answer"`
}

// ApplyFlowClick performs a click on a flow answer in a turn's answer map (spec §5, flow
// edits), creating no bookkeeping keys itself (see Answers.Turn):
//
//   - radio: question → answer is written, then for every other answer of that question every
//     question of that answer's sub-flow (at any depth) is deleted; re-selecting the same answer
//     keeps its sub-answers;
//   - check: question → answer is written (a checkbox question with several answers therefore
//     holds the last one checked, quirk 15);
//   - uncheck: the question key and every question of the unchecked answer's sub-flow are
//     deleted.
//
// A question that is not in the flow is still written (radio, check) or deleted (uncheck),
// without clean-up.
func ApplyFlowClick(turn TurnAnswers, flow Flow, c FlowClick) error {
	if turn == nil {
		return fmt.Errorf("no turn answer map")
	}
	q := flow.Find(c.Question)
	switch c.Kind {
	case ClickRadio:
		turn[c.Question] = c.Answer
		if q != nil {
			for _, a := range q.Answers {
				if a.Text != c.Answer {
					for _, sub := range descendants(a.Sub) {
						delete(turn, sub)
					}
				}
			}
		}
	case ClickCheck:
		turn[c.Question] = c.Answer
	case ClickUncheck:
		delete(turn, c.Question)
		if q != nil {
			if a := q.Answer(c.Answer); a != nil {
				for _, sub := range descendants(a.Sub) {
					delete(turn, sub)
				}
			}
		}
	default:
		return fmt.Errorf("unknown click kind %q", string(c.Kind))
	}
	return nil
}

// descendants lists the keys the original clears below an answer: every question of the
// sub-flow at any depth and, because it walks the reserved keys like answers, "checkbox" under
// a checkbox question and the predicate name under a `_dep_`.
func descendants(f Flow) []string {
	var out []string
	for _, q := range f {
		out = append(out, q.Text)
		if q.Checkbox {
			out = append(out, "checkbox")
		}
		if q.Dep != "" {
			out = append(out, q.Dep)
		}
		for _, a := range q.Answers {
			out = append(out, descendants(a.Sub)...)
		}
	}
	return out
}

// Substitute replaces SPEAKER_X and SPEAKER_Y for display (stored keys keep the raw text). The
// variant "SPEAKER X" without underscore is left alone, as in the original. A name put in at
// the start of a sentence starts with a capital ("your partner" → "Your partner"), and "you"
// followed by "'s" becomes "your".
func Substitute(text, x, y string) string {
	if !strings.Contains(text, "SPEAKER_") {
		return text
	}
	var b strings.Builder
	for i := 0; i < len(text); {
		name := ""
		switch {
		case strings.HasPrefix(text[i:], "SPEAKER_X"):
			name = x
		case strings.HasPrefix(text[i:], "SPEAKER_Y"):
			name = y
		default:
			b.WriteByte(text[i])
			i++
			continue
		}
		i += len("SPEAKER_X")
		if name == "you" && strings.HasPrefix(text[i:], "'s") {
			name, i = "your", i+2
		}
		if sentenceStart(b.String()) && name != "" {
			name = strings.ToUpper(name[:1]) + name[1:]
		}
		b.WriteString(name)
	}
	return b.String()
}

// sentenceStart reports whether text written so far ends where a sentence begins.
func sentenceStart(before string) bool {
	t := strings.TrimRight(before, " \t")
	if t == "" || strings.HasSuffix(before, "\n") {
		return true
	}
	return strings.ContainsAny(t[len(t)-1:], ".?!") && len(t) < len(before)
}

// FlowSpeakers returns the names substituted into flow questions and answers on a turn: the
// turn's speaker is X ("Alex" for the system, "Sam" for the user) and the other is Y.
func FlowSpeakers(agentIdx int) (x, y string) {
	if agentIdx == 0 {
		return "Sam", "Alex"
	}
	return "Alex", "Sam"
}

// TurnSpeakers returns the names put in for SPEAKER_X (the turn's speaker) and SPEAKER_Y (the
// other) in whatever is shown on a turn: as FlowSpeakers in static annotation (Alex, the
// chatbot, and Sam, the user), and on a collected conversation, whose turns are shown as
// "Partner" and "You", "your partner" and "you".
func TurnSpeakers(agentIdx int, collection bool) (x, y string) {
	if !collection {
		return FlowSpeakers(agentIdx)
	}
	if agentIdx == 0 {
		return "you", "your partner"
	}
	return "your partner", "you"
}

// DialogueSpeakers returns the names substituted into dialogue-level Likert and comparative
// questions: Alex/Sam in static annotation, "your partner"/"you" in collection.
func DialogueSpeakers(collection bool) (x, y string) {
	if collection {
		return "your partner", "you"
	}
	return "Alex", "Sam"
}

// Instructions is the type's description as a participant reads it, SPEAKER_X and SPEAKER_Y
// replaced by names: on a turn-level type the speaker of the turns it asks about and their
// partner, on a dialogue-level type the names its questions use (DialogueSpeakers). The desktop
// and the web pages both show it.
func (t *AnnotationType) Instructions(collection bool) string {
	x, y := DialogueSpeakers(collection)
	if t.Display.TurnLevel() {
		agent := 1 // the chatbot's turns (odd positions) unless the type asks about the other side
		if t.Indices == Even {
			agent = 0
		}
		x, y = TurnSpeakers(agent, collection)
	}
	return Substitute(t.Description, x, y)
}
