package session

import (
	"strings"

	ev "github.com/agentdesk/agentdesk/engine/evaluation"
)

// The words of a page, as the desk and the web pages both show them: the type by its display
// name, and the speakers by their names wherever a text has SPEAKER_X or SPEAKER_Y (stored keys
// and values keep the raw text). A front end shows no text of a type without passing it
// through these.

// TypeName is the name the page shows for its type ("Quality: comparison", not its id).
func (p *Page) TypeName() string { return ev.DisplayName(p.Type.Title) }

// Instructions are the type's instructions with the speakers named, or a line saying the
// project has none.
func (p *Page) Instructions() string {
	if text := p.Type.Instructions(p.Collection); strings.TrimSpace(text) != "" {
		return text
	}
	return "This project gives no description of " + p.TypeName() + "."
}

// SpeakerLabel is how a turn of that agent_idx is labelled ("(Sam)", "(Alex)"; "You",
// "Partner" on a collected conversation).
func (p *Page) SpeakerLabel(agentIdx int) string { return ev.SpeakerLabel(agentIdx, p.Collection) }

// TurnText puts the speakers' names of turn pos into a text shown on that turn: its speaker is
// SPEAKER_X, the other SPEAKER_Y.
func (p *Page) TurnText(pos int, text string) string {
	agent := 1
	if pos >= 0 && pos < len(p.Datapoint.Turns) {
		agent = p.Datapoint.Turns[pos].AgentIdx()
	}
	x, y := ev.TurnSpeakers(agent, p.Collection)
	return ev.Substitute(text, x, y)
}

// DialogueText puts the speakers' names into a text about the whole dialogue.
func (p *Page) DialogueText(text string) string {
	x, y := ev.DialogueSpeakers(p.Collection)
	return ev.Substitute(text, x, y)
}

// Help is what the help of a flow question on turn pos shows: its own help, else the type's
// instructions, the speakers named.
func (p *Page) Help(pos int, q ev.Question) string {
	if q.Help != "" {
		return p.TurnText(pos, q.Help)
	}
	if strings.TrimSpace(p.Type.Description) != "" {
		return p.TurnText(pos, p.Type.Description)
	}
	return p.Instructions()
}

// Texts lists every text the page can show about its type and place, whichever answers are
// given: the type's name and instructions, the speakers' labels, every question, answer,
// choice, scale and option on each annotatable turn and on the dialogue, a training turn's
// explanation and correct selection, the progress line and the button.
func (p *Page) Texts() []string {
	t := p.Type
	out := []string{p.TypeName(), p.Instructions(), p.Progress, p.NextLabel()}
	for _, turns := range [][]ev.Turn{p.Datapoint.Turns, p.Datapoint.Turns2} {
		for _, turn := range turns {
			out = append(out, p.SpeakerLabel(turn.AgentIdx()))
		}
	}
	for _, pos := range p.Positions {
		agent := p.Datapoint.Turns[pos].AgentIdx()
		var walk func(f ev.Flow)
		walk = func(f ev.Flow) {
			for _, q := range f {
				if !q.Checkbox {
					out = append(out, p.TurnText(pos, q.Text))
					if t.Display.HelpIcons() {
						out = append(out, p.Help(pos, q))
					}
				}
				for _, a := range q.Answers {
					out = append(out, p.TurnText(pos, a.Text))
					walk(a.Sub)
				}
			}
		}
		switch {
		case t.Display.IsFlow():
			walk(t.Flow)
		case t.Display == ev.Multiselect:
			out = append(out, p.TurnText(pos, t.Question))
			for _, c := range t.ChoicesFor(agent) {
				out = append(out, p.TurnText(pos, c.Label))
			}
		case t.Display == ev.LikertTurn:
			for _, sc := range t.Scales {
				out = append(out, p.TurnText(pos, sc.Question))
			}
		case t.Display == ev.ForeachSelect:
			for _, c := range t.Choices {
				out = append(out, p.TurnText(pos, c.Label))
			}
		}
	}
	switch t.Display {
	case ev.LikertDialogue:
		for _, sc := range t.Scales {
			out = append(out, p.DialogueText(sc.Question))
		}
	case ev.ForeachSelectDialogue:
		out = append(out, p.DialogueText(t.Question))
		for _, c := range t.Choices {
			out = append(out, p.DialogueText(c.Label))
		}
	case ev.Comparative:
		out = append(out, p.DialogueText(t.Question))
		for _, o := range t.Comparisons {
			out = append(out, p.DialogueText(o))
		}
	}
	if p.Feedback >= 0 {
		out = append(out, p.Explanation, DescribeTruth(t, p.Datapoint, p.Correct, p.Feedback))
	}
	return out
}
