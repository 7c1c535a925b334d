package widgets

import (
	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
)

// Panel is a rounded, translucent panel (OverlayBackground) behind content drawn over a
// picture: the 3D view or a frame. Its colour follows the theme when the user switches it.
type Panel struct {
	widget.BaseWidget
	content fyne.CanvasObject
}

// NewPanel stacks objs vertically on a panel.
func NewPanel(objs ...fyne.CanvasObject) *Panel {
	p := &Panel{content: container.NewPadded(container.NewVBox(objs...))}
	p.ExtendBaseWidget(p)
	return p
}

func (p *Panel) CreateRenderer() fyne.WidgetRenderer {
	bg := canvas.NewRectangle(OverlayBackground())
	bg.CornerRadius = 6
	return &panelRenderer{bg: bg, content: p.content}
}

type panelRenderer struct {
	bg      *canvas.Rectangle
	content fyne.CanvasObject
}

func (r *panelRenderer) Layout(size fyne.Size) {
	r.bg.Resize(size)
	r.content.Resize(size)
}

func (r *panelRenderer) MinSize() fyne.Size { return r.content.MinSize() }

// Refresh reads the panel colour again: fyne refreshes every object when the theme changes.
func (r *panelRenderer) Refresh() {
	r.bg.FillColor = OverlayBackground()
	r.bg.Refresh()
	r.content.Refresh()
}

func (r *panelRenderer) Objects() []fyne.CanvasObject { return []fyne.CanvasObject{r.bg, r.content} }
func (r *panelRenderer) Destroy()                     {}

// Caption is a line of small text in the theme's foreground colour, without a label's padding
// (the inventory over the 3D view); it follows theme switches.
type Caption struct {
	widget.BaseWidget
	Text string
}

// NewCaption returns a caption.
func NewCaption(text string) *Caption {
	c := &Caption{Text: text}
	c.ExtendBaseWidget(c)
	return c
}

func (c *Caption) CreateRenderer() fyne.WidgetRenderer {
	t := canvas.NewText(c.Text, theme.Color(theme.ColorNameForeground))
	return &captionRenderer{c: c, text: t}
}

type captionRenderer struct {
	c    *Caption
	text *canvas.Text
}

func (r *captionRenderer) Layout(size fyne.Size)        { r.text.Resize(size) }
func (r *captionRenderer) MinSize() fyne.Size           { return r.text.MinSize() }
func (r *captionRenderer) Objects() []fyne.CanvasObject { return []fyne.CanvasObject{r.text} }
func (r *captionRenderer) Destroy()                     {}
func (r *captionRenderer) Refresh() {
	r.text.Text = r.c.Text
	r.text.Color = theme.Color(theme.ColorNameForeground)
	r.text.Refresh()
}
