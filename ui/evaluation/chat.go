package evaluation

import (
	"context"
	"fmt"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	ev "github.com/agentdesk/agentdesk/engine/evaluation"
	"github.com/agentdesk/agentdesk/engine/evaluation/session"
	"github.com/agentdesk/agentdesk/ui/widgets"
	"github.com/agentdesk/agentdesk/ui/workspace"
)

// evalChat is the chat screen of a dialogue-collection unit: the conversation with the bot on
// show (with the online annotation's widgets under each bot message when the project has
// one), the text box, Send and END. The session keeps the conversation; bot replies are asked
// off the UI goroutine.
type evalChat struct {
	s *evalSession
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
	// index is the conversation the screen was built for, built the screen itself.
	index int
	built fyne.CanvasObject
}

func newEvalChat(s *evalSession) *evalChat { return &evalChat{s: s, index: -1} }

func (c *evalChat) close() {
	if c.cancel != nil {
		c.cancel()
		c.cancel = nil
	}
	c.busy = false
}

// show builds the chat screen for the conversation on show (once per conversation) and
// refreshes it.
func (c *evalChat) show(v session.View) {
	s := c.s
	c.onChat = true
	if c.index != v.Chat.Index || c.entry == nil || s.root.Objects == nil || !c.onScreen() {
		c.build(v)
	}
	c.refresh(v)
	if v.Chat.NeedsReply && !c.busy && v.Chat.BotError == "" {
		c.askBot()
	}
}

// onScreen says whether the chat screen is what the session shows.
func (c *evalChat) onScreen() bool {
	objs := c.s.root.Objects
	return len(objs) == 2 && c.center != nil && objs[1] == c.built
}

func (c *evalChat) build(v session.View) {
	s := c.s
	c.index = v.Chat.Index
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
	title := widget.NewLabelWithStyle(fmt.Sprintf("Conversation %d of %d", v.Chat.Index+1, v.Chat.Count),
		fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	cap := widget.NewLabel(fmt.Sprintf("Message cap: %d messages, counting the opening \"Hi!\". Press END when you are done.", v.Chat.Cap))
	cap.Importance = widget.LowImportance
	who := widget.NewLabel("Signed in as " + s.participant.Name)
	who.Importance = widget.LowImportance
	top := container.NewVBox(container.NewBorder(nil, nil, nil, widget.NewButton("Sign out", s.signOut), container.NewHBox(title, who)), cap)
	input := container.NewBorder(nil, nil, nil, container.NewHBox(c.send, c.end), c.entry)
	bottom := container.NewVBox(c.waiting, c.errBox, c.status, input)
	c.built = container.NewBorder(top, bottom, nil, nil, c.center)
	s.set(c.built)
}

// refresh redraws the messages, the bot's failure and the state of the input.
func (c *evalChat) refresh(v session.View) {
	if v.Page != nil {
		c.showOnline(v.Page)
	} else {
		var rows []fyne.CanvasObject
		for _, m := range v.Chat.Messages {
			rows = append(rows, chatBubble(m))
		}
		c.list.Objects = rows
		c.list.Refresh()
		c.center.Objects = []fyne.CanvasObject{c.scroll}
		c.center.Refresh()
		c.scroll.ScrollToBottom()
	}
	c.errBox.RemoveAll()
	if v.Chat.BotError != "" && !c.busy {
		l := widget.NewLabel("Your partner could not answer: " + v.Chat.BotError + ". Your conversation is kept.")
		l.Wrapping = fyne.TextWrapWord
		l.Importance = widget.DangerImportance
		retry := widget.NewButtonWithIcon("Retry", theme.ViewRefreshIcon(), c.askBot)
		c.errBox.Add(container.NewBorder(nil, nil, nil, retry, l))
	}
	if v.Chat.Capped {
		c.entry.SetPlaceHolder(ev.CapMessage)
	} else {
		c.entry.SetPlaceHolder("Type your message; Send or Shift+Enter")
	}
	c.refreshInput()
}

// refreshInput updates the status line and the input's state (also after an online answer,
// without redrawing the page).
func (c *evalChat) refreshInput() {
	v := c.s.core.View()
	if v.Chat == nil {
		return
	}
	switch {
	case c.busy:
		c.status.SetText("Your partner is typing…")
	case v.Chat.Unanswered:
		c.status.SetText("Answer the question under your partner's last message first.")
	default:
		c.status.SetText(v.Due())
	}
	if v.Chat.CanSend && !c.busy {
		c.entry.Enable()
		c.send.Enable()
		if w := c.s.ws.host.Window(); w != nil && c.onChat {
			workspace.Focus(w, c.entry)
		}
	} else {
		c.entry.Disable()
		c.send.Disable()
	}
	if v.Chat.CanEnd && !c.busy {
		c.end.Enable()
	} else {
		c.end.Disable()
	}
}

// showOnline draws the conversation as a page of the online type: its widgets under the bot's
// messages, answers handed to the session and saved at once.
func (c *evalChat) showOnline(pg *session.Page) {
	s := c.s
	page := newEvalPage(s.ws.host.Window(), pg.Datapoint, pg.Type, pg.Answers, true)
	page.onEdit = s.edit
	page.refocus = func() {}
	s.page = page
	s.i, s.a = pg.Dialogue, 0
	dialogue := page.content() // (an online type asks about turns; a dialogue-level widget goes under them)
	c.center.Objects = []fyne.CanvasObject{container.NewBorder(nil, page.dialogueBox, nil, nil, dialogue)}
	c.center.Refresh()
	page.scroll.ScrollToBottom()
}

func chatBubble(m ev.ChatMessage) fyne.CanvasObject {
	l := widget.NewLabel(ev.SpeakerLabel(m.AgentIdx, true) + ": " + m.Text)
	l.Wrapping = fyne.TextWrapWord
	bg := widgets.NewThemeFill(theme.ColorNameInputBackground, theme.InputRadiusSize())
	bubble := container.NewPadded(container.NewStack(bg, l))
	if m.AgentIdx == 0 {
		l.Alignment = fyne.TextAlignTrailing
		return container.New(&leadingGap{fraction: 0.25}, bubble)
	}
	return container.New(&trailingGap{fraction: 0.25}, bubble)
}

func (c *evalChat) sendMessage() {
	text := strings.TrimSpace(c.entry.Text)
	if text == "" || c.busy {
		return
	}
	err := c.s.core.Send(c.s.ctx(), text)
	if err == nil {
		c.entry.SetText("")
	} else if c.s.core.Screen() == session.ScreenChat {
		c.status.SetText(err.Error())
		return
	}
	c.s.render()
}

// endConversation is END: the conversation is closed, then rated (offline annotations) or
// the next one starts.
func (c *evalChat) endConversation() {
	if c.busy {
		return
	}
	err := c.s.core.End(c.s.ctx())
	if err != nil && c.s.core.Screen() == session.ScreenChat {
		c.status.SetText(err.Error())
		return
	}
	c.onChat = false
	c.s.render()
}

// askBot gets the bot's owed reply off the UI goroutine. A failure is shown with Retry; the
// conversation stays as it was.
func (c *evalChat) askBot() {
	r := c.s.core.StartReply()
	if r == nil {
		return
	}
	c.busy = true
	c.errBox.RemoveAll()
	c.waiting.Show()
	c.waiting.Start()
	c.refreshInput()
	running := true
	task := workspace.Start(c.s.ws.host, nil, func(ctx context.Context) (struct{}, error) {
		r.Run(ctx)
		return struct{}{}, nil
	}, func(struct{}, error) {
		running = false
		c.busy, c.cancel = false, nil
		c.waiting.Stop()
		c.waiting.Hide()
		c.s.fail(c.s.core.FinishReply(c.s.ctx(), r))
		if c.s.chat == c {
			c.s.render()
		}
	})
	if running {
		c.cancel = task.Stop
	}
}
