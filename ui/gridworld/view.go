package gridworld

import (
	"image"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
)

// worldCanvas shows rendered frames and turns keyboard and mouse input into callbacks. It takes
// the keyboard focus when clicked.
type worldCanvas struct {
	widget.BaseWidget
	img *canvas.Image

	onKey       func(fyne.KeyName)
	onClick     func(secondary bool)
	onDrag      func(dx, dy float32)
	onScroll    func(dy float32)
	onResize    func(size fyne.Size)
	focused     bool
	lastSize    fyne.Size
	focusBorder *canvas.Rectangle
}

func newWorldCanvas() *worldCanvas {
	c := &worldCanvas{img: canvas.NewImageFromImage(image.NewRGBA(image.Rect(0, 0, 1, 1)))}
	c.img.FillMode = canvas.ImageFillContain
	c.img.ScaleMode = canvas.ImageScaleFastest
	c.focusBorder = canvas.NewRectangle(nil)
	c.focusBorder.StrokeWidth = 2
	c.ExtendBaseWidget(c)
	return c
}

func (c *worldCanvas) setImage(img image.Image) {
	c.img.Image = img
	c.img.Refresh()
}

func (c *worldCanvas) CreateRenderer() fyne.WidgetRenderer {
	return &worldCanvasRenderer{c: c}
}

type worldCanvasRenderer struct{ c *worldCanvas }

func (r *worldCanvasRenderer) Layout(size fyne.Size) {
	r.c.img.Resize(size)
	r.c.focusBorder.Resize(size)
	if size != r.c.lastSize {
		r.c.lastSize = size
		if r.c.onResize != nil {
			r.c.onResize(size)
		}
	}
}
func (r *worldCanvasRenderer) MinSize() fyne.Size { return fyne.NewSize(320, 240) }
func (r *worldCanvasRenderer) Refresh() {
	if r.c.focused {
		r.c.focusBorder.StrokeColor = theme.Color(theme.ColorNameFocus)
	} else {
		r.c.focusBorder.StrokeColor = nil
	}
	r.c.focusBorder.Refresh()
	r.c.img.Refresh()
}
func (r *worldCanvasRenderer) Objects() []fyne.CanvasObject {
	return []fyne.CanvasObject{r.c.img, r.c.focusBorder}
}
func (r *worldCanvasRenderer) Destroy() {}

func (c *worldCanvas) focus() {
	if cv := fyne.CurrentApp().Driver().CanvasForObject(c); cv != nil {
		cv.Focus(c)
	}
}

func (c *worldCanvas) FocusGained()   { c.focused = true; c.Refresh() }
func (c *worldCanvas) FocusLost()     { c.focused = false; c.Refresh() }
func (c *worldCanvas) TypedRune(rune) {}
func (c *worldCanvas) TypedKey(ev *fyne.KeyEvent) {
	if c.onKey != nil {
		c.onKey(ev.Name)
	}
}

// Tapped (left click) breaks the block in sight; TappedSecondary (right click) places one.
// The click that gives the view the keyboard focus only does that.
func (c *worldCanvas) Tapped(*fyne.PointEvent) {
	if !c.focused {
		c.focus()
		return
	}
	if c.onClick != nil {
		c.onClick(false)
	}
}

func (c *worldCanvas) TappedSecondary(*fyne.PointEvent) {
	if !c.focused {
		c.focus()
		return
	}
	if c.onClick != nil {
		c.onClick(true)
	}
}

func (c *worldCanvas) Dragged(ev *fyne.DragEvent) {
	if c.onDrag != nil {
		c.onDrag(ev.Dragged.DX, ev.Dragged.DY)
	}
}
func (c *worldCanvas) DragEnd() {}

func (c *worldCanvas) Scrolled(ev *fyne.ScrollEvent) {
	if c.onScroll != nil {
		c.onScroll(ev.Scrolled.DY)
	}
}

// Cursor shows a crosshair over the world.
func (c *worldCanvas) Cursor() desktop.Cursor { return desktop.CrosshairCursor }

var (
	_ fyne.Focusable         = (*worldCanvas)(nil)
	_ fyne.Tappable          = (*worldCanvas)(nil)
	_ fyne.SecondaryTappable = (*worldCanvas)(nil)
	_ fyne.Draggable         = (*worldCanvas)(nil)
	_ fyne.Scrollable        = (*worldCanvas)(nil)
	_ desktop.Cursorable     = (*worldCanvas)(nil)
)
