package ui

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"fyne.io/fyne/v2/test"

	"github.com/agentdesk/agentdesk/store"
	"github.com/agentdesk/agentdesk/ui/uitest"
)

// editDemo opens a pickle and removes its first trajectory: one unsaved edit.
func editDemo(t *testing.T) (*Shell, *demoWS, string, []byte) {
	t.Helper()
	s, d, path := openDemo(t, "inputs/synthetic_documented.pkl")
	before, _ := os.ReadFile(path)
	d.trajList.Select(0)
	if err := d.removeTrajectory(); err != nil {
		t.Fatal(err)
	}
	return s, d, path, before
}

// TestShellReloadAsksAboutUnsavedEdits: the reload after a store change keeps unsaved
// Demonstrations edits until the user answers: Cancel keeps them (and the workspace), Discard
// drops them, Save writes them first.
func TestShellReloadAsksAboutUnsavedEdits(t *testing.T) {
	s, d, path, before := editDemo(t)
	s.Reload()
	if s.demos != d || len(d.pending) != 1 || d.question == nil {
		t.Fatalf("Reload did not ask first (workspace kept %v, %d edits)", s.demos == d, len(d.pending))
	}
	if txt := uitest.Texts(s.win.Canvas().Overlays().Top()); !strings.Contains(txt, "1 edit not saved") || !strings.Contains(txt, "(0:remove)") {
		t.Fatalf("the question says:\n%s", txt)
	}
	test.Tap(d.question.cancel)
	if s.demos != d || len(d.pending) != 1 || d.question != nil {
		t.Fatal("Cancel dropped the edits")
	}

	s.Reload()
	test.Tap(d.question.discard)
	if s.demos == d {
		t.Fatal("Discard did not reload the workspaces")
	}
	if now, _ := os.ReadFile(path); !bytes.Equal(now, before) {
		t.Fatal("Discard wrote the file")
	}
}

func TestShellReloadSavesUnsavedEdits(t *testing.T) {
	s, d, path, before := editDemo(t)
	s.Reload()
	test.Tap(d.question.save)
	if s.demos == d {
		t.Fatal("Save did not go on with the reload")
	}
	now, _ := os.ReadFile(path)
	old, err := os.ReadFile(path + ".old")
	if bytes.Equal(now, before) || err != nil || !bytes.Equal(old, before) {
		t.Fatalf("Save: file unchanged %v, backup %v", bytes.Equal(now, before), err)
	}
}

// TestSwitchStoreAsksAboutUnsavedEdits: switching stores in Settings asks before switching,
// so Cancel keeps the store and the edits.
func TestSwitchStoreAsksAboutUnsavedEdits(t *testing.T) {
	s, d, _, _ := editDemo(t)
	first := s.deps.Store
	other, err := store.Open(filepath.Join(t.TempDir(), "other.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	s.deps.OpenStore = func(string) (Store, error) { return other, nil }
	if err := s.switchStore(other.Path()); err != nil {
		t.Fatal(err)
	}
	if s.deps.Store != first || d.question == nil {
		t.Fatal("the store was switched before asking")
	}
	test.Tap(d.question.cancel)
	if s.deps.Store != first || s.demos != d || len(d.pending) != 1 {
		t.Fatal("Cancel switched the store or dropped the edits")
	}
	s.switchStore(other.Path())
	test.Tap(d.question.discard)
	if s.deps.Store != Store(other) || s.demos == d {
		t.Fatal("Discard did not switch the store")
	}
}
