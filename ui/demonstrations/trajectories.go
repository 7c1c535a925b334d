package demonstrations

import (
	"bytes"
	"fmt"
	"image"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/agentdesk/agentdesk/engine/episode"
	"github.com/agentdesk/agentdesk/engine/mobileenv"
	"github.com/agentdesk/agentdesk/ui/widgets"
)

// What is on show: the trajectory list of the file with the pending edits applied, the
// selected trajectory in the frame viewer, and which controls apply to it.

// show puts cur (the file with d.pending applied, edited its bytes) on screen.
func (d *Workspace) show(cur *mobileenv.File, edited []byte) {
	d.cur, d.sum, d.edited = cur, cur.Summary(), edited
	d.mapIndices()
	mods, _ := d.Modifiers()
	d.modLabel.SetText(mods)
	d.dirty = !bytes.Equal(edited, d.disk)
	if d.dirty {
		d.saved = false
	}
	// the state first: the line is cut at its end on a narrow window
	state := ""
	switch {
	case d.dirty:
		state = "● " + d.unsavedText() + " · "
	case d.saved:
		state = "✓ Saved · "
	}
	d.fileLabel.SetText(fmt.Sprintf("%s%s (%s, %d bytes)", state, d.path, d.cur.Kind, len(edited)))
	d.trajList.Refresh()
	at := d.viewer.Index()
	if d.sel < 0 { // a file just opened starts at its first step
		at = 0
	}
	if sel := min(max(d.sel, 0), len(d.curTraj)-1); sel >= 0 {
		d.showTraj(sel, at)
		d.trajList.Select(sel)
	} else {
		d.sel = -1
	}
	d.refreshButtons()
}

func trajectoriesOf(f *mobileenv.File) *mobileenv.List {
	tl, _ := f.Root.(*mobileenv.Dict).Get("trajectories")
	l, _ := tl.(*mobileenv.List)
	return l
}

// mapIndices works out which original trajectory and record each shown one is.
func (d *Workspace) mapIndices() {
	alive := make([]bool, len(d.trajLens))
	recs := make([][]int, len(d.trajLens))
	for t, n := range d.trajLens {
		alive[t] = true
		for r := 0; r < n; r++ {
			recs[t] = append(recs[t], r)
		}
	}
	for _, e := range d.pending {
		switch e.Op {
		case "remove":
			alive[e.Traj] = false
		case "delete":
			kept := recs[e.Traj][:0:0]
			for _, r := range recs[e.Traj] {
				if r < e.Start || r >= e.End {
					kept = append(kept, r)
				}
			}
			recs[e.Traj] = kept
		}
	}
	d.curTraj, d.curRec = nil, nil
	for t := range alive {
		if alive[t] {
			d.curTraj = append(d.curTraj, t)
			d.curRec = append(d.curRec, recs[t])
		}
	}
}

func (d *Workspace) trajLine(i int) string {
	if d.cur == nil || i >= len(d.sum.Trajectories) {
		return ""
	}
	t := d.sum.Trajectories[i]
	name := t.Task
	if name == "" {
		name = t.TaskID
	}
	// numbered from 1 for people (the modifier strings keep the file's 0-based indices)
	return fmt.Sprintf("#%d · %s · %d steps · reward %.3g · %s", d.curTraj[i]+1, name, t.Records, t.TotalReward,
		widgets.Plural(len(t.Instructions), "instruction"))
}

// trajInstructions is the second line of a trajectory's list item: its instructions in order.
func (d *Workspace) trajInstructions(i int) string {
	if d.cur == nil || i >= len(d.sum.Trajectories) {
		return ""
	}
	if in := d.sum.Trajectories[i].Instructions; len(in) > 0 {
		return strings.Join(in, " → ")
	}
	return "no instructions"
}

// selectTraj is the list's selection: it shows another trajectory from its first step.
func (d *Workspace) selectTraj(i int) {
	if i != d.sel {
		d.markA = 0
		d.showTraj(i, 0)
	}
}

// showTraj shows shown-trajectory i at step index at (clamped).
func (d *Workspace) showTraj(i, at int) {
	if d.cur == nil || i < 0 || i >= len(d.cur.Trajectories) {
		return
	}
	d.sel = i
	ep, err := d.cur.Episode(i, mobileenv.EpisodeOptions{})
	if err != nil {
		d.setStatus(err.Error())
		return
	}
	f := d.cur
	d.viewer.SetEpisode(&ep, func(step *episode.Step) (image.Image, error) { return f.StepImage(i, step.Index) })
	if at > 0 {
		d.viewer.Seek(at)
	}
	d.markA = min(d.markA, max(d.viewer.Len()-1, 0))
	d.refreshStepControls()
}

func (d *Workspace) refreshStepControls() {
	if d.cur == nil || d.sel < 0 || d.viewer.Len() == 0 {
		d.rangeL.SetText("")
		return
	}
	a, b := min(d.markA, d.viewer.Index()), max(d.markA, d.viewer.Index())
	if a == b {
		d.rangeL.SetText(fmt.Sprintf("step %d", a+1))
	} else {
		d.rangeL.SetText(fmt.Sprintf("steps %d–%d", a+1, b+1))
	}
	step := d.viewer.Episode().Steps[d.viewer.Index()]
	d.reward.SetText(strconv.FormatFloat(step.Reward, 'g', -1, 64))
	// instructionize with -1 deletes the record's own instruction; on a record without one it
	// would set the last option (the original's Python indexing), so clearing is offered only
	// where there is something to clear.
	if d.recordHasInstruction() {
		d.buttons["clearinstr"].Enable()
	} else {
		d.buttons["clearinstr"].Disable()
	}
}

func (d *Workspace) recordHasInstruction() bool {
	if d.cur == nil || d.sel < 0 || d.viewer.Len() == 0 {
		return false
	}
	rec, err := d.cur.Record(d.sel, d.viewer.Index())
	return err == nil && rec.Has("instruction")
}

func (d *Workspace) refreshButtons() {
	if d.editor != nil && d.editor.Visible() != (d.orig != nil) { // the editor once a file is open
		if d.orig != nil {
			d.empty.Hide()
			d.editor.Show()
		} else {
			d.editor.Hide()
			d.empty.Show()
		}
	}
	if d.busy.Busy() {
		for _, b := range d.buttons {
			b.Disable()
		}
		d.instr.Disable()
		d.reward.Disable()
		return
	}
	d.instr.Enable()
	d.reward.Enable()
	for _, k := range []string{"open", "defs", "mark"} {
		d.buttons[k].Enable()
	}
	has := d.cur != nil && len(d.curTraj) > 0
	resaved := d.orig != nil && d.orig.Kind == mobileenv.KindResaved
	set := func(key string, on bool) {
		if on {
			d.buttons[key].Enable()
		} else {
			d.buttons[key].Disable()
		}
	}
	for _, k := range []string{"mark", "delete", "remove", "reward"} {
		set(k, has && resaved)
	}
	set("instr", has && resaved && len(d.options) > 0)
	set("clearinstr", has && resaved && d.recordHasInstruction())
	set("undo", len(d.pending) > 0 || len(d.saves) > 0)
	set("redo", len(d.redo) > 0)
	set("save", d.dirty)
	set("saveas", d.orig != nil && resaved)
	set("import", has)
	exporting := d.exportTask != nil
	set("exportframes", has && !exporting)
	set("exportvideo", has && !exporting)
	set("resave", !exporting)
}

// selectOriginal selects the shown trajectory whose original index is traj.
func (d *Workspace) selectOriginal(path string, traj int) error {
	for i, t := range d.curTraj {
		if t == traj {
			d.trajList.Select(i)
			d.trajList.ScrollTo(i)
			return nil
		}
	}
	err := fmt.Errorf("%s has no trajectory %d (it has %s)", filepath.Base(path), traj, widgets.Plural(len(d.trajLens), "trajectory"))
	d.setStatus(err.Error())
	return err
}
