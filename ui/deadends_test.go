package ui

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/agentdesk/agentdesk/ui/uitest"
	"github.com/agentdesk/agentdesk/ui/widgets"
	"github.com/agentdesk/agentdesk/ui/workspace"
)

// TestRecentFilesOpen: a recent file on Home opens in the workspace that opens it when clicked;
// one that is gone says so.
func TestRecentFilesOpen(t *testing.T) {
	test.NewTempApp(t)
	st := uitest.OpenStore(t)
	dir := t.TempDir()
	there, gone := filepath.Join(dir, "notes.alpha"), filepath.Join(dir, "old.beta")
	if err := os.WriteFile(there, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for _, p := range []string{there, gone} {
		if err := st.TouchRecent(ctx, p, "fake"); err != nil {
			t.Fatal(err)
		}
	}
	s, w, made := fakeShell(t, Deps{Store: st, StorePath: st.Path()})
	s.Show(ScreenHome)
	uitest.TapButton(t, w.Content(), "notes.alpha")
	if s.Current() != "alpha" || len(made["alpha"]) != 1 || !slices.Equal(made["alpha"][0].opened, []string{there}) {
		t.Fatalf("after clicking notes.alpha: on %s, opened %v", s.Current(), made["alpha"])
	}
	s.Show(ScreenHome)
	uitest.TapButton(t, w.Content(), "old.beta")
	top := w.Canvas().Overlays().Top()
	if top == nil || !strings.Contains(uitest.Texts(top), "no longer there") || s.Current() != ScreenHome {
		t.Fatalf("a file that is gone: on %s, dialog %v", s.Current(), top != nil)
	}
}

// TestThemeStaysChosen: choosing the theme that is already chosen (a second click, a double
// click) keeps it chosen; Settings always shows one theme as chosen.
func TestThemeStaysChosen(t *testing.T) {
	a := test.NewTempApp(t)
	s, w := newTestShell(t, Deps{})
	s.Show(ScreenSettings)
	light := themeItem(t, w, themeLabels[ThemeLight])
	test.Tap(light)
	test.Tap(light)
	radio := uitest.Find(w.Content(), func(r *widget.RadioGroup) bool { return slices.Contains(r.Options, themeLabels[ThemeLight]) })
	if radio.Selected != themeLabels[ThemeLight] || a.Preferences().String(prefTheme) != ThemeLight {
		t.Fatalf("after clicking Light twice: %q chosen, %q saved", radio.Selected, a.Preferences().String(prefTheme))
	}
	s.Show(ScreenHome)
	s.Show(ScreenSettings)
	radio = uitest.Find(w.Content(), func(r *widget.RadioGroup) bool { return slices.Contains(r.Options, themeLabels[ThemeLight]) })
	if radio.Selected != themeLabels[ThemeLight] {
		t.Fatalf("Settings shown again: %q chosen", radio.Selected)
	}
}

// themeItem is the radio item labelled label on the window (the group's items are in the
// order of its options).
func themeItem(t *testing.T, w fyne.Window, label string) fyne.Tappable {
	t.Helper()
	r := uitest.Find(w.Content(), func(r *widget.RadioGroup) bool { return slices.Contains(r.Options, label) })
	if r == nil {
		t.Fatalf("no radio group with %q", label)
	}
	var items []fyne.Tappable
	for _, o := range test.WidgetRenderer(r).Objects() {
		if tp, ok := o.(fyne.Tappable); ok {
			items = append(items, tp)
		}
	}
	return items[slices.Index(r.Options, label)]
}

// escape types Escape on the window as a key nobody else took.
func escape(w fyne.Window) {
	w.Canvas().(interface {
		OnTypedKey() func(*fyne.KeyEvent)
	}).OnTypedKey()(&fyne.KeyEvent{Name: fyne.KeyEscape})
}

// TestEscapeClosesDialogs: Escape presses a dialog's Cancel (its callback runs as for a click),
// its Close, or the only button of a message; without a dialog it does nothing.
func TestEscapeClosesDialogs(t *testing.T) {
	test.NewTempApp(t)
	_, w := newTestShell(t, Deps{})
	escape(w) // nothing open: nothing happens

	answer := "none"
	d := dialog.NewConfirm("Remove?", "Remove it?", func(ok bool) {
		answer = map[bool]string{true: "yes", false: "no"}[ok]
	}, w)
	d.SetConfirmText("Remove")
	d.SetDismissText("Cancel")
	d.Show()
	escape(w)
	if w.Canvas().Overlays().Top() != nil || answer != "no" {
		t.Fatalf("a confirmation after Escape: open %v, answered %q", w.Canvas().Overlays().Top() != nil, answer)
	}

	dialog.ShowInformation("Saved", "The file is saved.", w)
	escape(w)
	if w.Canvas().Overlays().Top() != nil {
		t.Fatal("a message stayed after Escape")
	}

	workspace.Errorf(w, "the file is gone")
	dialog.NewCustom("Shortcuts", "Close", widget.NewLabel("Ctrl+S"), w).Show()
	escape(w)
	escape(w)
	if w.Canvas().Overlays().Top() != nil {
		t.Fatal("two dialogs, two Escapes: one stayed")
	}
}

// runningWS is a workspace serving a study.
type runningWS struct {
	fakeWS
	running string
}

func (r *runningWS) RunningWork() string { return r.running }

// TestQuitAsksWhileServing: quitting while a workspace runs work others depend on asks first;
// Cancel keeps everything, Quit stops it; nothing running quits at once.
func TestQuitAsksWhileServing(t *testing.T) {
	test.NewTempApp(t)
	var ws *runningWS
	reg := workspace.Registration{ID: "serving", Title: "Serving", New: func(workspace.Host) workspace.Workspace {
		ws = &runningWS{fakeWS: fakeWS{id: "serving", label: widget.NewLabel("serving")},
			running: "Study “Sample chats” is served to participants: quitting stops serving it."}
		return ws
	}}
	s, w := newTestShell(t, Deps{Workspaces: []workspace.Registration{reg}})
	s.Show("serving")
	quit := 0
	s.Quit(func() { quit++ })
	top := w.Canvas().Overlays().Top()
	if quit != 0 || top == nil || !strings.Contains(uitest.Texts(top), "quitting stops serving it") {
		t.Fatalf("quit %d times without asking", quit)
	}
	uitest.TapButton(t, top, "Cancel")
	if quit != 0 || ws.closed != 0 {
		t.Fatal("Cancel quit")
	}
	s.Quit(func() { quit++ })
	uitest.TapButton(t, w.Canvas().Overlays().Top(), "Quit")
	if quit != 1 || ws.closed != 1 {
		t.Fatalf("Quit: quit %d, closed %d", quit, ws.closed)
	}
	ws.running = ""
	s.Show("serving") // made again
	s.Quit(func() { quit++ })
	if quit != 2 || w.Canvas().Overlays().Top() != nil {
		t.Fatal("nothing running, yet quitting asked")
	}
}

// TestNavigationCollapses: the navigation shows names beside the icons on a wide window and the
// icons alone (each saying its screen's name as a tooltip) below navAutoWidth, or always either
// as the user chose; the choice is remembered.
func TestNavigationCollapses(t *testing.T) {
	a := test.NewTempApp(t)
	s, w := newTestShell(t, Deps{})
	w.Resize(fyne.NewSize(1366, 738))
	if s.nav.collapsed || s.nav.entries[0].Text != "Home" {
		t.Fatal("names hidden on a 1366 px window")
	}
	wide := s.nav.box.Size().Width
	w.Resize(fyne.NewSize(1024, 670))
	if !s.nav.collapsed || s.nav.entries[0].Text != "" || !strings.HasPrefix(s.nav.entries[0].Tip, "Home") {
		t.Fatalf("on a 1024 px window: collapsed %v, entry %q", s.nav.collapsed, s.nav.entries[0].Text)
	}
	if narrow := s.nav.box.Size().Width; narrow > wide/2 {
		t.Fatalf("the collapsed navigation is %.0f px wide (expanded %.0f)", narrow, wide)
	}
	test.Tap(s.nav.toggle) // the user wants the names back
	if s.nav.collapsed || a.Preferences().String(prefNav) != NavLabels {
		t.Fatal("the toggle did not show the names")
	}
	s2, w2 := newTestShell(t, Deps{})
	w2.Resize(fyne.NewSize(1024, 670))
	if s2.nav.collapsed {
		t.Fatal("the choice was not remembered")
	}
	test.Tap(s2.nav.toggle)
	w2.Resize(fyne.NewSize(1920, 1050))
	if !s2.nav.collapsed {
		t.Fatal("icons only chosen, yet names shown on a wide window")
	}
	// the entries still lead to their screens
	test.Tap(s2.nav.entries[len(s2.nav.entries)-1])
	if s2.Current() != ScreenAbout {
		t.Fatalf("the last entry shows %s", s2.Current())
	}
}

// TestHeaderIsOneLine: the title and what the screen is for take one line, not a paragraph.
func TestHeaderIsOneLine(t *testing.T) {
	test.NewTempApp(t)
	s, w := newTestShell(t, Deps{})
	w.Resize(fyne.NewSize(1024, 670))
	s.Show(ScreenAbout)
	line := widget.NewLabel("x").MinSize().Height
	if h := s.header.Size().Height; h > line+2*theme.Padding()+4 {
		t.Fatalf("the header is %.0f px high; one line is %.0f", h, line)
	}
	if s.intro.Position().Y != s.title.Position().Y {
		t.Fatal("the intro is not on the title's line")
	}
}

// iconOnly finds plain fyne buttons with an icon and no text (they have no tooltip).
func iconOnly(o fyne.CanvasObject) []string {
	var out []string
	uitest.Walk(o, func(c fyne.CanvasObject) {
		if b, ok := c.(*widget.Button); ok && b.Text == "" && b.Icon != nil {
			out = append(out, b.Icon.Name())
		}
		if b, ok := c.(*widgets.TipButton); ok && b.Text == "" && b.Tip == "" {
			out = append(out, b.Icon.Name()+" (no tip)")
		}
	})
	return out
}

// TestEveryIconButtonHasATip: no screen of the app, with the sample-like seeded store, shows
// an icon-only button without a tooltip; and no source file makes one (icon-only buttons only
// show in some states: a frame viewer with an episode, a task chain with steps).
func TestEveryIconButtonHasATip(t *testing.T) {
	test.NewTempApp(t)
	st := uitest.SeededStore(t)
	s, w := newTestShell(t, Deps{Store: st, StorePath: st.Path()})
	w.Resize(fyne.NewSize(1024, 670))
	for _, id := range s.ScreenIDs() {
		s.Show(id)
		if bad := iconOnly(w.Content()); len(bad) > 0 {
			t.Errorf("%s: icon-only buttons without a tooltip: %v", id, bad)
		}
	}
	plain := regexp.MustCompile(`NewButtonWithIcon\(""|NewToolbarAction\(`)
	err := filepath.WalkDir(".", func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return err
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for i, line := range strings.Split(string(data), "\n") {
			if plain.MatchString(line) {
				t.Errorf("%s:%d: an icon-only button without a tooltip (use widgets.NewTipButton): %s", path, i+1, strings.TrimSpace(line))
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
