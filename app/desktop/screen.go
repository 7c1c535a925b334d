package desktop

import (
	"fyne.io/fyne/v2"
	"github.com/go-gl/glfw/v3.3/glfw"
)

// screenSize is the primary monitor's size in fyne units, zero when GLFW cannot tell (call it
// on the main goroutine once the app runs: fyne owns GLFW).
func screenSize(w fyne.Window) fyne.Size {
	m := glfw.GetPrimaryMonitor()
	if m == nil {
		return fyne.Size{}
	}
	mode := m.GetVideoMode()
	if mode == nil || mode.Width <= 0 {
		return fyne.Size{}
	}
	scale := w.Canvas().Scale()
	if scale <= 0 {
		scale = 1
	}
	return fyne.NewSize(float32(mode.Width)/scale, float32(mode.Height)/scale)
}
