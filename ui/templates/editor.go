package templates

import (
	"fmt"
	"path"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	tpl "github.com/agentdesk/agentdesk/engine/template"
	"github.com/agentdesk/agentdesk/ui/widgets"
	"github.com/agentdesk/agentdesk/ui/workspace"
)

// hlKind classifies a highlighted piece of template text.
type hlKind uint8

const (
	hlPlain    hlKind = iota
	hlSlot            // the brackets, commas and colon of a slot
	hlModifier        // a modifier name (with its "'")
	hlIdent           // the identifier
	hlError           // a diagnostic's range (error)
	hlWarning         // a diagnostic's range (warning)
)

// hlSpan is a highlighted byte range [Start, End) of a template text.
type hlSpan struct {
	Start, End int
	Kind       hlKind
}

// highlightTemplate returns the highlighted ranges of a template text, in order of their
// start, plus its slots and diagnostics. Slot parts come first; diagnostic ranges are added
// after them and take precedence where they overlap.
func highlightTemplate(text string) ([]hlSpan, []tpl.Slot, []*tpl.Error) {
	slots, diags := tpl.ParseSlots(text)
	var spans []hlSpan
	for _, s := range slots {
		pos := s.Offset
		for _, m := range s.Modifiers {
			if m.Offset < 0 {
				continue
			}
			if m.Offset > pos {
				spans = append(spans, hlSpan{pos, m.Offset, hlSlot})
			}
			end := m.Offset + len(m.Name)
			if m.Each {
				end++
			}
			spans = append(spans, hlSpan{m.Offset, end, hlModifier})
			pos = end
		}
		if s.IdentOffset > pos {
			spans = append(spans, hlSpan{pos, s.IdentOffset, hlSlot})
		}
		end := s.IdentOffset + len(s.Identifier)
		spans = append(spans, hlSpan{s.IdentOffset, end, hlIdent})
		if s.End > end {
			spans = append(spans, hlSpan{end, s.End, hlSlot})
		}
	}
	for _, d := range diags {
		if d.Offset >= 0 && d.End > d.Offset && d.End <= len(text) {
			k := hlError
			if d.Warning {
				k = hlWarning
			}
			spans = append(spans, hlSpan{d.Offset, d.End, k})
		}
	}
	return spans, slots, diags
}

// diagLine formats a diagnostic for the editor's list: "line:col: message".
func diagLine(d *tpl.Error) string {
	msg := string(d.Category) + ": " + d.Msg
	if d.Warning {
		msg = "warning: " + msg
	}
	return fmt.Sprintf("%d:%d: %s", d.Line, d.Col, msg)
}

// slotLine formats a slot for the side list.
func slotLine(s tpl.Slot) string {
	mods := make([]string, len(s.Modifiers))
	for i, m := range s.Modifiers {
		mods[i] = m.String()
	}
	m := "no modifiers"
	if len(mods) > 0 {
		m = strings.Join(mods, ", ")
	}
	return fmt.Sprintf("%d:%d  %s  ·  %s", s.Line, s.Col, s.Identifier, m)
}

// templateEditor edits one template file: one code editor (line numbers, the problems
// marked in the gutter and underlined in the text, highlighted slots), the list of slots and
// the list of problems; choosing a slot or a problem moves the cursor there.
type templateEditor struct {
	ws       *Workspace
	file     *tplFile
	code     *codeEditor
	entry    *widget.Entry // code.entry
	slots    []tpl.Slot
	diags    []*tpl.Error
	spans    []hlSpan
	slotList *widget.List
	// sideTabs hold the slots and the problems (with their count)
	sideTabs *container.AppTabs
	diagList *widget.List
	// noProblems stands in the Problems tab while there are none
	noProblems *widget.Label
	summary    *widget.Label
	root       fyne.CanvasObject
	history    wordUndo
}

func newTemplateEditor(w *Workspace, f *tplFile) *templateEditor {
	e := &templateEditor{ws: w, file: f, code: newCodeEditor(), summary: widget.NewLabel("")}
	e.entry = e.code.entry
	e.summary.Truncation = fyne.TextTruncateEllipsis
	e.entry.SetText(f.buf)
	e.history.reset(f.buf)
	e.entry.OnChanged = func(s string) {
		e.history.record(s)
		f.buf = s
		e.refresh()
		w.edited(f)
	}
	e.slotList = widget.NewList(
		func() int { return len(e.slots) },
		func() fyne.CanvasObject { return oneLine() },
		func(id widget.ListItemID, o fyne.CanvasObject) {
			if id < len(e.slots) {
				s := e.slots[id]
				mods := "no modifiers"
				if len(s.Modifiers) > 0 {
					mods = strings.TrimPrefix(slotLine(s), fmt.Sprintf("%d:%d  %s  ·  ", s.Line, s.Col, s.Identifier))
				}
				setOneLine(o, fmt.Sprintf("%s  %d:%d", s.Identifier, s.Line, s.Col), mods)
			}
		})
	e.slotList.OnSelected = func(id widget.ListItemID) {
		if id < len(e.slots) {
			e.jump(e.slots[id].Line, e.slots[id].Col)
		}
		e.slotList.Unselect(id)
	}
	e.diagList = widget.NewList(
		func() int { return len(e.diags) },
		func() fyne.CanvasObject { return twoLines() },
		func(id widget.ListItemID, o fyne.CanvasObject) {
			if id < len(e.diags) {
				d := e.diags[id]
				imp := widget.DangerImportance
				if d.Warning {
					imp = widget.WarningImportance
				}
				head := fmt.Sprintf("%d:%d: %s", d.Line, d.Col, d.Category)
				if d.Warning {
					head += " (warning)"
				}
				setTwoLines(o, head, d.Msg, imp)
			}
		})
	e.noProblems = widget.NewLabel("No problems found in this template.")
	e.diagList.OnSelected = func(id widget.ListItemID) {
		if id < len(e.diags) {
			e.jump(e.diags[id].Line, e.diags[id].Col)
		}
		e.diagList.Unselect(id)
	}
	// a tap on a line number goes to that line: to its first problem when it has one (and
	// the problems are shown), else to its start
	e.code.gutter.OnTapped = func(row int) {
		for _, d := range e.diags {
			if d.Line == row+1 {
				e.sideTabs.SelectIndex(1)
				e.jump(d.Line, d.Col)
				return
			}
		}
		e.code.moveCursor(row, 0)
	}
	e.refresh()

	class := tpl.TemplateClass(f.rel)
	newConf := widget.NewButtonWithIcon("Config…", theme.ContentAddIcon(), func() {
		if w.host.Window() == nil {
			return
		}
		step := widget.NewEntry()
		step.SetPlaceHolder("step name, e.g. wifi")
		step.Validator = validName
		workspace.ShowForm(w.host.Window(), "New config of "+class, "Create",
			[]*widget.FormItem{widget.NewFormItem("Step", step)}, func() {
				if _, err := w.newConf(class, strings.TrimSpace(step.Text)); err != nil {
					w.showError(err)
				}
			})
	})
	title := widget.NewLabelWithStyle(path.Base(f.rel), fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	title.Truncation = fyne.TextTruncateEllipsis
	// one line above the text: the file, what it holds and the one action on it
	head := container.NewBorder(nil, nil, nil, newConf, container.NewGridWithColumns(2, title, e.summary))
	// the slots and problems under the text, in tabs, as an editor's problems panel: the text
	// keeps the editor's whole width
	side := container.NewAppTabs(
		container.NewTabItem("Slots", e.slotList),
		container.NewTabItem("Problems", container.NewStack(e.diagList, container.NewVBox(e.noProblems))))
	e.sideTabs = side
	if len(e.diags) > 0 {
		side.SelectIndex(1)
	}
	body := container.NewVSplit(e.code, side)
	// the tabs keep three slots in view at 1024x700 (they had a row and a half)
	body.Offset = 0.66
	e.root = container.NewBorder(head, nil, nil, nil, body)
	return e
}

// refresh re-parses the slots and redraws the highlighting, the marks and the lists.
func (e *templateEditor) refresh() {
	text := e.file.buf
	e.spans, e.slots, e.diags = highlightTemplate(text)
	e.code.setRows(templateRows(text, e.spans, e.diags))
	e.slotList.Refresh()
	e.diagList.Refresh()
	if len(e.diags) == 0 {
		e.noProblems.Show()
		e.diagList.Hide()
	} else {
		e.noProblems.Hide()
		e.diagList.Show()
	}
	if e.sideTabs != nil {
		title := "Problems"
		if len(e.diags) > 0 {
			title = fmt.Sprintf("Problems (%d)", len(e.diags))
		}
		if e.sideTabs.Items[1].Text != title {
			e.sideTabs.Items[1].Text = title
			e.sideTabs.Refresh()
		}
	}
	nErr, nWarn := 0, 0
	for _, d := range e.diags {
		if d.Warning {
			nWarn++
		} else {
			nErr++
		}
	}
	line := fmt.Sprintf("%s, %s", widgets.Plural(len(e.slots), "slot"), widgets.Plural(len(tpl.Identifiers(text)), "identifier"))
	if nErr > 0 {
		line += ", " + widgets.Plural(nErr, "error")
	}
	if nWarn > 0 {
		line += ", " + widgets.Plural(nWarn, "warning")
	}
	e.summary.SetText(line)
}

// undo takes back the last word typed (or paste), redo brings it back.
func (e *templateEditor) undo(redo bool) {
	step := e.history.undo
	if redo {
		step = e.history.redoOne
	}
	if text, ok := step(e.entry.Text); ok {
		e.entry.SetText(text)
	}
}

// jump moves the cursor to a 1-based line and character column, focuses the editor and
// scrolls the place into view.
func (e *templateEditor) jump(line, col int) {
	if line < 1 {
		return
	}
	e.code.moveCursor(line-1, col-1)
}

// hlColors are the theme colours of the highlighted kinds.
var hlColors = map[hlKind]fyne.ThemeColorName{
	hlSlot:     theme.ColorNamePlaceHolder,
	hlModifier: theme.ColorNameSuccess,
	hlIdent:    theme.ColorNamePrimary,
	hlError:    theme.ColorNameError,
	hlWarning:  theme.ColorNameWarning,
}

// templateRows turns a template text and its highlighted ranges into the editor's rows, and
// the lines with a problem into the gutter's marks: an error's line is tinted and marked in
// the error colour, a warning's (when no error shares it) in the warning colour.
func templateRows(text string, spans []hlSpan, diags []*tpl.Error) ([]codeRow, map[int]fyne.ThemeColorName) {
	kinds := make([]hlKind, len(text))
	for _, s := range spans {
		for i := max(s.Start, 0); i < s.End && i < len(kinds); i++ {
			kinds[i] = s.Kind
		}
	}
	marks := map[int]fyne.ThemeColorName{}
	for _, d := range diags {
		if d.Line < 1 {
			continue
		}
		if !d.Warning {
			marks[d.Line-1] = theme.ColorNameError
		} else if marks[d.Line-1] == "" {
			marks[d.Line-1] = theme.ColorNameWarning
		}
	}
	var rows []codeRow
	off := 0
	for i, line := range strings.Split(text, "\n") {
		row := codeRow{text: line, tint: marks[i]}
		for j := 0; j < len(line); {
			k := kinds[off+j]
			end := j + 1
			for end < len(line) && kinds[off+end] == k {
				end++
			}
			if k != hlPlain {
				row.spans = append(row.spans, codeSpan{start: j, end: end, color: hlColors[k], underline: k == hlError || k == hlWarning})
			}
			j = end
		}
		rows = append(rows, row)
		off += len(line) + 1
	}
	// a problem at the end of a line (or of the text) has no character to colour: its
	// underline goes after the line's last character
	for _, d := range diags {
		if d.Line >= 1 && d.Line <= len(rows) && d.Offset >= 0 && d.End <= d.Offset {
			r := &rows[d.Line-1]
			k := hlError
			if d.Warning {
				k = hlWarning
			}
			r.spans = append(r.spans, codeSpan{start: len(r.text), end: len(r.text), color: hlColors[k], underline: true})
		}
	}
	return rows, marks
}

// twoLines is a list row of a heading line and a detail line, both in body text.
func twoLines() fyne.CanvasObject {
	a := widget.NewLabelWithStyle("identifier 12:34", fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	a.Truncation = fyne.TextTruncateEllipsis
	b := widget.NewLabel("modifiers")
	b.Truncation = fyne.TextTruncateEllipsis
	return container.New(&tightVBox{}, a, b)
}

// oneLine is a list row of a heading and its detail on one line (a slot and its modifiers),
// both in body text.
func oneLine() fyne.CanvasObject {
	a := widget.NewLabelWithStyle("identifier 12:34", fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	b := widget.NewLabel("modifiers")
	b.Truncation = fyne.TextTruncateEllipsis
	return container.NewBorder(nil, nil, a, nil, b)
}

func setOneLine(o fyne.CanvasObject, head, detail string) {
	c := o.(*fyne.Container)
	b, a := c.Objects[0].(*widget.Label), c.Objects[1].(*widget.Label)
	a.SetText(head)
	b.SetText(detail)
}

func setTwoLines(o fyne.CanvasObject, head, detail string, imp widget.Importance) {
	c := o.(*fyne.Container)
	a, b := c.Objects[0].(*widget.Label), c.Objects[1].(*widget.Label)
	a.Importance = imp
	a.SetText(head)
	b.SetText(detail)
}

// tightVBox stacks objects without padding between them.
type tightVBox struct{}

func (tightVBox) MinSize(objs []fyne.CanvasObject) fyne.Size {
	var s fyne.Size
	for _, o := range objs {
		m := o.MinSize()
		s.Width = max(s.Width, m.Width)
		s.Height += m.Height - theme.Padding()
	}
	return s
}

func (tightVBox) Layout(objs []fyne.CanvasObject, size fyne.Size) {
	y := float32(0)
	for _, o := range objs {
		h := o.MinSize().Height - theme.Padding()
		o.Move(fyne.NewPos(0, y))
		o.Resize(fyne.NewSize(size.Width, h+theme.Padding()))
		y += h
	}
}
