// Package uitest is the test kit of the UI packages: walking a widget tree, finding and tapping
// widgets, a synchronous background runner and stores seeded with sample data, shared by the
// tests of the shell and of every workspace. Only tests import it; it may import the store
// (the UI packages themselves may not).
package uitest

import (
	"context"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	"github.com/agentdesk/agentdesk/engine/episode"
	"github.com/agentdesk/agentdesk/store"
	"github.com/agentdesk/agentdesk/ui/workspace"
)

// Walk visits o and everything inside it that is visible, widgets included.
func Walk(o fyne.CanvasObject, fn func(fyne.CanvasObject)) {
	if o == nil || !o.Visible() {
		return
	}
	fn(o)
	switch v := o.(type) {
	case *fyne.Container:
		for _, c := range v.Objects {
			Walk(c, fn)
		}
	case fyne.Widget:
		for _, c := range test.WidgetRenderer(v).Objects() {
			Walk(c, fn)
		}
	}
}

// Texts collects the text of every label, button and card title on show, a line each.
func Texts(o fyne.CanvasObject) string {
	var b strings.Builder
	Walk(o, func(o fyne.CanvasObject) {
		switch v := o.(type) {
		case *widget.Label:
			b.WriteString(v.Text + "\n")
		case *widget.Button:
			b.WriteString(v.Text + "\n")
		case textButton:
			b.WriteString(v.ButtonText() + "\n")
		case *widget.Card:
			b.WriteString(v.Title + "\n")
		}
	})
	return b.String()
}

// Find returns the first object under o of type T for which ok holds (the zero T when none).
func Find[T fyne.CanvasObject](o fyne.CanvasObject, ok func(T) bool) T {
	var out T
	found := false
	Walk(o, func(c fyne.CanvasObject) {
		if v, is := c.(T); is && !found && ok(v) {
			out, found = v, true
		}
	})
	return out
}

// TapButton taps the enabled button under o whose text starts with prefix.
func TapButton(t testing.TB, o fyne.CanvasObject, prefix string) {
	t.Helper()
	var tap fyne.Tappable
	label, disabled := "", false
	Walk(o, func(c fyne.CanvasObject) {
		if tap != nil {
			return
		}
		switch v := c.(type) {
		case *widget.Button:
			if strings.HasPrefix(v.Text, prefix) {
				tap, label, disabled = v, v.Text, v.Disabled()
			}
		case textButton:
			if strings.HasPrefix(v.ButtonText(), prefix) {
				tap, label, disabled = v, v.ButtonText(), v.Disabled()
			}
		}
	})
	if tap == nil {
		t.Fatalf("no button %q in:\n%s", prefix, Texts(o))
	}
	if disabled {
		t.Fatalf("button %q is disabled", label)
	}
	test.Tap(tap)
}

// textButton is a widget embedding a button that says its label (widgets.TipButton).
type textButton interface {
	fyne.Tappable
	fyne.Disableable
	ButtonText() string
}

// SyncRun runs background work at once, on the calling goroutine: results are applied before
// the call that started the work returns.
func SyncRun(f func()) { f() }

// OpenStore opens a new store in a temporary folder, closed when the test ends.
func OpenStore(t testing.TB) *store.Store {
	t.Helper()
	st, err := store.Open(filepath.Join(t.TempDir(), "test.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

// SeededStore is a store holding a few episodes of every source, an official split and a
// recent file.
func SeededStore(t testing.TB) *store.Store {
	t.Helper()
	ctx := context.Background()
	st := OpenStore(t)
	add := func(src, id string, steps int) {
		e := &episode.Episode{Source: src, ExternalID: id}
		for i := 0; i < steps; i++ {
			e.Steps = append(e.Steps, episode.Step{Index: i})
		}
		if err := st.SaveEpisode(ctx, e); err != nil {
			t.Fatal(err)
		}
	}
	add(episode.SourceOdyssey, "o1", 4)
	add(episode.SourceOdyssey, "o2", 3)
	add(episode.SourceOdyssey, "o3", 2)
	add(episode.SourceGridworld, "g1", 10)
	add(episode.SourceGridworld, "g2", 1)
	add(episode.SourceMobileEnv, "m1", 5)
	if err := st.SaveSplit(ctx, episode.Split{Name: "random", Kind: episode.SplitOfficial,
		Parts: map[string][]episode.Key{"train": {{Source: "odyssey", ExternalID: "o1"}}, "test": {{Source: "odyssey", ExternalID: "o2"}}}}); err != nil {
		t.Fatal(err)
	}
	if err := st.TouchRecent(ctx, "/home/ada/demo.pkl", "pickle"); err != nil {
		t.Fatal(err)
	}
	return st
}

// Host is a workspace.Host for tests of one workspace: background work runs at once (its
// result is applied before the call that started it returns), Show and OpenFile are recorded.
type Host struct {
	Win fyne.Window
	// Run, when set, replaces running work at once (a test that queues work to run it later).
	Run func(f func())
	// UI, when set, replaces Do (a test that shows a run's reports on its own goroutine).
	UI func(f func())
	// doing serializes Do: the test driver's fyne.Do runs f on the calling goroutine, so the
	// reports of a run's several workers would otherwise update widgets at once.
	doing sync.Mutex
	// Shown and Opened record Show and OpenFile calls; OnOpen, when set, answers OpenFile.
	Shown    []string
	Opened   []string
	OpenedAt []int
	OnOpen   func(path string, at int) error
	// SamplesAsked counts LoadSamples calls.
	SamplesAsked int
}

// NewHost returns a Host with a test window of the given size (closed when the test ends).
func NewHost(t testing.TB, width, height float32) *Host {
	w := test.NewWindow(nil)
	w.Resize(fyne.NewSize(width, height))
	t.Cleanup(w.Close)
	return &Host{Win: w}
}

func (h *Host) Window() fyne.Window { return h.Win }

// Do runs f with UI when it is set, else with fyne.Do, one call at a time.
func (h *Host) Do(f func()) {
	if h.UI != nil {
		h.UI(f)
		return
	}
	h.doing.Lock()
	defer h.doing.Unlock()
	fyne.Do(f)
}
func (h *Host) Go(f func()) {
	if h.Run != nil {
		h.Run(f)
		return
	}
	f()
}
func (h *Host) Show(id string) bool { h.Shown = append(h.Shown, id); return true }

// LoadSamples records the request (SamplesAsked).
func (h *Host) LoadSamples() { h.SamplesAsked++ }
func (h *Host) OpenFile(path string, at int) error {
	h.Opened, h.OpenedAt = append(h.Opened, path), append(h.OpenedAt, at)
	if h.OnOpen != nil {
		return h.OnOpen(path, at)
	}
	return nil
}

// Put shows ws in the host's window, as the shell would.
func (h *Host) Put(ws workspace.Workspace) {
	h.Win.SetContent(ws.Content())
}

// Workspace is the room a workspace has on a 1024x700 screen: the window (1024x670, less the
// title bar) minus the menu bar (about 35 pixels), the shell's navigation (about 190) and the
// screen's title and intro (about 100).
var Workspace = fyne.NewSize(820, 520)

// Fits fails the test when o, named name, needs more room than a workspace has on a 1024x700
// screen (its minimum size); it logs the size either way.
func Fits(t testing.TB, name string, o fyne.CanvasObject) {
	t.Helper()
	m := o.MinSize()
	t.Logf("%s needs %.0fx%.0f", name, m.Width, m.Height)
	if m.Width > Workspace.Width || m.Height > Workspace.Height {
		t.Errorf("%s needs %.0fx%.0f, more than the %.0fx%.0f a workspace has on a 1024x700 screen", name, m.Width, m.Height, Workspace.Width, Workspace.Height)
	}
}

// DialogFits fails the test when the dialog on top of win, named name, needs more room than
// the window has; it returns the dialog's content for further checks.
func DialogFits(t testing.TB, name string, win fyne.Window) fyne.CanvasObject {
	t.Helper()
	top := win.Canvas().Overlays().Top()
	if top == nil {
		t.Fatalf("%s: no dialog on show", name)
	}
	m, room := top.MinSize(), win.Canvas().Size()
	t.Logf("%s needs %.0fx%.0f of %.0fx%.0f", name, m.Width, m.Height, room.Width, room.Height)
	if m.Width > room.Width || m.Height > room.Height {
		t.Errorf("%s needs %.0fx%.0f, more than the window's %.0fx%.0f", name, m.Width, m.Height, room.Width, room.Height)
	}
	return top
}

// Laptop is the window's first size on a 1024x700 screen.
var Laptop = fyne.NewSize(1024, 670)
