package session

import (
	"regexp"
	"slices"
	"strings"

	ev "github.com/agentdesk/agentdesk/engine/evaluation"
)

// What a participant must never read, checked by every front end's tests (the desk's widgets,
// the served pages and the session's own views) on the same terms.

// snakeName is an internal name: words joined by underscores (annotation types, their keys).
var snakeName = regexp.MustCompile(`\b[A-Za-z0-9]+(?:_[A-Za-z0-9]+)+\b`)

// InternalNames lists the internal names a text shows: snake_case ids, "Begin <id>" of the
// project's types, and the speaker placeholders SPEAKER_X and SPEAKER_Y.
func InternalNames(text string, p *ev.Project) []string {
	out := snakeName.FindAllString(text, -1)
	for _, t := range p.Types {
		for _, id := range []string{t.Name, t.Title} {
			if strings.Contains(text, "Begin "+id) {
				out = append(out, "Begin "+id)
			}
		}
	}
	for _, w := range []string{"SPEAKER_X", "SPEAKER_Y"} {
		if strings.Contains(text, w) {
			out = append(out, w)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// NameSpeakersEverywhere makes every text of every type a participant reads name SPEAKER_X and
// SPEAKER_Y (questions, choices, scales, comparison options): on such a project the wording
// tests see whether every placeholder is replaced.
func NameSpeakersEverywhere(p *ev.Project) {
	named := func(s string) string { return s + " (SPEAKER_X to SPEAKER_Y)" }
	for _, t := range p.Types {
		if t.Question != "" {
			t.Question = named(t.Question)
		}
		for i := range t.Choices {
			t.Choices[i].Label = named(t.Choices[i].Label)
		}
		for i := range t.Scales {
			t.Scales[i].Question = named(t.Scales[i].Question)
		}
		for i := range t.Comparisons {
			t.Comparisons[i] = named(t.Comparisons[i])
		}
	}
}
