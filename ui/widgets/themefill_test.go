package widgets

import (
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/theme"
)

// A fill made in one theme takes the other theme's colour when the user switches.
func TestFillFollowsTheTheme(t *testing.T) {
	a := test.NewTempApp(t)
	a.Settings().SetTheme(theme.LightTheme())
	f := NewThemeFill(theme.ColorNameInputBackground, 4)
	w := test.NewTempWindow(t, f)
	w.Resize(fyne.NewSize(100, 40))
	rect := test.WidgetRenderer(f).Objects()[0].(*canvas.Rectangle)
	light := rect.FillColor
	a.Settings().SetTheme(theme.DarkTheme())
	f.Refresh() // what fyne does to every widget on a theme change
	if rect.FillColor == light {
		t.Fatalf("the fill kept the light theme's colour %v in the dark theme", light)
	}
	if want := theme.DarkTheme().Color(theme.ColorNameInputBackground, theme.VariantDark); rect.FillColor != want {
		t.Errorf("dark fill %v, want %v", rect.FillColor, want)
	}
}

// A frame's outline made in one theme takes the other theme's colour when the user switches,
// and SetStroke("") takes it away.
func TestFrameFollowsTheTheme(t *testing.T) {
	a := test.NewTempApp(t)
	a.Settings().SetTheme(theme.LightTheme())
	f := NewThemeFrame(2, 4)
	f.SetStroke(theme.ColorNameForeground)
	w := test.NewTempWindow(t, f)
	w.Resize(fyne.NewSize(100, 40))
	rect := test.WidgetRenderer(f).Objects()[0].(*canvas.Rectangle)
	if want := theme.LightTheme().Color(theme.ColorNameForeground, theme.VariantLight); rect.StrokeColor != want || rect.StrokeWidth != 2 {
		t.Fatalf("light outline %v %.0f px, want %v 2 px", rect.StrokeColor, rect.StrokeWidth, want)
	}
	a.Settings().SetTheme(theme.DarkTheme())
	f.Refresh() // what fyne does to every widget on a theme change
	if want := theme.DarkTheme().Color(theme.ColorNameForeground, theme.VariantDark); rect.StrokeColor != want {
		t.Errorf("dark outline %v, want %v", rect.StrokeColor, want)
	}
	f.SetStroke("")
	if _, _, _, alpha := rect.StrokeColor.RGBA(); alpha != 0 {
		t.Errorf("no outline asked, outline %v", rect.StrokeColor)
	}
}
