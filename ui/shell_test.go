package ui

import (
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/agentdesk/agentdesk/app/workflow"
	"github.com/agentdesk/agentdesk/engine/gridworld"
	"github.com/agentdesk/agentdesk/resources"
	"github.com/agentdesk/agentdesk/store"
	"github.com/agentdesk/agentdesk/ui/registry"
	"github.com/agentdesk/agentdesk/ui/uitest"
	"github.com/agentdesk/agentdesk/ui/workspace"
)

// newTestShell builds the shell as the GUI entry does, with the five workspaces on deps.Store
// (or on the store a switch opened), background work run at once.
func newTestShell(t *testing.T, deps Deps) (*Shell, fyne.Window) {
	t.Helper()
	deps.Run = uitest.SyncRun
	var s *Shell
	if deps.Workspaces == nil {
		deps.Workspaces = registry.Workspaces(func() registry.Store {
			cur := deps.Store
			if s != nil {
				cur = s.deps.Store
			}
			if st, ok := cur.(*store.Store); ok && st != nil {
				return workflow.Workflows{Store: st} // as the GUI entry gives it
			}
			return nil
		}, registry.Options{})
	}
	w := test.NewWindow(nil)
	w.Resize(fyne.NewSize(1100, 750))
	s = NewShell(w, deps)
	w.SetContent(s.Content())
	t.Cleanup(w.Close)
	return s, w
}

func TestNavigationReachesEveryScreen(t *testing.T) {
	test.NewTempApp(t)
	s, w := newTestShell(t, Deps{Version: "test"})
	want := map[string]string{
		ScreenHome: "Home", workspace.Gridworld: "Gridworld", workspace.Demonstrations: "Demonstrations",
		workspace.Templates: "Templates", workspace.Evaluation: "Evaluation", workspace.Explorer: "Explorer",
		ScreenSettings: "Settings", ScreenAbout: "About",
	}
	if len(s.screens) != len(want) {
		t.Fatalf("%d screens, want %d", len(s.screens), len(want))
	}
	// Select through the navigation list, as a click does.
	for i, sc := range s.screens {
		test.Tap(s.nav.entries[i])
		if s.Current() != sc.ID || s.title.Text != want[sc.ID] {
			t.Fatalf("after selecting %s: current=%s title=%q", sc.ID, s.Current(), s.title.Text)
		}
		if !strings.Contains(uitest.Texts(w.Content()), sc.Intro) {
			t.Errorf("%s: intro line not on screen", sc.ID)
		}
	}
	if s.Show("nonsense") {
		t.Fatal("Show accepted an unknown screen")
	}
	// Without a store, the workspaces that need one say so.
	s.Show(workspace.Explorer)
	if !strings.Contains(uitest.Texts(w.Content()), "No store is open") {
		t.Fatalf("Explorer without a store: %q", uitest.Texts(w.Content()))
	}
}

func TestKeyboardShortcutsSwitchScreens(t *testing.T) {
	test.NewTempApp(t)
	s, _ := newTestShell(t, Deps{})
	var goMenu *fyne.Menu
	for _, m := range s.MainMenu(func() {}).Items {
		if m.Label == "Go" {
			goMenu = m
		}
	}
	if goMenu == nil || len(goMenu.Items) != len(s.screens) {
		t.Fatalf("Go menu %+v", goMenu)
	}
	for i := len(s.screens) - 1; i >= 0; i-- {
		it := goMenu.Items[i]
		if sc, ok := it.Shortcut.(*desktop.CustomShortcut); !ok || sc.Modifier != fyne.KeyModifierAlt || sc.KeyName != screenKeys[i] {
			t.Fatalf("%s: shortcut %v", it.Label, it.Shortcut)
		}
		it.Action() // as fyne runs it for the shortcut, before any focused text field sees it
		if s.Current() != s.screens[i].ID {
			t.Fatalf("Alt+%d shows %s, want %s", i+1, s.Current(), s.screens[i].ID)
		}
	}
}

func TestLastScreenIsRemembered(t *testing.T) {
	test.NewTempApp(t)
	s, _ := newTestShell(t, Deps{})
	if s.Current() != ScreenHome {
		t.Fatalf("first start shows %s, want home", s.Current())
	}
	s.Show(workspace.Evaluation)
	s2, _ := newTestShell(t, Deps{})
	if s2.Current() != workspace.Evaluation {
		t.Fatalf("second start shows %s, want evaluation", s2.Current())
	}
	fyne.CurrentApp().Preferences().SetString(prefLastScreen, "removed-screen")
	s3, _ := newTestShell(t, Deps{})
	if s3.Current() != ScreenHome {
		t.Fatalf("unknown remembered screen: shows %s, want home", s3.Current())
	}
}

func TestSettingsChangeTheTheme(t *testing.T) {
	a := test.NewTempApp(t)
	s, w := newTestShell(t, Deps{})
	s.Show(ScreenSettings)
	var radio *widget.RadioGroup
	uitest.Walk(w.Content(), func(o fyne.CanvasObject) {
		if r, ok := o.(*widget.RadioGroup); ok && slices.Contains(r.Options, themeLabels[ThemeDark]) {
			radio = r
		}
	})
	if radio == nil {
		t.Fatal("no theme choice on the Settings screen")
	}
	if radio.Selected != themeLabels[ThemeSystem] {
		t.Fatalf("default theme choice %q", radio.Selected)
	}
	darkBG := theme.DefaultTheme().Color(theme.ColorNameBackground, theme.VariantDark)
	lightBG := theme.DefaultTheme().Color(theme.ColorNameBackground, theme.VariantLight)
	radio.SetSelected(themeLabels[ThemeDark])
	if got := a.Settings().Theme().Color(theme.ColorNameBackground, theme.VariantLight); got != darkBG {
		t.Fatalf("dark theme chosen, background %v, want %v", got, darkBG)
	}
	if a.Preferences().String(prefTheme) != ThemeDark {
		t.Fatal("theme choice not saved")
	}
	radio.SetSelected(themeLabels[ThemeLight])
	if got := a.Settings().Theme().Color(theme.ColorNameBackground, theme.VariantDark); got != lightBG {
		t.Fatalf("light theme chosen, background %v, want %v", got, lightBG)
	}
	// The choice is applied again at the next start.
	a.Settings().SetTheme(theme.DefaultTheme())
	ApplyTheme(a)
	if got := a.Settings().Theme().Color(theme.ColorNameBackground, theme.VariantDark); got != lightBG {
		t.Fatal("saved theme not applied at start")
	}
}

func TestHomeShowsCountsFromTheStore(t *testing.T) {
	test.NewTempApp(t)
	st := uitest.SeededStore(t)
	s, w := newTestShell(t, Deps{Store: st, StorePath: st.Path()})
	s.Show(ScreenHome)
	got := uitest.Texts(w.Content())
	for _, want := range []string{
		"6 episodes, 25 steps, 1 split",
		fmt.Sprintf("2 recorded builds\nTasks: %d built-in samples", len(gridworld.SampleTasks())),
		"1 Mobile-Env trajectory",
		"0 template folders",
		"0 evaluation projects",
		"6 episodes: 3 odyssey, 2 gridworld, 1 mobileenv; 1 split",
		"demo.pkl  ·  pickle",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("Home lacks %q; it shows:\n%s", want, got)
		}
	}
	// A card's button takes the user to its workspace.
	var open *widget.Button
	uitest.Walk(w.Content(), func(o fyne.CanvasObject) {
		if b, ok := o.(*widget.Button); ok && b.Text == "Open Explorer" {
			open = b
		}
	})
	if open == nil {
		t.Fatal("no Open Explorer button")
	}
	test.Tap(open)
	if s.Current() != workspace.Explorer {
		t.Fatalf("Open Explorer went to %s", s.Current())
	}
}

func TestHomeWithoutStoreExplains(t *testing.T) {
	test.NewTempApp(t)
	refused := &store.OpenError{Path: "/tmp/x.db", Err: store.ErrNewerSchema, Detail: "schema version 99"}
	_, w := newTestShell(t, Deps{StoreErr: refused, StorePath: "/tmp/x.db"})
	got := uitest.Texts(w.Content())
	if !strings.Contains(got, "No store is open") || !strings.Contains(got, "newer version") {
		t.Fatalf("Home without a store shows:\n%s", got)
	}
	// The refusal is also shown as a dialog over the window.
	top := w.Canvas().Overlays().Top()
	if top == nil {
		t.Fatal("no dialog shown for a refused store")
	}
	if d := uitest.Texts(top); !strings.Contains(d, "Agentdesk did not change the file") || !strings.Contains(d, "schema version 99") {
		t.Fatalf("refusal dialog says:\n%s", d)
	}
	if !errors.Is(refused, store.ErrNewerSchema) {
		t.Fatal("error chain")
	}
}

func TestSwitchStoreRebuildsHome(t *testing.T) {
	test.NewTempApp(t)
	st := uitest.SeededStore(t)
	other, err := store.Open(filepath.Join(t.TempDir(), "other.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	s, w := newTestShell(t, Deps{Store: st, StorePath: st.Path(),
		OpenStore: func(path string) (Store, error) { return other, nil }})
	if err := s.switchStore(other.Path()); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(uitest.Texts(w.Content()), "0 episodes, 0 steps, 0 splits") {
		t.Fatalf("after switching, Home shows:\n%s", uitest.Texts(w.Content()))
	}
	if got := fyne.CurrentApp().Preferences().StringList(prefRecentStores); len(got) == 0 || got[0] != other.Path() {
		t.Fatalf("recent stores %v", got)
	}
}

func TestAboutListsVersionAndLicences(t *testing.T) {
	test.NewTempApp(t)
	s, w := newTestShell(t, Deps{Version: "1.2.3", Licenses: []resources.License{
		{Module: "fyne.io/fyne/v2", Version: "v2.7.3", Name: "BSD-3-Clause", Text: "Copyright (C) 2018 Fyne.io developers"},
	}})
	s.Show(ScreenAbout)
	got := uitest.Texts(w.Content())
	if !strings.Contains(got, "Version 1.2.3") || !strings.Contains(got, "these 1 modules") {
		t.Fatalf("About shows:\n%s", got)
	}
}

func TestWindowSizeIsRemembered(t *testing.T) {
	a := test.NewTempApp(t)
	if got := WindowSize(a.Preferences(), fyne.Size{}); got != fyne.NewSize(1200, 780) {
		t.Fatalf("default size without a screen size %v", got)
	}
	if got := WindowSize(a.Preferences(), fyne.NewSize(1920, 1080)); got != fyne.NewSize(1632, 918) {
		t.Fatalf("default size on 1920x1080: %v", got)
	}
	for _, screen := range []fyne.Size{{Width: 1024, Height: 700}, {Width: 1280, Height: 720}, {Width: 1366, Height: 768}} {
		if got := WindowSize(a.Preferences(), screen); got != fyne.NewSize(screen.Width, screen.Height-screenChrome) {
			t.Fatalf("default size on a %vx%v laptop screen: %v (all of it, less the title bar)", screen.Width, screen.Height, got)
		}
	}
	laptop, monitor := fyne.NewSize(1366, 768), fyne.NewSize(1920, 1080)
	SaveWindowSize(a.Preferences(), fyne.NewSize(900, 600), laptop)
	if got := WindowSize(a.Preferences(), fyne.Size{}); got != fyne.NewSize(900, 600) {
		t.Fatalf("remembered size, screen unknown: %v", got)
	}
	if got := WindowSize(a.Preferences(), fyne.NewSize(1360, 766)); got != fyne.NewSize(900, 600) {
		t.Fatalf("remembered size on the same screen (scaled a little differently): %v", got)
	}
	SaveWindowSize(a.Preferences(), fyne.NewSize(10, 10), laptop) // a minimised window is not remembered
	if got := WindowSize(a.Preferences(), laptop); got != fyne.NewSize(900, 600) {
		t.Fatalf("size after minimise %v", got)
	}
	// a size remembered on a large screen is not used on a small one
	SaveWindowSize(a.Preferences(), fyne.NewSize(1800, 1000), monitor)
	if got := WindowSize(a.Preferences(), fyne.NewSize(1024, 700)); got != fyne.NewSize(1024, 670) {
		t.Fatalf("1800x1000 on a 1024x700 screen: %v", got)
	}
	// ...and a window sized on a laptop reopens large on a monitor
	SaveWindowSize(a.Preferences(), fyne.NewSize(1024, 688), fyne.NewSize(1024, 700))
	if got := WindowSize(a.Preferences(), monitor); got != fyne.NewSize(1632, 918) {
		t.Fatalf("1024x688 saved on a 1024x700 screen, on 1920x1080: %v, want the big screen's default", got)
	}
	if got := WindowSize(a.Preferences(), fyne.NewSize(1024, 700)); got != fyne.NewSize(1024, 670) {
		t.Fatalf("1024x688 back on its 1024x700 screen: %v (cut to the screen less its title bar)", got)
	}
}

// TestWindowSizeSavedWithoutScreen: a size saved by a version that did not record the screen
// is used when it covers at least half the screen, else the screen's default is.
func TestWindowSizeSavedWithoutScreen(t *testing.T) {
	a := test.NewTempApp(t)
	prefs := a.Preferences()
	prefs.SetFloat(prefWindowWidth, 1024)
	prefs.SetFloat(prefWindowHeight, 688)
	if got := WindowSize(prefs, fyne.NewSize(1920, 1080)); got != fyne.NewSize(1632, 918) {
		t.Fatalf("old 1024x688 on 1920x1080: %v", got)
	}
	if got := WindowSize(prefs, fyne.NewSize(1366, 768)); got != fyne.NewSize(1024, 688) {
		t.Fatalf("old 1024x688 on 1366x768 (more than half of it): %v", got)
	}
	prefs.SetFloat(prefWindowWidth, 1500)
	prefs.SetFloat(prefWindowHeight, 900)
	if got := WindowSize(prefs, fyne.NewSize(1366, 768)); got != fyne.NewSize(1366, 738) {
		t.Fatalf("old 1500x900 on 1366x768: %v (clamped)", got)
	}
}

// TestEveryScreenFitsALaptop: with every screen on show, the main window's content needs no
// more than a 1024x700 screen gives it (less the title bar), so the window never grows past it.
func TestEveryScreenFitsALaptop(t *testing.T) {
	test.NewTempApp(t)
	for name, st := range map[string]*store.Store{"seeded": uitest.SeededStore(t), "empty": uitest.OpenStore(t)} {
		s, w := newTestShell(t, Deps{Store: st, StorePath: st.Path()})
		w.Resize(fyne.NewSize(871, 595)) // the window's first size on a 1024x700 screen: rows wrap
		for _, sc := range s.screens {
			s.Show(sc.ID)
			w.Resize(fyne.NewSize(871, 595))
			m := s.root.MinSize()
			t.Logf("%s store, %s: %.0fx%.0f", name, sc.ID, m.Width, m.Height)
			if m.Width > 1024 || m.Height > 670 {
				t.Errorf("%s store, %s needs %.0fx%.0f: more than a 1024x700 screen", name, sc.ID, m.Width, m.Height)
			}
		}
	}
}
