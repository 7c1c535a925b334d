package workspace

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"
)

// The dialogs' room on the window: a dialog's title, buttons and padding take about this much
// beyond its content.
const (
	dialogChromeWidth  = 60
	dialogChromeHeight = 150
	// FormWidth is the width forms get (less on a narrower window), so that their fields are
	// wide enough to read what is typed.
	FormWidth = 480
)

// Scrolled is content for a dialog on w: at its own size when the window has room, else no
// larger than the window (less the dialog's title and buttons), scrolling what does not fit.
func Scrolled(w fyne.Window, content fyne.CanvasObject) fyne.CanvasObject {
	m := content.MinSize()
	if w != nil {
		room := w.Canvas().Size()
		m = fyne.NewSize(min(m.Width, max(room.Width-dialogChromeWidth, 200)), min(m.Height, max(room.Height-dialogChromeHeight, 100)))
	}
	s := container.NewScroll(content)
	s.SetMinSize(m)
	return s
}

// ShowForm shows a form dialog FormWidth wide (or as wide as w allows) whose confirm button is
// off while any field's validator rejects its input, so nothing typed is thrown away by an
// error: onConfirm runs only with valid input.
func ShowForm(w fyne.Window, title, confirm string, items []*widget.FormItem, onConfirm func()) dialog.Dialog {
	d := dialog.NewForm(title, confirm, "Cancel", items, func(ok bool) {
		if ok {
			onConfirm()
		}
	}, w)
	width := float32(FormWidth)
	if w != nil {
		width = min(width, w.Canvas().Size().Width-dialogChromeWidth/2)
	}
	d.Resize(fyne.NewSize(max(width, d.MinSize().Width), d.MinSize().Height))
	d.Show()
	return d
}

// IntAtLeast is a validator for a whole number of at least lo.
func IntAtLeast(lo int) fyne.StringValidator {
	return func(s string) error {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || n < lo {
			return fmt.Errorf("a whole number of at least %d", lo)
		}
		return nil
	}
}

// NotEmpty is a validator for text that must be given.
func NotEmpty(what string) fyne.StringValidator {
	return func(s string) error {
		if strings.TrimSpace(s) == "" {
			return errors.New(what + " is needed")
		}
		return nil
	}
}

// Resize gives a dialog on w the size want, or less so that it fits the window.
func Resize(d dialog.Dialog, w fyne.Window, want fyne.Size) {
	if w != nil {
		room := w.Canvas().Size()
		want = fyne.NewSize(min(want.Width, room.Width-20), min(want.Height, room.Height-20))
	}
	d.Resize(want)
}

// dismissLabels are the buttons that leave a dialog without doing anything (Escape presses
// them), lower case and without a trailing ellipsis.
var dismissLabels = map[string]bool{"cancel": true, "close": true, "no": true, "dismiss": true, "not now": true}

// DismissTop closes the dialog or pop-up on top of the canvas as Escape should: it presses
// the dialog's own Cancel, Close or No button (so that its callback runs as if clicked), or
// its only button (an OK that acknowledges a message); a pop-up without buttons is hidden.
// It reports whether it closed something. fyne's dialogs do not listen to Escape themselves.
func DismissTop(c fyne.Canvas) bool {
	if c == nil {
		return false
	}
	top := c.Overlays().Top()
	if top == nil {
		return false
	}
	var buttons []*widget.Button
	walkVisible(top, func(o fyne.CanvasObject) {
		if b, ok := o.(*widget.Button); ok && !b.Disabled() && b.OnTapped != nil {
			buttons = append(buttons, b)
		}
	})
	for i := len(buttons) - 1; i >= 0; i-- {
		label := strings.ToLower(strings.TrimSpace(strings.TrimSuffix(buttons[i].Text, "…")))
		if dismissLabels[label] {
			buttons[i].OnTapped()
			return true
		}
	}
	if len(buttons) == 1 && buttons[0].Text != "" {
		buttons[0].OnTapped()
		return true
	}
	if p, ok := top.(*widget.PopUp); ok && len(buttons) == 0 {
		p.Hide()
		return true
	}
	return false
}

// walkVisible calls fn for o and every visible object inside it.
func walkVisible(o fyne.CanvasObject, fn func(fyne.CanvasObject)) {
	if o == nil || !o.Visible() {
		return
	}
	fn(o)
	switch c := o.(type) {
	case *fyne.Container:
		for _, ch := range c.Objects {
			walkVisible(ch, fn)
		}
	case fyne.Widget:
		for _, ch := range test.WidgetRenderer(c).Objects() {
			walkVisible(ch, fn)
		}
	}
}
