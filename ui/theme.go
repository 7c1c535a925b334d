package ui

import (
	"image/color"
	"sync"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/lang"
	"fyne.io/fyne/v2/theme"

	"github.com/agentdesk/agentdesk/ui/fonts"
)

// Theme choices offered in Settings.
const (
	ThemeSystem = "system"
	ThemeLight  = "light"
	ThemeDark   = "dark"
)

// appTheme is fyne's default theme, with its light/dark variant optionally fixed (for users
// who do not want to follow the system) and its colours corrected where fyne's fall short of
// WCAG's contrast ratios (TestThemeContrast checks every pair the screens use):
//
//   - input borders (unselected radio buttons and check boxes, which the Evaluation pages are
//     made of) were 1.3:1 on the light background and 1.55:1 on the dark one; now above 3:1;
//   - disabled text, also what low-importance labels (secondary lines) are drawn in, was 1.3:1
//     and 1.55:1, near-invisible; now above 3:1 (secondary text), still dimmer than body text;
//   - primary (links, high-importance text, primary buttons) was 4.47:1 and 4.0:1 as text;
//     success, warning and error text on the light background 1.5:1, 2.2:1 and 3.7:1: all are
//     now above 4.5:1, and the text on those colours' buttons too.
type appTheme struct {
	fyne.Theme
	fixed   bool
	variant fyne.ThemeVariant
	// compact is the compact density: less padding inside and between widgets, the same text
	compact bool
}

// Densities offered in Settings.
const (
	DensityNormal  = "normal"
	DensityCompact = "compact"
)

// compactSizes are the compact density's sizes: the padding between and inside widgets, about
// two thirds of fyne's. Text sizes are not among them: body text stays at the default size.
var compactSizes = map[fyne.ThemeSizeName]float32{
	theme.SizeNamePadding:      2,
	theme.SizeNameInnerPadding: 6,
	theme.SizeNameLineSpacing:  3,
}

// Size is fyne's size, or the compact density's.
func (t appTheme) Size(name fyne.ThemeSizeName) float32 {
	if v, ok := compactSizes[name]; ok && t.compact {
		return v
	}
	return t.Theme.Size(name)
}

// The corrected colours, light variant first.
var (
	lightInputBorder = color.NRGBA{R: 0x86, G: 0x86, B: 0x86, A: 0xff}
	darkInputBorder  = color.NRGBA{R: 0x70, G: 0x70, B: 0x72, A: 0xff}
	corrected        = map[fyne.ThemeColorName][2]color.Color{
		theme.ColorNameInputBorder:         {lightInputBorder, darkInputBorder},
		theme.ColorNameDisabled:            {color.NRGBA{0x8a, 0x8a, 0x8a, 0xff}, color.NRGBA{0x80, 0x80, 0x84, 0xff}},
		theme.ColorNamePrimary:             {color.NRGBA{0x1f, 0x5f, 0xd6, 0xff}, color.NRGBA{0x5a, 0x94, 0xff, 0xff}},
		theme.ColorNameHyperlink:           {color.NRGBA{0x1f, 0x5f, 0xd6, 0xff}, color.NRGBA{0x6f, 0xa2, 0xff, 0xff}},
		theme.ColorNameForegroundOnPrimary: {color.White, color.NRGBA{0x0e, 0x0e, 0x10, 0xff}},
		theme.ColorNameSuccess:             {color.NRGBA{0x1b, 0x7a, 0x1b, 0xff}, color.NRGBA{0x43, 0xf4, 0x36, 0xff}},
		theme.ColorNameWarning:             {color.NRGBA{0xa8, 0x56, 0x00, 0xff}, color.NRGBA{0xff, 0x98, 0x00, 0xff}},
		theme.ColorNameError:               {color.NRGBA{0xc0, 0x22, 0x22, 0xff}, color.NRGBA{0xff, 0x6b, 0x5e, 0xff}},
		// One separator colour for both variants, a grey that reads on either background (about
		// fyne's light #e3e3e3 on white, a dim #2e2e2f on the dark background): fyne's table
		// colours its grid lines once and again only when the theme changes while it is in the
		// window, so a workspace off screen at a switch (the shell swaps them) kept light lines,
		// bright white on dark.
		theme.ColorNameSeparator: {separatorGrey, separatorGrey},
	}
	separatorGrey = color.NRGBA{R: 0x80, G: 0x80, B: 0x80, A: 0x38}
)

func (t appTheme) Color(name fyne.ThemeColorName, v fyne.ThemeVariant) color.Color {
	if t.fixed {
		v = t.variant
	}
	if c, ok := corrected[name]; ok {
		if v == theme.VariantLight {
			return c[0]
		}
		return c[1]
	}
	return t.Theme.Color(name, v)
}

// Font is fyne's font, with the system's CJK font (if any) in front of it holding only the
// characters fyne's font lacks (package fonts): fyne draws each character from the first font
// that has it.
func (t appTheme) Font(style fyne.TextStyle) fyne.Resource {
	if style.Monospace || style.Symbol || style.Italic {
		return t.Theme.Font(style)
	}
	fb := systemCJK()
	if fb == nil {
		return t.Theme.Font(style)
	}
	if style.Bold {
		return fb.Bold
	}
	return fb.Regular
}

// systemCJK finds the system's CJK font once per run (nil when there is none).
var systemCJK = sync.OnceValue(func() *fonts.Fallback {
	fb, err := fonts.Find(fonts.Families(lang.SystemLocale().String()))
	if err != nil {
		fyne.LogError("CJK font", err)
	}
	return fb
})

// ThemeFor returns the theme for a Settings choice, in the normal density; unknown choices
// follow the system.
func ThemeFor(choice string) fyne.Theme { return themeFor(choice, DensityNormal) }

func themeFor(choice, density string) fyne.Theme {
	t := appTheme{Theme: theme.DefaultTheme(), compact: density == DensityCompact}
	switch choice {
	case ThemeLight:
		t.fixed, t.variant = true, theme.VariantLight
	case ThemeDark:
		t.fixed, t.variant = true, theme.VariantDark
	}
	return t
}

// ApplyTheme applies the theme and density saved in the preferences.
func ApplyTheme(a fyne.App) {
	p := a.Preferences()
	a.Settings().SetTheme(themeFor(p.StringWithFallback(prefTheme, ThemeSystem), p.StringWithFallback(prefDensity, DensityNormal)))
}

// SetTheme saves a Settings choice and applies it.
func SetTheme(a fyne.App, choice string) {
	a.Preferences().SetString(prefTheme, choice)
	ApplyTheme(a)
}

// SetDensity saves the density (DensityNormal, DensityCompact) and applies it.
func SetDensity(a fyne.App, density string) {
	a.Preferences().SetString(prefDensity, density)
	ApplyTheme(a)
}
