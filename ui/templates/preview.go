package templates

import (
	"context"
	"fmt"
	"path"
	"strings"
	"testing/fstest"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/agentdesk/agentdesk/engine/atomicfile"
	"github.com/agentdesk/agentdesk/engine/limits"
	tpl "github.com/agentdesk/agentdesk/engine/template"
	"github.com/agentdesk/agentdesk/ui/widgets"
	"github.com/agentdesk/agentdesk/ui/workspace"
)

// diffOp marks a line of a line diff.
type diffOp byte

const (
	diffSame diffOp = ' '
	diffAdd  diffOp = '+'
	diffDel  diffOp = '-'
)

type diffLine struct {
	Op   diffOp
	Text string
}

// maxLCSCells bounds the LCS table; larger changed regions are shown as removed-then-added.
const maxLCSCells = 4 << 20

// lineDiff compares two texts line by line (longest common subsequence after trimming the
// common head and tail) and returns every line of both, marked.
func lineDiff(old, new string) []diffLine {
	a, b := splitLines(old), splitLines(new)
	var out []diffLine
	p := 0
	for p < len(a) && p < len(b) && a[p] == b[p] {
		out = append(out, diffLine{diffSame, a[p]})
		p++
	}
	ea, eb := len(a), len(b)
	for ea > p && eb > p && a[ea-1] == b[eb-1] {
		ea--
		eb--
	}
	ma, mb := a[p:ea], b[p:eb]
	if len(ma)*len(mb) > maxLCSCells {
		for _, l := range ma {
			out = append(out, diffLine{diffDel, l})
		}
		for _, l := range mb {
			out = append(out, diffLine{diffAdd, l})
		}
	} else {
		// lcs[i][j] = LCS length of ma[i:] and mb[j:]
		w := len(mb) + 1
		lcs := make([]int32, (len(ma)+1)*w)
		for i := len(ma) - 1; i >= 0; i-- {
			for j := len(mb) - 1; j >= 0; j-- {
				if ma[i] == mb[j] {
					lcs[i*w+j] = lcs[(i+1)*w+j+1] + 1
				} else {
					lcs[i*w+j] = max(lcs[(i+1)*w+j], lcs[i*w+j+1])
				}
			}
		}
		i, j := 0, 0
		for i < len(ma) || j < len(mb) {
			switch {
			case i < len(ma) && j < len(mb) && ma[i] == mb[j]:
				out = append(out, diffLine{diffSame, ma[i]})
				i++
				j++
			case i < len(ma) && (j == len(mb) || lcs[(i+1)*w+j] >= lcs[i*w+j+1]):
				out = append(out, diffLine{diffDel, ma[i]})
				i++
			default:
				out = append(out, diffLine{diffAdd, mb[j]})
				j++
			}
		}
	}
	for k := ea; k < len(a); k++ {
		out = append(out, diffLine{diffSame, a[k]})
	}
	return out
}

func splitLines(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(strings.TrimSuffix(s, "\n"), "\n")
}

// previewInput is a snapshot of everything a preview needs, taken on the UI goroutine.
type previewInput struct {
	files        fstest.MapFS
	task         string
	templatesDir string
	saved        string
	savedExists  bool
}

// previewResult is a computed preview.
type previewResult struct {
	in       previewInput
	text     string
	err      error
	warnings []*tpl.Error
	diff     []diffLine
	added    int
	removed  int
}

// computePreview instantiates the task over the buffers and diffs it against the saved output.
// It runs off the UI goroutine.
func computePreview(in previewInput) previewResult {
	r := previewResult{in: in}
	if in.task == "" {
		return r
	}
	res, err := tpl.Expand(tpl.FSReader(in.files), in.task, in.templatesDir, tpl.Options{})
	if err != nil {
		r.err = err
		return r
	}
	r.text, r.warnings = res.Text, res.Warnings
	r.diff = lineDiff(in.saved, r.text)
	for _, d := range r.diff {
		switch d.Op {
		case diffAdd:
			r.added++
		case diffDel:
			r.removed++
		}
	}
	return r
}

// previewPanel shows the instantiated multi-step task definition of one task file, live, with
// a diff against the last saved output.
type previewPanel struct {
	ws      *Workspace
	task    *widget.Select
	output  *widget.Entry
	save    *widget.Button
	grid    *widget.TextGrid
	status  *widget.Label
	errLbl  *widget.Label
	warnLbl *widget.Label
	// outputs remembers the output file (relative to the folder) chosen per task.
	outputs map[string]string
	saved   string
	exists  bool
	last    previewResult
	root    fyne.CanvasObject
}

func newPreviewPanel(w *Workspace) *previewPanel {
	p := &previewPanel{ws: w, grid: widget.NewTextGrid(), status: widget.NewLabel(""), errLbl: widget.NewLabel(""),
		warnLbl: widget.NewLabel(""), outputs: map[string]string{}, output: widget.NewEntry()}
	p.grid.Scroll = fyne.ScrollBoth
	p.errLbl.Wrapping = fyne.TextWrapWord
	p.errLbl.Importance = widget.DangerImportance
	p.warnLbl.Wrapping = fyne.TextWrapWord
	p.warnLbl.Importance = widget.WarningImportance
	p.status.Wrapping = fyne.TextWrapWord
	p.task = widget.NewSelect(nil, func(string) { p.taskChanged() })
	p.task.PlaceHolder = "No task file"
	p.output.OnChanged = func(s string) {
		if t := p.task.Selected; t != "" {
			p.outputs[t] = s
		}
		p.readSaved()
		w.schedulePreview()
	}
	p.save = widget.NewButtonWithIcon("Save output", theme.DocumentSaveIcon(), func() {
		if err := p.saveOutput(); err != nil {
			w.showError(err)
		}
	})
	head := widget.NewLabelWithStyle("Preview", fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	p.errLbl.Hide()
	p.warnLbl.Hide()
	top := container.NewVBox(container.NewBorder(nil, nil, head, p.save),
		container.NewBorder(nil, nil, widget.NewLabel("Task"), nil, p.task),
		container.NewBorder(nil, nil, widget.NewLabel("Output"), nil, p.output),
		p.status, p.errLbl, p.warnLbl)
	p.root = container.NewBorder(top, nil, nil, nil, p.grid)
	return p
}

// setTasks lists the folder's task files, keeping the selection when it still exists.
func (p *previewPanel) setTasks() {
	var tasks []string
	for _, f := range p.ws.files {
		if f.kind == kindTask {
			tasks = append(tasks, f.rel)
		}
	}
	p.task.SetOptions(tasks)
	sel := p.task.Selected
	found := false
	for _, t := range tasks {
		found = found || t == sel
	}
	switch {
	case found:
		p.taskChanged()
	case len(tasks) > 0:
		p.task.SetSelected(tasks[0])
	default:
		p.task.ClearSelected()
		p.taskChanged()
	}
}

func (p *previewPanel) selectTask(rel string) {
	if p.task.Selected != rel {
		p.task.SetSelected(rel)
	}
}

// defaultOutput is `<task name>.textproto` next to the task.
func defaultOutput(task string) string {
	return path.Join(path.Dir(task), strings.TrimSuffix(path.Base(task), ".task")+".textproto")
}

func (p *previewPanel) taskChanged() {
	t := p.task.Selected
	out := ""
	if t != "" {
		out = p.outputs[t]
		if out == "" {
			out = defaultOutput(t)
		}
	}
	if p.output.Text != out {
		p.output.SetText(out) // schedules through OnChanged
		return
	}
	p.readSaved()
	p.ws.schedulePreview()
}

// readSaved reads the last saved output from disk.
func (p *previewPanel) readSaved() {
	p.saved, p.exists = "", false
	if rel := strings.TrimSpace(p.output.Text); rel != "" && p.ws.dir != "" {
		if data, err := limits.ReadFile(p.ws.abs(rel), limits.TaskDefinition); err == nil {
			p.saved, p.exists = string(data), true
		}
	}
}

// snapshot copies the buffers for a preview computed off the UI goroutine.
func (w *Workspace) snapshot() previewInput {
	in := previewInput{files: fstest.MapFS{}, templatesDir: w.templatesDir}
	for _, f := range w.files {
		in.files[f.rel] = &fstest.MapFile{Data: []byte(f.buf), Mode: 0o644}
	}
	if w.pv != nil {
		in.task = w.pv.task.Selected
		in.saved, in.savedExists = w.pv.saved, w.pv.exists
	}
	return in
}

// schedulePreview recomputes the preview after the debounce delay, off the UI goroutine, and
// shows it unless a newer edit came in meanwhile.
func (w *Workspace) schedulePreview() {
	if w.pv == nil {
		return
	}
	w.gen++
	gen := w.gen
	// The buffers are copied once the typing pauses, not on every keystroke.
	w.debounce(func() {
		fyne.Do(func() {
			if gen != w.gen {
				return
			}
			in := w.snapshot()
			workspace.Start(w.host, &w.preview, func(context.Context) (previewResult, error) {
				return computePreview(in), nil
			}, func(r previewResult, _ error) {
				if gen == w.gen {
					w.pv.show(r)
				}
			})
		})
	})
}

// show draws a computed preview: the diff against the saved output, coloured.
func (p *previewPanel) show(r previewResult) {
	p.last = r
	setShown(p.errLbl, "")
	setShown(p.warnLbl, "")
	switch {
	case r.in.task == "":
		p.status.SetText("The folder has no task file: create one to see the instantiated task.")
		p.grid.Rows = nil
		p.grid.Refresh()
		p.save.Disable()
		return
	case r.err != nil:
		setShown(p.errLbl, r.err.Error())
		p.status.SetText("The task does not instantiate; the last good preview is kept below.")
		p.save.Disable()
		return
	}
	p.save.Enable()
	out := strings.TrimSpace(p.output.Text)
	switch {
	case !r.in.savedExists:
		p.status.SetText(fmt.Sprintf("%s; %s is not saved yet.", widgets.Plural(len(splitLines(r.text)), "line"), out))
	case r.added == 0 && r.removed == 0:
		p.status.SetText(fmt.Sprintf("%s, the same as %s.", widgets.Plural(len(splitLines(r.text)), "line"), out))
	default:
		first := 0
		for i, d := range r.diff {
			if d.Op != diffSame {
				first = i + 1
				break
			}
		}
		p.status.SetText(fmt.Sprintf("%s; +%d −%d against %s (first change at row %d below).",
			widgets.Plural(len(splitLines(r.text)), "line"), r.added, r.removed, out, first))
	}
	if n := len(r.warnings); n > 0 {
		var ws []string
		for i, wn := range r.warnings {
			if i == 4 {
				ws = append(ws, fmt.Sprintf("… and %d more", n-4))
				break
			}
			ws = append(ws, wn.Error())
		}
		setShown(p.warnLbl, strings.Join(ws, "\n"))
	}
	lines := r.diff
	if !r.in.savedExists {
		lines = lines[:0:0]
		for _, l := range splitLines(r.text) {
			lines = append(lines, diffLine{diffSame, l})
		}
	}
	p.grid.Rows = diffRows(lines)
	p.grid.Refresh()
}

func diffRows(lines []diffLine) []widget.TextGridRow {
	add := &widget.CustomTextGridStyle{BGColor: widgets.Tint(theme.Color(theme.ColorNameSuccess), 0x38)}
	del := &widget.CustomTextGridStyle{BGColor: widgets.Tint(theme.Color(theme.ColorNameError), 0x38)}
	rows := make([]widget.TextGridRow, len(lines))
	for i, l := range lines {
		text := string(l.Op) + " " + l.Text
		cells := make([]widget.TextGridCell, 0, len(text))
		for _, r := range text {
			cells = append(cells, widget.TextGridCell{Rune: r})
		}
		rows[i].Cells = cells
		switch l.Op {
		case diffAdd:
			rows[i].Style = add
		case diffDel:
			rows[i].Style = del
		}
	}
	return rows
}

// saveOutput writes the instantiated task atomically to the output file.
func (p *previewPanel) saveOutput() error {
	r := p.last
	if r.err != nil || r.in.task == "" {
		return fmt.Errorf("nothing to save: the task does not instantiate")
	}
	rel := strings.TrimSpace(p.output.Text)
	if rel == "" {
		return fmt.Errorf("choose an output file first")
	}
	dst := p.ws.abs(rel)
	if err := atomicfile.Write(dst, []byte(r.text), 0o644); err != nil {
		return fmt.Errorf("save output %s: %w", rel, err)
	}
	p.readSaved()
	p.ws.schedulePreview()
	p.ws.setStatus("Saved the task definition to " + rel + ".")
	return nil
}

// setShown sets a label's text and hides it while the text is empty.
func setShown(l *widget.Label, text string) {
	l.SetText(text)
	if text == "" {
		l.Hide()
	} else {
		l.Show()
	}
}
