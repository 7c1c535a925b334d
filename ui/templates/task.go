package templates

import (
	"fmt"
	"math"
	"path"
	"sort"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/agentdesk/agentdesk/ui/widgets"
)

// composerToken is one line of a .task file as the composer edits it.
type composerToken struct {
	Conf string
	// Setup and Reset are the "s" and "r" options; Other keeps any other option letters
	// (such as "c") as written.
	Setup, Reset bool
	Other        string
}

func (t composerToken) options() string {
	o := ""
	if t.Setup {
		o += "s"
	}
	if t.Reset {
		o += "r"
	}
	return o + t.Other
}

// parseComposerTokens reads a .task text into tokens; blank lines are skipped (the original
// rejects them) and reported as skipped.
func parseComposerTokens(text string) (toks []composerToken, skipped int) {
	lines := strings.Split(strings.ReplaceAll(text, "\r\n", "\n"), "\n")
	if n := len(lines); n > 0 && lines[n-1] == "" {
		lines = lines[:n-1]
	}
	for _, line := range lines {
		f := strings.Fields(line)
		if len(f) == 0 {
			skipped++
			continue
		}
		t := composerToken{Conf: f[0]}
		if len(f) > 1 {
			t.Setup = strings.Contains(f[1], "s")
			t.Reset = strings.Contains(f[1], "r")
			t.Other = strings.NewReplacer("s", "", "r", "").Replace(f[1])
		}
		toks = append(toks, t)
	}
	return toks, skipped
}

// formatComposerTokens writes tokens as a .task text: `<conf>[ <options>]` per line.
func formatComposerTokens(toks []composerToken) string {
	var b strings.Builder
	for _, t := range toks {
		b.WriteString(t.Conf)
		if o := t.options(); o != "" {
			b.WriteString(" " + o)
		}
		b.WriteString("\n")
	}
	return b.String()
}

// taskComposer edits one .task file: ordered tokens with s/r check boxes, add, remove, move.
type taskComposer struct {
	ws    *Workspace
	file  *tplFile
	toks  []composerToken
	rows  *fyne.Container
	add   *widget.Select
	note  *widget.Label
	root  fyne.CanvasObject
	confs []string
}

func newTaskComposer(w *Workspace, f *tplFile) *taskComposer {
	c := &taskComposer{ws: w, file: f, rows: container.NewVBox(), note: widget.NewLabel("")}
	c.note.Wrapping = fyne.TextWrapWord
	c.note.Hide()
	toks, skipped := parseComposerTokens(f.buf)
	c.toks = toks
	if skipped > 0 {
		setShown(c.note, fmt.Sprintf("%s skipped: the original rejects blank lines in a .task file; the next change rewrites the file without them.",
			widgets.Plural(skipped, "blank line")))
	}
	dir := path.Dir(f.rel)
	for _, g := range w.files {
		if g.kind == kindConf && path.Dir(g.rel) == dir {
			c.confs = append(c.confs, strings.TrimSuffix(path.Base(g.rel), ".conf"))
		}
	}
	sort.Strings(c.confs)
	c.add = widget.NewSelect(c.confs, nil)
	c.add.PlaceHolder = "Token config to add"
	addBtn := widget.NewButtonWithIcon("Add token", theme.ContentAddIcon(), func() {
		if c.add.Selected != "" {
			c.addToken(c.add.Selected)
		}
	})
	title := widget.NewLabelWithStyle(f.rel, fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	help := widget.NewLabel("Tokens run in this order. The first token always keeps its setup and reset steps; " +
		"later ones keep them when s / r is ticked. Confs are read from " + dir + ".")
	help.Wrapping = fyne.TextWrapWord
	c.root = container.NewBorder(container.NewVBox(title, help, c.note),
		container.NewBorder(nil, nil, nil, addBtn, c.add), nil, nil, container.NewVScroll(c.rows))
	c.build()
	return c
}

// build redraws the token rows.
func (c *taskComposer) build() {
	c.rows.Objects = nil
	known := map[string]bool{}
	for _, n := range c.confs {
		known[n] = true
	}
	for i := range c.toks {
		i := i
		t := c.toks[i]
		name := widget.NewLabelWithStyle(t.Conf, fyne.TextAlignLeading, fyne.TextStyle{Monospace: true})
		name.Truncation = fyne.TextTruncateEllipsis
		if !known[t.Conf] {
			name.Importance = widget.DangerImportance
			name.Text += "  (no " + t.Conf + ".conf)"
		}
		s := widget.NewCheck("s", func(on bool) { c.setFlags(i, on, c.toks[i].Reset) })
		r := widget.NewCheck("r", func(on bool) { c.setFlags(i, c.toks[i].Setup, on) })
		if i == 0 {
			s.Checked, r.Checked = true, true
			s.Disable()
			r.Disable()
		} else {
			s.Checked, r.Checked = t.Setup, t.Reset
		}
		up := widgets.NewTipButton("Move this step up", theme.MoveUpIcon(), func() { c.move(i, i-1) })
		down := widgets.NewTipButton("Move this step down", theme.MoveDownIcon(), func() { c.move(i, i+1) })
		del := widgets.NewTipButton("Remove this step", theme.DeleteIcon(), func() { c.remove(i) })
		if i == 0 {
			up.Disable()
		}
		if i == len(c.toks)-1 {
			down.Disable()
		}
		num := widget.NewLabel(fmt.Sprintf("%d.", i+1))
		var row *fyne.Container
		handle := newDragHandle(func(dy float32) {
			// rows are stacked in a VBox: one row is its height plus the padding between rows
			step := row.Size().Height + theme.Padding()
			c.moveTo(i, i+int(math.Round(float64(dy/step))))
		})
		row = container.NewBorder(nil, nil, container.NewHBox(handle, num), container.NewHBox(s, r, up, down, del), name)
		c.rows.Add(row)
	}
	if len(c.toks) == 0 {
		c.rows.Add(widget.NewLabel("No tokens yet: add a token config below (the original rejects an empty task file)."))
	}
	c.rows.Refresh()
}

// changed rewrites the task buffer from the tokens.
func (c *taskComposer) changed() {
	c.file.buf = formatComposerTokens(c.toks)
	setShown(c.note, "")
	c.build()
	c.ws.edited(c.file)
}

func (c *taskComposer) setFlags(i int, setup, reset bool) {
	if i == 0 || i >= len(c.toks) {
		return
	}
	if c.toks[i].Setup == setup && c.toks[i].Reset == reset {
		return
	}
	c.toks[i].Setup, c.toks[i].Reset = setup, reset
	c.changed()
}

func (c *taskComposer) move(from, to int) {
	if from < 0 || to < 0 || from >= len(c.toks) || to >= len(c.toks) || from == to {
		return
	}
	c.toks[from], c.toks[to] = c.toks[to], c.toks[from]
	c.changed()
}

// moveTo takes token from out of the list and puts it back at position to (clamped), as a
// drag and drop does.
func (c *taskComposer) moveTo(from, to int) {
	if from < 0 || from >= len(c.toks) {
		return
	}
	to = max(0, min(to, len(c.toks)-1))
	if to == from {
		return
	}
	t := c.toks[from]
	rest := append(append([]composerToken(nil), c.toks[:from]...), c.toks[from+1:]...)
	c.toks = append(append(append([]composerToken(nil), rest[:to]...), t), rest[to:]...)
	c.changed()
}

// dragHandle is the grip at the start of a composer row: drag it up or down to move the token.
type dragHandle struct {
	widget.BaseWidget
	dy     float32
	onDrop func(dy float32)
}

func newDragHandle(onDrop func(dy float32)) *dragHandle {
	h := &dragHandle{onDrop: onDrop}
	h.ExtendBaseWidget(h)
	return h
}

func (h *dragHandle) CreateRenderer() fyne.WidgetRenderer {
	return widget.NewSimpleRenderer(widget.NewIcon(theme.MenuIcon()))
}

func (h *dragHandle) Dragged(ev *fyne.DragEvent) { h.dy += ev.Dragged.DY }

func (h *dragHandle) DragEnd() {
	dy := h.dy
	h.dy = 0
	if h.onDrop != nil {
		h.onDrop(dy)
	}
}

// Cursor shows that the row can be moved.
func (h *dragHandle) Cursor() desktop.Cursor { return desktop.VResizeCursor }

func (c *taskComposer) remove(i int) {
	if i < 0 || i >= len(c.toks) {
		return
	}
	c.toks = append(c.toks[:i], c.toks[i+1:]...)
	c.changed()
}

func (c *taskComposer) addToken(conf string) {
	c.toks = append(c.toks, composerToken{Conf: conf})
	c.changed()
}
