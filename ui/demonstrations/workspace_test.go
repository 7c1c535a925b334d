package demonstrations

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"fyne.io/fyne/v2/test"

	"github.com/agentdesk/agentdesk/engine/episode"
	"github.com/agentdesk/agentdesk/engine/mobileenv"
	"github.com/agentdesk/agentdesk/store"
	"github.com/agentdesk/agentdesk/ui/uitest"
	"github.com/agentdesk/agentdesk/ui/widgets"
)

const mobileenvVectors = "../../testdata/conformance/mobileenv/pickles"

// openDemo copies a conformance pickle to demo_task.pkl in a temp folder (with the task
// definitions) and opens it in the Demonstrations workspace.
func openDemo(t *testing.T, input string) (*uitest.Host, *Workspace, string) {
	t.Helper()
	test.NewTempApp(t)
	dir := t.TempDir()
	data, err := os.ReadFile(filepath.Join(mobileenvVectors, input))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "demo_task.pkl")
	os.WriteFile(path, data, 0o644)
	defs := filepath.Join(dir, "textprotos")
	os.MkdirAll(defs, 0o755)
	entries, _ := os.ReadDir(filepath.Join(mobileenvVectors, "inputs", "textprotos"))
	for _, e := range entries {
		b, _ := os.ReadFile(filepath.Join(mobileenvVectors, "inputs", "textprotos", e.Name()))
		os.WriteFile(filepath.Join(defs, e.Name()), b, 0o644)
	}
	st := uitest.SeededStore(t)
	h := uitest.NewHost(t, 1100, 750)
	d := New(h, st)
	h.Put(d)
	d.setDefDir(defs)
	if err := d.Open(path, -1); err != nil {
		t.Fatal(err)
	}
	return h, d, path
}

func TestDemonstrationsOpenAndBrowse(t *testing.T) {
	_, d, _ := openDemo(t, "inputs/synthetic_documented.pkl")
	if len(d.curTraj) != 2 || d.viewer.Len() != 5 {
		t.Fatalf("trajectories %d, steps on show %d", len(d.curTraj), d.viewer.Len())
	}
	if !strings.Contains(d.trajLine(1), "4 steps") {
		t.Fatalf("trajectory line %q", d.trajLine(1))
	}
	if len(d.labels) == 0 || d.buttons["instr"].Disabled() { // options from textprotos/demo_task.textproto
		t.Fatal("no instruction options read from the task definition")
	}
	d.viewer.Seek(2)
	if d.viewer.Frame().Bounds().Dx() != 6 { // 8x6x3 observations: 6 wide
		t.Fatalf("frame %v", d.viewer.Frame().Bounds())
	}
}

func TestDemonstrationsEditsMatchTheOriginalTool(t *testing.T) {
	_, d, path := openDemo(t, "inputs/synthetic_documented.pkl")
	// Select steps 2..3 (records 1 and 2) of trajectory 0 and delete them: ed01's "0:delete:1:3".
	d.trajList.Select(0)
	d.viewer.Seek(1)
	d.buttons["mark"].OnTapped()
	d.viewer.Seek(2)
	if err := d.deleteRange(); err != nil {
		t.Fatal(err)
	}
	if d.modLabel.Text != "0:delete:1:3" || d.viewer.Len() != 3 {
		t.Fatalf("modifiers %q, steps %d", d.modLabel.Text, d.viewer.Len())
	}
	if !strings.Contains(d.fileLabel.Text, "not saved") {
		t.Fatalf("unsaved changes not marked: %q", d.fileLabel.Text)
	}
	if err := d.save(path); err != nil {
		t.Fatal(err)
	}
	want, _ := os.ReadFile(filepath.Join(mobileenvVectors, "edit", "ed01_delete_range", "expected", "expected_output.pkl"))
	got, _ := os.ReadFile(path)
	if !bytes.Equal(got, want) {
		t.Fatalf("saved file (%d bytes) differs from the original tool's output (%d bytes)", len(got), len(want))
	}
	orig, _ := os.ReadFile(filepath.Join(mobileenvVectors, "inputs", "synthetic_documented.pkl"))
	if old, err := os.ReadFile(path + ".old"); err != nil || !bytes.Equal(old, orig) {
		t.Fatal("the previous version was not kept as .old")
	}
	if len(d.pending) != 0 || strings.Contains(d.fileLabel.Text, "not saved") {
		t.Fatal("still marked unsaved after saving")
	}
}

func TestDemonstrationsRewardInstructionUndoRedo(t *testing.T) {
	_, d, path := openDemo(t, "inputs/synthetic_documented.pkl")
	d.trajList.Select(1)
	d.viewer.Seek(2)
	before := d.viewer.Episode().Steps[2].Reward
	if err := d.setReward("2.5"); err != nil {
		t.Fatal(err)
	}
	if d.viewer.Episode().Steps[2].Reward != 2.5 || !strings.HasPrefix(d.modLabel.Text, "1:rewardize:2:") {
		t.Fatalf("reward %v (was %v), modifiers %q", d.viewer.Episode().Steps[2].Reward, before, d.modLabel.Text)
	}
	d.trajList.Select(0)
	d.viewer.Seek(2)
	if err := d.setInstruction(0); err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(d.modLabel.Text, "0:instructionize:2:0") {
		t.Fatalf("modifiers %q", d.modLabel.Text)
	}
	if err := d.setInstruction(99); err == nil {
		t.Fatal("an out-of-range option was accepted")
	}
	d.undo()
	if len(d.pending) != 1 || d.buttons["redo"].Disabled() {
		t.Fatalf("after undo: %d pending", len(d.pending))
	}
	d.redoOne()
	if len(d.pending) != 2 {
		t.Fatalf("after redo: %d pending", len(d.pending))
	}
	// Save as: the opened file stays as it was.
	out := filepath.Join(filepath.Dir(path), "edited.pkl")
	if err := d.save(out); err != nil {
		t.Fatal(err)
	}
	orig, _ := os.ReadFile(filepath.Join(mobileenvVectors, "inputs", "synthetic_documented.pkl"))
	if cur, _ := os.ReadFile(path); !bytes.Equal(cur, orig) {
		t.Fatal("save as changed the opened file")
	}
	if d.path != out || len(d.pending) != 0 {
		t.Fatalf("after save as: path %s, pending %d", d.path, len(d.pending))
	}
}

func TestDemonstrationsRemoveAndImport(t *testing.T) {
	_, d, _ := openDemo(t, "inputs/synthetic_documented.pkl")
	d.trajList.Select(0)
	if err := d.removeTrajectory(); err != nil {
		t.Fatal(err)
	}
	if len(d.curTraj) != 1 || d.curTraj[0] != 1 || d.modLabel.Text != "0:remove" {
		t.Fatalf("after remove: %v %q", d.curTraj, d.modLabel.Text)
	}
	if err := d.importAll(); err != nil {
		t.Fatal(err)
	}
	list, err := storeOf(d).Episodes(context.Background(), episode.Query{Source: episode.SourceMobileEnv})
	if err != nil || len(list) != 2 { // 1 seeded + 1 imported
		t.Fatalf("mobileenv episodes %+v %v", list, err)
	}
	var imported *episode.Summary
	for i := range list {
		if strings.HasSuffix(list[i].ExternalID, "#1") {
			imported = &list[i]
		}
	}
	if imported == nil || imported.NumSteps != 4 {
		t.Fatalf("imported %+v", list)
	}
	e, _ := storeOf(d).Episode(context.Background(), imported.ID)
	if _, err := widgets.LoadStepFrame(&e.Steps[0]); err != nil {
		t.Fatalf("imported frames do not decode: %v", err)
	}
}

func TestDemonstrationsBadFiles(t *testing.T) {
	_, d, _ := openDemo(t, "inputs/synthetic_documented.pkl")
	bad := filepath.Join(t.TempDir(), "broken.pkl")
	os.WriteFile(bad, []byte("\x80\x04\x95garbage"), 0o644)
	if err := d.Open(bad, -1); err == nil || !strings.Contains(d.status.Text, "broken.pkl") {
		t.Fatalf("corrupt pickle: %v, status %q", err, d.status.Text)
	}
	if len(d.curTraj) != 2 {
		t.Fatal("a failed open replaced the file on show")
	}
	if d.Opens(filepath.Join(t.TempDir(), "notes.docx")) {
		t.Fatal("the workspace takes a .docx file (the shell then refuses it: TestShellRefusesUnknownFiles)")
	}
}

// TestDemonstrationsSaveSafety: saving in place refuses a file changed on disk since it was
// opened; Save as writes the edited file without a stray .old; the trajectory list names the
// instructions; the task definitions next to the file are found without choosing a folder.
func TestDemonstrationsSaveSafety(t *testing.T) {
	_, d, path := openDemo(t, "inputs/synthetic_documented.pkl")
	if !strings.Contains(d.trajLine(0), "1 instruction") || !strings.Contains(d.trajInstructions(0), "How to Bake Lobster Tails") {
		t.Fatalf("trajectory line %q / %q", d.trajLine(0), d.trajInstructions(0))
	}
	d.trajList.Select(1)
	d.viewer.Seek(2)
	if err := d.setReward("7"); err != nil {
		t.Fatal(err)
	}
	mods := d.modLabel.Text

	// someone else edits the file meanwhile
	changed := append(append([]byte(nil), d.data...), 0)
	os.WriteFile(path, changed, 0o644)
	if err := d.save(path); err == nil || !strings.Contains(d.status.Text, "changed on disk") {
		t.Fatalf("saved over a file changed on disk: %v, %q", err, d.status.Text)
	}
	if got, _ := os.ReadFile(path); !bytes.Equal(got, changed) {
		t.Fatal("the refused save touched the file")
	}
	if _, err := os.Stat(path + ".old"); err == nil {
		t.Fatal("the refused save left a .old")
	}
	if len(d.pending) != 1 {
		t.Fatal("the refused save dropped the edits")
	}

	// Save as: the same bytes as `agentdesk pickle edit` with the modifier string, no .old
	out := filepath.Join(t.TempDir(), "copy.pkl")
	if err := d.save(out); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(out + ".old"); err == nil {
		t.Fatal("save as to a new file left a .old")
	}
	ref := filepath.Join(t.TempDir(), "demo_task.pkl")
	orig, _ := os.ReadFile(filepath.Join(mobileenvVectors, "inputs", "synthetic_documented.pkl"))
	os.WriteFile(ref, orig, 0o644)
	if _, err := mobileenv.Edit(ref, mods, "", mobileenv.EditOptions{}); err != nil {
		t.Fatal(err)
	}
	want, _ := os.ReadFile(ref)
	if got, _ := os.ReadFile(out); !bytes.Equal(got, want) {
		t.Fatal("save as differs from the CLI edit with the equivalent modifiers")
	}

	// a file next to textprotos/ gets its instruction options without choosing a folder
	d.setDefDir("")
	if err := d.Open(path[:len(path)-len("demo_task.pkl")]+"demo_task.pkl", -1); err == nil {
		t.Fatal("opened the file damaged above")
	}
	os.WriteFile(path, orig, 0o644)
	if err := d.Open(path, -1); err != nil {
		t.Fatal(err)
	}
	if len(d.options) == 0 || d.buttons["instr"].Disabled() {
		t.Fatal("no instruction options from the textprotos folder next to the file")
	}
	// demo_task's option 1 is a plain string: offered as written, not letter by letter
	if len(d.labels) < 2 || d.labels[1] != `1: "a plain str instruction" (a string, not a list)` {
		t.Fatalf("option labels %q", d.labels)
	}
}

// TestDemonstrationsDropKeepsUnsavedEdits: a file dropped on the window (or given to the shell)
// while edits are unsaved does not replace them without asking.
func TestDemonstrationsDropKeepsUnsavedEdits(t *testing.T) {
	h, d, path := openDemo(t, "inputs/synthetic_documented.pkl")
	d.trajList.Select(0)
	if err := d.removeTrajectory(); err != nil {
		t.Fatal(err)
	}
	other := filepath.Join(t.TempDir(), "other.pkl")
	data, _ := os.ReadFile(filepath.Join(mobileenvVectors, "inputs", "synthetic_visual.pkl"))
	os.WriteFile(other, data, 0o644)
	if err := d.Open(other, -1); err != nil { // as the shell opens a dropped file
		t.Fatal(err)
	}
	if d.path != path || len(d.pending) != 1 {
		t.Fatalf("dropping a file replaced the unsaved edits: open %s, %d edits", d.path, len(d.pending))
	}
	if h.Win.Canvas().Overlays().Top() == nil {
		t.Fatal("no question about the unsaved edits")
	}
	// without unsaved edits the file opens at once
	d.undo()
	h.Win.Canvas().Overlays().Remove(h.Win.Canvas().Overlays().Top())
	if err := d.Open(other, -1); err != nil || d.path != other {
		t.Fatalf("open without edits: %v, %s", err, d.path)
	}
}

// storeOf is the store the workspace was given (a real one in these tests).
func storeOf(d *Workspace) *store.Store { return d.store.(*store.Store) }

// TestDemonstrationsOpenAtATrajectory: the Explorer's "Open in Demonstrations" opens a file at
// one of its trajectories (original index); the file already open keeps its edits.
func TestDemonstrationsOpenAtATrajectory(t *testing.T) {
	_, d, path := openDemo(t, "inputs/synthetic_documented.pkl")
	d.trajList.Select(0)
	if err := d.Open(path, 1); err != nil {
		t.Fatal(err)
	}
	if d.path != path || d.sel != 1 {
		t.Fatalf("file %s, trajectory %d", d.path, d.sel)
	}
	if err := d.Open(path, 7); err == nil || !strings.Contains(d.status.Text, "has no trajectory 7") {
		t.Fatalf("a trajectory that does not exist: %v, %q", err, d.status.Text)
	}
}

// TestDemonstrationsUnsavedWork: what the shell asks about before a reload, a store switch or
// quitting: the edits are described, Save writes them (keeping the previous file as .old),
// Discard drops them without writing.
func TestDemonstrationsUnsavedWork(t *testing.T) {
	_, d, path := openDemo(t, "inputs/synthetic_documented.pkl")
	before, _ := os.ReadFile(path)
	if d.UnsavedWork() != "" {
		t.Fatalf("unsaved work right after opening: %q", d.UnsavedWork())
	}
	d.trajList.Select(0)
	if err := d.removeTrajectory(); err != nil {
		t.Fatal(err)
	}
	if w := d.UnsavedWork(); !strings.Contains(w, "1 edit not saved") || !strings.Contains(w, "(0:remove)") {
		t.Fatalf("unsaved work: %q", w)
	}
	d.DiscardWork()
	if now, _ := os.ReadFile(path); !bytes.Equal(now, before) || len(d.pending) != 0 || len(d.curTraj) != 2 {
		t.Fatalf("Discard: file changed %v, %d pending, %d trajectories", !bytes.Equal(now, before), len(d.pending), len(d.curTraj))
	}
	d.trajList.Select(0)
	d.removeTrajectory()
	if err := d.SaveWork(); err != nil {
		t.Fatal(err)
	}
	now, _ := os.ReadFile(path)
	old, err := os.ReadFile(path + ".old")
	if bytes.Equal(now, before) || err != nil || !bytes.Equal(old, before) || d.UnsavedWork() != "" {
		t.Fatalf("Save: file unchanged %v, backup %v, unsaved %q", bytes.Equal(now, before), err, d.UnsavedWork())
	}
}

// TestDemonstrationsFitsALaptop: a file with its frames on show fits a 1024x700 screen.
func TestDemonstrationsFitsALaptop(t *testing.T) {
	_, d, _ := openDemo(t, "inputs/synthetic_visual.pkl")
	uitest.Fits(t, "Demonstrations with a file", d.Content())
}
