package evaluation

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"
)

// ChatMessage is one message of a collected conversation.
type ChatMessage struct {
	Text string `json:"text"`
	// AgentIdx is 0 for the participant, 1 for the bot.
	AgentIdx int `json:"agent_idx"`
	// FakeStart marks the opening "Hi!" shown as the participant's own.
	FakeStart bool `json:"fake_start,omitempty"`
	// Time is when the message was added.
	Time time.Time `json:"time"`
}

// Conversation is one conversation of a collection session with one bot.
type Conversation struct {
	// Model is the bot's model key.
	Model string `json:"model"`
	// Persona is what the bot privately observed before the opening "Hi!": the session's
	// persona as "your persona: <sentence>" lines (PersonaFor); nil when it observed none.
	Persona  []string      `json:"persona,omitempty"`
	Messages []ChatMessage `json:"messages"`
	// Ended is set when the participant pressed END.
	Ended bool `json:"ended"`
}

// Chat is a dialogue-collection session (spec §13.4): one conversation per model of the chosen
// condition, in the (shuffled) order of Condition.Models, each opened by a fake "Hi!" from the
// participant that the bot answers, then participant and bot in turn until the message cap.
// It is a plain value (persist it as JSON); bot calls are made by the caller-supplied Bot.
type Chat struct {
	Condition Condition `json:"condition"`
	// Cap is num_turns: from this many messages on, the participant can only press END.
	Cap           int             `json:"cap"`
	Conversations []*Conversation `json:"conversations"`
	// IncludePersona and Persona are the session's persona (include_persona and the drawn
	// set of sentences, ChoosePersona): each conversation's bot observes it when PersonaFor
	// says so. The original drew one context per session for all its bots.
	IncludePersona bool     `json:"include_persona,omitempty"`
	Persona        []string `json:"session_persona,omitempty"`
	// Now returns the current time (time.Now when nil); tests set it.
	Now func() time.Time `json:"-"`
}

// FakeStart is the participant's opening message in 'hi' start mode.
const FakeStart = "Hi!"

// CapMessage is the placeholder of the disabled text box once the cap is reached.
const CapMessage = "You have reached the maximum turns. Please submit your conversation by clicking END!"

// NewChat starts a session on a condition (models already in the order to meet them, at least
// one). The first conversation starts with the fake "Hi!"; call Reply to get the bot's opening.
func NewChat(cond Condition, numTurns int) *Chat {
	return NewChatWithPersona(cond, numTurns, false, nil)
}

// NewChatWithPersona is NewChat for a session with a persona (spec §13.4 step 4): with include
// on, every bot whose model key contains "blender" observes the persona sentences as
// "your persona: …" lines before the opening "Hi!" (see BotRequest.Observations).
func NewChatWithPersona(cond Condition, numTurns int, include bool, persona []string) *Chat {
	c := &Chat{Condition: cond, Cap: numTurns, IncludePersona: include, Persona: persona}
	c.begin()
	return c
}

func (c *Chat) now() time.Time {
	if c.Now != nil {
		return c.Now()
	}
	return time.Now()
}

func (c *Chat) begin() {
	k := len(c.Conversations)
	conv := &Conversation{}
	if k < len(c.Condition.Models) {
		conv.Model = c.Condition.Models[k]
	}
	conv.Persona = PersonaFor(conv.Model, c.IncludePersona, c.Persona)
	conv.Messages = append(conv.Messages, ChatMessage{Text: FakeStart, AgentIdx: 0, FakeStart: true, Time: c.now()})
	c.Conversations = append(c.Conversations, conv)
}

// Current returns the conversation in progress (or the last one once all ended).
func (c *Chat) Current() *Conversation { return c.Conversations[len(c.Conversations)-1] }

// Index is the position of the current conversation (k of the offline annotation lists).
func (c *Chat) Index() int { return len(c.Conversations) - 1 }

// NeedsReply reports whether the bot owes a reply: the last message is the participant's.
func (c *Chat) NeedsReply() bool {
	conv := c.Current()
	return !conv.Ended && len(conv.Messages) > 0 && conv.Messages[len(conv.Messages)-1].AgentIdx == 0
}

// CanSend reports whether the participant's text box is enabled: the bot has answered and the
// conversation has fewer than Cap messages (the fake "Hi!" and the bot's first reply count).
func (c *Chat) CanSend() bool {
	conv := c.Current()
	return !conv.Ended && !c.NeedsReply() && len(conv.Messages) < c.Cap
}

// CanEnd reports whether END is available: the bot has answered.
func (c *Chat) CanEnd() bool { return !c.Current().Ended && !c.NeedsReply() }

// ErrChatState is returned for an action the session does not allow now.
var ErrChatState = errors.New("not possible at this point of the conversation")

// Send adds the participant's message. Call Reply next.
func (c *Chat) Send(text string) error {
	if !c.CanSend() {
		return ErrChatState
	}
	text = strings.TrimSpace(text)
	if text == "" {
		return fmt.Errorf("empty message")
	}
	conv := c.Current()
	conv.Messages = append(conv.Messages, ChatMessage{Text: text, AgentIdx: 0, Time: c.now()})
	return nil
}

// Reply asks the bot for its owed reply and adds it (normalised). On failure the conversation
// is unchanged and a *BotError is returned: call Reply again to retry.
func (c *Chat) Reply(ctx context.Context, bot Bot) (string, error) {
	if !c.NeedsReply() {
		return "", ErrChatState
	}
	conv := c.Current()
	req := BotRequest{Model: conv.Model, Persona: conv.Persona}
	for _, m := range conv.Messages {
		role := "user"
		if m.AgentIdx == 1 {
			role = "bot"
		}
		req.History = append(req.History, BotMessage{Role: role, Text: m.Text})
	}
	text, err := bot.Reply(ctx, req)
	if err != nil {
		var be *BotError
		if !errors.As(err, &be) {
			err = &BotError{Bot: conv.Model, Kind: BotBadReply, Err: err}
		}
		return "", err
	}
	text = NormaliseReply(text)
	conv.Messages = append(conv.Messages, ChatMessage{Text: text, AgentIdx: 1, Time: c.now()})
	return text, nil
}

// End ends the current conversation (END). It reports whether another conversation follows;
// call Next to start it after the offline annotations of this one.
func (c *Chat) End() (more bool, err error) {
	if !c.CanEnd() {
		return false, ErrChatState
	}
	c.Current().Ended = true
	return len(c.Conversations) < len(c.Condition.Models), nil
}

// Next starts the next conversation with a fresh "Hi!".
func (c *Chat) Next() error {
	if !c.Current().Ended || len(c.Conversations) >= len(c.Condition.Models) {
		return ErrChatState
	}
	c.begin()
	return nil
}

// Done reports whether every conversation has ended.
func (c *Chat) Done() bool {
	return len(c.Conversations) >= len(c.Condition.Models) && c.Current().Ended
}

// ReplyDeadline is when the participant's next action (a message, or END) is due: max_resp_time
// after the bot's latest message (spec §13.4). There is none (the zero time) while the bot owes
// a reply, once the conversation has ended, or without a limit. Past it the attempt times out.
func (c *Chat) ReplyDeadline(s Settings) time.Time {
	conv := c.Current()
	if s.MaxResponseSeconds <= 0 || conv.Ended || c.NeedsReply() || len(conv.Messages) == 0 {
		return time.Time{}
	}
	return conv.Messages[len(conv.Messages)-1].Time.Add(time.Duration(s.MaxResponseSeconds) * time.Second)
}

// BotPositions returns the positions of the bot's messages in a conversation (where online
// annotations go).
func (conv *Conversation) BotPositions() []int {
	var out []int
	for i, m := range conv.Messages {
		if m.AgentIdx == 1 {
			out = append(out, i)
		}
	}
	return out
}

// Turns returns the conversation as dialogue turns (participant = "user", bot = "system"),
// ready to be annotated offline.
func (conv *Conversation) Turns() []Turn {
	out := make([]Turn, 0, len(conv.Messages))
	for _, m := range conv.Messages {
		sp := "system"
		if m.AgentIdx == 0 {
			sp = "user"
		}
		out = append(out, Turn{Speaker: sp, Text: m.Text})
	}
	return out
}

// OnlineAnswered reports whether the online annotation under the latest bot message allows
// Send and END (spec §13.4, with quirk 11 fixed): a type whose name contains "_optional" never
// blocks; multiselect needs its "<title>_labels" key, as in the original; flows and turn
// Likert types with a `require` need that turn complete by the rules of §6 (the original
// got stuck on flows); other modes do not block.
func OnlineAnswered(t *AnnotationType, entry TurnAnswers) bool {
	if strings.Contains(t.Name, "_optional") {
		return true
	}
	switch {
	case t.Display == Multiselect:
		_, ok := entry[t.LabelsKey()]
		return ok
	case t.Display.IsFlow() || t.Display == LikertTurn:
		if t.Require == nil || t.Require.HasLabels {
			return true
		}
		turnLevel := *t
		turnLevel.Require = &Requirement{Level: "turn"}
		a := &Answers{Data: map[string]TurnAnswers{}}
		if entry != nil {
			a.Data["0"] = entry
		}
		ok, _ := IsComplete(&turnLevel, a, []int{0})
		return ok
	}
	return true
}

// PersonaFor returns the persona lines given to a bot: only with include_persona and a model
// key containing "blender", as in the original; each sentence trimmed and prefixed
// "your persona: " (ParlAI's persona lines). Empty sentences are left out; nil when the bot
// gets none.
func PersonaFor(model string, include bool, lines []string) []string {
	if !include || !strings.Contains(model, "blender") {
		return nil
	}
	var out []string
	for _, l := range lines {
		if l = strings.TrimSpace(l); l != "" {
			out = append(out, "your persona: "+l)
		}
	}
	return out
}

// ChoosePersona draws the persona of a collection session from the project's persona sets
// (uniformly, with the session's random source): nil without include_persona or without
// sets. The original drew a blended_skill_talk context per session the same way.
func ChoosePersona(s Settings, rng interface{ IntN(int) int }) []string {
	if !s.IncludePersona {
		return nil
	}
	var sets [][]string
	for _, set := range s.Personas {
		if len(set) > 0 {
			sets = append(sets, set)
		}
	}
	if len(sets) == 0 {
		return nil
	}
	return slices.Clone(sets[rng.IntN(len(sets))])
}

// ParsePersonas reads persona sets from text: a JSON list of lists of sentences
// ([["i like cats.", "i am a nurse."], …]), JSON lines of such lists, or plain text with one
// sentence per line and a blank line between sets ("your persona: " prefixes, as ParlAI
// writes them, are removed). An error says what is wrong.
func ParsePersonas(data []byte) ([][]string, error) {
	text := strings.TrimSpace(strings.TrimPrefix(string(data), "\ufeff"))
	if text == "" {
		return nil, nil
	}
	clean := func(sets [][]string) [][]string {
		var out [][]string
		for _, set := range sets {
			var lines []string
			for _, l := range set {
				l = strings.TrimSpace(l)
				if low := strings.ToLower(l); strings.HasPrefix(low, "your persona:") {
					l = strings.TrimSpace(l[len("your persona:"):])
				}
				if l != "" {
					lines = append(lines, l)
				}
			}
			if len(lines) > 0 {
				out = append(out, lines)
			}
		}
		return out
	}
	if strings.HasPrefix(text, "[") {
		var sets [][]string
		if err := json.Unmarshal([]byte(text), &sets); err == nil {
			return clean(sets), nil
		}
		// JSON lines: one list per line
		var all [][]string
		for i, line := range strings.Split(text, "\n") {
			if line = strings.TrimSpace(line); line == "" {
				continue
			}
			var set []string
			if err := json.Unmarshal([]byte(line), &set); err != nil {
				return nil, fmt.Errorf("personas line %d: want a JSON list of sentences: %v", i+1, err)
			}
			all = append(all, set)
		}
		return clean(all), nil
	}
	var sets [][]string
	var cur []string
	for _, line := range strings.Split(strings.ReplaceAll(text, "\r\n", "\n"), "\n") {
		if strings.TrimSpace(line) == "" {
			if len(cur) > 0 {
				sets = append(sets, cur)
			}
			cur = nil
			continue
		}
		cur = append(cur, line)
	}
	if len(cur) > 0 {
		sets = append(sets, cur)
	}
	return clean(sets), nil
}

// FormatPersonas writes persona sets as ParsePersonas reads plain text: one sentence per line,
// a blank line between sets.
func FormatPersonas(sets [][]string) string {
	parts := make([]string, 0, len(sets))
	for _, set := range sets {
		parts = append(parts, strings.Join(set, "\n"))
	}
	return strings.Join(parts, "\n\n")
}
