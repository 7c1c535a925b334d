// Package annotatetest holds a stand-in model for tests of model annotators: give its Answer
// to the fake chat-completions server (engine/modelclient/fakeserver).
package annotatetest

import (
	"encoding/json"
	"regexp"
	"strconv"
	"strings"

	ev "github.com/agentdesk/agentdesk/engine/evaluation"
)

// Oracle is the fake server's model in tests: it reads the prompt back (the task's name, the
// turns asked, the dialogue's first turn) and answers from the project: training turns by their
// truth (or wrongly, when Fail is set), other pages with a valid answer.
type Oracle struct {
	Project *ev.Project
	// Fail answers every training dialogue wrongly (and corrects on feedback, having been
	// shown the correct selection); SloppyFirst answers the first training dialogue wrongly
	// (so that feedback pages come).
	Fail, SloppyFirst bool
}

var (
	taskRe  = regexp.MustCompile(`(?m)^# Task: (.+)$`)
	turnsRe = regexp.MustCompile(`(?m)^On each of the turns ([0-9, ]+)`)
	againRe = regexp.MustCompile(`(?m)^Answer turn ([0-9]+) again`)
	firstRe = regexp.MustCompile(`(?m)^\[1\] [^:]+: (.*)$`)
)

func (o Oracle) Answer(prompt string) string {
	m := taskRe.FindStringSubmatch(prompt)
	if m == nil {
		return "I cannot tell what the task is."
	}
	var t *ev.AnnotationType
	for _, ty := range o.Project.Types {
		if ev.DisplayName(ty.Title) == m[1] {
			t = ty
		}
	}
	if t == nil {
		return "unknown task " + m[1]
	}
	var nums []int
	feedback := false
	if a := againRe.FindStringSubmatch(prompt); a != nil {
		n, _ := strconv.Atoi(a[1])
		nums, feedback = []int{n}, true
	} else if a := turnsRe.FindStringSubmatch(prompt); a != nil {
		for _, s := range strings.Split(a[1], ",") {
			if n, err := strconv.Atoi(strings.TrimSpace(s)); err == nil {
				nums = append(nums, n)
			}
		}
	}
	// a training dialogue?
	var training *ev.TrainingDialogue
	k := -1
	if f := firstRe.FindStringSubmatch(prompt); f != nil && o.Project.Training != nil {
		for i := range o.Project.Training.Dialogues {
			d := &o.Project.Training.Dialogues[i]
			if len(d.Turns) > 0 && d.Turns[0].Text == f[1] && strings.Contains(prompt, d.Turns[len(d.Turns)-1].Text) {
				training, k = d, i
			}
		}
	}
	out := map[string]any{}
	switch {
	case t.Display == ev.Multiselect:
		turns := map[string]any{}
		for _, n := range nums {
			labels := []string{}
			if training != nil {
				wrong := !feedback && (o.Fail || (o.SloppyFirst && k == 0))
				if truth := training.Turns[n-1].Truth; truth != nil && !wrong {
					for _, e := range truth.Entries {
						if l, ok := e.Value.([]string); ok {
							labels = l
						}
					}
				} else if wrong {
					labels = []string{"redundant", "self_contradiction"}
				}
			}
			turns[strconv.Itoa(n)] = labels
		}
		out["turns"] = turns
	case t.Display.IsFlow():
		turns := map[string]any{}
		for _, n := range nums {
			obj := map[string]any{}
			var walk func(f ev.Flow, prefix string)
			walk = func(f ev.Flow, prefix string) {
				for i, q := range f {
					id := prefix + strconv.Itoa(i+1)
					if len(q.Answers) == 0 {
						continue
					}
					if q.Checkbox {
						if n%4 == 0 { // tick the box on some turns, by its answer's text
							obj[id] = q.Answers[0].Text
							walk(q.Answers[0].Sub, id+".")
						} else {
							obj[id] = nil
						}
						continue
					}
					// the last answer ("no problem" in the catalogue's flows), by number
					obj[id] = float64(len(q.Answers))
					walk(q.Answers[len(q.Answers)-1].Sub, id+".")
				}
			}
			walk(t.Flow, "q")
			turns[strconv.Itoa(n)] = obj
		}
		out["turns"] = turns
	case t.Display == ev.LikertTurn, t.Display == ev.ForeachSelect:
		turns := map[string]any{}
		for _, n := range nums {
			obj := map[string]any{}
			for i, s := range t.Scales {
				obj[s.Label] = 1 + (n+i)%5
			}
			for i, c := range t.Choices {
				obj[c.Value] = strconv.Itoa(1 + (n+i)%5) // a number as a string is read too
			}
			turns[strconv.Itoa(n)] = obj
		}
		out["turns"] = turns
	case t.Display == ev.LikertDialogue:
		r := map[string]any{}
		for i, s := range t.Scales {
			r[s.Label] = 1 + (len(prompt)+i)%5
		}
		out["ratings"] = r
	case t.Display == ev.ForeachSelectDialogue:
		r := map[string]any{}
		for i, c := range t.Choices {
			r[c.Label] = 1 + (len(prompt)+i)%5
		}
		out["ratings"] = r
	case t.Display == ev.Comparative:
		out["choice"] = 1
	}
	b, _ := json.Marshal(out)
	return "```json\n" + string(b) + "\n```"
}
