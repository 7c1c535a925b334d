package ui

import (
	"image/color"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/theme"
)

// Theme choices offered in Settings.
const (
	ThemeSystem = "system"
	ThemeLight  = "light"
	ThemeDark   = "dark"
)

// variantTheme is fyne's default theme with its light/dark variant fixed, for users who do
// not want to follow the system.
type variantTheme struct {
	fyne.Theme
	variant fyne.ThemeVariant
}

func (t variantTheme) Color(name fyne.ThemeColorName, _ fyne.ThemeVariant) color.Color {
	return t.Theme.Color(name, t.variant)
}

// ThemeFor returns the theme for a Settings choice; unknown choices follow the system.
func ThemeFor(choice string) fyne.Theme {
	switch choice {
	case ThemeLight:
		return variantTheme{Theme: theme.DefaultTheme(), variant: theme.VariantLight}
	case ThemeDark:
		return variantTheme{Theme: theme.DefaultTheme(), variant: theme.VariantDark}
	}
	return theme.DefaultTheme()
}

// ApplyTheme applies the theme saved in the preferences.
func ApplyTheme(a fyne.App) {
	a.Settings().SetTheme(ThemeFor(a.Preferences().StringWithFallback(prefTheme, ThemeSystem)))
}

// SetTheme saves a Settings choice and applies it.
func SetTheme(a fyne.App, choice string) {
	a.Preferences().SetString(prefTheme, choice)
	a.Settings().SetTheme(ThemeFor(choice))
}
