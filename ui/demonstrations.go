package ui

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"image"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/storage"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/agentdesk/agentdesk/engine/atomicfile"
	"github.com/agentdesk/agentdesk/engine/episode"
	"github.com/agentdesk/agentdesk/engine/limits"
	"github.com/agentdesk/agentdesk/engine/mobileenv"
	"github.com/agentdesk/agentdesk/ui/widgets"
)

const prefDefDir = "demonstrations.definitionsFolder"

// demoWS is the Demonstrations workspace: a Mobile-Env annotation file's trajectories, the
// frame viewer, and editing by pointing and clicking. Edits are kept as a list of pending edits
// in the original file's coordinates (undo pops one, redo pushes it back); what is on show is the
// file with the pending edits applied; saving runs the same edit as `agentdesk pickle edit` with
// the equivalent modifier string, so work done by mouse can be scripted.
type demoWS struct {
	shell *Shell

	path     string
	data     []byte            // the file as opened
	edited   []byte            // the file with the pending edits applied (what Save writes)
	orig     *mobileenv.File   // parsed as opened
	cur      *mobileenv.File   // with the pending edits applied
	sum      mobileenv.Summary // of cur, for the trajectory list
	trajLens []int             // record counts of the original trajectories
	pending  []mobileenv.PendingEdit
	redo     []mobileenv.PendingEdit
	defDir   string
	question *unsavedQuestion // the question about unsaved edits on show, nil when none

	// Opening a file and applying edits parse and encode the whole file (a 300 MB pickle takes
	// half a second): that runs through deps.Run, with the activity bar on and the controls
	// off; job numbers the work in progress, so a cancelled one's result is dropped.
	busy      bool
	job       int
	cancelled func() // what cancelling the work in progress undoes
	activity  *widget.ProgressBarInfinite
	cancel    *widget.Button
	busyBar   *fyne.Container
	options   []any
	optsDir   string   // the folder options were read from (definitionsFolder when loaded)
	labels    []string // instruction options as text

	// curTraj[i] is the original index of shown trajectory i; curRec[i][j] the original index
	// of its record j.
	curTraj []int
	curRec  [][]int
	sel     int // selected trajectory (shown index)
	markA   int

	trajList  *widget.List
	viewer    *widgets.FrameViewer
	fileLabel *widget.Label
	modLabel  *widget.Entry
	status    *widget.Label
	instr     *widget.Select
	reward    *widget.Entry
	rangeL    *widget.Label
	buttons   map[string]*widget.Button
	content   fyne.CanvasObject
}

func demonstrationsView(s *Shell) fyne.CanvasObject {
	if s.demos == nil {
		s.demos = newDemoWS(s)
	}
	return s.demos.content
}

func newDemoWS(s *Shell) *demoWS {
	d := &demoWS{shell: s, sel: -1, buttons: map[string]*widget.Button{}}
	d.defDir = fyne.CurrentApp().Preferences().String(prefDefDir)
	d.fileLabel = widget.NewLabel("Open a Mobile-Env annotation pickle (File dialog, or drop it on the window).")
	d.fileLabel.Wrapping = fyne.TextWrapWord
	d.status = widget.NewLabel("")
	d.status.Wrapping = fyne.TextWrapWord
	d.modLabel = widget.NewEntry()
	d.modLabel.SetPlaceHolder("the equivalent modifier string appears here")
	d.viewer = widgets.NewFrameViewer()
	d.viewer.OnStep(func(int) { d.refreshStepControls() })

	d.trajList = widget.NewList(
		func() int { return len(d.curTraj) },
		func() fyne.CanvasObject {
			l := widget.NewLabel("#00 · task name long enough · 000 steps · reward 0.0")
			l.Truncation = fyne.TextTruncateEllipsis
			in := widget.NewLabel("instructions")
			in.Truncation = fyne.TextTruncateEllipsis
			in.Importance = widget.LowImportance
			return container.NewVBox(l, in)
		},
		func(i widget.ListItemID, o fyne.CanvasObject) {
			box := o.(*fyne.Container)
			box.Objects[0].(*widget.Label).SetText(d.trajLine(i))
			box.Objects[1].(*widget.Label).SetText(d.trajInstructions(i))
		},
	)
	d.trajList.OnSelected = func(i widget.ListItemID) { d.selectTraj(i) }

	btn := func(key, label string, icon fyne.Resource, f func()) *widget.Button {
		b := widget.NewButtonWithIcon(label, icon, f)
		d.buttons[key] = b
		return b
	}
	open := btn("open", "Open…", theme.FolderOpenIcon(), d.openDialog)
	defs := btn("defs", "Task definitions…", theme.FolderIcon(), d.chooseDefDir)
	importB := btn("import", "Import into store", theme.DownloadIcon(), func() { d.importAll() })
	undo := btn("undo", "Undo", theme.ContentUndoIcon(), d.undo)
	redo := btn("redo", "Redo", theme.ContentRedoIcon(), d.redoOne)
	save := btn("save", "Save", theme.DocumentSaveIcon(), func() { d.save(d.path) })
	saveAs := btn("saveas", "Save as…", theme.DocumentSaveIcon(), d.saveAsDialog)
	removeT := btn("remove", "Remove trajectory", theme.DeleteIcon(), func() { d.removeTrajectory() })

	d.rangeL = widget.NewLabel("")
	markA := btn("mark", "Mark start", theme.MediaRecordIcon(), func() {
		d.markA = d.viewer.Index()
		d.refreshStepControls()
	})
	del := btn("delete", "Delete steps", theme.ContentCutIcon(), func() { d.deleteRange() })
	d.instr = widget.NewSelect(nil, func(string) {})
	d.instr.PlaceHolder = "instruction options"
	setInstr := btn("instr", "Set instruction", theme.ConfirmIcon(), func() { d.setInstruction(d.instr.SelectedIndex()) })
	clearInstr := btn("clearinstr", "Clear instruction", theme.ContentClearIcon(), func() { d.setInstruction(-1) })
	d.reward = widget.NewEntry()
	d.reward.SetPlaceHolder("reward")
	setReward := btn("reward", "Set reward", theme.ConfirmIcon(), func() { d.setReward(d.reward.Text) })

	d.activity = widget.NewProgressBarInfinite()
	d.activity.Stop()
	d.cancel = widget.NewButtonWithIcon("Cancel", theme.CancelIcon(), d.cancelJob)
	d.busyBar = container.NewBorder(nil, nil, nil, d.cancel, d.activity)
	d.busyBar.Hide()
	top := container.NewVBox(
		container.NewHBox(open, defs, importB, widget.NewSeparator(), undo, redo, save, saveAs),
		d.fileLabel, d.busyBar)
	editBar := container.NewVBox(
		container.NewHBox(markA, d.rangeL, del, removeT),
		container.NewBorder(nil, nil, nil, container.NewHBox(setInstr, clearInstr), d.instr),
		container.NewBorder(nil, nil, nil, setReward, d.reward),
		container.NewBorder(nil, nil, widget.NewLabel("Modifiers"), nil, d.modLabel),
		d.status)
	left := container.NewBorder(widget.NewLabelWithStyle("Trajectories", fyne.TextAlignLeading, fyne.TextStyle{Bold: true}), nil, nil, nil, d.trajList)
	right := container.NewBorder(nil, editBar, nil, nil, d.viewer)
	split := container.NewHSplit(left, right)
	split.Offset = 0.28
	d.content = container.NewBorder(top, nil, nil, nil, split)
	d.refreshButtons()
	return d
}

// Open loads an annotation file (the file dialog, files dropped on the window or given to the
// shell). With unsaved edits to another file it first asks whether to drop them, and opens the
// file once the user agreed (returning nil at once).
func (d *demoWS) Open(path string) error {
	if len(d.pending) > 0 && path != d.path && d.shell.win != nil && !d.busy {
		d.askUnsaved("Open "+filepath.Base(path), func() { d.open(path) })
		return nil
	}
	return d.open(path)
}

// errBusy refuses work while a file is being opened or edits applied.
var errBusy = errors.New("the Demonstrations workspace is busy: wait for the file to open or the edit to apply, or cancel it")

// open loads an annotation file, dropping any unsaved edits.
func (d *demoWS) open(path string) error { return d.openThen(path, nil) }

// openThen reads and parses the file off the UI goroutine (the activity bar shows meanwhile),
// then shows it and runs then. It returns the error when the work finished before it returns
// (a synchronous deps.Run, as in tests); otherwise errors are shown when the work ends.
func (d *demoWS) openThen(path string, then func() error) error {
	if d.busy {
		d.setStatus(errBusy.Error())
		return errBusy
	}
	job := d.startJob(fmt.Sprintf("Opening %s…", filepath.Base(path)), nil)
	var result error
	returned := false
	d.shell.deps.Run(func() {
		data, err := limits.ReadFile(path, limits.Pickle)
		var f *mobileenv.File
		if err == nil {
			if f, err = mobileenv.Parse(path, data); err != nil {
				err = fmt.Errorf("cannot open: %w", err)
			}
		}
		fyne.Do(func() {
			if !d.endJob(job) {
				return // cancelled
			}
			if err == nil {
				d.opened(path, data, f)
				if then != nil {
					err = then()
				}
			} else {
				d.setStatus(err.Error())
			}
			if err != nil && returned && d.shell.win != nil {
				dialog.ShowError(fmt.Errorf("%s: %w", filepath.Base(path), err), d.shell.win)
			}
			result = err
		})
	})
	returned = true
	return result
}

// opened shows a file just read (or just saved: its bytes and parse are then at hand), with no
// pending edits.
func (d *demoWS) opened(path string, data []byte, f *mobileenv.File) {
	d.path, d.data, d.orig, d.cur = path, data, f, f
	d.pending, d.redo, d.sel, d.markA = nil, nil, -1, 0
	d.trajLens = make([]int, len(f.Trajectories))
	for i, t := range f.Trajectories {
		d.trajLens[i] = len(t.Items)
	}
	d.loadOptions()
	if st := d.shell.deps.Store; st != nil {
		st.TouchRecent(context.Background(), path, "pickle")
	}
	d.show(f, data)
	msg := fmt.Sprintf("Opened %s: %s file, %s.", filepath.Base(path), f.Kind, plural(len(f.Trajectories), "trajectory"))
	if len(d.options) > 0 {
		msg += fmt.Sprintf(" %s from %s.", plural(len(d.options), "instruction option"), filepath.Join(d.optsDir, f.DefinitionID()+".textproto"))
	} else if f.Kind == mobileenv.KindResaved {
		msg += fmt.Sprintf(" No task definition %s.textproto found: choose its folder with Task definitions… to set instructions.", f.DefinitionID())
	}
	d.setStatus(msg)
}

// startJob turns the activity bar on and the controls off for work running off the UI
// goroutine; cancelled runs when the user cancels it. It returns the job's number for endJob.
func (d *demoWS) startJob(msg string, cancelled func()) int {
	d.job++
	d.busy = true
	d.cancelled = cancelled
	d.setStatus(msg)
	d.busyBar.Show()
	d.activity.Start()
	d.refreshButtons()
	return d.job
}

// endJob ends job and reports whether its result is wanted (false once it was cancelled).
func (d *demoWS) endJob(job int) bool {
	if job != d.job || !d.busy {
		return false
	}
	d.busy, d.cancelled = false, nil
	d.activity.Stop()
	d.busyBar.Hide()
	d.refreshButtons()
	return true
}

// cancelJob drops the result of the work in progress (it finishes in the background).
func (d *demoWS) cancelJob() {
	if !d.busy {
		return
	}
	cancelled := d.cancelled
	d.endJob(d.job)
	d.job++
	if cancelled != nil {
		cancelled()
	}
	d.setStatus("Cancelled.")
}

// loadOptions reads the instruction options from the task definition of the file.
func (d *demoWS) loadOptions() {
	d.options, d.labels = nil, nil
	dir := d.definitionsFolder()
	d.optsDir = dir
	if d.orig == nil || dir == "" {
		d.instr.Options = nil
		d.instr.Refresh()
		return
	}
	var err error
	if d.options, err = mobileenv.LoadInstructionOptions(dir, d.orig.DefinitionID()); err != nil {
		d.setStatus("No instruction options: " + err.Error())
	}
	for i, o := range d.options {
		if str, ok := o.(*mobileenv.Str); ok {
			// a plain string, not a list: the original joins it letter by letter ("a p l a i n")
			d.labels = append(d.labels, fmt.Sprintf("%d: %q (a string, not a list)", i, str.S))
			continue
		}
		d.labels = append(d.labels, fmt.Sprintf("%d: %s", i, mobileenv.InstructionText(o)))
	}
	d.instr.Options = d.labels
	d.instr.ClearSelected()
	d.instr.Refresh()
}

// definitionsFolder is where the open file's task definition is read from: the folder chosen
// with "Task definitions…" when it holds <task_definition_id>.textproto, else a textprotos
// folder next to the file, or the file's own folder, when one of them does (the layout the
// original tools are run in); the chosen folder otherwise, for its error message.
func (d *demoWS) definitionsFolder() string {
	if d.orig == nil {
		return d.defDir
	}
	name := d.orig.DefinitionID() + ".textproto"
	near := filepath.Dir(d.path)
	for _, dir := range []string{d.defDir, filepath.Join(near, "textprotos"), near} {
		if dir == "" {
			continue
		}
		if _, err := os.Stat(filepath.Join(dir, name)); err == nil {
			return dir
		}
	}
	return d.defDir
}

// applyEdits applies pending edits to the file as opened: the parsed result and its bytes
// (what Save writes). It touches no widget: it runs off the UI goroutine.
func applyEdits(path string, data []byte, pending []mobileenv.PendingEdit, trajLens []int, options []any) (*mobileenv.File, []byte, error) {
	mods, err := mobileenv.ModifiersFor(pending, trajLens)
	if err != nil {
		return nil, nil, err
	}
	f, err := mobileenv.Parse(path, data) // a private copy to edit
	if err != nil {
		return nil, nil, err
	}
	parsed, err := mobileenv.ParseModifiers(mods)
	if err != nil {
		return nil, nil, err
	}
	if err := mobileenv.ApplyModifiers(trajectoriesOf(f), parsed, options); err != nil {
		return nil, nil, err
	}
	edited, err := mobileenv.Encode(f.Root)
	if err != nil {
		return nil, nil, err
	}
	cur, err := mobileenv.Parse(path, edited)
	if err != nil {
		return nil, nil, err
	}
	return cur, edited, nil
}

// rebuild applies d.pending to the file as opened off the UI goroutine (the activity bar on,
// the controls off) and shows the result; done receives the outcome on the UI goroutine (on
// an error nothing changed but d.pending, which done may take back). It returns the outcome
// when the work finished before it returns (a synchronous deps.Run, as in tests).
func (d *demoWS) rebuild(done func(error)) error {
	if d.orig == nil {
		return nil
	}
	if len(d.pending) == 0 { // the file as opened: nothing to compute
		d.show(d.orig, d.data)
		if done != nil {
			done(nil)
		}
		return nil
	}
	path, data, trajLens, options := d.path, d.data, d.trajLens, d.options
	pending := append([]mobileenv.PendingEdit(nil), d.pending...)
	job := d.startJob(fmt.Sprintf("Applying %s…", plural(len(pending), "edit")), func() {
		if done != nil {
			done(errors.New("cancelled"))
		}
	})
	var result error
	d.shell.deps.Run(func() {
		cur, edited, err := applyEdits(path, data, pending, trajLens, options)
		fyne.Do(func() {
			if !d.endJob(job) {
				return
			}
			if err == nil {
				d.show(cur, edited)
			}
			result = err
			if done != nil {
				done(err)
			}
		})
	})
	return result
}

// show puts cur (the file with d.pending applied, edited its bytes) on screen.
func (d *demoWS) show(cur *mobileenv.File, edited []byte) {
	d.cur, d.sum, d.edited = cur, cur.Summary(), edited
	d.mapIndices()
	mods, _ := d.Modifiers()
	d.modLabel.SetText(mods)
	unsaved := ""
	if len(d.pending) > 0 {
		unsaved = fmt.Sprintf(" · ● %s not saved", plural(len(d.pending), "edit"))
	}
	d.fileLabel.SetText(fmt.Sprintf("%s (%s, %d bytes)%s", d.path, d.cur.Kind, len(d.data), unsaved))
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
func (d *demoWS) mapIndices() {
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

func (d *demoWS) trajLine(i int) string {
	if d.cur == nil || i >= len(d.sum.Trajectories) {
		return ""
	}
	t := d.sum.Trajectories[i]
	name := t.Task
	if name == "" {
		name = t.TaskID
	}
	return fmt.Sprintf("#%d · %s · %d steps · reward %.3g · %s", d.curTraj[i], name, t.Records, t.TotalReward,
		plural(len(t.Instructions), "instruction"))
}

// trajInstructions is the second line of a trajectory's list item: its instructions in order.
func (d *demoWS) trajInstructions(i int) string {
	if d.cur == nil || i >= len(d.sum.Trajectories) {
		return ""
	}
	if in := d.sum.Trajectories[i].Instructions; len(in) > 0 {
		return strings.Join(in, " → ")
	}
	return "no instructions"
}

// selectTraj is the list's selection: it shows another trajectory from its first step.
func (d *demoWS) selectTraj(i int) {
	if i != d.sel {
		d.markA = 0
		d.showTraj(i, 0)
	}
}

// showTraj shows shown-trajectory i at step index at (clamped).
func (d *demoWS) showTraj(i, at int) {
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

func (d *demoWS) refreshStepControls() {
	if d.cur == nil || d.sel < 0 || d.viewer.Len() == 0 {
		d.rangeL.SetText("")
		return
	}
	a, b := min(d.markA, d.viewer.Index()), max(d.markA, d.viewer.Index())
	d.rangeL.SetText(fmt.Sprintf("steps %d–%d", a+1, b+1))
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

func (d *demoWS) recordHasInstruction() bool {
	if d.cur == nil || d.sel < 0 || d.viewer.Len() == 0 {
		return false
	}
	rec, err := d.cur.Record(d.sel, d.viewer.Index())
	return err == nil && rec.Has("instruction")
}

func (d *demoWS) refreshButtons() {
	if d.busy {
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
	set("undo", len(d.pending) > 0)
	set("redo", len(d.redo) > 0)
	set("save", len(d.pending) > 0)
	set("saveas", d.orig != nil && resaved)
	set("import", has)
}

// edit adds pending edits (in original coordinates) and applies them (off the UI goroutine);
// rejected edits are taken back. then runs once they are applied.
func (d *demoWS) edit(es ...mobileenv.PendingEdit) error { return d.editThen(nil, es...) }

func (d *demoWS) editThen(then func(), es ...mobileenv.PendingEdit) error {
	if d.busy {
		d.setStatus(errBusy.Error())
		return errBusy
	}
	n := len(d.pending)
	d.pending = append(d.pending, es...)
	return d.rebuild(func(err error) {
		if err != nil {
			d.pending = d.pending[:n]
			d.setStatus("Edit refused: " + err.Error())
			return
		}
		d.redo = nil
		d.refreshButtons()
		ops := make([]string, len(es))
		for i, e := range es {
			ops[i] = e.Op
		}
		d.setStatus(fmt.Sprintf("%s: %s", strings.Join(ops, ", "), d.modLabel.Text))
		if then != nil {
			then()
		}
	})
}

func (d *demoWS) current() (traj, rec int, ok bool) {
	if d.cur == nil || d.sel < 0 || d.sel >= len(d.curTraj) || d.viewer.Len() == 0 {
		return 0, 0, false
	}
	return d.curTraj[d.sel], d.curRec[d.sel][d.viewer.Index()], true
}

func (d *demoWS) deleteRange() error {
	if d.cur == nil || d.sel < 0 {
		return errors.New("no trajectory selected")
	}
	a, b := min(d.markA, d.viewer.Index()), max(d.markA, d.viewer.Index())
	recs := d.curRec[d.sel]
	// Contiguous runs of original records, deleted from the last so indices stay valid, applied
	// together.
	var es []mobileenv.PendingEdit
	for j := b; j >= a; {
		end := recs[j] + 1
		k := j
		for k > a && recs[k-1] == recs[k]-1 {
			k--
		}
		es = append(es, mobileenv.PendingEdit{Op: "delete", Traj: d.curTraj[d.sel], Start: recs[k], End: end})
		j = k - 1
	}
	return d.editThen(func() { d.markA = min(a, max(d.viewer.Len()-1, 0)) }, es...)
}

func (d *demoWS) setInstruction(option int) error {
	t, r, ok := d.current()
	if !ok {
		return errors.New("no step selected")
	}
	if option == -1 && !d.recordHasInstruction() {
		d.setStatus("This step has no instruction of its own to clear.")
		return errors.New("nothing to clear")
	}
	if option < -1 || option >= len(d.options) {
		d.setStatus("Choose one of the task definition's instruction options first.")
		return errors.New("no instruction option chosen")
	}
	return d.edit(mobileenv.PendingEdit{Op: "instructionize", Traj: t, Start: r, Option: option})
}

func (d *demoWS) setReward(text string) error {
	t, r, ok := d.current()
	if !ok {
		return errors.New("no step selected")
	}
	v, err := strconv.ParseFloat(strings.TrimSpace(text), 64)
	if err != nil {
		d.setStatus("The reward must be a number.")
		return err
	}
	delta := v - d.viewer.Episode().Steps[d.viewer.Index()].Reward
	if delta == 0 {
		return nil
	}
	return d.edit(mobileenv.PendingEdit{Op: "rewardize", Traj: t, Start: r, Delta: delta})
}

func (d *demoWS) removeTrajectory() error {
	if d.cur == nil || d.sel < 0 {
		return errors.New("no trajectory selected")
	}
	return d.edit(mobileenv.PendingEdit{Op: "remove", Traj: d.curTraj[d.sel]})
}

func (d *demoWS) undo() {
	if len(d.pending) == 0 {
		return
	}
	if d.busy {
		d.setStatus(errBusy.Error())
		return
	}
	last := d.pending[len(d.pending)-1]
	d.pending = d.pending[:len(d.pending)-1]
	d.rebuild(func(err error) {
		if err != nil { // cancelled, or the edits before it no longer apply: keep it
			d.pending = append(d.pending, last)
			return
		}
		d.redo = append(d.redo, last)
		d.refreshButtons()
		d.setStatus("Undone: " + last.Op)
	})
}

func (d *demoWS) redoOne() {
	if len(d.redo) == 0 {
		return
	}
	e := d.redo[len(d.redo)-1]
	redo := d.redo[:len(d.redo)-1]
	d.editThen(func() { d.redo = redo; d.refreshButtons() }, e)
}

// Modifiers is the modifier string equivalent to the pending edits.
func (d *demoWS) Modifiers() (string, error) {
	return mobileenv.ModifiersFor(d.pending, d.trajLens)
}

// save writes the file with the pending edits to path: the very bytes `agentdesk pickle edit`
// writes with the equivalent modifier string. Saving in place keeps the previous version as
// .old (an older .old as .old.N) and refuses when the file changed on disk since it was opened
// (the edits were made against what was opened); another path is written atomically, an
// existing file there kept as .old.
func (d *demoWS) save(path string) error {
	if d.orig == nil {
		return errors.New("nothing open")
	}
	mods, err := d.Modifiers()
	if err != nil {
		d.setStatus("Cannot save: " + err.Error())
		return err
	}
	fail := func(err error) error {
		d.setStatus("Cannot save: " + err.Error())
		return err
	}
	if path == d.path {
		if len(d.pending) == 0 {
			return nil
		}
		disk, err := limits.ReadFile(path, limits.Pickle)
		if err != nil {
			return fail(err)
		}
		if !bytes.Equal(disk, d.data) {
			return fail(fmt.Errorf("%s changed on disk since it was opened; use Save as…, or open it again (your edits: %s)", filepath.Base(path), mods))
		}
	}
	backup := ""
	if _, err := os.Stat(path); err == nil {
		discarded, err := mobileenv.ReplaceWithBackup(path, d.edited)
		if err != nil {
			return fail(err)
		}
		backup = fmt.Sprintf("; the previous version is kept as %s.old", filepath.Base(path))
		if len(discarded) > 0 {
			backup += fmt.Sprintf("; removed %d temporary file(s) an interrupted save had left", len(discarded))
		}
	} else if err := atomicfile.Write(path, d.edited, 0o644); err != nil {
		return fail(err)
	}
	// the saved file is the edited bytes, already parsed: shown as opened, without reading it
	// again (under its new name after Save as…: episodes name their file)
	saved := *d.cur
	saved.Path, saved.Size = path, int64(len(d.edited))
	d.opened(path, d.edited, &saved)
	d.setStatus(fmt.Sprintf("Saved %s (modifiers %q%s).", filepath.Base(path), mods, backup))
	return nil
}

// importAll stores every trajectory (as shown, with pending edits) as an episode.
func (d *demoWS) importAll() error {
	st := d.shell.deps.Store
	if d.cur == nil || st == nil {
		return errors.New("nothing to import")
	}
	f, path := d.cur, d.path
	n := len(f.Trajectories)
	d.setStatus(fmt.Sprintf("Importing %s…", plural(n, "trajectory")))
	var err error
	d.shell.deps.Run(func() {
		for i := 0; i < n && err == nil; i++ {
			var ep episode.Episode
			if ep, err = f.Episode(i, mobileenv.EpisodeOptions{EncodePNG: true}); err == nil {
				ep.ExternalID = mobileenv.ExternalID(path, d.curTraj[i])
				err = st.SaveEpisode(context.Background(), &ep)
			}
		}
		fyne.Do(func() {
			if err != nil {
				d.setStatus("Import failed: " + err.Error())
				return
			}
			d.setStatus(fmt.Sprintf("Imported %s into the store; they are in the Explorer.", plural(n, "trajectory")))
		})
	})
	return err
}

func (d *demoWS) setStatus(s string) { d.status.SetText(s) }

func (d *demoWS) openDialog() {
	if d.shell.win == nil {
		return
	}
	fd := dialog.NewFileOpen(func(r fyne.URIReadCloser, err error) {
		if err != nil || r == nil {
			return
		}
		r.Close()
		d.Open(r.URI().Path())
	}, d.shell.win)
	fd.SetFilter(storage.NewExtensionFileFilter([]string{".pkl", ".pickle", ".pkl.old"}))
	fd.Show()
}

func (d *demoWS) saveAsDialog() {
	if d.shell.win == nil || d.orig == nil {
		return
	}
	fd := dialog.NewFileSave(func(w fyne.URIWriteCloser, err error) {
		if err != nil || w == nil {
			return
		}
		w.Close()
		d.save(w.URI().Path())
	}, d.shell.win)
	fd.SetFileName(strings.TrimSuffix(filepath.Base(d.path), ".pkl") + "-edited.pkl")
	fd.Show()
}

func (d *demoWS) chooseDefDir() {
	if d.shell.win == nil {
		return
	}
	dialog.ShowFolderOpen(func(l fyne.ListableURI, err error) {
		if err != nil || l == nil {
			return
		}
		d.setDefDir(l.Path())
	}, d.shell.win)
}

func (d *demoWS) setDefDir(dir string) {
	d.defDir = dir
	fyne.CurrentApp().Preferences().SetString(prefDefDir, dir)
	d.loadOptions()
	d.refreshButtons()
}

// OpenTrajectory opens an annotation file at one of its trajectories (original index), as the
// Explorer's "Open in Demonstrations" does for a stored Mobile-Env episode. The file already
// open, with its pending edits, is kept when it is the same file.
func (d *demoWS) OpenTrajectory(path string, traj int) error {
	if d.orig == nil || d.path != path { // the Explorer asked about unsaved edits already
		return d.openThen(path, func() error { return d.selectOriginal(path, traj) })
	}
	return d.selectOriginal(path, traj)
}

// selectOriginal selects the shown trajectory whose original index is traj.
func (d *demoWS) selectOriginal(path string, traj int) error {
	for i, t := range d.curTraj {
		if t == traj {
			d.trajList.Select(i)
			d.trajList.ScrollTo(i)
			return nil
		}
	}
	err := fmt.Errorf("%s has no trajectory %d (it has %s)", filepath.Base(path), traj, plural(len(d.trajLens), "trajectory"))
	d.setStatus(err.Error())
	return err
}

// unsavedQuestion is the question about unsaved edits on show (tests answer it).
type unsavedQuestion struct {
	dialog                *dialog.CustomDialog
	save, discard, cancel *widget.Button
}

// askUnsaved asks what to do with the unsaved edits before action (a short phrase such as
// "Open other.pkl"): Save writes them as Save does and then goes on (not when saving failed:
// the edits stay), Discard goes on and drops them, Cancel leaves everything as it is.
func (d *demoWS) askUnsaved(action string, then func()) {
	msg := widget.NewLabel(fmt.Sprintf("%s has %s not saved (%s).\n%s drops them unless you save them first.",
		filepath.Base(d.path), plural(len(d.pending), "edit"), d.modLabel.Text, action))
	msg.Wrapping = fyne.TextWrapWord
	q := &unsavedQuestion{}
	answer := func(f func()) func() {
		return func() {
			q.dialog.Hide()
			if d.question == q {
				d.question = nil
			}
			f()
		}
	}
	q.save = widget.NewButtonWithIcon("Save", theme.DocumentSaveIcon(), answer(func() {
		if err := d.save(d.path); err != nil {
			dialog.ShowError(fmt.Errorf("the edits were not saved, so nothing was dropped: %w", err), d.shell.win)
			return
		}
		then()
	}))
	q.save.Importance = widget.HighImportance
	q.discard = widget.NewButtonWithIcon("Discard", theme.DeleteIcon(), answer(then))
	q.cancel = widget.NewButtonWithIcon("Cancel", theme.CancelIcon(), answer(func() {}))
	q.dialog = dialog.NewCustomWithoutButtons("Unsaved edits", container.NewGridWrap(fyne.NewSize(460, 80), msg), d.shell.win)
	q.dialog.SetButtons([]fyne.CanvasObject{q.cancel, q.discard, q.save})
	d.question = q
	q.dialog.Show()
}

// HasUnsavedEdits reports whether the open file has edits not saved yet.
func (d *demoWS) HasUnsavedEdits() bool { return len(d.pending) > 0 }
