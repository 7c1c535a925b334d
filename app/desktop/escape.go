package desktop

import (
	"fyne.io/fyne/v2"
	"github.com/go-gl/glfw/v3.3/glfw"
)

// fyne hands every key to the widget that has the keyboard and only the rest to the window, so
// Escape typed into a text field of a dialog never reaches the shell (fyne 2.7's dialogs do not
// close on Escape themselves). hookEscape puts escape in front of fyne's key handling of w: a
// press of Escape without modifiers goes to escape first, and on to fyne unless escape took
// it (it closed a dialog). Call it on the main goroutine once the window exists (the app's
// OnStarted); where the driver is not GLFW it does nothing (the shell's own key handler still
// closes dialogs when no widget has the keyboard).
func hookEscape(w fyne.Window, escape func() bool) {
	rc, ok := w.(interface{ RunWithContext(func()) })
	if !ok {
		return
	}
	rc.RunWithContext(func() {
		win := glfw.GetCurrentContext()
		if win == nil {
			return
		}
		var fyneKeys glfw.KeyCallback
		fyneKeys = win.SetKeyCallback(func(gw *glfw.Window, key glfw.Key, scancode int, action glfw.Action, mods glfw.ModifierKey) {
			if key == glfw.KeyEscape && action == glfw.Press && mods&(glfw.ModShift|glfw.ModControl|glfw.ModAlt|glfw.ModSuper) == 0 && escape() {
				return
			}
			if fyneKeys != nil {
				fyneKeys(gw, key, scancode, action, mods)
			}
		})
	})
}
