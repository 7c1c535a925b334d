package widgets

import (
	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
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
