package ui

import (
	"fmt"
	"image/color"
	"math"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/agentdesk/agentdesk/ui/uitest"
	"github.com/agentdesk/agentdesk/ui/widgets"
	"github.com/agentdesk/agentdesk/ui/workspace"
)

// relativeLuminance is WCAG 2's luminance of an sRGB colour.
func relativeLuminance(c color.Color) float64 {
	r, g, b, _ := c.RGBA()
	lin := func(v uint32) float64 {
		s := float64(v) / 0xffff
		if s <= 0.03928 {
			return s / 12.92
		}
		return math.Pow((s+0.055)/1.055, 2.4)
	}
	return 0.2126*lin(r) + 0.7152*lin(g) + 0.0722*lin(b)
}

func contrast(a, b color.Color) float64 {
	la, lb := relativeLuminance(a), relativeLuminance(b)
	if la < lb {
		la, lb = lb, la
	}
	return (la + 0.05) / (lb + 0.05)
}

func TestControlBordersAreVisibleInEveryVariant(t *testing.T) {
	// Unselected radio buttons and check boxes are drawn in the input border colour: it must
	// stand out from the background (WCAG's 3:1 for controls) whatever the theme choice.
	for _, choice := range []string{ThemeSystem, ThemeLight, ThemeDark} {
		th := ThemeFor(choice)
		for _, v := range []fyne.ThemeVariant{theme.VariantLight, theme.VariantDark} {
			bg := th.Color(theme.ColorNameBackground, v)
			border := th.Color(theme.ColorNameInputBorder, v)
			if c := contrast(border, bg); c < 3 {
				t.Errorf("theme %s, variant %d: input border %v on background %v has contrast %.2f:1 (want >= 3)",
					choice, v, border, bg, c)
			}
		}
	}
}

func TestFixedThemesIgnoreTheSystemVariant(t *testing.T) {
	light, dark := ThemeFor(ThemeLight), ThemeFor(ThemeDark)
	for _, v := range []fyne.ThemeVariant{theme.VariantLight, theme.VariantDark} {
		if got, want := light.Color(theme.ColorNameBackground, v), theme.DefaultTheme().Color(theme.ColorNameBackground, theme.VariantLight); got != want {
			t.Errorf("light theme background under variant %d = %v, want %v", v, got, want)
		}
		if got, want := dark.Color(theme.ColorNameBackground, v), theme.DefaultTheme().Color(theme.ColorNameBackground, theme.VariantDark); got != want {
			t.Errorf("dark theme background under variant %d = %v, want %v", v, got, want)
		}
	}
}

// over is fg (with its alpha) painted over an opaque bg.
func over(fg, bg color.Color) color.Color {
	fr, fg_, fb, fa := fg.RGBA()
	br, bg_, bb, _ := bg.RGBA()
	mix := func(f, b uint32) uint8 { return uint8((f + b*(0xffff-fa)/0xffff) >> 8) }
	return color.NRGBA{mix(fr, br), mix(fg_, bg_), mix(fb, bb), 0xff}
}

// TestThemeContrast: body text at least 4.5:1 and secondary text (placeholders, disabled and
// low-importance labels) at least 3:1 against every background the screens put them on, in
// both variants of every theme choice, including the translucent overlay panels over the 3D
// view and frames (whatever is behind: black or white).
func TestThemeContrast(t *testing.T) {
	bodyText := []fyne.ThemeColorName{theme.ColorNameForeground, theme.ColorNamePrimary, theme.ColorNameHyperlink,
		theme.ColorNameSuccess, theme.ColorNameWarning, theme.ColorNameError}
	secondary := []fyne.ThemeColorName{theme.ColorNamePlaceHolder, theme.ColorNameDisabled}
	surfaces := []fyne.ThemeColorName{theme.ColorNameBackground, theme.ColorNameInputBackground, theme.ColorNameButton,
		theme.ColorNameMenuBackground, theme.ColorNameHeaderBackground, theme.ColorNameOverlayBackground}
	onColour := map[fyne.ThemeColorName]fyne.ThemeColorName{theme.ColorNamePrimary: theme.ColorNameForegroundOnPrimary,
		theme.ColorNameSuccess: theme.ColorNameForegroundOnSuccess, theme.ColorNameWarning: theme.ColorNameForegroundOnWarning,
		theme.ColorNameError: theme.ColorNameForegroundOnError}
	check := func(what string, fg, bg color.Color, want float64) {
		t.Helper()
		if c := contrast(fg, bg); c < want {
			t.Errorf("%s: %v on %v is %.2f:1, want %.1f", what, fg, bg, c, want)
		}
	}
	for _, choice := range []string{ThemeSystem, ThemeLight, ThemeDark} {
		th := ThemeFor(choice)
		for _, v := range []fyne.ThemeVariant{theme.VariantLight, theme.VariantDark} {
			bg := th.Color(theme.ColorNameBackground, v)
			for _, s := range surfaces {
				surface := over(th.Color(s, v), bg)
				for _, n := range bodyText {
					check(fmt.Sprintf("%s/%d: %s text on %s", choice, v, n, s), th.Color(n, v), surface, 4.5)
				}
				for _, n := range secondary {
					check(fmt.Sprintf("%s/%d: %s text on %s", choice, v, n, s), th.Color(n, v), surface, 3)
				}
			}
			for c, on := range onColour {
				check(fmt.Sprintf("%s/%d: %s on a %s button", choice, v, on, c), th.Color(on, v), th.Color(c, v), 4.5)
			}
			// the overlay panels over the 3D view and frames: the background at widgets.OverlayAlpha
			panel := th.Color(theme.ColorNameBackground, v)
			r, g, b, _ := panel.RGBA()
			translucent := color.NRGBA{uint8(r >> 8), uint8(g >> 8), uint8(b >> 8), widgets.OverlayAlpha}
			for _, behind := range []color.Color{color.Black, color.White} {
				check(fmt.Sprintf("%s/%d: text on the overlay panel over %v", choice, v, behind),
					th.Color(theme.ColorNameForeground, v), over(translucent, behind), 4.5)
			}
		}
	}
}

// TestCompactDensity: the compact density takes padding out of the shell and keeps every text
// size; Settings' choice is saved and applied again at the next start.
func TestCompactDensity(t *testing.T) {
	a := test.NewTempApp(t)
	ApplyTheme(a)
	s, w := newTestShell(t, Deps{})
	s.Show(ScreenSettings)
	normal := s.root.MinSize()
	th := a.Settings().Theme()
	text := []fyne.ThemeSizeName{theme.SizeNameText, theme.SizeNameHeadingText, theme.SizeNameSubHeadingText, theme.SizeNameCaptionText}
	sizes := map[fyne.ThemeSizeName]float32{}
	for _, n := range text {
		sizes[n] = th.Size(n)
	}
	uitest.Find(w.Content(), func(c *widget.Check) bool { return strings.HasPrefix(c.Text, "Compact") }).SetChecked(true)
	if a.Preferences().String(prefDensity) != DensityCompact {
		t.Fatal("the density was not saved")
	}
	th = a.Settings().Theme()
	if th.Size(theme.SizeNamePadding) >= theme.DefaultTheme().Size(theme.SizeNamePadding) {
		t.Fatal("compact keeps fyne's padding")
	}
	for _, n := range text {
		if th.Size(n) != sizes[n] {
			t.Errorf("%s: %v in compact, %v before", n, th.Size(n), sizes[n])
		}
	}
	s.Show(ScreenHome)
	s.Show(ScreenSettings)
	if compact := s.root.MinSize(); compact.Height >= normal.Height {
		t.Fatalf("Settings needs %v compact, %v normal", compact, normal)
	}
	a.Settings().SetTheme(theme.DefaultTheme())
	ApplyTheme(a)
	if a.Settings().Theme().Size(theme.SizeNamePadding) != th.Size(theme.SizeNamePadding) {
		t.Fatal("the density is not applied at the start")
	}
}

// TestTableLinesStayRightAfterASwitch: a table made in the light theme and off screen while the
// user switches to dark (the shell swaps workspaces out) has grid lines that suit the dark
// background: they stayed fyne's light #e3e3e3, bright white on dark (the Explorer's tables).
func TestTableLinesStayRightAfterASwitch(t *testing.T) {
	a := test.NewTempApp(t)
	a.Settings().SetTheme(ThemeFor(ThemeLight))
	tb := widget.NewTable(func() (int, int) { return 5, 3 },
		func() fyne.CanvasObject { return widget.NewLabel("cell") }, func(widget.TableCellID, fyne.CanvasObject) {})
	w := test.NewTempWindow(t, tb)
	w.Resize(fyne.NewSize(300, 200))
	w.SetContent(widget.NewLabel("another workspace"))
	a.Settings().SetTheme(ThemeFor(ThemeDark))
	w.SetContent(tb)
	dark := ThemeFor(ThemeDark)
	bg := dark.Color(theme.ColorNameBackground, theme.VariantDark)
	lines := 0
	uitest.Walk(tb, func(o fyne.CanvasObject) {
		sep, ok := o.(*widget.Separator)
		if !ok {
			return
		}
		lines++
		fill := test.WidgetRenderer(sep).Objects()[0].(*canvas.Rectangle).FillColor
		// the line as drawn on the dark background
		if c := contrast(over(fill, bg), bg); c > 1.6 || c < 1.05 {
			t.Errorf("a grid line %v is %.2f:1 on the dark background (harsh above 1.6, invisible below 1.05)", fill, c)
		}
	})
	if lines == 0 {
		t.Fatal("no grid lines found")
	}
}

// A workspace left while the theme changes comes back in the new theme: the theme fill of its
// view (a chat bubble's background, a Home panel) is restyled when it is shown again.
func TestWorkspaceShownAgainTakesTheNewTheme(t *testing.T) {
	a := test.NewTempApp(t)
	a.Settings().SetTheme(ThemeFor(ThemeLight))
	fill := widgets.NewThemeFill(theme.ColorNameInputBackground, 0)
	reg := workspace.Registration{ID: "fills", Title: "Fills", Icon: theme.HomeIcon(),
		New: func(workspace.Host) workspace.Workspace { return contentOnly{container.NewStack(newHolder(fill))} }}
	s, _ := newTestShell(t, Deps{Version: "test", Workspaces: []workspace.Registration{reg}})
	s.Show("fills")
	rect := test.WidgetRenderer(fill).Objects()[0].(*canvas.Rectangle)
	light := rect.FillColor
	s.Show(ScreenHome)
	a.Settings().SetTheme(ThemeFor(ThemeDark))
	s.Show("fills")
	want := ThemeFor(ThemeDark).Color(theme.ColorNameInputBackground, theme.VariantDark)
	if rect.FillColor == light || rect.FillColor != want {
		t.Errorf("shown again after the switch to dark, the fill is %v (light %v, dark %v)", rect.FillColor, light, want)
	}
}

// holder is a widget that keeps its child in its renderer and does not refresh it on its own
// Refresh, as many of fyne's widgets do with the objects they draw (a table's lines).
type holder struct {
	widget.BaseWidget
	child fyne.CanvasObject
}

func newHolder(child fyne.CanvasObject) *holder {
	h := &holder{child: child}
	h.ExtendBaseWidget(h)
	return h
}

func (h *holder) CreateRenderer() fyne.WidgetRenderer { return holderRenderer{h.child} }

type holderRenderer struct{ child fyne.CanvasObject }

func (r holderRenderer) Layout(s fyne.Size)           { r.child.Resize(s) }
func (r holderRenderer) MinSize() fyne.Size           { return r.child.MinSize() }
func (r holderRenderer) Refresh()                     {}
func (r holderRenderer) Objects() []fyne.CanvasObject { return []fyne.CanvasObject{r.child} }
func (r holderRenderer) Destroy()                     {}

// contentOnly is a workspace that is only its view.
type contentOnly struct{ view fyne.CanvasObject }

func (c contentOnly) Content() fyne.CanvasObject { return c.view }
func (c contentOnly) Close()                     {}
