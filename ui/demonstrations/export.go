package demonstrations

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/widget"

	"github.com/agentdesk/agentdesk/engine/mobileenv"
	"github.com/agentdesk/agentdesk/ui/widgets"
	"github.com/agentdesk/agentdesk/ui/workspace"
)

// Exports: the open file as annotated frames (`agentdesk pickle visualize`) or as videos
// (`agentdesk pickle video`), from a dialog with the command line's options, run off the UI
// goroutine behind a progress dialog with Cancel.
//
// Unsaved edits are exported, not asked about: frames and videos are made of the file as it is
// shown, pending edits included (the very bytes Save would write, handed to the engine as
// VisualizeOptions.Data), so what is exported is what the user sees and equals the command
// line's output on the file once saved; the file on disk is left alone. The dialog says so.

// The workspace's own commands (Do answers them besides the standard ones).
const (
	ExportFrames workspace.Command = "demonstrations.export-frames"
	ExportVideo  workspace.Command = "demonstrations.export-video"
	ResaveDumps  workspace.Command = "demonstrations.resave"
)

// exportPlan is what exporting the file on show makes: a folder per trajectory, named as the
// engine names it, and the frames each must hold.
type exportPlan struct {
	tid    string
	lens   []int // records per trajectory
	frames int   // in all
}

func (d *Workspace) exportPlan() exportPlan {
	p := exportPlan{tid: d.cur.DefinitionID()}
	for _, t := range d.cur.Trajectories {
		p.lens = append(p.lens, len(t.Items))
		p.frames += max(len(t.Items)-1, 0)
	}
	return p
}

// folders maps each trajectory folder's name to the frames it must hold.
func (p exportPlan) folders(safe bool) map[string]int {
	m := map[string]int{}
	for i, l := range p.lens {
		m[mobileenv.FolderName(p.tid, i, len(p.lens), l, safe)] = max(l-1, 0)
	}
	return m
}

// exportForm is the export dialog's fields (frames; video adds format and rate).
type exportForm struct {
	video       bool
	out         *pathField
	marks       *widget.Check
	descp       *widget.Check
	format      *widget.RadioGroup // JPEG or PNG frames
	names       *widget.RadioGroup // original or portable folder names
	labels      *widget.RadioGroup // Python version of the action labels
	video4      *widget.RadioGroup // MP4 or GIF
	fps         *widget.Entry
	ffmpeg      string // "" when not installed
	namesChoice [2]string
}

const (
	labelsOld = "Python 3.8–3.10: ActionType.LIFT"
	labelsNew = "Python 3.11+: 1"
	imageJPEG = "JPEG, as the original"
	imagePNG  = "PNG, lossless"
	videoMP4  = "MP4 (ffmpeg)"
	videoGIF  = "Animated GIF"
)

// exportDialog asks how and where to export the file on show as frames (video false) or
// videos, then exports it.
func (d *Workspace) exportDialog(video bool) {
	w := d.host.Window()
	if w == nil || d.cur == nil {
		return
	}
	title := "Export frames"
	if video {
		title = "Export video"
	}
	if d.exportTask != nil {
		d.setStatus("An export is running: wait for it, or cancel it.")
		return
	}
	if d.cur.Kind != mobileenv.KindResaved {
		d.showOutcome(outcome{title: title, msg: fmt.Sprintf("%s is a %s file. Frames and videos are made of resaved files (one task "+
			"definition's trajectories with their meta), as the original visualiser makes them: regroup the web tool's "+
			"dumps with Resave web dumps… and export the file it writes.", filepath.Base(d.path), d.cur.Kind)})
		return
	}
	plan := d.exportPlan()
	if plan.frames == 0 {
		d.showOutcome(outcome{title: title, msg: fmt.Sprintf("%s has nothing to draw: each of its %s holds only its initial record.",
			filepath.Base(d.path), widgets.Plural(len(plan.lens), "trajectory"))})
		return
	}
	prefs := loadExportPrefs()
	f := &exportForm{video: video}
	if ff, err := exec.LookPath("ffmpeg"); err == nil {
		f.ffmpeg = ff
	}
	base := filepath.Dir(d.path)
	stem := strings.TrimSuffix(filepath.Base(d.path), filepath.Ext(d.path))
	suffix := "-frames"
	if video {
		suffix = "-videos"
	}
	def := filepath.Join(base, stem+suffix)
	for n := 2; isFolder(def) || fileExists(def); n++ {
		def = filepath.Join(base, fmt.Sprintf("%s%s-%d", stem, suffix, n))
	}
	f.out = newPathField(def, func(s string) error { return d.checkExportFolder(absolute(s, base), plan, f.safe()) },
		func(cur string, set func(string)) {
			chooseFolder(w, absolute(cur, base), func(dir string) {
				// a chosen folder gets the export in a new folder of its own, unless it is empty
				if entries, err := os.ReadDir(dir); err == nil && len(entries) > 0 {
					dir = filepath.Join(dir, filepath.Base(def))
				}
				set(dir)
			})
		})
	f.marks = widget.NewCheck("Touch marks", nil)
	f.marks.SetChecked(!prefs.NoMarks)
	f.descp = widget.NewCheck("Description below the screen", nil)
	f.descp.SetChecked(!prefs.NoDescp)
	f.format = radio([]string{imageJPEG, imagePNG}, pick(prefs.PNG, imagePNG, imageJPEG))
	example := 0 // the first trajectory with frames names the examples
	for i, l := range plan.lens {
		if l > 1 {
			example = i
			break
		}
	}
	f.namesChoice = [2]string{
		mobileenv.FolderName(plan.tid, example, len(plan.lens), plan.lens[example], false),
		mobileenv.FolderName(plan.tid, example, len(plan.lens), plan.lens[example], true) + " (portable)",
	}
	f.names = radio(f.namesChoice[:], f.namesChoice[boolIndex(prefs.SafeNames)])
	f.names.OnChanged = func(string) { f.out.entry.Validate() } // the names decide what would clash
	if len(f.namesChoice[0])+len(f.namesChoice[1]) > 48 {
		f.names.Horizontal = false
	}
	f.labels = radio([]string{labelsOld, labelsNew}, pick(prefs.NumericLabels, labelsNew, labelsOld))

	unsaved := ""
	if n := len(d.pending); n > 0 {
		unsaved = fmt.Sprintf(" %s included; the file itself is not changed.",
			pick(n == 1, "Its unsaved edit is", fmt.Sprintf("Its %d unsaved edits are", n)))
	}
	what := widget.NewLabel(fmt.Sprintf("%s as shown: %s, %s.%s", filepath.Base(d.path),
		widgets.Plural(len(plan.lens), "trajectory"), widgets.Plural(plan.frames, "frame"), unsaved))
	what.Wrapping = fyne.TextWrapWord
	outHint := "A folder per trajectory is made in it (made itself when needed)."
	if video {
		outHint = "A folder of frames per trajectory is made in it, and its video beside it."
	}
	items := []*widget.FormItem{
		{Text: "Export", Widget: what},
		{Text: "Save in", Widget: f.out, HintText: outHint},
		{Text: "Draw", Widget: container.NewHBox(f.marks, f.descp)},
		{Text: "Frames", Widget: f.format},
		{Text: "Folder names", Widget: f.names},
		{Text: "Action labels", Widget: f.labels},
	}
	if video {
		f.video4 = radio([]string{videoMP4, videoGIF}, videoGIF)
		hint := "MP4 with " + f.ffmpeg
		if f.ffmpeg == "" {
			f.video4.Disable()
			hint = "MP4 needs ffmpeg, which is not installed: GIF only."
		} else if prefs.Format != "gif" {
			f.video4.SetSelected(videoMP4)
		}
		f.fps = widget.NewEntry()
		f.fps.Validator = intBetween(1, 60)
		f.fps.SetText(strconv.Itoa(prefs.FPS))
		items = append(items,
			&widget.FormItem{Text: "Video", Widget: f.video4, HintText: hint},
			&widget.FormItem{Text: "Frames per second", Widget: f.fps})
	}
	d.exportForm = f
	dlg := workspace.ShowForm(w, title, "Export", items, func() {
		opts := f.options()
		p := loadExportPrefs()
		p.NoMarks, p.NoDescp, p.PNG, p.SafeNames, p.NumericLabels = opts.NoMarks, opts.NoDescp, opts.PNG, opts.SafeNames, opts.NumericLabels
		if video {
			p.FPS, p.Format = opts.FPS, opts.Format
		}
		saveExportPrefs(p)
		d.runExport(video, absolute(f.out.Text(), base), opts)
	})
	workspace.Resize(dlg, w, fyne.NewSize(720, dlg.MinSize().Height))
}

// options are the engine's options for what the form says.
func (f *exportForm) options() mobileenv.VideoOptions {
	var o mobileenv.VideoOptions
	o.NoMarks, o.NoDescp = !f.marks.Checked, !f.descp.Checked
	o.PNG = f.format.Selected == imagePNG
	o.SafeNames = f.safe()
	o.NumericLabels = f.labels.Selected == labelsNew
	if f.video {
		o.FPS, _ = strconv.Atoi(strings.TrimSpace(f.fps.Text))
		o.Format = "gif"
		if f.video4.Selected == videoMP4 && f.ffmpeg != "" {
			o.Format, o.FFmpeg = "mp4", f.ffmpeg
		}
	}
	return o
}

func (f *exportForm) safe() bool { return f.names != nil && f.names.Selected == f.namesChoice[1] }

// checkExportFolder refuses an output folder the export would fail in: a file, or a folder
// already holding one of the trajectory folders (the engine, as the original, does not write
// into an existing one).
func (d *Workspace) checkExportFolder(dir string, plan exportPlan, safe bool) error {
	if dir == "" {
		return errors.New("a folder is needed")
	}
	if fileExists(dir) {
		return errors.New("this is a file: choose a folder")
	}
	entries, _ := os.ReadDir(dir) // (one listing: the file may have thousands of trajectories)
	folders := plan.folders(safe)
	for _, e := range entries {
		if _, ok := folders[e.Name()]; ok {
			return fmt.Errorf("it already holds %s (an earlier export?): choose another folder", e.Name())
		}
	}
	return nil
}

// runExport exports the file on show to dest with opts, behind the progress dialog; then says
// how it ended and what is on disk.
func (d *Workspace) runExport(video bool, dest string, opts mobileenv.VideoOptions) *workspace.Task {
	path, plan := d.path, d.exportPlan()
	opts.Data = d.edited
	folders := plan.folders(opts.SafeNames)
	title := "Export frames"
	if video {
		title = "Export video"
	}
	existed := isFolder(dest)
	var warn lockedBuffer
	opts.Warn = &warn
	hook := d.onExportProgress
	finished := false
	d.setStatus(fmt.Sprintf("%s of %s to %s…", title, filepath.Base(path), dest))
	task := workspace.StartWithProgress(d.host, title, func(ctx context.Context, report workspace.Progress) (exportResult, error) {
		progress := func(frac float64, text string) {
			if ctx.Err() != nil {
				return // "Cancelling…" stays until the export stops
			}
			report(frac, text)
			if hook != nil {
				hook(frac, text)
			}
		}
		weight := 1.0
		if video {
			weight = 0.5 // then the videos
		}
		var r exportResult
		opts.Progress = func(done, total int) {
			r.framesDone = done
			progress(weight*float64(done)/float64(max(total, 1)), fmt.Sprintf("Drawing frames: %d of %d", done, total))
		}
		progress(0, fmt.Sprintf("Drawing frames: 0 of %d", plan.frames))
		if video {
			opts.VideoProgress = func(done, total int) {
				r.videosPhase = true
				progress(0.5+0.5*float64(done)/float64(max(total, 1)), fmt.Sprintf("Making videos: %d of %d", done, total))
			}
			r.videos, r.err = mobileenv.Video(ctx, path, dest, opts)
		} else {
			_, r.err = mobileenv.VisualizeContext(ctx, path, dest, opts.VisualizeOptions)
		}
		r.left = leftIn(dest, folders)
		if !existed && r.left.empty() {
			os.Remove(dest) // made by this export, which left nothing in it
		}
		// the outcome is said by apply, cancelled or not: StartWithProgress would say
		// "nothing was changed", which need not be so
		return r, nil
	}, func(r exportResult, _ error) {
		finished = true
		d.exportTask = nil
		d.refreshButtons()
		d.showOutcome(r.outcome(title, dest, plan, opts, warn.String()))
	})
	if !finished {
		d.exportTask = task
		d.refreshButtons()
	}
	return task
}

// exportResult is how an export ended (work's result, read on the UI goroutine).
type exportResult struct {
	err         error
	videos      []string
	framesDone  int
	videosPhase bool
	left        leftOver
}

// leftOver is what an export left in its folder.
type leftOver struct {
	complete   []string // trajectory folders holding all their frames
	incomplete []string // "name (2 of 4 frames)"
	frames     int      // in the folders
	videos     []string // names
}

func (l leftOver) empty() bool {
	return len(l.complete)+len(l.incomplete)+len(l.videos) == 0
}

// leftIn looks at what is in dest of the trajectory folders (and their videos) an export
// makes. The folder names are the file's own, and the dialog refused a folder already holding
// one, so what is there is this export's.
func leftIn(dest string, folders map[string]int) leftOver {
	var l leftOver
	entries, err := os.ReadDir(dest)
	if err != nil {
		return l
	}
	for _, e := range entries {
		name := e.Name()
		if want, ok := folders[name]; ok && e.IsDir() {
			frames, _ := os.ReadDir(filepath.Join(dest, name))
			l.frames += len(frames)
			if len(frames) == want {
				l.complete = append(l.complete, name)
			} else {
				l.incomplete = append(l.incomplete, fmt.Sprintf("%s (%d of %d frames)", name, len(frames), want))
			}
			continue
		}
		if ext := filepath.Ext(name); ext == ".mp4" || ext == ".gif" {
			if _, ok := folders[strings.TrimSuffix(name, ext)]; ok {
				l.videos = append(l.videos, name)
			}
		}
	}
	return l
}

// describe says what l is, as the end of a sentence starting "Left in DIR: ".
func (l leftOver) describe() string {
	var parts []string
	if n := len(l.complete); n > 0 {
		parts = append(parts, fmt.Sprintf("%s with all %s frames (%s)", widgets.Plural(n, "trajectory folder"), pick(n == 1, "its", "their"), widgets.Plural(l.frames, "frame")))
	}
	if len(l.incomplete) > 0 {
		parts = append(parts, "unfinished: "+strings.Join(l.incomplete, ", "))
	}
	if n := len(l.videos); n > 0 {
		parts = append(parts, fmt.Sprintf("%s (%s)", widgets.Plural(n, "video"), strings.Join(l.videos, ", ")))
	}
	return strings.Join(parts, "; ")
}

func (r exportResult) outcome(title, dest string, plan exportPlan, opts mobileenv.VideoOptions, warnings string) outcome {
	o := outcome{title: title, folder: dest}
	kind := "JPEG"
	if opts.PNG {
		kind = "PNG"
	}
	left := ""
	if r.left.empty() {
		left = " Nothing was left on disk."
		o.folder = ""
	} else {
		left = fmt.Sprintf(" Left in %s: %s.", dest, r.left.describe())
	}
	switch {
	case errors.Is(r.err, context.Canceled):
		o.title = title + ": cancelled"
		if r.videosPhase {
			o.msg = fmt.Sprintf("Cancelled while making the videos (%s made).", widgets.Plural(len(r.videos), "video"))
		} else {
			o.msg = fmt.Sprintf("Cancelled after %d of %s.", r.framesDone, widgets.Plural(plan.frames, "frame"))
		}
		o.msg += left
		if len(r.left.incomplete) == 0 && !r.videosPhase {
			o.msg += " Frames of unfinished trajectories were removed, so every folder left holds all its frames."
		}
	case r.err != nil:
		o.title, o.failed = title+" failed", true
		o.msg = fmt.Sprintf("The export stopped: %v.%s", r.err, left)
		if len(r.left.incomplete) > 0 {
			o.msg += " An unfinished folder holds the frames drawn before the error."
		}
	case opts.Format != "" || r.videos != nil:
		o.msg = fmt.Sprintf("Made %s (%s, %d frames per second) in %s, each beside the folder of its %s frames.",
			widgets.Plural(len(r.videos), "video"), strings.ToUpper(opts.Format), max(opts.FPS, 1), dest, kind)
		if n := len(plan.lens) - len(r.videos); n > 0 {
			o.msg += fmt.Sprintf(" %s no step to show: no video.", pluralHas(n))
		}
	default:
		o.msg = fmt.Sprintf("Exported %s of %s to %s, a folder per trajectory (%s).",
			widgets.Plural(r.left.frames, "frame"), widgets.Plural(len(plan.lens), "trajectory"), dest, kind)
	}
	if warnings = strings.TrimSpace(warnings); warnings != "" {
		o.msg += "\n\n" + warnings
	}
	return o
}

// pluralHas is "1 trajectory has", "2 trajectories have".
func pluralHas(n int) string {
	if n == 1 {
		return "1 trajectory has"
	}
	return widgets.Plural(n, "trajectory") + " have"
}

// lockedBuffer collects the engine's warnings, written from its drawing goroutines.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

func fileExists(path string) bool {
	st, err := os.Stat(path)
	return err == nil && !st.IsDir()
}

func radio(options []string, selected string) *widget.RadioGroup {
	r := widget.NewRadioGroup(options, nil)
	r.Horizontal, r.Required = true, true
	r.SetSelected(selected)
	return r
}

func pick(cond bool, yes, no string) string {
	if cond {
		return yes
	}
	return no
}

func boolIndex(b bool) int {
	if b {
		return 1
	}
	return 0
}

// intBetween is a validator for a whole number from lo to hi.
func intBetween(lo, hi int) fyne.StringValidator {
	return func(s string) error {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || n < lo || n > hi {
			return fmt.Errorf("a whole number from %d to %d", lo, hi)
		}
		return nil
	}
}
