package gridworld

import (
	"slices"
	"strings"
	"testing"

	"fyne.io/fyne/v2/test"

	"github.com/agentdesk/agentdesk/ui/uitest"
)

// TestGridworldTaskListNamesTasks: the Task list names what will be played ("Random sample",
// "Small house"), not the specs the command line takes ("samples"), and choosing a name plays
// that task.
func TestGridworldTaskListNamesTasks(t *testing.T) {
	test.NewTempApp(t)
	st := uitest.SeededStore(t)
	h := uitest.NewHost(t, 1024, 670)
	g := New(h, Deps{Store: func() Store { return st }, World: func() (WorldRenderer, error) { return &spyRenderer{}, nil }})
	h.Put(g)
	if got := g.taskSelect.Selected; got != "Random sample" {
		t.Errorf("the Task list shows %q at first", got)
	}
	for _, raw := range []string{"samples", "random", "small-house"} {
		if slices.Contains(g.taskSelect.Options, raw) {
			t.Errorf("the Task list offers %q: %q", raw, g.taskSelect.Options)
		}
	}
	g.taskSelect.SetSelected("Small house")
	if g.taskName != "small-house" {
		t.Fatalf("choosing Small house plays %q", g.taskName)
	}
	g.selectTask("random") // as the command line names it
	if g.taskSelect.Selected != "Random structures" || g.taskName != "random" {
		t.Fatalf("random shows as %q, plays %q", g.taskSelect.Selected, g.taskName)
	}
}

// TestGridworldProgressIsAThinTrack: the "Built n / m" bar is a thin track under its count;
// at 0 the full-height empty bar read as a solid block.
func TestGridworldProgressIsAThinTrack(t *testing.T) {
	g, w := openAt(t, uitest.Laptop)
	w.Resize(uitest.Laptop)
	if g.progress.Value != 0 || !strings.HasPrefix(g.progressL.Text, "Built 0 /") {
		t.Fatalf("a new episode: %v, %q", g.progress.Value, g.progressL.Text)
	}
	if _, ok := absPos(w.Content(), g.progress); !ok {
		t.Fatal("the progress bar is not shown")
	}
	if s := g.progress.Size(); s.Height > 8 || s.Height < 2 || s.Width < 100 {
		t.Fatalf("the progress bar is %.0fx%.0f", s.Width, s.Height)
	}
	if f := g.progress.fill.Size().Width; f != 0 || g.progress.fill.Visible() {
		t.Fatalf("at 0 the bar is filled %.0f px", f)
	}
	g.progress.SetValue(0.5)
	if f, s := g.progress.fill.Size().Width, g.progress.Size().Width; f < s/2-1 || f > s/2+1 {
		t.Fatalf("at 1/2 the bar is filled %.0f px of %.0f", f, s)
	}
}

// TestGridworldReplayWithNothingStoredSaysWhere: with no episode stored, Replay says where
// recording is (the toolbar's ⋯ menu) and when a played episode is stored.
func TestGridworldReplayWithNothingStoredSaysWhere(t *testing.T) {
	test.NewTempApp(t)
	st := uitest.OpenStore(t)
	h := uitest.NewHost(t, 1024, 670)
	g := New(h, Deps{Store: func() Store { return st }, World: func() (WorldRenderer, error) { return &spyRenderer{}, nil }})
	h.Put(g)
	g.chooseReplay()
	top := h.Win.Canvas().Overlays().Top()
	if top == nil {
		t.Fatal("Replay shows nothing")
	}
	got := uitest.Texts(top)
	for _, want := range []string{"Record to the store is ticked", "Reset", "⋯ › Save the recording now"} {
		if !strings.Contains(got, want) {
			t.Errorf("Replay's message lacks %q:\n%s", want, got)
		}
	}
	h.Win.Canvas().Overlays().Remove(top)
	g.recording = false
	g.chooseReplay()
	if got := uitest.Texts(h.Win.Canvas().Overlays().Top()); !strings.Contains(got, "Tick ⋯ › Record to the store") {
		t.Errorf("with recording off, Replay says:\n%s", got)
	}
}
