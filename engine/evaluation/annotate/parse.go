package annotate

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	ev "github.com/agentdesk/agentdesk/engine/evaluation"
	"github.com/agentdesk/agentdesk/engine/evaluation/session"
)

// ReplyError is a reply that cannot be read as the page's answer; Reason says what is wrong
// in words the model is told when it is asked again.
type ReplyError struct{ Reason string }

func (e *ReplyError) Error() string { return "the reply cannot be read: " + e.Reason }

func bad(format string, args ...any) error { return &ReplyError{Reason: fmt.Sprintf(format, args...)} }

// jsonObject finds the reply's JSON object: the whole text, or the text between its first
// "{" and last "}" (a model may wrap it in a code fence or a sentence).
func jsonObject(reply string) (map[string]any, error) {
	s := strings.TrimSpace(reply)
	i, j := strings.Index(s, "{"), strings.LastIndex(s, "}")
	if i < 0 || j < i {
		return nil, bad("it holds no JSON object")
	}
	var m map[string]any
	if err := json.Unmarshal([]byte(s[i:j+1]), &m); err != nil {
		return nil, bad("its JSON object is not valid JSON (%v)", err)
	}
	return m, nil
}

// Parse reads a reply into the edits that give the page's answers: every question the page
// asks on every turn it asks about, each answer explicit (choices not given are unticked), in
// the order a person would click them. The edits are checked on a copy of the page: one it
// does not take, or answers that leave the page incomplete, make a *ReplyError.
func Parse(p *session.Page, reply string) ([]session.Edit, error) {
	m, err := jsonObject(reply)
	if err != nil {
		return nil, err
	}
	t := p.Type
	var edits []session.Edit
	if t.Display.TurnLevel() {
		raw, ok := m["turns"].(map[string]any)
		if !ok {
			return nil, bad(`it has no "turns" object`)
		}
		for _, pos := range asked(p) {
			n := turnNumber(pos)
			v, ok := raw[n]
			if !ok {
				return nil, bad("turn %s is not answered", n)
			}
			es, err := turnEdits(p, pos, v)
			if err != nil {
				return nil, bad("turn %s: %s", n, err.(*ReplyError).Reason)
			}
			edits = append(edits, es...)
		}
	} else {
		es, err := dialogueEdits(p, m)
		if err != nil {
			return nil, err
		}
		edits = es
	}
	// Check on a copy of the page with no answers.
	scratch := *p
	scratch.Answers = ev.NewAnswers(p.Dialogue)
	if p.Feedback >= 0 {
		scratch.Feedback = -1
		scratch.Positions = []int{p.Feedback}
	}
	for _, e := range edits {
		if _, _, err := scratch.Apply(e); err != nil {
			return nil, bad("%v", err)
		}
	}
	if p.Feedback < 0 {
		if ok, why := ev.IsComplete(t, scratch.Answers, p.Positions); !ok {
			if why == "" {
				why = "some questions are not answered"
			}
			return nil, bad("the page is not complete: %s", why)
		}
	}
	return edits, nil
}

func onOff(b bool) string {
	if b {
		return "on"
	}
	return "off"
}

// scale reads an answer from 1 to 5 (a number or a string of one).
func scale(v any) (string, bool) {
	switch x := v.(type) {
	case float64:
		if x == math.Trunc(x) && x >= 1 && x <= 5 {
			return strconv.Itoa(int(x)), true
		}
	case string:
		if n, err := strconv.Atoi(strings.TrimSpace(x)); err == nil && n >= 1 && n <= 5 {
			return strconv.Itoa(n), true
		}
	}
	return "", false
}

func same(a, b string) bool {
	return strings.EqualFold(strings.TrimSpace(a), strings.TrimSpace(b))
}

func turnEdits(p *session.Page, pos int, v any) ([]session.Edit, error) {
	t := p.Type
	agent := p.Datapoint.Turns[pos].AgentIdx()
	switch {
	case t.Display == ev.Multiselect:
		list, ok := v.([]any)
		if !ok {
			return nil, bad("want a list of choice ids")
		}
		offered := t.ChoicesFor(agent)
		chosen := map[string]bool{}
		for _, x := range list {
			s, _ := x.(string)
			k := slices.IndexFunc(offered, func(c ev.Choice) bool { return same(c.Value, s) || same(p.TurnText(pos, c.Label), s) })
			if k < 0 {
				return nil, bad("%q is not a choice of this turn", fmt.Sprint(x))
			}
			chosen[offered[k].Value] = true
		}
		var out []session.Edit
		for _, c := range offered {
			out = append(out, session.Edit{Turn: pos, Kind: session.EditLabel, Key: c.Value, Value: onOff(chosen[c.Value])})
		}
		return out, nil
	case t.Display.IsFlow():
		obj, ok := v.(map[string]any)
		if !ok {
			return nil, bad("want an object of question ids and answers")
		}
		var out []session.Edit
		if err := flowEdits(p, pos, t.Flow, "q", obj, &out); err != nil {
			return nil, err
		}
		return out, nil
	case t.Display == ev.LikertTurn, t.Display == ev.ForeachSelect:
		obj, ok := v.(map[string]any)
		if !ok {
			return nil, bad("want an object of ids and numbers from 1 to 5")
		}
		return scaleEdits(obj, ratingKeys(t), pos)
	}
	return nil, bad("this page asks nothing per turn")
}

// flowEdits reads the answers of one flow level: a radio question must be answered (by its
// answer's text or number); a box is ticked by its answer's text or true, left unticked by
// null, false or nothing. Sub-questions follow the answer they hang from.
func flowEdits(p *session.Page, pos int, f ev.Flow, prefix string, obj map[string]any, out *[]session.Edit) error {
	for k := range f {
		q := &f[k]
		id := prefix + strconv.Itoa(k+1)
		v, given := obj[id]
		if !given {
			// a model may key by the question's text
			for key, x := range obj {
				if same(key, p.TurnText(pos, q.Text)) {
					v, given = x, true
				}
			}
		}
		pick := func(v any) *ev.FlowAnswer {
			switch x := v.(type) {
			case string:
				for i := range q.Answers {
					if same(q.Answers[i].Text, x) || same(p.TurnText(pos, q.Answers[i].Text), x) {
						return &q.Answers[i]
					}
				}
				if n, err := strconv.Atoi(strings.TrimSpace(x)); err == nil && n >= 1 && n <= len(q.Answers) {
					return &q.Answers[n-1]
				}
			case float64:
				if n := int(x); float64(n) == x && n >= 1 && n <= len(q.Answers) {
					return &q.Answers[n-1]
				}
			case bool:
				if x && q.Checkbox && len(q.Answers) == 1 {
					return &q.Answers[0]
				}
			}
			return nil
		}
		if q.Checkbox {
			var ticked *ev.FlowAnswer
			if given && v != nil && v != false && v != "" {
				if ticked = pick(v); ticked == nil {
					return bad("%s: %v is not an answer of this box", id, v)
				}
			}
			for i := range q.Answers {
				a := &q.Answers[i]
				if a != ticked {
					*out = append(*out, session.Edit{Turn: pos, Kind: session.EditFlow, Key: q.Text, Value: a.Text, Click: ev.ClickUncheck})
				}
			}
			if ticked != nil {
				*out = append(*out, session.Edit{Turn: pos, Kind: session.EditFlow, Key: q.Text, Value: ticked.Text, Click: ev.ClickCheck})
				if err := flowEdits(p, pos, ticked.Sub, id+".", obj, out); err != nil {
					return err
				}
			}
			continue
		}
		if len(q.Answers) == 0 {
			continue
		}
		if !given || v == nil {
			return bad("%s is not answered", id)
		}
		a := pick(v)
		if a == nil {
			return bad("%s: %v is not one of its answers", id, v)
		}
		*out = append(*out, session.Edit{Turn: pos, Kind: session.EditFlow, Key: q.Text, Value: a.Text, Click: ev.ClickRadio})
		if err := flowEdits(p, pos, a.Sub, id+".", obj, out); err != nil {
			return err
		}
	}
	return nil
}

func dialogueEdits(p *session.Page, m map[string]any) ([]session.Edit, error) {
	t := p.Type
	switch t.Display {
	case ev.LikertDialogue, ev.ForeachSelectDialogue:
		obj, ok := m["ratings"].(map[string]any)
		if !ok {
			return nil, bad(`it has no "ratings" object`)
		}
		return scaleEdits(obj, ratingKeys(t), -1)
	case ev.Comparative:
		v, ok := m["choice"]
		if !ok {
			return nil, bad(`it has no "choice"`)
		}
		n := -1
		switch x := v.(type) {
		case float64:
			if float64(int(x)) == x {
				n = int(x)
			}
		case string:
			if k, err := strconv.Atoi(strings.TrimSpace(x)); err == nil {
				n = k
			} else {
				for i, o := range t.Comparisons {
					if same(o, x) || same(p.DialogueText(o), x) {
						n = i + 1
					}
				}
			}
		}
		if n < 1 || n > len(t.Comparisons) {
			return nil, bad("choice %v is not the number of an option (1 to %d)", v, len(t.Comparisons))
		}
		return []session.Edit{{Turn: -1, Kind: session.EditComparative, Value: t.Comparisons[n-1]}}, nil
	}
	return nil, bad("this page asks nothing about the whole dialogue")
}

// changes keeps the edits that change the page's current answers (a resumed page keeps what
// was saved; unchanged answers are not logged again).
func changes(p *session.Page, edits []session.Edit) []session.Edit {
	var out []session.Edit
	for _, e := range edits {
		var cur string
		has := false
		switch e.Kind {
		case session.EditLabel:
			on := slices.Contains(p.Answers.TurnAt(e.Turn).List(p.Type.LabelsKey()), e.Key)
			if on == (e.Value == "on") {
				continue
			}
		case session.EditScale:
			switch p.Type.Display {
			case ev.LikertDialogue:
				cur = p.Answers.Likert[e.Key]
			case ev.ForeachSelectDialogue:
				cur = p.Answers.Ratings[e.Key]
			default:
				cur = p.Answers.TurnAt(e.Turn).String(e.Key)
			}
			has = true
		case session.EditComparative:
			cur, has = p.Answers.Comparative[p.Type.Question], true
		case session.EditFlow:
			got := p.Answers.TurnAt(e.Turn).String(e.Key)
			if e.Click == ev.ClickUncheck {
				if got != e.Value {
					continue
				}
			} else {
				cur, has = got, true
			}
		}
		if has && cur == e.Value {
			continue
		}
		out = append(out, e)
	}
	return out
}

// ratingKeys are the ids a type's 1-to-5 answers are given by: its scales' labels (the Likert
// modes), its choices' values (foreach-select of a turn) or labels (of the dialogue).
func ratingKeys(t *ev.AnnotationType) []string {
	var keys []string
	switch t.Display {
	case ev.ForeachSelect:
		for _, c := range t.Choices {
			keys = append(keys, c.Value)
		}
	case ev.ForeachSelectDialogue:
		for _, c := range t.Choices {
			keys = append(keys, c.Label)
		}
	default:
		for _, s := range t.Scales {
			keys = append(keys, s.Label)
		}
	}
	return keys
}

// scaleEdits reads a number from 1 to 5 for each key of obj, as the edits of turn pos (-1: the
// dialogue).
func scaleEdits(obj map[string]any, keys []string, pos int) ([]session.Edit, error) {
	var out []session.Edit
	for _, k := range keys {
		n, ok := scale(obj[k])
		if !ok {
			return nil, bad("%q wants a number from 1 to 5", k)
		}
		out = append(out, session.Edit{Turn: pos, Kind: session.EditScale, Key: k, Value: n})
	}
	return out, nil
}
