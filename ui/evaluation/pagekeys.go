package evaluation

import (
	"strconv"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"

	ev "github.com/agentdesk/agentdesk/engine/evaluation"
	"github.com/agentdesk/agentdesk/engine/evaluation/session"
)

// The page's keyboard: which turn has the focus, 1-9 and arrows answer it, Enter goes on.

// focusedTurn is the turn the keyboard is on (-1 for none or the dialogue).
func (p *evalPage) focusedTurn() int {
	if p.focus < 0 || p.focus >= len(p.slots) {
		return -1
	}
	return p.slots[p.focus].turn
}

// focusTurn moves the keyboard focus to the first slot of a turn (used when resuming), bringing
// it into view.
func (p *evalPage) focusTurn(turn int) { p.focusTurnBy(turn, true) }

// focusTurnBy moves the focus to a turn; scroll brings it into view (the keyboard's moves), a
// click leaves the list where it is, so that nothing moves under the pointer.
func (p *evalPage) focusTurnBy(turn int, scroll bool) {
	for i, s := range p.slots {
		if s.turn == turn {
			p.moveFocus(i, scroll)
			return
		}
	}
}

// setFocus moves the keyboard to slot i, marks it and brings it into view.
func (p *evalPage) setFocus(i int) { p.moveFocus(i, true) }

// moveFocus moves the keyboard to slot i and marks its turn and question; scroll brings the
// turn into view. Widgets are not rebuilt for it (only a button_flow block opens), so the
// answers on show keep their places.
func (p *evalPage) moveFocus(i int, scroll bool) {
	if i < 0 || i >= len(p.slots) {
		return
	}
	before := p.focusedTurn()
	p.focus = i
	after := p.focusedTurn()
	if after != before && p.typ.Display.Collapsible() {
		// button_flow opens the focused turn's block (blocks once open stay open)
		for _, pos := range []int{before, after} {
			if pos >= 0 && pos < len(p.dp.Turns) {
				p.fillTurn(pos, p.dp.Turns[pos])
			}
		}
	}
	p.markScales()
	p.markTurns()
	if scroll {
		p.scrollToFocus()
	}
	if after != before && p.onFocus != nil {
		p.onFocus(after)
	}
}

// markScales frames the 1-5 question the number keys answer.
func (p *evalPage) markScales() {
	var cur evalSlot
	if p.focus >= 0 && p.focus < len(p.slots) {
		cur = p.slots[p.focus]
	}
	for slot, f := range p.scaleFrames {
		var c fyne.ThemeColorName
		if slot == cur {
			c = theme.ColorNamePrimary
		}
		f.SetStroke(c)
	}
}

// highlightFocus marks the focused turn and brings it into view.
func (p *evalPage) highlightFocus() {
	p.markTurns()
	p.scrollToFocus()
}

// markTurns frames the focused turn (and, in feedback, the turns to correct).
func (p *evalPage) markTurns() {
	turn := p.focusedTurn()
	for pos, f := range p.frames {
		switch {
		case pos == turn:
			f.SetStroke(theme.ColorNamePrimary)
		case p.feedback[pos]:
			f.SetStroke(theme.ColorNameWarning)
		default:
			f.SetStroke("")
		}
	}
}

// scrollToFocus brings the focused turn into view, and a focused dialogue-level question
// into the side panel's view.
func (p *evalPage) scrollToFocus() {
	turn := p.focusedTurn()
	if turn >= 0 && p.scroll != nil {
		if f := p.frames[turn]; f != nil {
			p.scrollTo(f)
		}
	}
	if turn < 0 && p.panel != nil && p.focus < len(p.slots) {
		if f := p.scaleFrames[p.slots[p.focus]]; f != nil {
			scrollIn(p.win, p.panel, f)
		}
	}
}

// scrollTo scrolls the dialogue so that o is in view.
func (p *evalPage) scrollTo(o fyne.CanvasObject) { scrollIn(p.win, p.scroll, o) }

// scrollIn scrolls sc so that o (inside it) is in view.
func scrollIn(win fyne.Window, sc *container.Scroll, o fyne.CanvasObject) {
	if win == nil || sc == nil {
		return
	}
	d := fyne.CurrentApp().Driver()
	top := d.AbsolutePositionForObject(o).Y - d.AbsolutePositionForObject(sc.Content).Y
	h := sc.Size().Height
	if h <= 0 {
		return
	}
	off := sc.Offset.Y
	switch {
	case top < off:
		off = top
	case top+o.Size().Height > off+h:
		off = top + o.Size().Height - h
	}
	if off != sc.Offset.Y {
		sc.ScrollToOffset(fyne.NewPos(0, off))
	}
}

// key handles the session's keyboard: arrows move between turns (Left/Right) and between the
// questions of a turn or dialogue (Up/Down); 1-5 answer the focused Likert question and move on.
// It reports whether the key was used.
func (p *evalPage) key(k fyne.KeyName) bool {
	if len(p.slots) == 0 {
		return false
	}
	switch k {
	case fyne.KeyUp:
		p.setFocus(max(p.focus-1, 0))
	case fyne.KeyDown:
		p.setFocus(min(p.focus+1, len(p.slots)-1))
	case fyne.KeyLeft:
		cur := p.focusedTurn()
		for i := p.focus; i >= 0; i-- {
			if p.slots[i].turn != cur {
				// the first slot of that turn
				t := p.slots[i].turn
				for i > 0 && p.slots[i-1].turn == t {
					i--
				}
				p.setFocus(i)
				return true
			}
		}
		p.setFocus(0)
	case fyne.KeyRight:
		cur := p.focusedTurn()
		for i := p.focus; i < len(p.slots); i++ {
			if p.slots[i].turn != cur {
				p.setFocus(i)
				return true
			}
		}
	case fyne.Key1, fyne.Key2, fyne.Key3, fyne.Key4, fyne.Key5, fyne.Key6, fyne.Key7, fyne.Key8, fyne.Key9:
		v := int(k[0] - '0')
		if p.slots[p.focus].scale >= 0 {
			return v <= 5 && p.answerScale(v)
		}
		return p.choose(v)
	default:
		return false
	}
	return true
}

// choose gives the n-th answer on show of the focused turn (ticks or unticks a box, picks a
// radio option).
func (p *evalPage) choose(n int) bool {
	turn := p.focusedTurn()
	if turn >= 0 && !p.editable(turn) {
		return false
	}
	cs := p.choices[turn]
	if n < 1 || n > len(cs) {
		return false
	}
	cs[n-1]()
	return true
}

// showScale shows a 1-5 question's answer in its choices (in place: the widgets stay).
func (p *evalPage) showScale(s evalSlot, value string) {
	if r := p.scaleRadios[s]; r != nil && r.Selected != value {
		r.Selected = value
		r.Refresh()
	}
}

// answerScale answers the focused 1-5 question with v and moves to the next one.
func (p *evalPage) answerScale(v int) bool {
	if p.focus >= len(p.slots) {
		return false
	}
	s := p.slots[p.focus]
	if s.scale < 0 {
		return false
	}
	val := strconv.Itoa(v)
	switch p.typ.Display {
	case ev.LikertTurn:
		sc := p.typ.Scales[s.scale]
		p.edit(session.Edit{Turn: s.turn, Kind: session.EditScale, Key: sc.Label, Value: val})
		p.showScale(s, p.ans.TurnAt(s.turn).String(sc.Label))
	case ev.ForeachSelect:
		c := p.typ.Choices[s.scale]
		p.edit(session.Edit{Turn: s.turn, Kind: session.EditScale, Key: c.Value, Value: val})
		p.showScale(s, p.ans.TurnAt(s.turn).String(c.Value))
	case ev.LikertDialogue:
		sc := p.typ.Scales[s.scale]
		p.edit(session.Edit{Turn: -1, Kind: session.EditScale, Key: sc.Label, Value: val})
		p.showScale(s, p.ans.Likert[sc.Label])
	case ev.ForeachSelectDialogue:
		c := p.typ.Choices[s.scale]
		p.edit(session.Edit{Turn: -1, Kind: session.EditScale, Key: c.Label, Value: val})
		p.refreshDialogueWidget()
	default:
		return false
	}
	p.setFocus(min(p.focus+1, len(p.slots)-1))
	return true
}
