package evaluation

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	ev "github.com/agentdesk/agentdesk/engine/evaluation"
	"github.com/agentdesk/agentdesk/ui/workspace"
)

// chatKey is the answer-state key holding the collection session (the engine's Chat), so that
// a session resumes mid-conversation after a restart.
const chatKey = "agentdeskChat"

// evalChat is a dialogue-collection session: the participant chats with each bot of the chosen
// condition in turn, then rates each conversation (offline annotations).
type evalChat struct {
	s    *evalSession
	chat *ev.Chat
	// convIDs are the store's conversation ids, by position.
	convIDs []int64
	bots    map[string]ev.Bot
	// cancel stops the bot call in flight; busy is set while one is. Both are only touched
	// on the UI goroutine.
	cancel func()
	busy   bool
	// onChat is true while the chat screen (not an offline rating page) is on show.
	onChat bool

	list    *fyne.Container
	scroll  *container.Scroll
	entry   *widget.Entry
	send    *widget.Button
	end     *widget.Button
	status  *widget.Label
	errBox  *fyne.Container
	waiting *widget.ProgressBarInfinite
	// center holds the conversation: plain bubbles, or with online annotation the dialogue
	// page with the type's widgets under every bot message.
	center *fyne.Container
}

// refreshInput updates the input's state after an online answer, without redrawing the page.
func (c *evalChat) refreshInput() {
	gate := c.onlineAnswered()
	if gate {
		c.status.SetText("")
	} else {
		c.status.SetText("Answer the question under your partner's last message first.")
	}
	if c.chat.CanSend() && !c.busy && gate {
		c.entry.Enable()
		c.send.Enable()
	} else {
		c.entry.Disable()
		c.send.Disable()
	}
	if c.chat.CanEnd() && !c.busy && gate {
		c.end.Enable()
	} else {
		c.end.Disable()
	}
}

func (c *evalChat) close() {
	if c.cancel != nil {
		c.cancel()
	}
	for _, b := range c.bots {
		ev.CloseBot(b)
	}
}

// startChat opens a collection unit: a saved session resumes; a new one gets its condition
// (least seen by this participant, then most remaining) and its bot order.
func (s *evalSession) startChat() {
	st := s.op.p.Settings
	c := &evalChat{s: s, bots: map[string]ev.Bot{}}
	if raw, ok := s.state.Extra[chatKey]; ok {
		c.chat = &ev.Chat{}
		if err := json.Unmarshal(raw, c.chat); err != nil {
			s.fail(fmt.Errorf("unit %d: saved conversation: %w", s.unit.ID, err))
			return
		}
	} else {
		cond, err := s.chooseCondition()
		if err != nil {
			s.showMessage(err.Error(), false)
			return
		}
		c.chat = ev.NewChat(cond, max(st.NumTurns, 2))
	}
	s.chat = c
	if err := c.syncStore(); err != nil {
		s.fail(err)
		return
	}
	if c.chat.Current().Ended {
		// Stopped during the ratings of a finished conversation.
		c.offline()
		return
	}
	c.show()
}

// chooseCondition picks the condition of a new session (spec §13.4) and shuffles its bots.
func (s *evalSession) chooseCondition() (ev.Condition, error) {
	ctx := s.ws.ctx()
	cs, err := ev.ParseConditions(s.op.p.Settings.ConversationsNeeded)
	if err != nil {
		return ev.Condition{}, fmt.Errorf("conversations needed: %w", err)
	}
	counts, err := s.ws.store.EvalChatCounts(ctx, s.op.info.ID)
	if err != nil {
		return ev.Condition{}, err
	}
	completed := map[string]int{}
	for _, byCond := range counts {
		for c, n := range byCond {
			completed[c] += n
		}
	}
	rng := rand.New(rand.NewPCG(uint64(s.op.p.Settings.RandomSeed), uint64(s.unit.ID)))
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
func (c *evalChat) syncStore() error {
	ctx := c.s.ws.ctx()
	for k := len(c.convIDs); k < len(c.chat.Conversations); k++ {
		conv := c.chat.Conversations[k]
		id, err := c.s.ws.store.EvalStartConversation(ctx, c.s.unit.ID, k, c.chat.Condition.Key, conv.Model)
		if err != nil {
			return err
		}
		c.convIDs = append(c.convIDs, id)
		stored, err := c.s.ws.store.EvalConversations(ctx, c.s.unit.ID)
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
			if err := c.addTurn(k, i); err != nil {
				return err
			}
		}
	}
	return nil
}

// addTurn stores message i of conversation k.
func (c *evalChat) addTurn(k, i int) error {
	m := c.chat.Conversations[k].Messages[i]
	var latency time.Duration
	if m.AgentIdx == 1 && i > 0 {
		latency = m.Time.Sub(c.chat.Conversations[k].Messages[i-1].Time)
	}
	return c.s.ws.store.EvalAddTurn(c.s.ws.ctx(), c.convIDs[k], ev.TurnRecord{Idx: i, AgentIdx: m.AgentIdx, Text: m.Text,
		FakeStart: m.FakeStart, SentAt: m.Time, Latency: latency})
}

// save records the session in the answer state.
func (c *evalChat) save() {
	b, err := json.Marshal(c.chat)
	if err != nil {
		c.s.fail(err)
		return
	}
	c.s.state.Extra[chatKey] = b
	c.s.saveProgress()
}

// show builds the chat screen for the current conversation.
func (c *evalChat) show() {
	s := c.s
	s.page, s.next = nil, nil
	c.onChat = true
	c.list = container.NewVBox()
	c.scroll = container.NewVScroll(c.list)
	c.center = container.NewStack(c.scroll)
	c.entry = widget.NewMultiLineEntry()
	c.entry.Wrapping = fyne.TextWrapWord
	c.entry.SetMinRowsVisible(2)
	c.entry.OnSubmitted = func(string) { c.sendMessage() }
	c.send = widget.NewButtonWithIcon("Send", theme.MailSendIcon(), c.sendMessage)
	c.send.Importance = widget.HighImportance
	c.end = widget.NewButtonWithIcon("END", theme.MediaStopIcon(), c.endConversation)
	c.status = widget.NewLabel("")
	c.status.Wrapping = fyne.TextWrapWord
	c.errBox = container.NewVBox()
	c.waiting = widget.NewProgressBarInfinite()
	c.waiting.Hide()
	k := c.chat.Index()
	title := widget.NewLabelWithStyle(fmt.Sprintf("Conversation %d of %d", k+1, len(c.chat.Condition.Models)),
		fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	cap := widget.NewLabel(fmt.Sprintf("Message cap: %d messages, counting the opening \"Hi!\". Press END when you are done.", c.chat.Cap))
	cap.Importance = widget.LowImportance
	who := widget.NewLabel("Signed in as " + s.participant.Name)
	who.Importance = widget.LowImportance
	top := container.NewVBox(container.NewBorder(nil, nil, nil, widget.NewButton("Sign out", s.showSignIn), container.NewHBox(title, who)), cap)
	input := container.NewBorder(nil, nil, nil, container.NewHBox(c.send, c.end), c.entry)
	bottom := container.NewVBox(c.waiting, c.errBox, c.status, input)
	s.set(container.NewBorder(top, bottom, nil, nil, c.center))
	c.refresh()
	if c.chat.NeedsReply() {
		c.askBot()
	}
}

// refresh redraws the messages and the state of the input.
func (c *evalChat) refresh() {
	st := c.s.op.p.Settings
	if !c.s.arm(c.chat.ReplyDeadline(st), replyLimit(st)) {
		return
	}
	conv := c.chat.Current()
	if t := c.onlineType(); t != nil {
		c.showOnline(t)
	} else {
		var rows []fyne.CanvasObject
		for _, m := range conv.Messages {
			rows = append(rows, chatBubble(m))
		}
		c.list.Objects = rows
		c.list.Refresh()
		c.scroll.ScrollToBottom()
	}
	busy := c.busy
	switch {
	case busy:
		c.status.SetText("Your partner is typing…")
	case !conv.Ended && len(conv.Messages) >= c.chat.Cap:
		c.status.SetText(c.s.dueText())
		c.entry.SetPlaceHolder(ev.CapMessage)
	default:
		c.status.SetText(c.s.dueText())
		c.entry.SetPlaceHolder("Type your message; Send or Shift+Enter")
	}
	gate := c.onlineAnswered()
	if !gate && !busy {
		c.status.SetText("Answer the question under your partner's last message first.")
	}
	if c.chat.CanSend() && !busy && gate {
		c.entry.Enable()
		c.send.Enable()
		if w := c.s.ws.host.Window(); w != nil && c.onChat {
			workspace.Focus(w, c.entry)
		}
	} else {
		c.entry.Disable()
		c.send.Disable()
	}
	if c.chat.CanEnd() && !busy && gate {
		c.end.Enable()
	} else {
		c.end.Disable()
	}
}

func chatBubble(m ev.ChatMessage) fyne.CanvasObject {
	l := widget.NewLabel(ev.SpeakerLabel(m.AgentIdx, true) + ": " + m.Text)
	l.Wrapping = fyne.TextWrapWord
	bg := canvas.NewRectangle(theme.Color(theme.ColorNameInputBackground))
	bg.CornerRadius = theme.InputRadiusSize()
	bubble := container.NewPadded(container.NewStack(bg, l))
	if m.AgentIdx == 0 {
		l.Alignment = fyne.TextAlignTrailing
		return container.New(&leadingGap{fraction: 0.25}, bubble)
	}
	return container.New(&trailingGap{fraction: 0.25}, bubble)
}

func (c *evalChat) sendMessage() {
	if c.s.expired() {
		return
	}
	text := strings.TrimSpace(c.entry.Text)
	if text == "" {
		return
	}
	if err := c.chat.Send(text); err != nil {
		c.status.SetText(err.Error())
		return
	}
	k := c.chat.Index()
	if err := c.addTurn(k, len(c.chat.Current().Messages)-1); err != nil {
		c.s.fail(err)
	}
	c.entry.SetText("")
	c.save()
	c.askBot()
}
