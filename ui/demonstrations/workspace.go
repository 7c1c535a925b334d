package demonstrations

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"path/filepath"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/agentdesk/agentdesk/engine/limits"
	"github.com/agentdesk/agentdesk/engine/mobileenv"
	"github.com/agentdesk/agentdesk/ui/widgets"
	"github.com/agentdesk/agentdesk/ui/workspace"
)

const prefDefDir = "demonstrations.definitionsFolder"

// Workspace is the Demonstrations workspace: a Mobile-Env annotation file's trajectories, the
// frame viewer, and editing by pointing and clicking. Edits are kept as a list of pending edits
// in the original file's coordinates (undo pops one, redo pushes it back); what is on show is the
// file with the pending edits applied; saving runs the same edit as `agentdesk pickle edit` with
// the equivalent modifier string, so work done by mouse can be scripted.
type Workspace struct {
	host  workspace.Host
	store Store // nil when no store is open

	// editor is the trajectories and frames with the editing controls, shown once a file is
	// open; empty says what to do before
	editor *container.Split
	empty  *fyne.Container

	path     string
	data     []byte            // the file the pending edits apply to: as opened, or as last saved
	edited   []byte            // the file with the pending edits applied (what Save writes)
	orig     *mobileenv.File   // data parsed
	cur      *mobileenv.File   // with the pending edits applied
	sum      mobileenv.Summary // of cur, for the trajectory list
	trajLens []int             // record counts of the original trajectories
	pending  []mobileenv.PendingEdit
	redo     []mobileenv.PendingEdit
	// disk is the file at path as last read or written (Save refuses to write over another
	// version), diskFile its parse; dirty says what is on show differs from it.
	disk     []byte
	diskFile *mobileenv.File
	dirty    bool
	// saves are the files the edits applied to before each save, with those edits: Save makes
	// the saved file the one edits apply to, and undo goes back across a save through them.
	saves []savedBase
	// saved says the file was just saved (the file line says so until the next change)
	saved    bool
	defDir   string
	question *workspace.Question // the question about unsaved edits, nil when none was asked

	// Opening a file and applying edits parse and encode the whole file (a 300 MB pickle takes
	// half a second): that runs in the background behind the busy bar, the controls off; a
	// cancelled job's result is dropped.
	busy      *workspace.BusyBar
	cancelled func() // what cancelling the work in progress undoes
	// exportTask is the export or resave running behind its progress dialog (nil: none)
	exportTask *workspace.Task
	// the last export and resave dialogs' fields, and how the last one ended (for tests)
	exportForm  *exportForm
	resaveForm  *resaveForm
	lastOutcome *outcome
	// onExportProgress, when set (tests), is told each progress report of an export, on the
	// goroutine making it
	onExportProgress func(frac float64, text string)

	options []any
	optsDir string   // the folder options were read from (definitionsFolder when loaded)
	labels  []string // instruction options as text

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
	status    *widgets.TipLabel // one line: the whole message shows on hover
	instr     *widget.Select
	reward    *widget.Entry
	rangeL    *widget.Label
	buttons   map[string]*widget.Button
	content   fyne.CanvasObject
}

// New builds the workspace; store, when not nil, receives imported trajectories and the recent
// files.
func New(h workspace.Host, store Store) *Workspace {
	d := &Workspace{host: h, store: store, sel: -1, buttons: map[string]*widget.Button{}}
	d.defDir = fyne.CurrentApp().Preferences().String(prefDefDir)
	d.fileLabel = widget.NewLabel("No file open.")
	d.fileLabel.Truncation = fyne.TextTruncateEllipsis // one line, beside the file's buttons
	// one line, cut to the column: a long message ("Opened … the definitions' path") would
	// otherwise push the editing controls under it out of view
	d.status = widgets.NewTipLabel()
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
	exportF := btn("exportframes", "Export frames…", theme.MediaPhotoIcon(), func() { d.exportDialog(false) })
	exportV := btn("exportvideo", "Export video…", theme.MediaVideoIcon(), func() { d.exportDialog(true) })
	resave := btn("resave", "Resave web dumps…", theme.StorageIcon(), d.resaveDialog)

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
	d.reward.OnSubmitted = func(text string) { // Enter sets it, as the button does
		if !d.buttons["reward"].Disabled() {
			d.setReward(text)
		}
	}

	d.busy = workspace.NewBusyBar()
	d.busy.OnChange = func(bool) { d.refreshButtons() }
	d.busy.OnCancel = func() {
		cancelled := d.cancelled
		d.cancelled = nil
		if cancelled != nil {
			cancelled()
		}
		d.setStatus("Cancelled.")
	}
	// One line above the content: the file's own buttons and what is open (the state first);
	// the rest of the file's actions are at the foot of the editing column.
	top := container.NewVBox(
		container.NewBorder(nil, nil, container.NewHBox(open, save, saveAs, undo, redo), nil, d.fileLabel),
		d.busy.Content)
	bold := func(s string) *widget.Label {
		return widget.NewLabelWithStyle(s, fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	}
	// the step's action, reward and instruction head the editing column, beside the frame
	// rather than under it
	editBar := container.NewVBox(
		d.viewer.SetCaptionsApart(), widget.NewSeparator(),
		d.status,
		bold("Steps"), widgets.NewFlow(markA, d.rangeL, del), removeT,
		widget.NewSeparator(),
		bold("Instruction"), d.instr, widgets.NewFlow(setInstr, clearInstr),
		widget.NewSeparator(),
		bold("Reward"), container.NewBorder(nil, nil, nil, setReward, d.reward),
		widget.NewSeparator(),
		bold("Modifiers"), d.modLabel,
		widget.NewSeparator(),
		bold("File"), exportF, exportV, importB, defs, resave)
	left := container.NewBorder(widget.NewLabelWithStyle("Trajectories", fyne.TextAlignLeading, fyne.TextStyle{Bold: true}), nil, nil, nil, d.trajList)
	// the frames take the window's height (phone screens are tall), the step controls under
	// them; the editing controls are a column beside them, the step's captions and what the
	// last action said at its top, that scrolls on short windows
	right := container.NewHSplit(d.viewer, container.NewVScroll(editBar))
	right.Offset = 0.64
	split := container.NewHSplit(left, right)
	split.Offset = 0.22
	d.editor = split
	// before a file is open: what to do, instead of empty, disabled editing controls
	hint := widget.NewLabel("Open a Mobile-Env annotation pickle to scrub its frames and edit steps, instructions and " +
		"rewards; or drop one on the window. New here? Load the sample data and open its demonstrations.")
	hint.Wrapping = fyne.TextWrapWord
	openBig := widget.NewButtonWithIcon("Open…", theme.FolderOpenIcon(), d.openDialog)
	sample := workspace.SampleButton(h)
	if path := d.samplePath(); path != "" { // loaded already: open it, rather than load it again
		hint.SetText("Open a Mobile-Env annotation pickle to scrub its frames and edit steps, instructions and " +
			"rewards; or drop one on the window. New here? Open the sample demonstrations.")
		sample.SetText("Open the sample demonstrations")
		sample.SetIcon(theme.FolderOpenIcon())
		sample.OnTapped = func() { d.Open(path, 0) }
	}
	d.empty = container.NewVBox(hint, container.NewHBox(openBig, sample))
	d.content = container.NewBorder(top, nil, nil, nil, container.NewStack(split, container.NewPadded(d.empty)))
	d.refreshButtons()
	return d
}

// Opens reports whether path is a file the workspace opens: a Mobile-Env annotation pickle
// or its .old backup (see mobileenv.IsPickleFile).
func (d *Workspace) Opens(path string) bool { return mobileenv.IsPickleFile(path) }

// Open loads an annotation file (the file dialog, files dropped on the window or given on the
// command line, the Explorer's "Open in Demonstrations"); at >= 0 selects that trajectory
// (original index). The file already open, with its pending edits, is kept when it is the same
// file. With unsaved edits to another file it first asks whether to drop them, and opens the
// file once the user agreed (returning nil at once).
func (d *Workspace) Open(path string, at int) error {
	open := func() error {
		if at < 0 {
			return d.open(path)
		}
		if d.orig == nil || d.path != path {
			return d.openThen(path, func() error { return d.selectOriginal(path, at) })
		}
		return d.selectOriginal(path, at)
	}
	if d.dirty && path != d.path && d.host.Window() != nil && !d.busy.Busy() {
		d.askUnsaved("Open "+filepath.Base(path), func() { open() })
		return nil
	}
	return open()
}

// errBusy refuses work while a file is being opened or edits applied.
var errBusy = errors.New("the Demonstrations workspace is busy: wait for the file to open or the edit to apply, or cancel it")

// open loads an annotation file, dropping any unsaved edits.
func (d *Workspace) open(path string) error { return d.openThen(path, nil) }

// openThen reads and parses the file off the UI goroutine (the activity bar shows meanwhile),
// then shows it and runs then. It returns the error when the work finished before it returns
// (a synchronous deps.Run, as in tests); otherwise errors are shown when the work ends.
func (d *Workspace) openThen(path string, then func() error) error {
	if d.busy.Busy() {
		d.setStatus(errBusy.Error())
		return errBusy
	}
	d.setStatus(fmt.Sprintf("Opening %s…", filepath.Base(path)))
	type opened struct {
		data []byte
		f    *mobileenv.File
	}
	var result error
	returned := false
	workspace.StartBusy(d.host, d.busy, func(context.Context) (opened, error) {
		data, err := limits.ReadFile(path, limits.Pickle)
		if err != nil {
			return opened{}, err
		}
		f, err := mobileenv.Parse(path, data)
		if err != nil {
			return opened{}, fmt.Errorf("cannot open: %w", err)
		}
		return opened{data, f}, nil
	}, func(o opened, err error) {
		if err == nil {
			d.opened(path, o.data, o.f)
			if then != nil {
				err = then()
			}
		} else {
			d.setStatus(err.Error())
		}
		if err != nil && returned {
			workspace.ShowError(d.host.Window(), fmt.Errorf("%s: %w", filepath.Base(path), err))
		}
		result = err
	})
	returned = true
	return result
}

// opened shows a file just read (or just saved: its bytes and parse are then at hand), with no
// pending edits.
func (d *Workspace) opened(path string, data []byte, f *mobileenv.File) {
	d.path, d.data, d.orig, d.cur = path, data, f, f
	d.disk, d.diskFile, d.saves, d.saved = data, f, nil, false
	d.pending, d.redo, d.sel, d.markA = nil, nil, -1, 0
	d.trajLens = trajectoryLengths(f)
	d.loadOptions()
	if st := d.store; st != nil {
		st.TouchRecent(context.Background(), path, "pickle")
	}
	d.show(f, data)
	msg := fmt.Sprintf("Opened %s: %s file, %s.", filepath.Base(path), f.Kind, widgets.Plural(len(f.Trajectories), "trajectory"))
	if len(d.options) > 0 {
		msg += fmt.Sprintf(" %s from %s.", widgets.Plural(len(d.options), "instruction option"), filepath.Join(d.optsDir, f.DefinitionID()+".textproto"))
	} else if f.Kind == mobileenv.KindResaved {
		msg += fmt.Sprintf(" No task definition %s.textproto found: choose its folder with Task definitions… to set instructions.", f.DefinitionID())
	}
	d.setStatus(msg)
}

func (d *Workspace) setStatus(s string) { d.status.SetText(s) }

// trajectoryLengths are the record counts of f's trajectories.
func trajectoryLengths(f *mobileenv.File) []int {
	n := make([]int, len(f.Trajectories))
	for i, t := range f.Trajectories {
		n[i] = len(t.Items)
	}
	return n
}

// askUnsaved asks what to do with the unsaved edits before action (a short phrase such as
// "Open other.pkl"): Save writes them as Save does and then goes on (not when saving failed:
// the edits stay), Discard goes on and drops them, Cancel leaves everything as it is.
func (d *Workspace) askUnsaved(action string, then func()) {
	d.question = workspace.AskUnsaved(d.host.Window(), d.UnsavedWork(), action, d.SaveWork, d.DiscardWork, then)
}

// UnsavedWork implements workspace.Unsaved: "demo.pkl has 2 edits not saved (0:remove,…)".
func (d *Workspace) UnsavedWork() string {
	if !d.dirty {
		return ""
	}
	return fmt.Sprintf("%s has %s", filepath.Base(d.path), d.unsavedText())
}

// unsavedText says what is not saved: "2 edits not saved (0:remove,…)", or, undone back
// past the last save, that the file on show is an earlier version than the one saved.
func (d *Workspace) unsavedText() string {
	if !bytes.Equal(d.data, d.disk) {
		return "changes not saved (edits undone past the last save)"
	}
	return fmt.Sprintf("%s not saved (%s)", widgets.Plural(len(d.pending), "edit"), d.modLabel.Text)
}

// SaveWork implements workspace.Unsaved: Save.
func (d *Workspace) SaveWork() error { return d.save(d.path) }

// DiscardWork implements workspace.Unsaved: the pending edits are dropped (the file on show
// goes back to what is on disk).
func (d *Workspace) DiscardWork() {
	if !d.dirty {
		return
	}
	if !bytes.Equal(d.data, d.disk) { // undone past a save: back to the file as saved
		d.data, d.orig, d.trajLens = d.disk, d.diskFile, trajectoryLengths(d.diskFile)
	}
	d.pending, d.redo, d.saves = nil, nil, nil
	d.rebuild(nil)
	d.refreshButtons()
}

// Do implements workspace.Commands: Open, Save, Save as, and Undo and Redo of the edits (those
// of a text field being typed in stay the field's); and the workspace's own ExportFrames,
// ExportVideo and ResaveDumps, which open their dialogs.
func (d *Workspace) Do(c workspace.Command) bool {
	if w := d.host.Window(); w != nil {
		if f := w.Canvas().Focused(); (f == d.reward || f == d.modLabel) && (c == workspace.Undo || c == workspace.Redo) {
			return false
		}
	}
	switch c {
	case workspace.Open:
		d.openDialog()
	case workspace.Save:
		if d.orig != nil {
			d.save(d.path)
		}
	case workspace.SaveAs:
		d.saveAsDialog()
	case workspace.Undo:
		d.undo()
	case workspace.Redo:
		d.redoOne()
	case ExportFrames, ExportVideo:
		if d.cur != nil && !d.busy.Busy() {
			d.exportDialog(c == ExportVideo)
		}
	case ResaveDumps:
		if !d.busy.Busy() {
			d.resaveDialog()
		}
	default:
		return false
	}
	return true
}

// Content implements workspace.Workspace.
func (d *Workspace) Content() fyne.CanvasObject { return d.content }

// Close implements workspace.Workspace: the work in progress is cancelled; an export stops
// as its Cancel button stops it (its dialog then says what it left).
func (d *Workspace) Close() {
	d.busy.Cancel()
	d.exportTask.Stop()
}
