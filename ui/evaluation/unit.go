package evaluation

import (
	"errors"
	"fmt"

	ev "github.com/agentdesk/agentdesk/engine/evaluation"
	"github.com/agentdesk/agentdesk/engine/evaluation/session"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
)

// A unit's pages: the page the session has on show with its widgets, its progress and
// Next/Submit. Every answer goes to the session, which saves it as it is given.

// showPage builds the page (dialogue i, type a) the way annotation tools lay out a task on a
// laptop (Label Studio, CVAT): the dialogue with its per-turn widgets takes the width on the
// left, a side panel on the right holds the type's heading, its dialogue-level questions and
// its instructions, and a footer pinned under both holds the progress, the time left and
// Next/Submit. Both panes scroll on their own, so the page's minimum size stays small: it never
// grows the window, and Next never leaves the screen.
func (s *evalSession) showPage(v session.View) {
	pg := v.Page
	s.i, s.a, s.lastTurn = pg.Dialogue, pg.Annot, pg.Turn
	s.page = newEvalPage(s.ws.host.Window(), pg.Datapoint, pg.Type, pg.Answers, pg.Collection)
	s.page.onEdit = s.edit
	s.page.onFocus = s.focused
	s.page.refocus = s.focusKeys
	s.next = widget.NewButtonWithIcon(pg.NextLabel(), theme.NavigateNextIcon(), s.nextPage)
	if pg.Last {
		s.next.SetIcon(theme.ConfirmIcon())
	}
	s.next.Importance = widget.HighImportance
	s.pageText = widget.NewLabel("")
	s.pageText.Wrapping = fyne.TextWrapWord
	s.progress = widget.NewProgressBar()
	s.progressText = widget.NewLabel("")
	s.progressText.Truncation = fyne.TextTruncateEllipsis
	s.countdown = widget.NewLabelWithStyle("", fyne.TextAlignTrailing, fyne.TextStyle{Bold: true})
	if pg.Feedback >= 0 {
		s.page.setFeedback([]int{pg.Feedback}, map[int]string{pg.Feedback: pg.Explanation}, map[int]*ev.Truth{pg.Feedback: pg.Correct})
	}
	dialogue := s.page.content()
	bar := container.NewGridWrap(fyne.NewSize(160, s.progress.MinSize().Height), s.progress)
	footer := container.NewVBox(widget.NewSeparator(), container.NewBorder(nil, nil, nil, container.NewCenter(s.next),
		container.NewVBox(container.NewBorder(nil, nil, nil, s.countdown, s.pageText),
			container.NewBorder(nil, nil, nil, bar, s.progressText))))
	split := container.NewHSplit(dialogue, s.sidePanel(pg))
	split.Offset = 0.62
	s.set(container.NewBorder(nil, footer, nil, nil, split))
	s.updateProgress()
	if s.lastTurn >= 0 {
		s.page.focusTurn(s.lastTurn)
	} else {
		s.page.setFocus(0)
	}
	s.focusKeys()
	// Once the page is laid out, bring the focused turn into view.
	page := s.page
	fyne.Do(func() {
		if s.page == page {
			page.highlightFocus()
		}
	})
}

// sidePanel is the right pane: the type's heading, its dialogue-level questions (in view
// first), its instructions and keys, and who is signed in.
func (s *evalSession) sidePanel(pg *session.Page) fyne.CanvasObject {
	t := pg.Type
	title := widget.NewLabelWithStyle(pg.TypeName(), fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	title.SizeName = theme.SizeNameSubHeadingText
	title.Wrapping = fyne.TextWrapWord
	body := widget.NewLabel(pg.Instructions())
	body.Wrapping = fyne.TextWrapWord
	keys := widget.NewLabel(keyHelp(t))
	keys.Wrapping = fyne.TextWrapWord
	keys.Importance = widget.LowImportance
	who := widget.NewLabel("Signed in as " + s.participant.Name)
	who.Truncation = fyne.TextTruncateEllipsis
	out := widget.NewButton("Sign out", s.signOut)
	items := []fyne.CanvasObject{title, s.page.dialogueBox}
	if len(s.page.dialogueBox.Objects) > 0 {
		items = append(items, widget.NewSeparator())
	}
	items = append(items, body, keys)
	s.page.panel = container.NewVScroll(container.NewVBox(items...))
	return container.NewBorder(nil, container.NewBorder(nil, nil, nil, out, who), nil, nil, s.page.panel)
}

func keyHelp(t *ev.AnnotationType) string {
	switch t.Display {
	case ev.LikertTurn, ev.LikertDialogue, ev.ForeachSelect, ev.ForeachSelectDialogue:
		return "Keys: 1-5 answer the highlighted question; ↑/↓ move between questions, ←/→ between turns; Enter goes on when the page is complete."
	case ev.Comparative:
		return "Keys: 1-3 choose the answer; Enter goes on when the page is complete."
	}
	return "Keys: ←/→ or ↑/↓ move between turns; 1-9 tick or choose the n-th answer of the highlighted turn; Enter goes on when the page is complete."
}

// updateProgress refreshes the page text, the unit progress and whether Next is enabled.
func (s *evalSession) updateProgress() {
	if s.page == nil || s.pageText == nil {
		return
	}
	text := s.view.Page.Progress
	if !s.view.Page.Training {
		if due := s.view.Due(); due != "" {
			text += ". " + due
		}
	}
	s.pageText.SetText(text)
	info, err := s.ws.store.EvalProjectInfo(s.ctx(), s.op.info.ID)
	if err == nil {
		s.progress.Max = float64(max(info.Units, 1))
		s.progress.SetValue(float64(info.Done))
		mine := ""
		if p, err := s.ws.store.EvalParticipant(s.ctx(), s.op.info.ID, s.participant.ID); err == nil {
			mine = fmt.Sprintf(" (yours: %d done, %d open)", p.Done, p.Assigned)
		}
		s.progressText.SetText(fmt.Sprintf("Units done %d / %d%s", info.Done, info.Units, mine))
	}
	s.refreshNext()
}

func (s *evalSession) refreshNext() {
	if s.page == nil || s.next == nil || s.view.Page == nil {
		return
	}
	if s.view.Page.Complete() {
		s.next.Enable()
	} else {
		s.next.Disable()
	}
}

// edit hands an answer to the session, which applies and saves it; it reports whether the
// answer was taken (a time-out shows instead).
func (s *evalSession) edit(e session.Edit) bool {
	err := s.core.Edit(s.ctx(), e)
	if errors.Is(err, session.ErrExpired) {
		s.render()
		return false
	}
	if err != nil {
		s.fail(err)
		return false
	}
	if e.Turn >= 0 {
		s.lastTurn = e.Turn
	}
	s.refreshNext()
	if s.chat != nil {
		s.chat.refreshInput()
	} else {
		s.focusKeys()
	}
	return true
}

// focused records the focused turn so that a session resumes on it.
func (s *evalSession) focused(turn int) {
	if turn == s.lastTurn || turn < 0 {
		return
	}
	s.lastTurn = turn
	s.fail(s.core.Focus(s.ctx(), turn))
}

// key is the session's keyboard: the page's keys, and Enter for Next.
func (s *evalSession) key(k fyne.KeyName) {
	if s.chat != nil && s.chat.onChat {
		return
	}
	if k == fyne.KeyReturn || k == fyne.KeyEnter {
		switch {
		case s.page != nil && s.next != nil && !s.next.Disabled():
			s.next.OnTapped()
		case s.page == nil && s.enter != nil:
			s.enter()
		}
		return
	}
	if s.page != nil {
		s.page.key(k)
	}
}

// nextPage is Next or Submit: the session closes the page's time span and shows the next
// page, or submits the unit (a gold unit graded).
func (s *evalSession) nextPage() { s.act(s.core.Next(s.ctx())) }

// evalKeys is an invisible focusable widget that gives the session the keyboard.
type evalKeys struct {
	widget.BaseWidget
	onKey func(fyne.KeyName)
}

func newEvalKeys(onKey func(fyne.KeyName)) *evalKeys {
	k := &evalKeys{onKey: onKey}
	k.ExtendBaseWidget(k)
	return k
}

func (k *evalKeys) CreateRenderer() fyne.WidgetRenderer {
	return widget.NewSimpleRenderer(canvas.NewRectangle(nil))
}

func (k *evalKeys) FocusGained() {}

func (k *evalKeys) FocusLost() {}

func (k *evalKeys) TypedRune(r rune) {}

func (k *evalKeys) TypedKey(e *fyne.KeyEvent) { k.onKey(e.Name) }
