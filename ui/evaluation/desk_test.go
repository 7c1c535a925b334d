package evaluation

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/widget"

	ev "github.com/agentdesk/agentdesk/engine/evaluation"
	"github.com/agentdesk/agentdesk/ui/uitest"
)

// At the desk a page's limit counts only the time the page is shown: the clock pauses while
// another tab or screen is shown and resumes when the page is back; the footer counts down and
// warns in the last minute; a unit that times out keeps its answers (exported with
// timed_out: true), Restore brings them back with the full time, Give back returns the unit.
// The clock and the ticker are the test's: nothing waits.
func TestDeskPageClock(t *testing.T) {
	w, win, st := evalTestWS(t)
	var ticks []func()
	w.every = func(d time.Duration, f func()) func() {
		ticks = append(ticks, f)
		return func() {}
	}
	tickNow := func() { ticks[len(ticks)-1]() }
	imp := readExample(t, w, "flags")
	p := imp.project
	p.Settings.UseScreening = false
	p.Settings.AnnotationDurationSeconds = 120
	w.create("desk", "imported", evalExample, p, "", nil)
	ctx := context.Background()
	s := w.session
	now := time.Date(2026, 1, 2, 9, 0, 0, 0, time.UTC)
	s.setNow(func() time.Time { return now })
	s.signIn("ada")
	if s.page == nil || len(ticks) == 0 {
		t.Fatalf("no page with a clock: %s", uitest.Texts(s.root))
	}
	if got := s.countdown.Text; got != "2:00 left on this page" {
		t.Fatalf("countdown %q", got)
	}
	now = now.Add(30 * time.Second)
	tickNow()
	if got := s.countdown.Text; got != "1:30 left on this page" {
		t.Fatalf("after 30 s: %q", got)
	}
	// Another screen for ten minutes: the clock stands still.
	other := container.NewStack(widget.NewLabel("Explorer"))
	win.SetContent(other)
	tickNow()
	now = now.Add(10 * time.Minute)
	tickNow()
	if !strings.Contains(s.countdown.Text, "Paused") || s.page == nil {
		t.Fatalf("hidden for 10 minutes: %q, page %v", s.countdown.Text, s.page != nil)
	}
	win.SetContent(w.Content())
	tickNow()
	if got := s.countdown.Text; got != "1:30 left on this page" {
		t.Fatalf("shown again: %q", got)
	}
	// Another tab of the project pauses it too.
	w.tabs.SelectIndex(1)
	now = now.Add(5 * time.Minute)
	tickNow()
	w.tabs.SelectIndex(0)
	tickNow()
	if got := s.countdown.Text; got != "1:30 left on this page" {
		t.Fatalf("after the Results tab: %q", got)
	}
	// An answer, then the last minute: a warning.
	turn := s.page.focusedTurn()
	box := fyne.CanvasObject(s.page.dialogueBox)
	if turn >= 0 {
		box = s.page.boxes[turn]
	}
	targets, choose := answerTargets(box)
	if len(targets) == 0 {
		t.Fatalf("no answer to give on %s", s.page.typ.Name)
	}
	choose(0)
	given, _ := json.Marshal(s.page.ans)
	now = now.Add(45 * time.Second)
	tickNow()
	if !strings.Contains(s.countdown.Text, "Less than a minute left: 0:45") || s.countdown.Importance != widget.WarningImportance {
		t.Fatalf("last minute: %q (importance %v)", s.countdown.Text, s.countdown.Importance)
	}
	// The limit passes: the unit times out with its answers kept.
	unit := s.unit.ID
	now = now.Add(46 * time.Second)
	tickNow()
	if s.page != nil || !strings.Contains(uitest.Texts(s.root), "Your answers are kept") {
		t.Fatalf("no time-out: %s", uitest.Texts(s.root))
	}
	u, err := st.EvalUnit(ctx, unit)
	if err != nil || u.Status != ev.UnitAssigned || !strings.Contains(string(u.State), `"timed_out":true`) {
		t.Fatalf("the timed-out unit: %+v %v", u, err)
	}
	// The export has its answers, marked.
	pr, results, err := st.EvalResults(ctx, w.open.info.ID)
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "answers.jsonl")
	if _, err := ev.ExportResults(pr, results, "jsonl", out, false); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(out)
	if !bytes.Contains(data, []byte(`"timed_out":true`)) || !bytes.Contains(data, []byte(`"participant":"ada"`)) {
		t.Fatalf("export:\n%s", data)
	}
	// Restore: the same unit, the answer still given, the full time again.
	uitest.TapButton(t, s.root, "Restore my answers")
	if s.page == nil || s.unit.ID != unit || s.countdown.Text != "2:00 left on this page" {
		t.Fatalf("after Restore: unit %d, %q: %s", s.unit.ID, s.countdown.Text, uitest.Texts(s.root))
	}
	if back, _ := json.Marshal(s.page.ans); !bytes.Equal(back, given) {
		t.Fatalf("the restored answers: %s, given %s", back, given)
	}
	// Timed out again, given back: the unit returns to the pool.
	now = now.Add(3 * time.Minute)
	tickNow()
	uitest.TapButton(t, s.root, "Give back")
	if u, _ := st.EvalUnit(ctx, unit); u.Status != ev.UnitOpen || string(u.State) != "{}" {
		t.Fatalf("given back: %+v", u)
	}
	if !strings.Contains(uitest.Texts(s.root), "went back to the pool") {
		t.Fatalf("after Give back: %s", uitest.Texts(s.root))
	}
}
