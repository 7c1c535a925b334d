package widgets

import (
	"sync"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
)

// fyne 2.7 has no tooltips. A TipButton shows its Tip in a small label under it once the
// pointer has rested on it for TipDelay, and hides it when the pointer leaves or the button is
// tapped.
//
// The label is not a pop-up: fyne sends pointer events only to the topmost overlay, so a
// pop-up under the pointer would take the hover away from the button (which would hide the
// tip, which would give the hover back: a flicker). It is drawn instead on a layer stacked
// over the window's content (WithTips) that holds nothing clickable, so events pass through
// it. A button inside a dialog (an overlay, drawn above that layer) shows its tip as a
// pop-up below the pointer's row; it goes with the next pointer move, and comes back when
// the pointer rests again.

// TipDelay is how long the pointer rests on a button before its tip shows.
const TipDelay = 600 * time.Millisecond

// tipAfter runs f on the UI goroutine after d and returns a function that stops it; tests
// replace it with a clock of their own.
var tipAfter = func(d time.Duration, f func()) (stop func()) {
	t := time.AfterFunc(d, func() { fyne.Do(f) })
	return func() { t.Stop() }
}

// TipButton is a button (usually icon-only) with a tooltip.
type TipButton struct {
	widget.Button
	// Tip is the text shown on hover: what the button does, in a few words.
	Tip string

	stop  func()
	gen   int
	shown func() // hides the tip on show; nil when none is shown
}

// NewTipButton is an icon-only button that says what it does on hover.
func NewTipButton(tip string, icon fyne.Resource, tapped func()) *TipButton {
	b := &TipButton{Tip: tip}
	b.Icon = icon
	b.OnTapped = tapped
	b.ExtendBaseWidget(b)
	return b
}

// NewTipTextButton is a button with a label and an icon that also shows a tip on hover (for
// a label that becomes icon-only, such as the navigation's entries).
func NewTipTextButton(label, tip string, icon fyne.Resource, tapped func()) *TipButton {
	b := NewTipButton(tip, icon, tapped)
	b.Text = label
	return b
}

// MouseIn starts the tip's delay.
func (b *TipButton) MouseIn(e *desktop.MouseEvent) {
	b.Button.MouseIn(e)
	b.cancel()
	if b.Tip == "" {
		return
	}
	gen := b.gen
	b.stop = tipAfter(TipDelay, func() {
		if gen == b.gen && b.Visible() {
			b.showTip()
		}
	})
}

// MouseOut hides the tip.
func (b *TipButton) MouseOut() {
	b.Button.MouseOut()
	b.HideTip()
}

// Tapped hides the tip and runs the button.
func (b *TipButton) Tapped(e *fyne.PointEvent) {
	b.HideTip()
	b.Button.Tapped(e)
}

// HideTip hides the tip now (and forgets a pending one).
func (b *TipButton) HideTip() {
	b.cancel()
	if b.shown != nil {
		b.shown()
		b.shown = nil
	}
}

// ButtonText is the button's label (tests find buttons by it).
func (b *TipButton) ButtonText() string { return b.Text }

// TipShown reports whether the tip is on show.
func (b *TipButton) TipShown() bool { return b.shown != nil }

func (b *TipButton) cancel() {
	b.gen++
	if b.stop != nil {
		b.stop()
		b.stop = nil
	}
}

// showTip puts the tip under the button, on the window's tip layer, or in a pop-up when the
// button is in a dialog.
func (b *TipButton) showTip() { b.shown = showTipUnder(b, b.Tip) }

// showTipUnder shows text under o, on the window's tip layer, or in a pop-up when o is in a
// dialog; it returns what hides it (nil when nothing was shown).
func showTipUnder(o fyne.CanvasObject, text string) func() {
	app := fyne.CurrentApp()
	if app == nil {
		return nil
	}
	c := app.Driver().CanvasForObject(o)
	if c == nil {
		return nil
	}
	tip := newTipLabel(text)
	at := app.Driver().AbsolutePositionForObject(o)
	size, room := tip.MinSize(), c.Size()
	if size.Width > room.Width { // a long text wraps to the window's width
		l := tip.(*fyne.Container).Objects[1].(*widget.Label)
		l.Wrapping = fyne.TextWrapWord
		tip.Resize(fyne.NewSize(room.Width, 1))
		size = fyne.NewSize(room.Width, l.MinSize().Height)
		tip.Resize(size)
	}
	pos := fyne.NewPos(at.X, at.Y+o.Size().Height+2)
	if pos.Y+size.Height > room.Height {
		pos.Y = at.Y - size.Height - 2
	}
	pos.X = max(0, min(pos.X, room.Width-size.Width))
	pos.Y = max(0, pos.Y)
	if top := c.Overlays().Top(); top == nil {
		if l := layerOf(c.Content()); l != nil {
			tip.Resize(size)
			tip.Move(pos)
			l.Objects = []fyne.CanvasObject{tip}
			l.Refresh()
			return func() {
				l.Objects = nil
				l.Refresh()
			}
		}
	}
	p := widget.NewPopUp(tip, c)
	p.ShowAtPosition(pos)
	return p.Hide
}

// TipLabel is a one-line label, cut with an ellipsis when it does not fit, that shows its
// whole text in a tip when the pointer rests on it: a status line that never pushes the
// controls under it out of view.
type TipLabel struct {
	widget.Label

	stop  func()
	gen   int
	shown func()
}

// NewTipLabel returns an empty one-line status label.
func NewTipLabel() *TipLabel {
	l := &TipLabel{}
	l.Truncation = fyne.TextTruncateEllipsis
	l.ExtendBaseWidget(l)
	return l
}

// MouseIn starts the tip's delay.
func (l *TipLabel) MouseIn(*desktop.MouseEvent) {
	l.cancel()
	if l.Text == "" {
		return
	}
	gen := l.gen
	l.stop = tipAfter(TipDelay, func() {
		if gen == l.gen && l.Visible() {
			l.shown = showTipUnder(l, l.Text)
		}
	})
}

// MouseMoved implements desktop.Hoverable.
func (l *TipLabel) MouseMoved(*desktop.MouseEvent) {}

// MouseOut hides the tip.
func (l *TipLabel) MouseOut() { l.HideTip() }

// HideTip hides the tip now (and forgets a pending one).
func (l *TipLabel) HideTip() {
	l.cancel()
	if l.shown != nil {
		l.shown()
		l.shown = nil
	}
}

// TipShown reports whether the tip is on show.
func (l *TipLabel) TipShown() bool { return l.shown != nil }

func (l *TipLabel) cancel() {
	l.gen++
	if l.stop != nil {
		l.stop()
		l.stop = nil
	}
}

var _ desktop.Hoverable = (*TipLabel)(nil)

// newTipLabel is the tip's look: body text on the overlay colour, with a border.
func newTipLabel(text string) fyne.CanvasObject {
	bg := canvas.NewRectangle(theme.Color(theme.ColorNameOverlayBackground))
	bg.StrokeColor = theme.Color(theme.ColorNameInputBorder)
	bg.StrokeWidth = 1
	bg.CornerRadius = 4
	l := widget.NewLabel(text)
	return container.NewStack(bg, l)
}

// tipLayers maps the roots WithTips made to their layer.
var tipLayers sync.Map // *fyne.Container -> *fyne.Container

// WithTips stacks a layer for the TipButtons' tips over content; set what it returns as the
// window's content.
func WithTips(content fyne.CanvasObject) fyne.CanvasObject {
	layer := container.NewWithoutLayout()
	root := container.NewStack(content, layer)
	tipLayers.Store(root, layer)
	return root
}

// layerOf is the tip layer of a root made by WithTips, nil for any other object.
func layerOf(root fyne.CanvasObject) *fyne.Container {
	c, ok := root.(*fyne.Container)
	if !ok {
		return nil
	}
	l, ok := tipLayers.Load(c)
	if !ok {
		return nil
	}
	return l.(*fyne.Container)
}
