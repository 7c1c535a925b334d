package evaluation

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	ev "github.com/agentdesk/agentdesk/engine/evaluation"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/agentdesk/agentdesk/ui/workspace"
)

// The bots of a collection chat: their programs or endpoints, each reply asked off the UI
// goroutine, and a failed reply offered again with Retry.

// bot returns the runnable bot of a model key.
func (c *evalChat) bot(model string) (ev.Bot, error) {
	if b, ok := c.bots[model]; ok {
		return b, nil
	}
	spec, ok := c.s.op.p.Bots[model]
	if !ok {
		return nil, fmt.Errorf("the project defines no bot %q", model)
	}
	b, err := ev.NewBot(model, spec)
	if err != nil {
		return nil, err
	}
	c.bots[model] = b
	return b, nil
}

// askBot gets the bot's owed reply off the UI goroutine. A failure is shown with Retry; the
// conversation stays as it was.
func (c *evalChat) askBot() {
	conv := c.chat.Current()
	k := c.chat.Index()
	bot, err := c.bot(conv.Model)
	if err != nil {
		c.showBotError(k, err)
		return
	}
	c.busy = true
	c.errBox.RemoveAll()
	c.waiting.Show()
	c.waiting.Start()
	c.refresh()
	// The bot works on a copy, so the screen never reads a session being changed.
	work, err := cloneChat(c.chat)
	if err != nil {
		c.busy = false
		c.s.fail(err)
		return
	}
	running := true
	task := workspace.Start(c.s.ws.host, nil, func(ctx context.Context) (struct{}, error) {
		_, err := work.Reply(ctx, bot)
		return struct{}{}, err
	}, func(_ struct{}, err error) {
		running = false
		c.busy, c.cancel = false, nil
		c.waiting.Stop()
		c.waiting.Hide()
		if err != nil {
			c.showBotError(k, err)
			return
		}
		c.chat = work
		if e := c.addTurn(k, len(c.chat.Current().Messages)-1); e != nil {
			c.s.fail(e)
		}
		c.save()
		c.refresh()
	})
	if running {
		c.cancel = task.Stop
	}
}

func cloneChat(c *ev.Chat) (*ev.Chat, error) {
	b, err := json.Marshal(c)
	if err != nil {
		return nil, err
	}
	out := &ev.Chat{Now: c.Now}
	return out, json.Unmarshal(b, out)
}

// showBotError tells the participant the bot failed, keeps the conversation and offers Retry.
func (c *evalChat) showBotError(k int, err error) {
	var be *ev.BotError
	msg := err.Error()
	if errors.As(err, &be) {
		msg = be.Error()
	}
	if e := c.s.ws.store.EvalAddBotError(c.s.ws.ctx(), c.convIDs[k], len(c.chat.Current().Messages), msg); e != nil {
		c.s.fail(e)
	}
	l := widget.NewLabel("Your partner could not answer: " + msg + ". Your conversation is kept.")
	l.Wrapping = fyne.TextWrapWord
	l.Importance = widget.DangerImportance
	retry := widget.NewButtonWithIcon("Retry", theme.ViewRefreshIcon(), c.askBot)
	c.errBox.Objects = []fyne.CanvasObject{container.NewBorder(nil, nil, nil, retry, l)}
	c.errBox.Refresh()
	c.refresh()
}
