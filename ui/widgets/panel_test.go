package widgets

import (
	"testing"

	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/theme"
)

// TestPanelFollowsTheTheme: a panel made under the light theme is repainted dark when the user
// switches to the dark theme (it used to keep the colour it was made with: a white panel in the
// dark theme, with light text on it).
func TestPanelFollowsTheTheme(t *testing.T) {
	a := test.NewTempApp(t)
	a.Settings().SetTheme(theme.LightTheme())
	p := NewPanel(canvas.NewText("reward", theme.Color(theme.ColorNameForeground)))
	w := test.NewTempWindow(t, p)
	w.Resize(p.MinSize().AddWidthHeight(20, 20))
	bg := test.WidgetRenderer(p).Objects()[0].(*canvas.Rectangle)
	if bg.FillColor != OverlayBackground() {
		t.Fatalf("panel colour %v, want %v", bg.FillColor, OverlayBackground())
	}
	light := bg.FillColor
	a.Settings().SetTheme(theme.DarkTheme())
	test.ApplyTheme(t, theme.DarkTheme())
	if bg.FillColor == light || bg.FillColor != OverlayBackground() {
		t.Fatalf("after switching to dark: panel colour %v (light was %v), want %v", bg.FillColor, light, OverlayBackground())
	}
}

// TestCaptionFollowsTheTheme: a caption drawn under the light theme takes the dark theme's text
// colour when the user switches (it used to keep dark text on the dark panel).
func TestCaptionFollowsTheTheme(t *testing.T) {
	test.NewTempApp(t)
	test.ApplyTheme(t, theme.LightTheme())
	c := NewCaption("1 blue 20")
	test.NewTempWindow(t, c)
	text := test.WidgetRenderer(c).Objects()[0].(*canvas.Text)
	light := text.Color
	test.ApplyTheme(t, theme.DarkTheme())
	if text.Color == light || text.Color != theme.Color(theme.ColorNameForeground) {
		t.Fatalf("caption colour %v after switching to dark (light was %v)", text.Color, light)
	}
}
