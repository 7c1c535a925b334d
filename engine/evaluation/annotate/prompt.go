// Package annotate lets a model annotate an evaluation project beside people: it signs in as
// a participant marked as a model and answers through the same session engine (session.Session)
// a person's desk or web page drives, training and gold checks included. Each page on show
// becomes one chat-completions request (engine/modelclient) whose prompt is built from the
// project's own words (its task description, the type's instructions from
// task_descriptions.jsx, every question, choice, scale and option as the page shows them, the
// speakers named) and the dialogue as the page shows it; the reply, a JSON object, is read
// into the page's answers. A reply that cannot be read is asked again, with what was wrong, a
// bounded number of times, then recorded as an error; nothing is guessed.
package annotate

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	ev "github.com/agentdesk/agentdesk/engine/evaluation"
	"github.com/agentdesk/agentdesk/engine/evaluation/session"
	"github.com/agentdesk/agentdesk/engine/modelclient"
)

// SystemPrompt is the system message of every request.
const SystemPrompt = "You are an annotator in a study of conversations between people and chatbots. " +
	"Answer the study's questions as a careful human annotator would, following its instructions. " +
	"Reply with one JSON object only, in the shape asked for, with no other text."

// Prompt is the request for a page: the system message and the page as a user message.
func Prompt(p *session.Page, st ev.Settings) []modelclient.Message {
	return []modelclient.Message{modelclient.System(SystemPrompt), modelclient.User(modelclient.Text(PageText(p, st)))}
}

// turnNumber is how the prompt numbers the turn at position pos (from 1, as read).
func turnNumber(pos int) string { return strconv.Itoa(pos + 1) }

// asked are the turns a page asks about: its positions, or on a feedback page the one turn
// under correction.
func asked(p *session.Page) []int {
	if p.Feedback >= 0 {
		return []int{p.Feedback}
	}
	return p.Positions
}

// PageText is the page in words: the study, the type's instructions, the dialogue, the
// questions and the shape of the reply.
func PageText(p *session.Page, st ev.Settings) string {
	var b strings.Builder
	t := p.Type
	if st.TaskTitle != "" || st.TaskDescription != "" {
		fmt.Fprintf(&b, "# Study\n%s\n", strings.TrimSpace(st.TaskTitle+"\n"+st.TaskDescription))
	}
	fmt.Fprintf(&b, "\n# Task: %s\n%s\n", p.TypeName(), strings.TrimSpace(p.Instructions()))
	if len(t.LabelDetails) > 0 {
		var keys []string
		for k := range t.LabelDetails {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		var parts []string
		for _, k := range keys {
			parts = append(parts, k+" = "+t.LabelDetails[k])
		}
		fmt.Fprintf(&b, "Scale: %s.\n", strings.Join(parts, ", "))
	}
	if t.Display == ev.Comparative {
		first, second := p.Datapoint.Turns, p.Datapoint.Turns2
		if p.Collection {
			first, second = second, first
		}
		b.WriteString("\n# Dialogue 1\n")
		writeTurns(&b, p, first)
		b.WriteString("\n# Dialogue 2\n")
		writeTurns(&b, p, second)
	} else {
		b.WriteString("\n# Dialogue\n")
		writeTurns(&b, p, p.Datapoint.Turns)
	}
	b.WriteString("\n# Questions\n")
	writeQuestions(&b, p)
	if p.Feedback >= 0 {
		fmt.Fprintf(&b, "\n# Correction\nThis is training. Your answer on turn %s was marked wrong.\nExplanation: %s\nThe correct selection:\n%s\nAnswer turn %s again.\n",
			turnNumber(p.Feedback), p.Explanation, session.DescribeTruth(t, p.Datapoint, p.Correct, p.Feedback), turnNumber(p.Feedback))
	}
	b.WriteString("\n# Reply\n")
	b.WriteString(replyShape(p))
	return b.String()
}

func writeTurns(b *strings.Builder, p *session.Page, turns []ev.Turn) {
	for pos, turn := range turns {
		fmt.Fprintf(b, "[%s] %s: %s\n", turnNumber(pos), strings.Trim(p.SpeakerLabel(turn.AgentIdx()), "()"), turn.Text)
	}
}

// quoted is s as a JSON string.
func quoted(s string) string { return strconv.Quote(s) }

func turnList(p *session.Page) string {
	var nums []string
	for _, pos := range asked(p) {
		nums = append(nums, turnNumber(pos))
	}
	return strings.Join(nums, ", ")
}

func writeQuestions(b *strings.Builder, p *session.Page) {
	t := p.Type
	first := -1
	if a := asked(p); len(a) > 0 {
		first = a[0]
	}
	switch {
	case t.Display == ev.Multiselect:
		fmt.Fprintf(b, "On each of the turns %s: %s\nChoices (by id):\n", turnList(p), p.TurnText(first, t.Question))
		for _, c := range t.Choices {
			only := ""
			if c.Speaker != nil {
				only = " (only on turns of " + strings.Trim(p.SpeakerLabel(*c.Speaker), "()") + ")"
			}
			fmt.Fprintf(b, "- %s: %s%s\n", quoted(c.Value), p.TurnText(first, c.Label), only)
		}
		b.WriteString("Give every choice that applies; an empty list when none does.\n")
	case t.Display.IsFlow():
		fmt.Fprintf(b, "On each of the turns %s, answer these questions (by id). A question indented under an answer is asked only when that answer is given.\n", turnList(p))
		writeFlow(b, p, first, t.Flow, "q", "")
	case t.Display == ev.LikertTurn:
		fmt.Fprintf(b, "On each of the turns %s, answer each scale from 1 to 5 (by id):\n", turnList(p))
		for _, s := range t.Scales {
			fmt.Fprintf(b, "- %s: %s\n", quoted(s.Label), p.TurnText(first, s.Question))
		}
	case t.Display == ev.ForeachSelect:
		fmt.Fprintf(b, "On each of the turns %s: %s\nAnswer each from 1 to 5 (by id):\n", turnList(p), p.TurnText(first, t.Question))
		for _, c := range t.Choices {
			fmt.Fprintf(b, "- %s: %s\n", quoted(c.Value), p.TurnText(first, c.Label))
		}
	case t.Display == ev.LikertDialogue:
		b.WriteString("About the whole dialogue, answer each scale from 1 to 5 (by id):\n")
		for _, s := range t.Scales {
			fmt.Fprintf(b, "- %s: %s\n", quoted(s.Label), p.DialogueText(s.Question))
		}
	case t.Display == ev.ForeachSelectDialogue:
		fmt.Fprintf(b, "%s\nAbout the whole dialogue, answer each from 1 to 5:\n", p.DialogueText(t.Question))
		for _, c := range t.Choices {
			fmt.Fprintf(b, "- %s\n", quoted(c.Label))
		}
	case t.Display == ev.Comparative:
		fmt.Fprintf(b, "%s\nOptions:\n", p.DialogueText(t.Question))
		for k, o := range t.Comparisons {
			fmt.Fprintf(b, "%d. %s\n", k+1, quoted(p.DialogueText(o)))
		}
	}
}

func writeFlow(b *strings.Builder, p *session.Page, pos int, f ev.Flow, prefix, indent string) {
	for k, q := range f {
		id := prefix + strconv.Itoa(k+1)
		if q.Checkbox {
			var answers []string
			for _, a := range q.Answers {
				answers = append(answers, quoted(p.TurnText(pos, a.Text)))
			}
			fmt.Fprintf(b, "%s- %s (a box to tick): %s, or null to leave it unticked\n", indent, id, strings.Join(answers, " | "))
		} else {
			var answers []string
			for _, a := range q.Answers {
				answers = append(answers, quoted(p.TurnText(pos, a.Text)))
			}
			fmt.Fprintf(b, "%s- %s: %s Answers: %s\n", indent, id, p.TurnText(pos, q.Text), strings.Join(answers, " | "))
		}
		if q.Help != "" && p.Type.Display.HelpIcons() {
			fmt.Fprintf(b, "%s  (help: %s)\n", indent, oneLine(p.TurnText(pos, q.Help)))
		}
		for _, a := range q.Answers {
			if len(a.Sub) > 0 {
				fmt.Fprintf(b, "%s  when %s is %s:\n", indent, id, quoted(p.TurnText(pos, a.Text)))
				writeFlow(b, p, pos, a.Sub, id+".", indent+"    ")
			}
		}
	}
}

// replyShape says what JSON the reply must be, with an example filled from the page.
func replyShape(p *session.Page) string {
	t := p.Type
	turns := asked(p)
	example := func(v string) string {
		var parts []string
		for i, pos := range turns {
			if i == 2 {
				parts = append(parts, "…")
				break
			}
			parts = append(parts, fmt.Sprintf("%s: %s", quoted(turnNumber(pos)), v))
		}
		return `{"turns": {` + strings.Join(parts, ", ") + `}}`
	}
	switch {
	case t.Display == ev.Multiselect:
		v := "[]"
		if len(t.Choices) > 0 {
			v = "[" + quoted(t.Choices[0].Value) + "]"
		}
		return "A JSON object with one entry per turn asked, the turn's number mapped to the list of choice ids that apply, e.g. " + example(v) + "\n"
	case t.Display.IsFlow():
		v := "{}"
		if len(t.Flow) > 0 { // the first question, q1 (writeFlow's numbering)
			q := &t.Flow[0]
			a := "null"
			if len(q.Answers) > 0 {
				a = quoted(p.TurnText(turns0(turns), q.Answers[0].Text))
			}
			v = "{" + quoted("q1") + ": " + a + "}"
		}
		return "A JSON object with one entry per turn asked, the turn's number mapped to an object of question ids and the answer text chosen (every question on show answered), e.g. " + example(v) + "\n"
	case t.Display == ev.LikertTurn, t.Display == ev.ForeachSelect:
		key := firstKey(t)
		return "A JSON object with one entry per turn asked, the turn's number mapped to an object of ids and numbers from 1 to 5, e.g. " + example("{"+quoted(key)+": 3}") + "\n"
	case t.Display == ev.LikertDialogue, t.Display == ev.ForeachSelectDialogue:
		key := firstKey(t)
		return `A JSON object {"ratings": {…}} mapping every id above to a number from 1 to 5, e.g. {"ratings": {` + quoted(key) + `: 4, …}}` + "\n"
	case t.Display == ev.Comparative:
		return `A JSON object {"choice": N} with the number of the option chosen, e.g. {"choice": 1}` + "\n"
	}
	return "{}\n"
}

// firstKey is the first id a type's ratings are given by (ratingKeys), for an example.
func firstKey(t *ev.AnnotationType) string {
	if keys := ratingKeys(t); len(keys) > 0 {
		return keys[0]
	}
	return ""
}

func turns0(ts []int) int {
	if len(ts) == 0 {
		return -1
	}
	return ts[0]
}

// oneLine joins a text's lines with spaces.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
