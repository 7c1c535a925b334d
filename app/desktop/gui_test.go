package desktop

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	"github.com/agentdesk/agentdesk/app/workflow"
	"github.com/agentdesk/agentdesk/engine/conformance"
	"github.com/agentdesk/agentdesk/ui"
	"github.com/agentdesk/agentdesk/ui/registry"
	"github.com/agentdesk/agentdesk/ui/uitest"
)

// TestClosingTheWindowAsksAboutUnsavedWork drives the window's close request (what the close
// button and WM_DELETE_WINDOW run; fyne's test window skips the close intercept, so the seam is
// called as the driver would) with an unsaved edit in the Demonstrations workspace: nothing
// closes until the user answers, Cancel keeps the window and the edit, and the file on disk is
// untouched until Save.
func TestClosingTheWindowAsksAboutUnsavedWork(t *testing.T) {
	test.NewTempApp(t)
	st := uitest.OpenStore(t)
	w := test.NewWindow(nil)
	w.Resize(uitest.Laptop)
	shell := ui.NewShell(w, ui.Deps{Store: st, StorePath: st.Path(), Run: uitest.SyncRun,
		Workspaces: registry.Workspaces(func() registry.Store { return workflow.Workflows{Store: st} }, registry.Options{})})
	w.SetContent(shell.Content())
	dir := t.TempDir()
	path := filepath.Join(dir, "demo.pkl")
	data, err := os.ReadFile(filepath.Join(conformance.RepoDir(t, "mobileenv"), "pickles", "inputs", "synthetic_documented.pkl"))
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(path, data, 0o644)
	if err := shell.OpenFile(path, -1); err != nil {
		t.Fatal(err)
	}
	// an edit, by the workspace's own button
	remove := uitest.Find(w.Content(), func(b *widget.Button) bool { return b.Text == "Remove trajectory" })
	if remove == nil || remove.Disabled() {
		t.Fatal("no Remove trajectory button")
	}
	test.Tap(remove)
	closed := 0
	request := closeRequest(shell, func() { closed++ })
	request()
	q := w.Canvas().Overlays().Top()
	if q == nil || closed != 0 || !strings.Contains(uitest.Texts(q), "not saved") {
		t.Fatalf("closing did not ask (closed %d)", closed)
	}
	uitest.TapButton(t, q, "Cancel")
	if closed != 0 {
		t.Fatal("Cancel closed the window")
	}
	request()
	uitest.TapButton(t, w.Canvas().Overlays().Top(), "Save")
	if closed != 1 {
		t.Fatal("Save did not go on closing")
	}
	if now, _ := os.ReadFile(path); string(now) == string(data) {
		t.Fatal("Save did not write the edit")
	}
}
