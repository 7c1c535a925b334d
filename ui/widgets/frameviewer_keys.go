package widgets

import (
	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/driver/desktop"
)

// The frame viewer's keys and pointer. Keyboard: the viewer takes the focus when tapped.

func (v *FrameViewer) Tapped(*fyne.PointEvent) {
	if c := fyne.CurrentApp().Driver().CanvasForObject(v); c != nil {
		c.Focus(v)
	}
}
func (v *FrameViewer) FocusGained()   {}
func (v *FrameViewer) FocusLost()     {}
func (v *FrameViewer) TypedRune(rune) {}
func (v *FrameViewer) TypedKey(ev *fyne.KeyEvent) {
	jump := 1
	if v.shift {
		jump = 10
	}
	switch ev.Name {
	case fyne.KeyLeft:
		v.Seek(v.index - jump)
	case fyne.KeyRight:
		v.Seek(v.index + jump)
	case fyne.KeyHome:
		v.Seek(0)
	case fyne.KeyEnd:
		v.Seek(v.Len() - 1)
	case fyne.KeySpace:
		v.TogglePlay()
	}
}

// KeyDown and KeyUp track Shift for the ten-step jumps.
func (v *FrameViewer) KeyDown(ev *fyne.KeyEvent) {
	if ev.Name == desktop.KeyShiftLeft || ev.Name == desktop.KeyShiftRight {
		v.shift = true
	}
}
func (v *FrameViewer) KeyUp(ev *fyne.KeyEvent) {
	if ev.Name == desktop.KeyShiftLeft || ev.Name == desktop.KeyShiftRight {
		v.shift = false
	}
}

var (
	_ fyne.Focusable  = (*FrameViewer)(nil)
	_ desktop.Keyable = (*FrameViewer)(nil)
	_ fyne.Tappable   = (*FrameViewer)(nil)
	_ fyne.Draggable  = (*timeline)(nil)
)
