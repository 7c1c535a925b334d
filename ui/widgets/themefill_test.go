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
