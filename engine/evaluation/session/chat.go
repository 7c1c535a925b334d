package session

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"time"

	ev "github.com/agentdesk/agentdesk/engine/evaluation"
)

// chatSession is a dialogue-collection unit: the participant chats with each bot of the
// chosen condition in turn (online annotations under each bot message), then rates each
// conversation (offline annotation pages).
type chatSession struct {
	s    *Session
	chat *ev.Chat
	// convIDs are the store's conversation ids, by position.
	convIDs []int64
	bots    map[string]ev.Bot
	// botErr is the last bot failure, shown with Retry until a reply comes.
	botErr string
}

// ChatView is the conversation on show.
type ChatView struct {
	// Index is the conversation's position, Count how many the session has.
	Index, Count int
	Cap          int
	Messages     []ev.ChatMessage
	// NeedsReply: the bot owes a reply (the front end asks for it with Reply).
	NeedsReply bool
	// CanSend and CanEnd: the text box and END are enabled.
	CanSend, CanEnd bool
	// Unanswered: the online question under the bot's last message is not answered yet (the
	// text box and END wait for it).
	Unanswered bool
	// Capped: the message cap is reached; only END is left.
	Capped bool
	// BotError is the last bot failure ("" when none).
	BotError string
}

func (c *chatSession) view() *ChatView {
	conv := c.chat.Current()
	gate := c.onlineAnswered()
	return &ChatView{Index: c.chat.Index(), Count: len(c.chat.Condition.Models), Cap: c.chat.Cap,
		Messages: conv.Messages, NeedsReply: c.chat.NeedsReply(),
		CanSend: c.chat.CanSend() && gate, CanEnd: c.chat.CanEnd() && gate, Unanswered: !gate,
		Capped: !conv.Ended && len(conv.Messages) >= c.chat.Cap, BotError: c.botErr}
}

func (c *chatSession) close() {
	for _, b := range c.bots {
		ev.CloseBot(b)
	}
	c.bots = map[string]ev.Bot{}
}

// startChat opens a collection unit: a saved session resumes; a new one gets its condition
// (least seen by this participant, then most remaining) and its bot order.
func (s *Session) startChat(ctx context.Context) error {
	st := s.project.Def().Settings
	c := &chatSession{s: s, bots: map[string]ev.Bot{}}
	if raw, ok := s.state.Extra[chatKey]; ok {
		c.chat = &ev.Chat{}
		if err := json.Unmarshal(raw, c.chat); err != nil {
			return fmt.Errorf("unit %d: saved conversation: %w", s.unit.ID, err)
		}
	} else {
		cond, err := s.chooseCondition(ctx)
		if err != nil {
			s.showMessage("", err.Error(), false)
			return nil
		}
		// the session's persona (include_persona): drawn once, observed by its "blender" bots
		prng := rand.New(rand.NewPCG(uint64(st.RandomSeed), uint64(s.unit.ID)^personaStream))
		c.chat = ev.NewChatWithPersona(cond, max(st.NumTurns, 2), st.IncludePersona, ev.ChoosePersona(st, prng))
	}
	c.chat.Now = s.Now
	s.chat = c
	if err := c.syncStore(ctx); err != nil {
		return err
	}
	if c.chat.Current().Ended {
		return c.offline(ctx) // stopped during the ratings of a finished conversation
	}
	return c.show(ctx)
}

// personaStream separates the persona draw from the condition draw of the same unit.
const personaStream = 0x9e3779b97f4a7c15

// chooseCondition picks the condition of a new session (spec §13.4) and shuffles its bots.
func (s *Session) chooseCondition(ctx context.Context) (ev.Condition, error) {
	cs, err := ev.ParseConditions(s.project.Def().Settings.ConversationsNeeded)
	if err != nil {
		return ev.Condition{}, fmt.Errorf("conversations needed: %w", err)
	}
	counts, err := s.st.EvalChatCounts(ctx, s.project.ID)
	if err != nil {
		return ev.Condition{}, err
	}
	completed := map[string]int{}
	for _, byCond := range counts {
		for c, n := range byCond {
			completed[c] += n
		}
	}
	rng := rand.New(rand.NewPCG(uint64(s.project.Def().Settings.RandomSeed), uint64(s.unit.ID)))
	cond, err := ev.ChooseCondition(cs, completed, counts[s.participant.Name], rng)
	if err != nil {
		return ev.Condition{}, err
	}
	models := append([]string(nil), cond.Models...)
	rng.Shuffle(len(models), func(i, j int) { models[i], models[j] = models[j], models[i] })
	cond.Models = models
	return cond, nil
}

// syncStore makes sure every conversation of the session has its row in the store.
func (c *chatSession) syncStore(ctx context.Context) error {
	st := c.s.st
	for k := len(c.convIDs); k < len(c.chat.Conversations); k++ {
		conv := c.chat.Conversations[k]
		id, err := st.EvalStartConversation(ctx, c.s.unit.ID, k, c.chat.Condition.Key, conv.Model)
		if err != nil {
			return err
		}
		c.convIDs = append(c.convIDs, id)
		stored, err := st.EvalConversations(ctx, c.s.unit.ID)
		if err != nil {
			return err
		}
		have := 0
		for _, sc := range stored {
			if sc.ID == id {
				have = len(sc.Turns)
			}
		}
		for i := have; i < len(conv.Messages); i++ {
			if err := c.addTurn(ctx, k, i); err != nil {
				return err
			}
		}
	}
	return nil
}

// addTurn stores message i of conversation k.
func (c *chatSession) addTurn(ctx context.Context, k, i int) error {
	m := c.chat.Conversations[k].Messages[i]
	var latency time.Duration
	if m.AgentIdx == 1 && i > 0 {
		latency = m.Time.Sub(c.chat.Conversations[k].Messages[i-1].Time)
	}
	return c.s.st.EvalAddTurn(ctx, c.convIDs[k], ev.TurnRecord{Idx: i, AgentIdx: m.AgentIdx, Text: m.Text,
		FakeStart: m.FakeStart, SentAt: m.Time, Latency: latency})
}

// save records the session in the answer state and saves it.
func (c *chatSession) save(ctx context.Context) error {
	b, err := json.Marshal(c.chat)
	if err != nil {
		return err
	}
	c.s.state.Extra[chatKey] = b
	return c.s.saveProgress(ctx)
}

// show puts the current conversation on show with its reply deadline.
func (c *chatSession) show(ctx context.Context) error {
	s := c.s
	s.screen = ScreenChat
	s.i, s.a = c.chat.Index(), 0
	s.lastTurn = -1
	st := s.project.Def().Settings
	s.arm(ctx, c.chat.ReplyDeadline(st), replyLimit(st))
	return nil
}

// onlineType is the project's online annotation type, asked under every bot message while
// chatting; nil when there is none.
func (c *chatSession) onlineType() *ev.AnnotationType {
	name := c.s.project.Def().Settings.OnlineAnnotation
	if name == "" {
		return nil
	}
	return c.s.project.Def().Type(name)
}

// onlinePage is the conversation as a page of the online type, nil without one.
func (c *chatSession) onlinePage() *Page {
	t := c.onlineType()
	if t == nil {
		return nil
	}
	s := c.s
	k := c.chat.Index()
	conv := c.chat.Current()
	dp := &ev.Datapoint{DialogueID: fmt.Sprintf("unit%d-conversation%d-%s", s.unit.ID, k, conv.Model), Turns: conv.Turns()}
	p := &Page{Datapoint: dp, Type: t, Answers: s.state.Dialogue(k), Collection: true, Feedback: -1,
		Dialogue: k, Dialogues: len(c.chat.Conversations), Annots: 1, Turn: s.lastTurn, Positions: []int{}}
	if t.Display.TurnLevel() {
		p.Positions = t.Positions(len(dp.Turns))
	}
	return p
}

// onlineAnswered says whether the online annotation lets the participant go on: the latest
// bot message must be answered.
func (c *chatSession) onlineAnswered() bool {
	t := c.onlineType()
	if t == nil {
		return true
	}
	conv := c.chat.Current()
	last := -1
	for i, m := range conv.Messages {
		if m.AgentIdx == 1 {
			last = i
		}
	}
	if last < 0 {
		return true
	}
	return ev.OnlineAnswered(t, c.s.state.Dialogue(c.chat.Index()).TurnAt(last))
}

// Refusals of chat actions.
var (
	// ErrNoChat: no conversation is on show.
	ErrNoChat = errors.New("no conversation is on show")
	// ErrUnanswered: the online question under the bot's last message waits for its answer.
	ErrUnanswered = errors.New("answer the question under your partner's last message first")
	// ErrEmptyMessage: a message with nothing in it.
	ErrEmptyMessage = errors.New("the message is empty")
)

// Send adds the participant's message to the conversation and saves it; the bot's reply is
// asked next (Reply or StartReply).
func (s *Session) Send(ctx context.Context, text string) error {
	c := s.chat
	if s.screen != ScreenChat || c == nil {
		return ErrNoChat
	}
	if s.expired(ctx) {
		return ErrExpired
	}
	if !c.onlineAnswered() {
		return ErrUnanswered
	}
	text = strings.TrimSpace(text)
	if text == "" {
		return ErrEmptyMessage
	}
	if err := c.chat.Send(text); err != nil {
		return err
	}
	k := c.chat.Index()
	if err := c.addTurn(ctx, k, len(c.chat.Current().Messages)-1); err != nil {
		return err
	}
	s.disarm() // no limit while the bot writes
	return c.save(ctx)
}

// End is END: the conversation is closed, then rated (offline annotations) or the next one
// starts.
func (s *Session) End(ctx context.Context) error {
	c := s.chat
	if s.screen != ScreenChat || c == nil {
		return ErrNoChat
	}
	if s.expired(ctx) {
		return ErrExpired
	}
	if !c.onlineAnswered() {
		return ErrUnanswered
	}
	if _, err := c.chat.End(); err != nil {
		return err
	}
	k := c.chat.Index()
	if err := s.st.EvalEndConversation(ctx, c.convIDs[k]); err != nil {
		return err
	}
	if err := c.save(ctx); err != nil {
		return err
	}
	return c.offline(ctx)
}

// offline shows the rating pages of the conversation just ended (spec §13.4: Likert pages,
// then comparative ones against the previous conversation), or moves on without any.
func (c *chatSession) offline(ctx context.Context) error {
	s := c.s
	k := c.chat.Index()
	lists := s.project.Def().Settings.OfflineAnnotations
	var names []string
	if k < len(lists) {
		rng := rand.New(rand.NewPCG(uint64(s.project.Def().Settings.RandomSeed), uint64(s.unit.ID)*31+uint64(k)))
		names = ev.OfflineGroups(lists[k]).Pages(k, rng)
	}
	s.dps, s.types = nil, nil
	for j, conv := range c.chat.Conversations {
		dp := ev.Datapoint{DialogueID: fmt.Sprintf("unit%d-conversation%d-%s", s.unit.ID, j, conv.Model), Turns: conv.Turns()}
		var ts []*ev.AnnotationType
		if j == k {
			for _, n := range names {
				t := s.project.Def().Type(n)
				if t == nil {
					continue
				}
				if t.Display == ev.Comparative {
					if k == 0 {
						continue // comparative pages belong to the second conversation on
					}
					dp.Turns2 = c.chat.Conversations[k-1].Turns() // shown on the left
				}
				dp.AnnotationTasks = append(dp.AnnotationTasks, n)
				ts = append(ts, t)
			}
		}
		s.dps = append(s.dps, dp)
		s.types = append(s.types, ts)
	}
	if len(s.types[k]) == 0 {
		return c.afterOffline(ctx)
	}
	s.i = k
	if s.unit.LastIndex == k && s.unit.LastAnnot < len(s.types[k]) {
		s.a = s.unit.LastAnnot
	} else {
		s.a = 0
	}
	s.lastTurn = -1
	return s.showPage(ctx)
}

// afterOffline starts the next conversation, or submits the unit after the last.
func (c *chatSession) afterOffline(ctx context.Context) error {
	if c.chat.Done() {
		return c.s.submit(ctx)
	}
	if err := c.chat.Next(); err != nil {
		return err
	}
	if err := c.syncStore(ctx); err != nil {
		return err
	}
	if err := c.save(ctx); err != nil {
		return err
	}
	return c.show(ctx)
}

// Reply is a bot reply being asked: Run it anywhere (it touches no session), then hand it to
// FinishReply on the session's goroutine.
type Reply struct {
	work *ev.Chat
	bot  ev.Bot
	k    int
	err  error
}

// StartReply prepares the bot's owed reply; nil when the bot owes none.
func (s *Session) StartReply() *Reply {
	c := s.chat
	if s.screen != ScreenChat || c == nil || !c.chat.NeedsReply() {
		return nil
	}
	r := &Reply{k: c.chat.Index()}
	bot, err := c.bot(c.chat.Current().Model)
	if err != nil {
		r.err = err
		return r
	}
	// The bot works on a copy, so a front end never reads a session being changed.
	b, err := json.Marshal(c.chat)
	if err == nil {
		r.work = &ev.Chat{Now: c.chat.Now}
		err = json.Unmarshal(b, r.work)
	}
	r.bot, r.err = bot, err
	return r
}

// Run asks the bot.
func (r *Reply) Run(ctx context.Context) {
	if r.err != nil {
		return
	}
	_, r.err = r.work.Reply(ctx, r.bot)
}

// FinishReply records a reply that ran: the bot's message is stored, or its failure recorded
// and shown with Retry (the conversation stays as it was).
func (s *Session) FinishReply(ctx context.Context, r *Reply) error {
	c := s.chat
	if c == nil || s.screen != ScreenChat || r == nil || r.k != c.chat.Index() {
		return nil // the session moved on meanwhile
	}
	if r.err != nil {
		var be *ev.BotError
		msg := r.err.Error()
		if errors.As(r.err, &be) {
			msg = be.Error()
		}
		c.botErr = msg
		return s.st.EvalAddBotError(ctx, c.convIDs[r.k], len(c.chat.Current().Messages), msg)
	}
	c.botErr = ""
	c.chat = r.work
	if err := c.addTurn(ctx, r.k, len(c.chat.Current().Messages)-1); err != nil {
		return err
	}
	if err := c.save(ctx); err != nil {
		return err
	}
	st := s.project.Def().Settings
	s.arm(ctx, c.chat.ReplyDeadline(st), replyLimit(st))
	return nil
}

// Reply asks the bot for its owed reply and records it (or its failure), in one call.
func (s *Session) Reply(ctx context.Context) error {
	r := s.StartReply()
	if r == nil {
		return nil
	}
	r.Run(ctx)
	return s.FinishReply(ctx, r)
}

// bot returns the runnable bot of a model key.
func (c *chatSession) bot(model string) (ev.Bot, error) {
	if b, ok := c.bots[model]; ok {
		return b, nil
	}
	spec, ok := c.s.project.Def().Bots[model]
	if !ok {
		return nil, fmt.Errorf("the project defines no bot %q", model)
	}
	mk := c.s.Bots
	if mk == nil {
		mk = ev.NewBot
	}
	b, err := mk(model, spec)
	if err != nil {
		return nil, err
	}
	c.bots[model] = b
	return b, nil
}
