package demonstrations

import (
	"bytes"
	"context"
	"os"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"

	"github.com/agentdesk/agentdesk/app/workflow"
	"github.com/agentdesk/agentdesk/engine/samples"
	"github.com/agentdesk/agentdesk/ui/uitest"
)

// TestDemonstrationsSaveKeepsTheStepAndTheUndoHistory: Save leaves the trajectory and the step
// on show, says Saved, and the edits saved can still be undone (and saved undone) and redone;
// it used to show the file from its first step again, with no undo and no word.
func TestDemonstrationsSaveKeepsTheStepAndTheUndoHistory(t *testing.T) {
	_, d, path := openDemo(t, "inputs/synthetic_documented.pkl")
	orig, _ := os.ReadFile(path)
	d.trajList.Select(1)
	d.viewer.Seek(2)
	before := d.viewer.Episode().Steps[2].Reward
	if err := d.setReward("2.5"); err != nil {
		t.Fatal(err)
	}
	d.viewer.Seek(3)
	test.Tap(d.buttons["save"])
	if d.sel != 1 || d.viewer.Index() != 3 {
		t.Fatalf("after Save: trajectory %d step %d on show, not trajectory 1 step 3", d.sel, d.viewer.Index())
	}
	if !strings.Contains(d.fileLabel.Text, "Saved") || d.dirty || !d.buttons["save"].Disabled() {
		t.Fatalf("after Save the file line says %q (unsaved %v)", d.fileLabel.Text, d.dirty)
	}
	if d.buttons["undo"].Disabled() {
		t.Fatal("nothing to undo after Save")
	}
	saved, _ := os.ReadFile(path)

	// Undo across the save: the reward is back, and the file on disk is the saved one until
	// Save writes the undone state.
	test.Tap(d.buttons["undo"])
	if got := d.viewer.Episode().Steps[2].Reward; got != before || d.sel != 1 {
		t.Fatalf("undo after Save: reward %v (was %v), trajectory %d", got, before, d.sel)
	}
	if !d.dirty || !strings.Contains(d.fileLabel.Text, "not saved") || strings.Contains(d.fileLabel.Text, "Saved") {
		t.Fatalf("undone past the save, the file line says %q", d.fileLabel.Text)
	}
	if w := d.UnsavedWork(); !strings.Contains(w, "not saved") {
		t.Fatalf("unsaved work %q", w)
	}
	if now, _ := os.ReadFile(path); !bytes.Equal(now, saved) {
		t.Fatal("undo wrote the file")
	}
	// Redo brings the saved state back: nothing to save.
	test.Tap(d.buttons["redo"])
	if got := d.viewer.Episode().Steps[2].Reward; got != 2.5 || d.dirty {
		t.Fatalf("redo: reward %v, unsaved %v", got, d.dirty)
	}
	// Undone and saved: the file as it was opened.
	test.Tap(d.buttons["undo"])
	test.Tap(d.buttons["save"])
	if now, _ := os.ReadFile(path); !bytes.Equal(now, orig) {
		t.Fatal("saving the undone edit does not give the file as opened")
	}
	if d.sel != 1 || d.viewer.Index() != 3 || !strings.Contains(d.fileLabel.Text, "Saved") {
		t.Fatalf("after the second Save: trajectory %d, step %d, %q", d.sel, d.viewer.Index(), d.fileLabel.Text)
	}
	// the one edit is undone and the file saved as opened: nothing left to undo
	if !d.buttons["undo"].Disabled() || d.dirty {
		t.Fatalf("undo on (%v) or unsaved (%v) with the file saved as opened", !d.buttons["undo"].Disabled(), d.dirty)
	}
}

// TestDemonstrationsEnterSetsTheReward: Enter in the reward field applies it, as Set reward
// does (it did nothing).
func TestDemonstrationsEnterSetsTheReward(t *testing.T) {
	h, d, _ := openDemo(t, "inputs/synthetic_documented.pkl")
	d.trajList.Select(1)
	d.viewer.Seek(2)
	h.Win.Canvas().Focus(d.reward)
	d.reward.SetText("")
	test.Type(d.reward, "4.5")
	d.reward.TypedKey(&fyne.KeyEvent{Name: fyne.KeyReturn})
	if got := d.viewer.Episode().Steps[2].Reward; got != 4.5 || len(d.pending) != 1 {
		t.Fatalf("after Enter: reward %v, %d edits", got, len(d.pending))
	}
}

// laptopRooms are the rooms a workspace has on a 1024x700 screen: the whole window content
// (1024x670), and what is left of it beside a navigation with its labels (about 190 px) under
// a one-line header.
var laptopRooms = []fyne.Size{uitest.Laptop, fyne.NewSize(834, 630)}

// TestDemonstrationsEditTaskInView: editing the sample demonstrations, the frame (at least
// 300 px tall), its step controls and Save are in view without scrolling on a laptop screen.
func TestDemonstrationsEditTaskInView(t *testing.T) {
	test.NewTempApp(t)
	st := uitest.OpenStore(t)
	set, err := workflow.LoadSamples(context.Background(), st, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	h := uitest.NewHost(t, 1024, 670)
	d := New(h, st)
	h.Put(d)
	if err := d.StartTask(taskEdit); err != nil {
		t.Fatal(err)
	}
	if d.path != set.Demonstrations || !samples.IsDemonstrations(d.path) || d.sel != 0 || d.viewer.Len() == 0 {
		t.Fatalf("the task shows %s, trajectory %d, %d steps", d.path, d.sel, d.viewer.Len())
	}
	for _, room := range laptopRooms {
		h.Win.Resize(room)
		h.Put(d)
		view, err := d.TaskView(taskEdit)
		if err != nil {
			t.Fatal(err)
		}
		for _, name := range []string{"frame", "step-controls", "save"} {
			o := view.Widgets[name]
			if o == nil {
				t.Fatalf("no widget %q", name)
			}
			r := uitest.InView(t, h.Win, name, o)
			if name == "frame" && r.Size.Height < 300 {
				t.Errorf("at %v the frame is %.0f px tall, less than 300", room, r.Size.Height)
			}
		}
	}
	// started again, the file open stays as it is
	d.viewer.Seek(2)
	if err := d.StartTask(taskEdit); err != nil || d.viewer.Index() != 2 {
		t.Fatalf("started again: %v, step %d", err, d.viewer.Index())
	}
}

// TestDemonstrationsEmptyScreenOpensTheLoadedSample: with the sample data loaded, the empty
// screen opens the sample demonstrations (it offered to load the sample data again, which
// imported it a second time); without it, it offers to load it.
func TestDemonstrationsEmptyScreenOpensTheLoadedSample(t *testing.T) {
	test.NewTempApp(t)
	h := uitest.NewHost(t, 1024, 670)
	fresh := New(h, uitest.OpenStore(t))
	h.Put(fresh)
	uitest.TapButton(t, fresh.Content(), "Load sample data")
	if h.SamplesAsked != 1 {
		t.Fatalf("Load sample data asked the shell %d times", h.SamplesAsked)
	}

	st := uitest.OpenStore(t)
	set, err := workflow.LoadSamples(context.Background(), st, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	d := New(h, st)
	h.Put(d)
	if strings.Contains(uitest.Texts(d.Content()), "Load sample data") {
		t.Fatal("the sample data is loaded, and the empty screen offers to load it again")
	}
	uitest.TapButton(t, d.Content(), "Open the sample demonstrations")
	if d.path != set.Demonstrations || d.sel != 0 || h.SamplesAsked != 1 {
		t.Fatalf("opened %q at trajectory %d (%d loads asked)", d.path, d.sel, h.SamplesAsked)
	}
}

// TestDemonstrationsFrameIsTheMainContent: on a laptop screen, with the sample open (its long
// "Opened … definitions path" message on show), the frame has the width beside the editing
// column (the view hierarchy waits behind its XML button: it took half the width and showed
// clipped lines), the step controls keep to one row, the message stays one line, and the
// instruction and reward controls are in view; trajectories and steps are counted from 1.
func TestDemonstrationsFrameIsTheMainContent(t *testing.T) {
	test.NewTempApp(t)
	st := uitest.OpenStore(t)
	if _, err := workflow.LoadSamples(context.Background(), st, t.TempDir()); err != nil {
		t.Fatal(err)
	}
	h := uitest.NewHost(t, 1024, 670)
	d := New(h, st)
	h.Put(d)
	if err := d.StartTask(taskEdit); err != nil {
		t.Fatal(err)
	}
	d.setStatus(d.status.Text + " A status long enough to take several lines in the editing column when it wraps, " +
		"as the message naming the task definitions' folder did.")
	h.Win.Resize(uitest.Laptop)
	h.Put(d)
	if r := uitest.InView(t, h.Win, "frame", d.viewer.FrameArea()); r.Size.Width < 400 {
		t.Errorf("the frame is %.0f px wide at 1024x670", r.Size.Width)
	}
	if d.viewer.HierarchyShown() {
		t.Error("the view hierarchy is beside the frame before it was asked for")
	}
	if h, row := d.viewer.StepControls().Size().Height, d.buttons["save"].MinSize().Height; h > row*1.5 {
		t.Errorf("the step controls take %.0f px, more than a row of %.0f", h, row)
	}
	for _, name := range []string{"clearinstr", "reward"} {
		uitest.InView(t, h.Win, name, d.buttons[name])
	}
	uitest.InView(t, h.Win, "reward field", d.reward)
	if line := d.trajLine(0); !strings.HasPrefix(line, "#1 ·") {
		t.Errorf("the first trajectory reads %q", line)
	}
	if d.rangeL.Text != "step 1" {
		t.Errorf("the range of one step reads %q", d.rangeL.Text)
	}
}
