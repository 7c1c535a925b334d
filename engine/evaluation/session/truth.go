package session

import (
	"strings"

	ev "github.com/agentdesk/agentdesk/engine/evaluation"
)

// DescribeTruth writes a truth as the answers to give, in the words the page shows: ticked
// boxes by their label (a checkbox question's key is never shown), radio questions with their
// answer, multiselect values by their labels.
func DescribeTruth(typ *ev.AnnotationType, dp *ev.Datapoint, t *ev.Truth, pos int) string {
	if t == nil || pos < 0 || pos >= len(dp.Turns) {
		return ""
	}
	if t.IsEmpty() {
		return "Nothing ticked or chosen on this turn."
	}
	x, y := ev.FlowSpeakers(dp.Turns[pos].AgentIdx())
	var lines []string
	for _, e := range t.Entries {
		q := typ.Flow.Find(e.Key)
		switch v := e.Value.(type) {
		case string:
			switch {
			case q != nil && q.Checkbox && v == "":
				for _, a := range q.Answers {
					lines = append(lines, "Leave unticked: "+ev.Substitute(a.Text, x, y))
				}
			case q != nil && q.Checkbox:
				lines = append(lines, "Tick: "+ev.Substitute(v, x, y))
			case v == "":
				lines = append(lines, "Leave unanswered: "+ev.Substitute(e.Key, x, y))
			default:
				lines = append(lines, ev.Substitute(e.Key, x, y)+" → "+ev.Substitute(v, x, y))
			}
		case []string:
			var labels []string
			for _, val := range v {
				label := val
				for _, c := range typ.Choices {
					if c.Value == val {
						label = ev.Substitute(c.Label, x, y)
					}
				}
				labels = append(labels, label)
			}
			if len(labels) == 0 {
				lines = append(lines, "Select nothing.")
			} else {
				lines = append(lines, "Select: "+strings.Join(labels, ", "))
			}
		}
	}
	return strings.Join(lines, "\n")
}
