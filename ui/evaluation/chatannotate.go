package evaluation

import (
	"fmt"
	"math/rand/v2"

	ev "github.com/agentdesk/agentdesk/engine/evaluation"

	"fyne.io/fyne/v2"
)

// Annotating a collection chat: online annotations of each bot reply while chatting, and the
// offline pages after the conversation ends.

// onlineType is the project's online annotation type (do_interactive_online_annotations),
// asked under every bot message while chatting; nil when there is none.
func (c *evalChat) onlineType() *ev.AnnotationType {
	name := c.s.op.p.Settings.OnlineAnnotation
	if name == "" {
		return nil
	}
	return c.s.op.p.Type(name)
}

// showOnline draws the conversation as a page of the online type: its widgets under the bot's
// messages (the odd positions, since the participant's "Hi!" opens), answers stored in the
// conversation's answer object and saved at once.
func (c *evalChat) showOnline(t *ev.AnnotationType) {
	s := c.s
	k := c.chat.Index()
	conv := c.chat.Current()
	dp := &ev.Datapoint{DialogueID: fmt.Sprintf("unit%d-conversation%d-%s", s.unit.ID, k, conv.Model), Turns: conv.Turns()}
	s.i, s.a = k, 0
	page := newEvalPage(s.ws.host.Window(), dp, t, s.state.answers(k), true)
	page.onAnswer = func(turn int, key string, value any) {
		s.answered(turn, key, value)
		c.refreshInput()
	}
	page.refocus = func() {}
	s.page = page
	c.center.Objects = []fyne.CanvasObject{page.content()}
	c.center.Refresh()
	page.scroll.ScrollToBottom()
}

// onlineAnswered says whether the online annotation lets the participant go on: the latest
// bot message must be answered (the engine's rule, which fixes the original's stuck flows).
func (c *evalChat) onlineAnswered() bool {
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
	return ev.OnlineAnswered(t, c.s.state.answers(c.chat.Index()).TurnAt(last))
}

// endConversation is END: the conversation is closed, then rated (offline annotations) or the
// next one starts.
func (c *evalChat) endConversation() {
	if c.s.expired() {
		return
	}
	if _, err := c.chat.End(); err != nil {
		c.status.SetText(err.Error())
		return
	}
	k := c.chat.Index()
	if err := c.s.ws.store.EvalEndConversation(c.s.ws.ctx(), c.convIDs[k]); err != nil {
		c.s.fail(err)
	}
	c.save()
	c.offline()
}

// offline shows the rating pages of the conversation just ended (spec §13.4: Likert pages,
// then comparative ones against the previous conversation), or moves on without any.
func (c *evalChat) offline() {
	s := c.s
	c.onChat = false
	k := c.chat.Index()
	lists := s.op.p.Settings.OfflineAnnotations
	var names []string
	if k < len(lists) {
		rng := rand.New(rand.NewPCG(uint64(s.op.p.Settings.RandomSeed), uint64(s.unit.ID)*31+uint64(k)))
		names = ev.OfflineGroups(lists[k]).Pages(k, rng)
	}
	s.dps, s.types = nil, nil
	for j, conv := range c.chat.Conversations {
		dp := ev.Datapoint{DialogueID: fmt.Sprintf("unit%d-conversation%d-%s", s.unit.ID, j, conv.Model), Turns: conv.Turns()}
		var ts []*ev.AnnotationType
		if j == k {
			for _, n := range names {
				t := s.op.p.Type(n)
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
		c.afterOffline()
		return
	}
	s.i = k
	if s.unit.LastIndex == k && s.unit.LastAnnot < len(s.types[k]) {
		s.a = s.unit.LastAnnot
	} else {
		s.a = 0
	}
	s.lastTurn = -1
	s.showPage()
}

// afterOffline starts the next conversation, or submits the unit after the last.
func (c *evalChat) afterOffline() {
	if c.chat.Done() {
		c.s.submit()
		return
	}
	if err := c.chat.Next(); err != nil {
		c.s.fail(err)
		return
	}
	if err := c.syncStore(); err != nil {
		c.s.fail(err)
		return
	}
	c.save()
	c.show()
}
