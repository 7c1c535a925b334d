package demonstrations

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	"github.com/agentdesk/agentdesk/engine/mobileenv"
	"github.com/agentdesk/agentdesk/ui/uitest"
	"github.com/agentdesk/agentdesk/ui/workspace"
)

// The exports from the workspace: frames, videos and resave, each writing what the command
// line (the engine) writes for the same options, with progress, Cancel and errors shown.

// topDialog is the dialog on top of the window.
func topDialog(t *testing.T, h *uitest.Host) fyne.CanvasObject {
	t.Helper()
	top := h.Win.Canvas().Overlays().Top()
	if top == nil {
		t.Fatal("no dialog on show")
	}
	return top
}

// dismiss closes every dialog on the window.
func dismiss(h *uitest.Host) {
	for h.Win.Canvas().Overlays().Top() != nil {
		h.Win.Canvas().Overlays().Remove(h.Win.Canvas().Overlays().Top())
	}
}

// tapIn taps the button of o whose text starts with prefix, from any goroutine (no t.Fatal).
func tapIn(o fyne.CanvasObject, prefix string) bool {
	b := uitest.Find(o, func(b *widget.Button) bool { return strings.HasPrefix(b.Text, prefix) && !b.Disabled() })
	if b == nil {
		return false
	}
	test.Tap(b)
	return true
}

// files lists the files under dir with their content, by relative path ("x/" for a folder).
func files(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	err := filepath.WalkDir(dir, func(p string, e os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		if e.IsDir() {
			out[rel+"/"] = nil
			return nil
		}
		b, err := os.ReadFile(p)
		out[rel] = b
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// sameFiles fails unless got and want hold the same files with the same bytes.
func sameFiles(t *testing.T, got, want string) {
	t.Helper()
	g, w := files(t, got), files(t, want)
	for k, b := range w {
		gb, ok := g[k]
		if !ok {
			t.Errorf("%s missing from the workspace's export", k)
		} else if !bytes.Equal(gb, b) {
			t.Errorf("%s differs from the command line's (%d bytes, want %d)", k, len(gb), len(b))
		}
	}
	for k := range g {
		if _, ok := w[k]; !ok {
			t.Errorf("%s made by the workspace only", k)
		}
	}
	if len(w) < 2 {
		t.Fatalf("the command line wrote nothing to compare: %v", w)
	}
}

// progressLog records the progress reports of an export (from the goroutines making them).
type progressLog struct {
	mu    sync.Mutex
	fracs []float64
	texts []string
}

func (p *progressLog) add(f float64, s string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.fracs = append(p.fracs, f)
	p.texts = append(p.texts, s)
}

// check fails unless the reports advanced, never went back and ended complete.
func (p *progressLog) check(t *testing.T, last string) {
	t.Helper()
	if len(p.fracs) < 3 {
		t.Fatalf("progress: %v %q", p.fracs, p.texts)
	}
	for i := 1; i < len(p.fracs); i++ {
		if p.fracs[i] < p.fracs[i-1] {
			t.Fatalf("progress went back: %v", p.fracs)
		}
	}
	if p.fracs[len(p.fracs)-1] != 1 || !strings.Contains(p.texts[len(p.texts)-1], last) {
		t.Fatalf("last progress %v %q, want 1 and %q", p.fracs[len(p.fracs)-1], p.texts[len(p.texts)-1], last)
	}
}

// exportThroughDialog taps the export button, checks the dialog fits a laptop's window, sets
// the output folder and what set says, and confirms.
func exportThroughDialog(t *testing.T, h *uitest.Host, d *Workspace, button, dest string, set func(f *exportForm)) {
	t.Helper()
	h.Win.Resize(uitest.Laptop)
	uitest.TapButton(t, d.Content(), button)
	top := uitest.DialogFits(t, button, h.Win)
	f := d.exportForm
	if f == nil {
		t.Fatal("no export form")
	}
	f.out.entry.SetText(dest)
	if set != nil {
		set(f)
	}
	uitest.TapButton(t, top, "Export")
}

func TestDemonstrationsExportFramesLikeTheCommandLine(t *testing.T) {
	h, d, path := openDemo(t, "inputs/synthetic_visual.pkl")
	var log progressLog
	d.onExportProgress = log.add
	dest := filepath.Join(t.TempDir(), "frames")
	exportThroughDialog(t, h, d, "Export frames…", dest, func(f *exportForm) {
		// every option away from its default
		f.marks.SetChecked(false)
		f.format.SetSelected(imagePNG)
		f.names.SetSelected(f.namesChoice[1])
		f.labels.SetSelected(labelsNew)
	})
	if o := d.lastOutcome; o == nil || o.failed || !strings.Contains(o.msg, "Exported 5 frames of 2 trajectories to "+dest) {
		t.Fatalf("outcome %+v", d.lastOutcome)
	}
	uitest.DialogFits(t, "the export's outcome", h.Win)
	if !strings.Contains(uitest.Texts(topDialog(t, h)), "Open folder") {
		t.Fatalf("the outcome does not offer to open the folder:\n%s", uitest.Texts(topDialog(t, h)))
	}
	log.check(t, "Drawing frames: 5 of 5")

	ref := filepath.Join(t.TempDir(), "cli")
	opts := mobileenv.VisualizeOptions{PNG: true, SafeNames: true}
	opts.NoMarks, opts.NumericLabels = true, true
	if _, err := mobileenv.Visualize(path, ref, opts); err != nil {
		t.Fatal(err)
	}
	sameFiles(t, dest, ref)
	if p := loadExportPrefs(); !p.PNG || !p.SafeNames || !p.NoMarks || !p.NumericLabels || p.NoDescp {
		t.Fatalf("the choices were not remembered: %+v", p)
	}
	dismiss(h)

	// again to the same folder: refused in the dialog, before anything runs
	uitest.TapButton(t, d.Content(), "Export frames…")
	d.exportForm.out.entry.SetText(dest)
	if err := d.exportForm.out.Validate(); err == nil || !strings.Contains(err.Error(), "already holds") {
		t.Fatalf("exporting over an earlier export: %v", err)
	}
	if b := uitest.Find(topDialog(t, h), func(b *widget.Button) bool { return b.Text == "Export" }); b == nil || !b.Disabled() {
		t.Fatal("the Export button is on for a folder holding an earlier export")
	}
	dismiss(h)
}

// TestDemonstrationsExportUnsavedEdits: the file is exported as shown, its pending edits
// included: what the command line exports once they are saved. The file is not changed.
func TestDemonstrationsExportUnsavedEdits(t *testing.T) {
	h, d, path := openDemo(t, "inputs/synthetic_visual.pkl")
	before, _ := os.ReadFile(path)
	d.trajList.Select(1)
	if err := d.removeTrajectory(); err != nil {
		t.Fatal(err)
	}
	mods := d.modLabel.Text
	dest := filepath.Join(t.TempDir(), "frames")
	exportThroughDialog(t, h, d, "Export frames…", dest, nil)
	if o := d.lastOutcome; o == nil || !strings.Contains(o.msg, "of 1 trajectory") {
		t.Fatalf("outcome %+v", d.lastOutcome)
	}
	if now, _ := os.ReadFile(path); !bytes.Equal(now, before) || len(d.pending) != 1 {
		t.Fatal("exporting changed the file or dropped the edits")
	}
	saved := filepath.Join(t.TempDir(), "demo_task.pkl")
	os.WriteFile(saved, before, 0o644)
	if _, err := mobileenv.Edit(saved, mods, "", mobileenv.EditOptions{}); err != nil {
		t.Fatal(err)
	}
	ref := filepath.Join(t.TempDir(), "cli")
	if _, err := mobileenv.Visualize(saved, ref, mobileenv.VisualizeOptions{}); err != nil {
		t.Fatal(err)
	}
	sameFiles(t, dest, ref)
}

func TestDemonstrationsExportVideoLikeTheCommandLine(t *testing.T) {
	formats := []string{"gif"}
	if _, err := exec.LookPath("ffmpeg"); err == nil {
		formats = append(formats, "mp4")
	}
	for _, format := range formats {
		t.Run(format, func(t *testing.T) {
			h, d, path := openDemo(t, "inputs/synthetic_visual.pkl")
			var log progressLog
			d.onExportProgress = log.add
			dest := filepath.Join(t.TempDir(), "videos")
			exportThroughDialog(t, h, d, "Export video…", dest, func(f *exportForm) {
				f.fps.SetText("5")
				f.descp.SetChecked(false)
				if format == "gif" {
					f.video4.SetSelected(videoGIF)
				} else {
					f.video4.SetSelected(videoMP4)
				}
			})
			if o := d.lastOutcome; o == nil || o.failed || !strings.Contains(o.msg, "Made 2 videos ("+strings.ToUpper(format)+", 5 frames per second) in "+dest) {
				t.Fatalf("outcome %+v", d.lastOutcome)
			}
			log.check(t, "Making videos: 2 of 2")
			ref := filepath.Join(t.TempDir(), "cli")
			opts := mobileenv.VideoOptions{FPS: 5, Format: format}
			opts.NoDescp = true
			if _, err := mobileenv.Video(context.Background(), path, ref, opts); err != nil {
				t.Fatal(err)
			}
			sameFiles(t, dest, ref)
		})
	}
}

// TestDemonstrationsExportVideoWithoutFFmpeg: with no ffmpeg on PATH the dialog offers GIF only.
func TestDemonstrationsExportVideoWithoutFFmpeg(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	h, d, _ := openDemo(t, "inputs/synthetic_visual.pkl")
	h.Win.Resize(uitest.Laptop)
	uitest.TapButton(t, d.Content(), "Export video…")
	top := uitest.DialogFits(t, "Export video without ffmpeg", h.Win)
	if f := d.exportForm; f.ffmpeg != "" || !f.video4.Disabled() || f.video4.Selected != videoGIF || f.options().Format != "gif" {
		t.Fatalf("without ffmpeg: %q, disabled %v, selected %q", f.ffmpeg, f.video4.Disabled(), f.video4.Selected)
	}
	if !strings.Contains(uitest.Texts(top), "Export video") {
		t.Fatal("no title")
	}
	dismiss(h)
}

// repeatTrajectories writes synthetic_visual.pkl with its trajectories repeated to n of them
// as demo_task.pkl in a new folder: enough frames for Cancel to land in the middle.
func repeatTrajectories(t *testing.T, n int) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(mobileenvVectors, "inputs", "synthetic_visual.pkl"))
	if err != nil {
		t.Fatal(err)
	}
	f, err := mobileenv.Parse("synthetic_visual.pkl", data)
	if err != nil {
		t.Fatal(err)
	}
	l := trajectoriesOf(f)
	orig := append([]any(nil), l.Items...)
	for len(l.Items) < n {
		l.Items = append(l.Items, orig[len(l.Items)%len(orig)])
	}
	out, err := mobileenv.Encode(f.Root)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "demo_task.pkl")
	if err := os.WriteFile(path, out, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// inBackground makes h run work on a goroutine of its own, as the app does, once release is
// called; wait waits for it to end (its result applied: the test driver's fyne.Do runs at
// once). Meanwhile the test goroutine leaves the UI alone.
func inBackground(h *uitest.Host) (release, wait func()) {
	start, done := make(chan struct{}), make(chan struct{})
	h.Run = func(f func()) {
		go func() {
			<-start
			f()
			close(done)
		}()
	}
	return func() { close(start) }, func() { <-done }
}

// TestDemonstrationsExportCancel: Cancel in the progress dialog stops the export promptly; the
// dialog after it says what was left, and every folder left holds all its frames.
func TestDemonstrationsExportCancel(t *testing.T) {
	h, d, _ := openDemo(t, "inputs/synthetic_visual.pkl")
	path := repeatTrajectories(t, 40)
	if err := d.Open(path, -1); err != nil {
		t.Fatal(err)
	}
	total := d.exportPlan().frames
	release, wait := inBackground(h)
	cancelled := false
	d.onExportProgress = func(_ float64, text string) {
		if !cancelled && strings.HasPrefix(text, "Drawing frames: 3 of") {
			cancelled = tapIn(h.Win.Canvas().Overlays().Top(), "Cancel")
		}
	}
	dest := filepath.Join(t.TempDir(), "frames")
	exportThroughDialog(t, h, d, "Export frames…", dest, nil)
	if d.buttons["exportframes"].Disabled() != true {
		t.Fatal("Export frames… is on while an export runs")
	}
	release()
	wait()
	if !cancelled {
		t.Fatal("the progress dialog had no Cancel button")
	}
	o := d.lastOutcome
	if o == nil || !strings.HasSuffix(o.title, "cancelled") || !strings.Contains(o.msg, "Cancelled after") {
		t.Fatalf("outcome %+v", o)
	}
	entries, _ := os.ReadDir(dest)
	written := 0
	for _, e := range entries {
		frames, _ := os.ReadDir(filepath.Join(dest, e.Name()))
		l, _ := strconv.Atoi(e.Name()[strings.LastIndex(e.Name(), "#")+1:])
		if len(frames) != l-1 {
			t.Fatalf("%s holds %d of its %d frames: a partial folder was left", e.Name(), len(frames), l-1)
		}
		written += len(frames)
	}
	if written > total/2 {
		t.Fatalf("%d of %d frames written: Cancel did not stop the export", written, total)
	}
	if written > 0 && !strings.Contains(o.msg, "Left in "+dest) || written == 0 && !strings.Contains(o.msg, "Nothing was left") {
		t.Fatalf("the outcome does not say what is on disk (%d frames): %q", written, o.msg)
	}
	if d.exportTask != nil || d.buttons["exportframes"].Disabled() {
		t.Fatal("the workspace still counts the export as running")
	}
	t.Logf("%s: %s", o.title, o.msg)
}

// TestDemonstrationsExportVideoCancel: a cancel while the videos are made keeps the finished
// ones and names them.
func TestDemonstrationsExportVideoCancel(t *testing.T) {
	h, d, _ := openDemo(t, "inputs/synthetic_visual.pkl")
	path := repeatTrajectories(t, 6)
	if err := d.Open(path, -1); err != nil {
		t.Fatal(err)
	}
	release, wait := inBackground(h)
	cancelled := false
	d.onExportProgress = func(_ float64, text string) {
		if !cancelled && strings.HasPrefix(text, "Making videos: 2 of") {
			cancelled = tapIn(h.Win.Canvas().Overlays().Top(), "Cancel")
		}
	}
	dest := filepath.Join(t.TempDir(), "videos")
	exportThroughDialog(t, h, d, "Export video…", dest, func(f *exportForm) { f.video4.SetSelected(videoGIF) })
	release()
	wait()
	o := d.lastOutcome
	if !cancelled || o == nil || !strings.Contains(o.msg, "Cancelled while making the videos (2 videos made)") {
		t.Fatalf("cancelled %v, outcome %+v", cancelled, o)
	}
	gifs, _ := filepath.Glob(filepath.Join(dest, "*.gif"))
	if len(gifs) != 2 || !strings.Contains(o.msg, filepath.Base(gifs[0])) {
		t.Fatalf("videos on disk %v, outcome %q", gifs, o.msg)
	}
}

// TestDemonstrationsExportError: an export that fails says why in a dialog, and what it left.
func TestDemonstrationsExportError(t *testing.T) {
	h, d, _ := openDemo(t, "inputs/synthetic_visual.pkl")
	blocker := filepath.Join(t.TempDir(), "a-file")
	os.WriteFile(blocker, []byte("x"), 0o644)
	exportThroughDialog(t, h, d, "Export frames…", filepath.Join(blocker, "frames"), nil)
	o := d.lastOutcome
	if o == nil || !o.failed || !strings.Contains(o.msg, "not a directory") || !strings.Contains(o.msg, "Nothing was left on disk") {
		t.Fatalf("outcome %+v", o)
	}
	top := uitest.DialogFits(t, "the export's error", h.Win)
	if !strings.Contains(uitest.Texts(top), "not a directory") || strings.Contains(uitest.Texts(top), "Open folder") {
		t.Fatalf("the error dialog:\n%s", uitest.Texts(top))
	}

	// a dump (raw file) is not exported: the dialog says what to do instead
	dismiss(h)
	dump := filepath.Join(t.TempDir(), "anno.0.pkl")
	data, _ := os.ReadFile(filepath.Join(mobileenvVectors, "inputs", "web-dumps", "anno.0.pkl"))
	os.WriteFile(dump, data, 0o644)
	if err := d.Open(dump, -1); err != nil {
		t.Fatal(err)
	}
	uitest.TapButton(t, d.Content(), "Export frames…")
	if !strings.Contains(uitest.Texts(topDialog(t, h)), "Resave web dumps…") {
		t.Fatalf("exporting a raw dump:\n%s", uitest.Texts(topDialog(t, h)))
	}
}

// resaveArea lays out the original tools' working folder: web-dumps/, textprotos/ and an empty
// resaved/.
func resaveArea(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	for _, sub := range []string{"web-dumps", "textprotos"} {
		os.MkdirAll(filepath.Join(root, sub), 0o755)
		entries, _ := os.ReadDir(filepath.Join(mobileenvVectors, "inputs", sub))
		for _, e := range entries {
			b, _ := os.ReadFile(filepath.Join(mobileenvVectors, "inputs", sub, e.Name()))
			os.WriteFile(filepath.Join(root, sub, e.Name()), b, 0o644)
		}
	}
	os.MkdirAll(filepath.Join(root, "resaved"), 0o755)
	return root
}

// resaveThroughDialog taps Resave web dumps…, checks the dialog fits, lets set change it, and
// confirms.
func resaveThroughDialog(t *testing.T, h *uitest.Host, d *Workspace, set func(f *resaveForm)) {
	t.Helper()
	h.Win.Resize(uitest.Laptop)
	uitest.TapButton(t, d.Content(), "Resave web dumps…")
	top := uitest.DialogFits(t, "Resave web dumps", h.Win)
	if set != nil {
		set(d.resaveForm)
	}
	uitest.TapButton(t, top, "Resave")
}

func TestDemonstrationsResaveLikeTheCommandLine(t *testing.T) {
	h, d, _ := openDemo(t, "inputs/synthetic_documented.pkl")
	root := resaveArea(t)
	// a dump open: the dialog starts from its series, the resaved/ folder beside the dumps and
	// the task definitions beside them
	if err := d.Open(filepath.Join(root, "web-dumps", "anno.2.pkl"), -1); err != nil {
		t.Fatal(err)
	}
	var log progressLog
	d.onExportProgress = log.add
	resaveThroughDialog(t, h, d, func(f *resaveForm) {
		if want := filepath.Join(root, "web-dumps", "anno.%d.pkl"); f.pattern.Text() != want || f.from.Text != "0" || f.to.Text != "3" {
			t.Errorf("dumps %q %s..%s, want %q 0..3", f.pattern.Text(), f.from.Text, f.to.Text, want)
		}
		if f.out.Text() != filepath.Join(root, "resaved") || f.defs.Text() != filepath.Join(root, "textprotos") {
			t.Errorf("output %q, definitions %q", f.out.Text(), f.defs.Text())
		}
		if !strings.HasPrefix(f.found.Text, "3 of the 4 files: anno.0.pkl, anno.2.pkl, anno.3.pkl") {
			t.Errorf("found %q", f.found.Text)
		}
		f.to.SetText("4") // the conformance case's range
	})
	o := d.lastOutcome
	if o == nil || o.failed || !strings.Contains(o.msg, "Read 3 dump files and wrote demo_task.pkl (3 trajectories), other.pkl (1 trajectory)") {
		t.Fatalf("outcome %+v", o)
	}
	log.check(t, "5 of 5 numbers")
	uitest.DialogFits(t, "the resave's outcome", h.Win)
	want := filepath.Join(mobileenvVectors, "resave", "r01_range_0_4", "expected", "resaved")
	sameFiles(t, filepath.Join(root, "resaved"), want)
	ref := filepath.Join(t.TempDir(), "cli")
	os.MkdirAll(ref, 0o755)
	if _, err := mobileenv.Resave(context.Background(), filepath.Join(root, "web-dumps", "anno.%d.pkl")+":0:4", ref, filepath.Join(root, "textprotos"), mobileenv.ResaveOptions{}); err != nil {
		t.Fatal(err)
	}
	sameFiles(t, filepath.Join(root, "resaved"), ref)
	dismiss(h)

	// again: the files already hold it all
	resaveThroughDialog(t, h, d, nil)
	if o := d.lastOutcome; o.failed || !strings.Contains(o.msg, "demo_task.pkl and other.pkl in "+filepath.Join(root, "resaved")+" already hold these trajectories") {
		t.Fatalf("resave again: %+v", o)
	}
	dismiss(h)
	// a file there with other content is refused (and said what to do), then merged into
	other := filepath.Join(root, "resaved", "other.pkl")
	os.WriteFile(other, append(mustRead(t, other), 0), 0o644)
	resaveThroughDialog(t, h, d, nil)
	if o := d.lastOutcome; !o.failed || !strings.Contains(o.msg, "other.pkl") || !strings.Contains(o.msg, "Choose Merge or Overwrite") || !strings.Contains(o.msg, "Nothing was written") {
		t.Fatalf("resave over a changed file: %+v", o)
	}
	uitest.DialogFits(t, "the resave's error", h.Win)
	dismiss(h)
	dismiss(h)

	// merge: the first dump into a new folder (made for it), then all of them merged in: what
	// the command line writes with --merge
	merged := filepath.Join(root, "merged")
	resaveThroughDialog(t, h, d, func(f *resaveForm) {
		f.out.entry.SetText(merged)
		f.to.SetText("0")
		f.existing.SetSelected(existingRefuse)
	})
	dismiss(h)
	resaveThroughDialog(t, h, d, func(f *resaveForm) {
		if f.out.Text() != merged || f.to.Text != "0" {
			t.Errorf("the last resave's choices are not offered again: %q, to %s", f.out.Text(), f.to.Text)
		}
		f.to.SetText("4")
		f.existing.SetSelected(existingMerge)
	})
	if o := d.lastOutcome; o.failed || !strings.Contains(o.msg, "not added again") {
		t.Fatalf("merge: %+v", o)
	}
	ref = filepath.Join(t.TempDir(), "cli-merged")
	os.MkdirAll(ref, 0o755)
	for _, c := range []struct {
		spec  string
		merge bool
	}{{"0:0", false}, {"0:4", true}} {
		if _, err := mobileenv.Resave(context.Background(), filepath.Join(root, "web-dumps", "anno.%d.pkl")+":"+c.spec, ref, filepath.Join(root, "textprotos"), mobileenv.ResaveOptions{Merge: c.merge}); err != nil {
			t.Fatal(err)
		}
	}
	sameFiles(t, merged, ref)
}

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestDemonstrationsResaveCancel: Cancel while the dumps are read writes nothing.
func TestDemonstrationsResaveCancel(t *testing.T) {
	h, d, _ := openDemo(t, "inputs/synthetic_documented.pkl")
	root := resaveArea(t)
	if err := d.Open(filepath.Join(root, "web-dumps", "anno.0.pkl"), -1); err != nil {
		t.Fatal(err)
	}
	release, wait := inBackground(h)
	cancelled := false
	d.onExportProgress = func(_ float64, text string) {
		if !cancelled && strings.Contains(text, "1 of") {
			cancelled = tapIn(h.Win.Canvas().Overlays().Top(), "Cancel")
		}
	}
	resaveThroughDialog(t, h, d, nil)
	release()
	wait()
	o := d.lastOutcome
	if !cancelled || o == nil || !strings.Contains(o.msg, "Cancelled after") || !strings.Contains(o.msg, "Nothing was written") {
		t.Fatalf("cancelled %v, outcome %+v", cancelled, o)
	}
	if entries, _ := os.ReadDir(filepath.Join(root, "resaved")); len(entries) != 0 {
		t.Fatalf("a cancelled resave left %d files", len(entries))
	}
}

// TestDemonstrationsExportCommands: the workspace's commands open the dialogs the buttons do.
func TestDemonstrationsExportCommands(t *testing.T) {
	h, d, _ := openDemo(t, "inputs/synthetic_visual.pkl")
	for _, c := range []struct {
		cmd   workspace.Command
		title string
	}{{ExportFrames, "Export frames"}, {ExportVideo, "Export video"}, {ResaveDumps, "Resave web dumps"}} {
		if !d.Do(c.cmd) {
			t.Fatalf("Do(%s) not answered", c.cmd)
		}
		if !strings.Contains(uitest.Texts(topDialog(t, h)), c.title) {
			t.Fatalf("Do(%s) showed:\n%s", c.cmd, uitest.Texts(topDialog(t, h)))
		}
		dismiss(h)
	}
}
