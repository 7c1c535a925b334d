package evaluation

import (
	"image/color"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
)

// themeFrame is the outline that marks the focused turn or question (and the turns to correct)
// in a theme colour that follows a theme switch: a canvas.Rectangle given theme.Color(...) kept
// the light theme's primary after switching to dark. The outline-only sibling of
// widgets.ThemeFill.
type themeFrame struct {
	widget.BaseWidget
	// stroke is the outline's colour; "" draws none.
	stroke fyne.ThemeColorName
}

func newThemeFrame() *themeFrame {
	f := &themeFrame{}
	f.ExtendBaseWidget(f)
	return f
}

// setStroke outlines the frame in c ("" for none), redrawing it only when c changes.
func (f *themeFrame) setStroke(c fyne.ThemeColorName) {
	if f.stroke == c {
		return
	}
	f.stroke = c
	f.Refresh()
}

func (f *themeFrame) CreateRenderer() fyne.WidgetRenderer {
	r := &themeFrameRenderer{f: f, rect: canvas.NewRectangle(color.Transparent)}
	r.Refresh()
	return r
}

type themeFrameRenderer struct {
	f    *themeFrame
	rect *canvas.Rectangle
}

func (r *themeFrameRenderer) Layout(s fyne.Size) { r.rect.Resize(s) }
func (r *themeFrameRenderer) MinSize() fyne.Size { return fyne.Size{} }

// Refresh reads the colour again: fyne refreshes every widget when the theme changes.
func (r *themeFrameRenderer) Refresh() {
	r.rect.StrokeColor = color.Transparent
	if r.f.stroke != "" {
		r.rect.StrokeColor = theme.Color(r.f.stroke)
	}
	r.rect.StrokeWidth = 2
	r.rect.CornerRadius = theme.InputRadiusSize()
	r.rect.Refresh()
}
func (r *themeFrameRenderer) Objects() []fyne.CanvasObject { return []fyne.CanvasObject{r.rect} }
func (r *themeFrameRenderer) Destroy()                     {}
