package widgets

import (
	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
)

// ThemeFill is a rectangle in one of the theme's colours (a chat bubble's background) that takes
// the new colour when the user switches the theme. A bare canvas.Rectangle keeps the colour it
// was made with: dark text on it in one theme, white text on a light box in the other.
type ThemeFill struct {
	widget.BaseWidget
	Color  fyne.ThemeColorName
	Radius float32
}

// NewThemeFill returns a fill of the theme colour c with rounded corners of radius r.
func NewThemeFill(c fyne.ThemeColorName, r float32) *ThemeFill {
	f := &ThemeFill{Color: c, Radius: r}
	f.ExtendBaseWidget(f)
	return f
}

func (f *ThemeFill) CreateRenderer() fyne.WidgetRenderer {
	r := &themeFillRenderer{f: f, rect: canvas.NewRectangle(nil)}
	r.Refresh()
	return r
}

type themeFillRenderer struct {
	f    *ThemeFill
	rect *canvas.Rectangle
}

func (r *themeFillRenderer) Layout(s fyne.Size) { r.rect.Resize(s) }
func (r *themeFillRenderer) MinSize() fyne.Size { return fyne.Size{} }

// Refresh reads the colour again: fyne refreshes every widget when the theme changes.
func (r *themeFillRenderer) Refresh() {
	r.rect.FillColor = theme.Color(r.f.Color)
	r.rect.CornerRadius = r.f.Radius
	r.rect.Refresh()
}
func (r *themeFillRenderer) Objects() []fyne.CanvasObject { return []fyne.CanvasObject{r.rect} }
func (r *themeFillRenderer) Destroy()                     {}
