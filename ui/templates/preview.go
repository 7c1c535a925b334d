package templates

import (
	"fmt"
	"image/color"
	"path"
	"strings"
	"testing/fstest"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/agentdesk/agentdesk/engine/atomicfile"
	"github.com/agentdesk/agentdesk/engine/limits"
	tpl "github.com/agentdesk/agentdesk/engine/template"
	"github.com/agentdesk/agentdesk/ui/widgets"
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
	// output is the saved output file (absolute; "" when none is chosen), read with the diff.
	output string
}

// previewResult is a computed preview: first the instantiated task alone (diffed false),
// then with the diff against the saved output.
type previewResult struct {
	in       previewInput
	text     string
	err      error
	warnings []*tpl.Error
	diffed   bool
	saved    string
	exists   bool
	diff     []diffLine
	added    int
	removed  int
}

// expandPreview instantiates the task over the buffers: the preview's first, cheap step. It
// runs off the UI goroutine.
func expandPreview(in previewInput) previewResult {
	r := previewResult{in: in}
	if in.task == "" {
		r.diffed = true
		return r
	}
	res, err := tpl.Expand(tpl.FSReader(in.files), in.task, in.templatesDir, tpl.Options{})
	if err != nil {
		r.err, r.diffed = err, true
		return r
	}
	r.text, r.warnings = res.Text, res.Warnings
	return r
}

// diffPreview reads the saved output and diffs the instantiated task against it: the
// preview's second step (a long output's diff takes a while). It runs off the UI goroutine.
func diffPreview(r previewResult) previewResult {
	r.diffed = true
	if r.in.output != "" {
		if data, err := limits.ReadFile(r.in.output, limits.TaskDefinition); err == nil {
			r.saved, r.exists = string(data), true
		}
	}
	r.diff = lineDiff(r.saved, r.text)
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
	save    *widgets.TipButton
	text    *codeText
	scroll  *container.Scroll
	body    fyne.CanvasObject
	busy    *widget.Activity
	status  *widget.Label
	errLbl  *widget.Label
	warnLbl *widget.Label
	// outputs remembers the output file (relative to the folder) chosen per task.
	outputs map[string]string
	// settingOutput is set while the output entry follows the task chosen
	settingOutput bool
	last          previewResult
	root          *fyne.Container
}

func newPreviewPanel(w *Workspace) *previewPanel {
	p := &previewPanel{ws: w, text: newCodeText(true), status: widget.NewLabel(""), errLbl: widget.NewLabel(""),
		warnLbl: widget.NewLabel(""), outputs: map[string]string{}, output: widget.NewEntry(), busy: widget.NewActivity()}
	p.scroll = container.NewScroll(p.text)
	p.text.view = p.scroll
	p.scroll.OnScrolled = func(fyne.Position) { p.text.Refresh() }
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
		if !p.settingOutput {
			w.schedulePreview()
		}
	}
	// an icon with a tip: the output's path keeps the room (it was cut off at 1024 px)
	p.save = widgets.NewTipButton("Save output: write the instantiated task to this file", theme.DocumentSaveIcon(), func() {
		if err := p.saveOutput(); err != nil {
			w.showError(err)
		}
	})
	p.errLbl.Hide()
	p.warnLbl.Hide()
	p.busy.Hide()
	// the spinner has its place kept, so that nothing moves when it shows
	busy := container.NewStack(fixedSize(p.busy.MinSize()), p.busy)
	// which task, and where its output goes, on a line each above the instantiated task
	top := container.NewVBox(
		container.NewBorder(nil, nil, widget.NewLabelWithStyle("Preview of", fyne.TextAlignLeading, fyne.TextStyle{Bold: true}), busy, p.task),
		container.NewBorder(nil, nil, widget.NewLabel("Output"), p.save, p.output),
		p.errLbl, p.warnLbl)
	p.body = p.scroll
	p.root = container.NewBorder(top, p.status, nil, nil, p.body)
	return p
}

// fixedSize is an empty object of a given minimum size.
func fixedSize(s fyne.Size) fyne.CanvasObject {
	r := canvas.NewRectangle(color.Transparent)
	r.SetMinSize(s)
	return r
}

// setBusy shows the spinner while the preview is computed.
func (p *previewPanel) setBusy(on bool) {
	if on {
		p.busy.Show()
		p.busy.Start()
	} else {
		p.busy.Stop()
		p.busy.Hide()
	}
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
		p.settingOutput = true
		p.output.SetText(out)
		p.settingOutput = false
	}
	p.ws.previewNow()
}

// show draws a computed preview: the diff against the saved output, coloured.
func (p *previewPanel) show(r previewResult) {
	p.last = r
	shown := p.errLbl.Visible() || p.warnLbl.Visible()
	defer func() {
		// the error and warning lines come and go above the preview: lay the panel out
		// again, twice, since a wrapped line's height follows the width the first gives it
		if shown || p.errLbl.Visible() || p.warnLbl.Visible() {
			p.root.Refresh()
			p.root.Refresh()
		}
	}()
	setShown(p.errLbl, "")
	setShown(p.warnLbl, "")
	switch {
	case r.in.task == "":
		p.status.SetText("The folder has no task file: create one to see the instantiated task.")
		p.text.setRows(nil)
		p.save.Disable()
		return
	case r.err != nil:
		setShown(p.errLbl, r.err.Error())
		p.status.SetText("The task does not instantiate (the error is above the preview); the last good preview is kept.")
		p.save.Disable()
		return
	}
	p.save.Enable()
	out := strings.TrimSpace(p.output.Text)
	switch {
	case !r.diffed:
		p.status.SetText(fmt.Sprintf("%s; comparing with %s…", widgets.Plural(len(splitLines(r.text)), "line"), out))
	case !r.exists:
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
		p.status.SetText(fmt.Sprintf("%s; +%d −%d against %s (first change at row %d).",
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
	if !r.exists {
		lines = lines[:0:0]
		for _, l := range splitLines(r.text) {
			lines = append(lines, diffLine{diffSame, l})
		}
	}
	p.text.setRows(diffRows(lines))
}

// diffRows shows a diff a line each, marked + or − and tinted.
func diffRows(lines []diffLine) []codeRow {
	rows := make([]codeRow, len(lines))
	for i, l := range lines {
		rows[i].text = string(l.Op) + " " + l.Text
		switch l.Op {
		case diffAdd:
			rows[i].tint = theme.ColorNameSuccess
		case diffDel:
			rows[i].tint = theme.ColorNameError
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
	p.ws.previewNow()
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
