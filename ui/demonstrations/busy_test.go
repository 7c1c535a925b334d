package demonstrations

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/agentdesk/agentdesk/engine/mobileenv"
)

// queuedRun is a deps.Run that keeps the work for the test to run when it chooses, as a
// background goroutine would run it later.
type queuedRun struct{ jobs []func() }

func (q *queuedRun) run(f func()) { q.jobs = append(q.jobs, f) }

func (q *queuedRun) finish(t *testing.T) {
	t.Helper()
	if len(q.jobs) != 1 {
		t.Fatalf("%d jobs queued, want 1", len(q.jobs))
	}
	f := q.jobs[0]
	q.jobs = nil
	f()
}

// editControlsOff reports whether every edit control is disabled.
func editControlsOff(d *Workspace) bool {
	for _, k := range []string{"open", "mark", "delete", "remove", "reward", "undo", "save", "saveas", "import"} {
		if !d.buttons[k].Disabled() {
			return false
		}
	}
	return d.reward.Disabled() && d.instr.Disabled()
}

// TestDemonstrationsOpenRunsInTheBackground: opening a file reads and parses it through
// deps.Run, with the activity bar on and the controls off until the result is shown.
func TestDemonstrationsOpenRunsInTheBackground(t *testing.T) {
	h, d, path := openDemo(t, "inputs/synthetic_documented.pkl")
	q := &queuedRun{}
	h.Run = q.run
	other := filepath.Join(t.TempDir(), "other.pkl")
	data, _ := os.ReadFile(filepath.Join(mobileenvVectors, "inputs", "synthetic_visual.pkl"))
	os.WriteFile(other, data, 0o644)

	if err := d.Open(other, -1); err != nil {
		t.Fatal(err)
	}
	if d.path != path || !d.busy.Busy() || !d.busy.Content.Visible() || !editControlsOff(d) {
		t.Fatalf("while opening: path %s, busy %v, bar %v, controls off %v", d.path, d.busy, d.busy.Content.Visible(), editControlsOff(d))
	}
	if err := d.Open(path, -1); err != errBusy {
		t.Fatalf("a second open while busy: %v", err)
	}
	q.finish(t)
	if d.path != other || d.busy.Busy() || d.busy.Content.Visible() || d.buttons["open"].Disabled() || d.buttons["remove"].Disabled() {
		t.Fatalf("after opening: path %s, busy %v, bar %v", d.path, d.busy, d.busy.Content.Visible())
	}

	// Cancel: the result is dropped, the file on show stays
	d.Open(path, -1)
	d.busy.Cancel()
	if d.busy.Busy() || d.busy.Content.Visible() || d.buttons["open"].Disabled() {
		t.Fatal("Cancel left the workspace busy")
	}
	q.finish(t)
	if d.path != other {
		t.Fatalf("a cancelled open replaced the file: %s", d.path)
	}
}

// TestDemonstrationsEditRunsInTheBackground: an edit is applied (parse, modify, encode, parse)
// through deps.Run; meanwhile the controls are off and further edits are refused.
func TestDemonstrationsEditRunsInTheBackground(t *testing.T) {
	h, d, _ := openDemo(t, "inputs/synthetic_documented.pkl")
	q := &queuedRun{}
	h.Run = q.run
	d.trajList.Select(0)
	before := d.cur
	if err := d.removeTrajectory(); err != nil {
		t.Fatal(err)
	}
	if d.cur != before || !d.busy.Busy() || !editControlsOff(d) || len(d.pending) != 1 {
		t.Fatalf("while applying: file replaced %v, busy %v, controls off %v", d.cur != before, d.busy.Busy(), editControlsOff(d))
	}
	if err := d.removeTrajectory(); err != errBusy || len(d.pending) != 1 {
		t.Fatalf("an edit while busy: %v, %d pending", err, len(d.pending))
	}
	q.finish(t)
	if d.busy.Busy() || len(d.curTraj) != 1 || d.modLabel.Text != "0:remove" || d.buttons["undo"].Disabled() || d.buttons["remove"].Disabled() {
		t.Fatalf("after applying: busy %v, %d trajectories, modifiers %q", d.busy.Busy(), len(d.curTraj), d.modLabel.Text)
	}

	// Cancel takes the edit back
	d.trajList.Select(0)
	d.setReward("7")
	if len(d.pending) != 2 {
		t.Fatalf("%d pending", len(d.pending))
	}
	d.busy.Cancel()
	if d.busy.Busy() || len(d.pending) != 1 || d.modLabel.Text != "0:remove" {
		t.Fatalf("after cancelling: busy %v, %d pending, modifiers %q", d.busy.Busy(), len(d.pending), d.modLabel.Text)
	}
	q.finish(t)
	if len(d.pending) != 1 || d.modLabel.Text != "0:remove" {
		t.Fatalf("a cancelled edit was applied: %q", d.modLabel.Text)
	}
}

// TestDemonstrationsSaveAsNamesTheNewFile: after Save as…, the file on show is the new one,
// down to the episodes made from it (their source file, for the Explorer).
func TestDemonstrationsSaveAsNamesTheNewFile(t *testing.T) {
	_, d, path := openDemo(t, "inputs/synthetic_documented.pkl")
	d.trajList.Select(0)
	if err := d.removeTrajectory(); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(filepath.Dir(path), "saved-as.pkl")
	// fyne's save dialog has created the chosen file, empty, before Save as writes it
	if err := os.WriteFile(out, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := d.saveAs(out); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(out + ".old"); err == nil {
		t.Fatal("Save as left an empty .old beside the new file")
	}
	data, _ := os.ReadFile(out)
	if d.path != out || d.cur.Path != out || d.cur.Size != int64(len(data)) || len(d.pending) != 0 {
		t.Fatalf("after Save as: path %s, file %s (%d bytes, %d on disk), %d pending", d.path, d.cur.Path, d.cur.Size, len(data), len(d.pending))
	}
	ep, err := d.cur.Episode(0, mobileenv.EpisodeOptions{})
	if err != nil || ep.Metadata["file"] != out {
		t.Fatalf("episode's file %v (%v)", ep.Metadata["file"], err)
	}
}
