package widgets

import (
	"image/color"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
)

// ThemeFill is a rectangle filled and/or outlined in the theme's colours (a chat bubble's
// background, the frame of the focused question) that takes the new colours when the user
// switches the theme. A bare canvas.Rectangle keeps the colour it was made with: dark text on it
// in one theme, white text on a light box in the other, the light theme's primary outline in the
// dark theme.
type ThemeFill struct {
	widget.BaseWidget
	// Color fills the rectangle; "" leaves it empty.
	Color fyne.ThemeColorName
	// Stroke outlines the rectangle, StrokeWidth wide; "" draws no outline.
	Stroke      fyne.ThemeColorName
	StrokeWidth float32
	Radius      float32
}

// NewThemeFill returns a fill of the theme colour c with rounded corners of radius r.
func NewThemeFill(c fyne.ThemeColorName, r float32) *ThemeFill {
	f := &ThemeFill{Color: c, Radius: r}
	f.ExtendBaseWidget(f)
	return f
}

// NewThemeFrame returns an empty rectangle with rounded corners of radius r, outlined width
// wide once SetStroke gives it a colour.
func NewThemeFrame(width, r float32) *ThemeFill {
	f := &ThemeFill{StrokeWidth: width, Radius: r}
	f.ExtendBaseWidget(f)
	return f
}

// SetStroke outlines the rectangle in c ("" for none), redrawing it only when c changes.
func (f *ThemeFill) SetStroke(c fyne.ThemeColorName) {
	if f.Stroke == c {
		return
	}
	f.Stroke = c
	f.Refresh()
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

// Refresh reads the colours again: fyne refreshes every widget when the theme changes.
func (r *themeFillRenderer) Refresh() {
	r.rect.FillColor, r.rect.StrokeColor = themeColor(r.f.Color), themeColor(r.f.Stroke)
	r.rect.StrokeWidth = r.f.StrokeWidth
	r.rect.CornerRadius = r.f.Radius
	r.rect.Refresh()
}
func (r *themeFillRenderer) Objects() []fyne.CanvasObject { return []fyne.CanvasObject{r.rect} }
func (r *themeFillRenderer) Destroy()                     {}

// themeColor is the present theme's colour named c, transparent for "".
func themeColor(c fyne.ThemeColorName) color.Color {
	if c == "" {
		return color.Transparent
	}
	return theme.Color(c)
}
