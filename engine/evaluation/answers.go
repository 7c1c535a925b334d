package evaluation

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
)

// Bookkeeping keys every per-turn answer entry starts with.
const (
	KeyTurnIdx  = "turn_idx"
	KeyText     = "text"
	KeyAgentIdx = "agent_idx"
)

// IsBookkeeping reports whether key is one of turn_idx, text, agent_idx.
func IsBookkeeping(key string) bool {
	return key == KeyTurnIdx || key == KeyText || key == KeyAgentIdx
}

// TurnAnswers is the answer entry of one turn (data["<p>"]): the bookkeeping keys turn_idx, text
// and agent_idx, then answers keyed by their storage key. Answer values are strings (flows,
// Likert) or []string (multiselect "<title>_labels"); turn_idx and agent_idx are ints. Values
// of other JSON kinds read from files are kept as decoded by encoding/json.
type TurnAnswers map[string]any

// NewTurnAnswers returns the entry for the turn at position pos with its bookkeeping keys.
func NewTurnAnswers(pos int, t Turn) TurnAnswers {
	return TurnAnswers{KeyTurnIdx: pos, KeyText: t.Text, KeyAgentIdx: t.AgentIdx()}
}

// UnmarshalJSON decodes an entry, turning integral numbers into int and lists of strings into
// []string.
func (ta *TurnAnswers) UnmarshalJSON(b []byte) error {
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		return err
	}
	if m == nil {
		*ta = nil
		return nil
	}
	for k, v := range m {
		m[k] = normaliseValue(v)
	}
	*ta = m
	return nil
}

// normaliseValue turns decoded JSON into the value types TurnAnswers documents.
func normaliseValue(v any) any {
	switch x := v.(type) {
	case float64:
		if x == math.Trunc(x) && math.Abs(x) < 1<<53 {
			return int(x)
		}
	case []any:
		out := make([]string, 0, len(x))
		for _, e := range x {
			s, ok := e.(string)
			if !ok {
				return v
			}
			out = append(out, s)
		}
		return out
	}
	return v
}

// String returns the string answer under key ("" when missing or not a string).
func (ta TurnAnswers) String(key string) string {
	s, _ := ta[key].(string)
	return s
}

// List returns the list answer under key (nil when missing or not a list).
func (ta TurnAnswers) List(key string) []string {
	switch x := ta[key].(type) {
	case []string:
		return x
	case []any:
		out := make([]string, 0, len(x))
		for _, e := range x {
			if s, ok := e.(string); ok {
				out = append(out, s)
			}
		}
		return out
	}
	return nil
}

// AnswerKeys returns the keys other than the bookkeeping ones, sorted.
func (ta TurnAnswers) AnswerKeys() []string {
	var out []string
	for k := range ta {
		if !IsBookkeeping(k) {
			out = append(out, k)
		}
	}
	sort.Strings(out)
	return out
}

// Answers is the answer object of one dialogue (annotations["<i>"] of the original, spec §5).
// All types applied to the dialogue write into it. A nil map means the key is absent; an empty
// map is present (the completeness rules distinguish them).
type Answers struct {
	SubtaskIndex int
	// Data maps a turn position (as a string) to that turn's entry.
	Data map[string]TurnAnswers
	// Likert holds likert-5-dialogue answers: option label → "1".."5".
	Likert map[string]string
	// Comparative holds comparative answers: raw question text → chosen option.
	Comparative map[string]string
	// Ratings holds foreach-5-select-dialogue answers: option label → "1".."5".
	Ratings map[string]string
	// DialogueFlow holds the answers of a dialogue-level flow stored the legacy way, as a
	// plain map of question text → answer text in data itself (beside or instead of the
	// per-turn entries), or as the members of an answer object without data. The original
	// still reads that shape (its completeness check takes data, or the whole object); it is
	// written back into data.
	DialogueFlow map[string]string
}

// NewAnswers returns the empty answer object of the dialogue shown at position i.
func NewAnswers(i int) *Answers {
	return &Answers{SubtaskIndex: i, Data: map[string]TurnAnswers{}}
}

// Turn returns the entry of the turn at position pos, creating it (with its bookkeeping keys,
// and Data if needed) when absent, as the original does on the first click.
func (a *Answers) Turn(pos int, t Turn) TurnAnswers {
	if a.Data == nil {
		a.Data = map[string]TurnAnswers{}
	}
	k := strconv.Itoa(pos)
	if e, ok := a.Data[k]; ok && e != nil {
		return e
	}
	e := NewTurnAnswers(pos, t)
	a.Data[k] = e
	return e
}

// TurnAt returns the entry of position pos, or nil.
func (a *Answers) TurnAt(pos int) TurnAnswers {
	if a == nil || a.Data == nil {
		return nil
	}
	return a.Data[strconv.Itoa(pos)]
}

// SetLabels stores a multiselect selection on a turn under "<title>_labels"; an empty
// selection deletes the key (the turn entry stays), as in the original.
func (a *Answers) SetLabels(t *AnnotationType, pos int, turn Turn, values []string) {
	e := a.Turn(pos, turn)
	if len(values) == 0 {
		delete(e, t.LabelsKey())
		return
	}
	e[t.LabelsKey()] = append([]string(nil), values...)
}

// SetTurnLikert stores a likert-5-turn answer: data["<p>"][label] = "1".."5".
func (a *Answers) SetTurnLikert(pos int, turn Turn, label string, value int) error {
	if value < 1 || value > 5 {
		return fmt.Errorf("likert value %d out of 1..5", value)
	}
	a.Turn(pos, turn)[label] = strconv.Itoa(value)
	return nil
}

// SetDialogueLikert stores a likert-5-dialogue answer in the dialogue's shared Likert map.
func (a *Answers) SetDialogueLikert(label string, value int) error {
	if value < 1 || value > 5 {
		return fmt.Errorf("likert value %d out of 1..5", value)
	}
	if a.Likert == nil {
		a.Likert = map[string]string{}
	}
	a.Likert[label] = strconv.Itoa(value)
	return nil
}

// SetComparative stores a comparative answer under the type's raw question text.
func (a *Answers) SetComparative(t *AnnotationType, option string) {
	if a.Comparative == nil {
		a.Comparative = map[string]string{}
	}
	a.Comparative[t.Question] = option
}

// SetRating stores a foreach-5-select-dialogue answer.
func (a *Answers) SetRating(label string, value int) error {
	if value < 1 || value > 5 {
		return fmt.Errorf("rating %d out of 1..5", value)
	}
	if a.Ratings == nil {
		a.Ratings = map[string]string{}
	}
	a.Ratings[label] = strconv.Itoa(value)
	return nil
}

// Clone returns a deep copy.
func (a *Answers) Clone() *Answers {
	if a == nil {
		return nil
	}
	b, _ := json.Marshal(a)
	var c Answers
	_ = json.Unmarshal(b, &c)
	return &c
}

// MarshalJSON writes the original's shape: subtask_index, data and the dialogue-level maps
// that are present.
func (a Answers) MarshalJSON() ([]byte, error) {
	obj := orderedJSON{{"subtask_index", mustRaw(a.SubtaskIndex)}}
	switch {
	case a.DialogueFlow != nil:
		data := make(map[string]any, len(a.Data)+len(a.DialogueFlow))
		for k, v := range a.DialogueFlow {
			data[k] = v
		}
		for k, v := range a.Data {
			data[k] = v
		}
		b, err := marshalNoEscape(data)
		if err != nil {
			return nil, err
		}
		obj = append(obj, member{"data", b})
	case a.Data != nil:
		b, err := marshalNoEscape(a.Data)
		if err != nil {
			return nil, err
		}
		obj = append(obj, member{"data", b})
	}
	for _, m := range []struct {
		key string
		val map[string]string
	}{{"likert", a.Likert}, {"comparative", a.Comparative}, {"ratings", a.Ratings}} {
		if m.val != nil {
			obj = append(obj, member{m.key, mustRaw(m.val)})
		}
	}
	return obj.MarshalJSON()
}

// UnmarshalJSON reads the original's shape. Dialogue-level values that are not strings (never
// written by the original) are kept as their JSON text.
func (a *Answers) UnmarshalJSON(b []byte) error {
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(b, &raw); err != nil {
		return err
	}
	*a = Answers{}
	if v, ok := raw["subtask_index"]; ok && !isNull(v) {
		var f float64
		if err := json.Unmarshal(v, &f); err != nil {
			return fmt.Errorf("subtask_index: %w", err)
		}
		a.SubtaskIndex = int(f)
	}
	if v, ok := raw["data"]; ok && !isNull(v) {
		var entries map[string]json.RawMessage
		if err := json.Unmarshal(v, &entries); err != nil {
			return fmt.Errorf("data: %w", err)
		}
		a.Data = map[string]TurnAnswers{}
		for k, e := range entries {
			if t := bytes.TrimSpace(e); len(t) > 0 && t[0] == '{' { // a turn's entry
				var ta TurnAnswers
				if err := json.Unmarshal(e, &ta); err != nil {
					return fmt.Errorf("data[%q]: %w", k, err)
				}
				a.Data[k] = ta
				continue
			}
			a.setDialogueFlow(k, e) // the legacy dialogue-level flow: question → answer
		}
	} else {
		// No data at all: an object of question → answer members is a legacy dialogue-level
		// flow's answers (what the original's completeness check falls back to).
		for k, e := range raw {
			switch k {
			case "subtask_index", "data", "likert", "comparative", "ratings":
				continue
			}
			if t := bytes.TrimSpace(e); len(t) > 0 && t[0] != '{' && t[0] != '[' && !isNull(e) {
				a.setDialogueFlow(k, e)
			}
		}
	}
	for key, dst := range map[string]*map[string]string{"likert": &a.Likert, "comparative": &a.Comparative, "ratings": &a.Ratings} {
		v, ok := raw[key]
		if !ok || isNull(v) {
			continue
		}
		var m map[string]json.RawMessage
		if err := json.Unmarshal(v, &m); err != nil {
			return fmt.Errorf("%s: %w", key, err)
		}
		out := make(map[string]string, len(m))
		for k, x := range m {
			var s string
			if json.Unmarshal(x, &s) != nil {
				s = strings.TrimSpace(string(x))
			}
			out[k] = s
		}
		*dst = out
	}
	return nil
}

func (a *Answers) setDialogueFlow(question string, raw json.RawMessage) {
	if a.DialogueFlow == nil {
		a.DialogueFlow = map[string]string{}
	}
	var s string
	if json.Unmarshal(raw, &s) != nil {
		s = strings.TrimSpace(string(raw))
	}
	a.DialogueFlow[question] = s
}

// generic returns the answer object as decoded JSON (maps, strings, lists), the form the
// original's completeness code works on; nil for a nil object.
func (a *Answers) generic() map[string]any {
	if a == nil {
		return nil
	}
	b, _ := json.Marshal(a)
	var m map[string]any
	_ = json.Unmarshal(b, &m)
	return m
}
