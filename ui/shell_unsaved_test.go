package ui

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/agentdesk/agentdesk/store"
	"github.com/agentdesk/agentdesk/ui/uitest"
	"github.com/agentdesk/agentdesk/ui/workspace"
)

// fakeWS is a workspace that holds unsaved work and opens ".fake" files.
type fakeWS struct {
	id                       string
	label                    *widget.Label
	unsaved                  string
	saveErr                  error
	saved, discarded, closed int
	opened                   []string
}

func (f *fakeWS) Content() fyne.CanvasObject    { return f.label }
func (f *fakeWS) Close()                        { f.closed++ }
func (f *fakeWS) UnsavedWork() string           { return f.unsaved }
func (f *fakeWS) SaveWork() error               { f.saved++; f.unsaved = ""; return f.saveErr }
func (f *fakeWS) DiscardWork()                  { f.discarded++; f.unsaved = "" }
func (f *fakeWS) Opens(path string) bool        { return strings.HasSuffix(path, "."+f.id) }
func (f *fakeWS) Open(path string, _ int) error { f.opened = append(f.opened, path); return nil }

// fakeShell is a shell with two fake workspaces, "alpha" and "beta"; made records every
// workspace created, by id.
func fakeShell(t *testing.T, deps Deps) (*Shell, fyne.Window, map[string][]*fakeWS) {
	t.Helper()
	made := map[string][]*fakeWS{}
	for _, id := range []string{"alpha", "beta"} {
		deps.Workspaces = append(deps.Workspaces, workspace.Registration{ID: id, Title: id, Icon: theme.FileIcon(), Intro: id + " intro",
			New: func(workspace.Host) workspace.Workspace {
				f := &fakeWS{id: id, label: widget.NewLabel(id + " content")}
				made[id] = append(made[id], f)
				return f
			}})
	}
	s, w := newTestShell(t, deps)
	return s, w, made
}

// TestWorkspacesKeepStateAcrossScreens: a workspace is created the first time it is shown and
// kept: switching away and back shows the same one. Closing closes each once.
func TestWorkspacesKeepStateAcrossScreens(t *testing.T) {
	test.NewTempApp(t)
	s, w, made := fakeShell(t, Deps{})
	s.Show("alpha")
	s.Show(ScreenHome)
	s.Show("alpha")
	s.Show("beta")
	s.Show("alpha")
	if len(made["alpha"]) != 1 || len(made["beta"]) != 1 {
		t.Fatalf("made %d alpha, %d beta workspaces", len(made["alpha"]), len(made["beta"]))
	}
	if !strings.Contains(uitest.Texts(w.Content()), "alpha content") {
		t.Fatal("alpha not on show")
	}
	s.Close()
	if made["alpha"][0].closed != 1 || made["beta"][0].closed != 1 {
		t.Fatal("Close did not close every workspace once")
	}
	s.Show(ScreenHome)
	s.Show("alpha")
	if len(made["alpha"]) != 2 {
		t.Fatal("a closed workspace was shown again")
	}
}

// TestShellRoutesFiles: a file goes to the first workspace that opens it, which is shown; a
// file no workspace takes is an error saying so.
func TestShellRoutesFiles(t *testing.T) {
	test.NewTempApp(t)
	s, _, made := fakeShell(t, Deps{})
	if err := s.OpenFiles([]string{"/data/x.beta"}); err != nil {
		t.Fatal(err)
	}
	if s.Current() != "beta" || len(made["beta"][0].opened) != 1 {
		t.Fatalf("on %s, beta opened %v", s.Current(), made["beta"][0].opened)
	}
	if err := s.OpenFiles([]string{"/data/notes.docx"}); err == nil || !strings.Contains(err.Error(), `".docx" files`) {
		t.Fatalf("an unknown file: %v", err)
	}
}

// TestShellRefusesUnknownFiles: the real workspaces take pickles and dataset folders, not a
// document.
func TestShellRefusesUnknownFiles(t *testing.T) {
	test.NewTempApp(t)
	st := uitest.SeededStore(t)
	s, _ := newTestShell(t, Deps{Store: st, StorePath: st.Path()})
	if err := s.OpenFiles([]string{filepath.Join(t.TempDir(), "notes.docx")}); err == nil {
		t.Fatal("an unknown file type was accepted")
	}
}

// TestShellReloadAsksAboutUnsavedWork: the reload after a store change keeps unsaved work until
// the user answers: Cancel keeps it (and the workspace), Discard drops it, Save saves it first.
func TestShellReloadAsksAboutUnsavedWork(t *testing.T) {
	test.NewTempApp(t)
	s, w, made := fakeShell(t, Deps{})
	s.Show("alpha")
	a := made["alpha"][0]
	a.unsaved = "demo.pkl has 1 edit not saved (0:remove)"
	s.Reload()
	top := w.Canvas().Overlays().Top()
	if top == nil || len(made["alpha"]) != 1 {
		t.Fatal("Reload did not ask first")
	}
	if txt := uitest.Texts(top); !strings.Contains(txt, "1 edit not saved") || !strings.Contains(txt, "(0:remove)") {
		t.Fatalf("the question says:\n%s", txt)
	}
	uitest.TapButton(t, top, "Cancel")
	if len(made["alpha"]) != 1 || a.unsaved == "" || a.closed != 0 {
		t.Fatal("Cancel dropped the work or the workspace")
	}

	s.Reload()
	uitest.TapButton(t, w.Canvas().Overlays().Top(), "Discard")
	if a.discarded != 1 || a.saved != 0 || a.closed != 1 || len(made["alpha"]) != 2 {
		t.Fatalf("Discard: discarded %d, saved %d, closed %d, %d workspaces", a.discarded, a.saved, a.closed, len(made["alpha"]))
	}

	b := made["alpha"][1]
	b.unsaved = "template.conf not saved"
	s.Reload()
	uitest.TapButton(t, w.Canvas().Overlays().Top(), "Save")
	if b.saved != 1 || b.closed != 1 {
		t.Fatal("Save did not save and go on with the reload")
	}

	// a failed save keeps everything
	c := made["alpha"][2]
	c.unsaved, c.saveErr = "x not saved", errors.New("disk full")
	s.Reload()
	uitest.TapButton(t, w.Canvas().Overlays().Top(), "Save")
	if c.closed != 0 || len(made["alpha"]) != 3 {
		t.Fatal("a failed save went on with the reload")
	}
}

// TestSwitchStoreAsksAboutUnsavedWork: switching stores in Settings asks before switching, so
// Cancel keeps the store and the work.
func TestSwitchStoreAsksAboutUnsavedWork(t *testing.T) {
	test.NewTempApp(t)
	st := uitest.SeededStore(t)
	other, err := store.Open(filepath.Join(t.TempDir(), "other.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	s, w, made := fakeShell(t, Deps{Store: st, StorePath: st.Path(), OpenStore: func(string) (Store, error) { return other, nil }})
	s.Show("beta")
	made["beta"][0].unsaved = "beta's work is not saved"
	if err := s.switchStore(other.Path()); err != nil {
		t.Fatal(err)
	}
	if s.deps.Store != Store(st) || w.Canvas().Overlays().Top() == nil {
		t.Fatal("the store was switched before asking")
	}
	uitest.TapButton(t, w.Canvas().Overlays().Top(), "Cancel")
	if s.deps.Store != Store(st) || made["beta"][0].closed != 0 {
		t.Fatal("Cancel switched the store or dropped the work")
	}
	s.switchStore(other.Path())
	uitest.TapButton(t, w.Canvas().Overlays().Top(), "Discard")
	if s.deps.Store != Store(other) || made["beta"][0].closed != 1 {
		t.Fatal("Discard did not switch the store")
	}
}

// TestQuitAsksEveryWorkspace: quitting asks about each workspace's unsaved work in turn, and
// closes everything only when all are settled.
func TestQuitAsksEveryWorkspace(t *testing.T) {
	test.NewTempApp(t)
	s, w, made := fakeShell(t, Deps{})
	s.Show("alpha")
	s.Show("beta")
	made["alpha"][0].unsaved, made["beta"][0].unsaved = "alpha's work", "beta's work"
	quit := false
	s.Quit(func() { quit = true })
	uitest.TapButton(t, w.Canvas().Overlays().Top(), "Save")
	if quit || made["alpha"][0].saved != 1 {
		t.Fatal("quit before asking about beta")
	}
	uitest.TapButton(t, w.Canvas().Overlays().Top(), "Discard")
	if !quit || made["beta"][0].discarded != 1 || made["alpha"][0].closed != 1 || made["beta"][0].closed != 1 {
		t.Fatal("Quit did not settle and close every workspace")
	}
}
