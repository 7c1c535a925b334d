package templates

import (
	"fmt"
	"strings"
	"unicode/utf8"

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

// templateEditor edits one template file: a monospace entry, a highlighted mirror with line
// numbers and marked error lines, the list of slots and the list of diagnostics.
type templateEditor struct {
	ws       *Workspace
	file     *tplFile
	entry    *widget.Entry
	mirror   *widget.TextGrid
	slots    []tpl.Slot
	diags    []*tpl.Error
	spans    []hlSpan
	slotList *widget.List
	// sideTabs hold the slots and the problems (with their count)
	sideTabs *container.AppTabs
	diagList *widget.List
	summary  *widget.Label
	root     fyne.CanvasObject
	history  wordUndo
}

func newTemplateEditor(w *Workspace, f *tplFile) *templateEditor {
	e := &templateEditor{ws: w, file: f, entry: widget.NewMultiLineEntry(), mirror: widget.NewTextGrid(),
		summary: widget.NewLabel("")}
	e.entry.TextStyle = fyne.TextStyle{Monospace: true}
	e.entry.Wrapping = fyne.TextWrapOff
	e.entry.SetText(f.buf)
	e.history.reset(f.buf)
	e.entry.OnChanged = func(s string) {
		e.history.record(s)
		f.buf = s
		e.refresh()
		w.edited(f)
	}
	e.mirror.ShowLineNumbers = true
	e.mirror.Scroll = fyne.ScrollBoth
	e.slotList = widget.NewList(
		func() int { return len(e.slots) },
		func() fyne.CanvasObject { return twoLines() },
		func(id widget.ListItemID, o fyne.CanvasObject) {
			if id < len(e.slots) {
				s := e.slots[id]
				mods := "no modifiers"
				if len(s.Modifiers) > 0 {
					mods = strings.TrimPrefix(slotLine(s), fmt.Sprintf("%d:%d  %s  ·  ", s.Line, s.Col, s.Identifier))
				}
				setTwoLines(o, fmt.Sprintf("%s  %d:%d", s.Identifier, s.Line, s.Col), mods, widget.MediumImportance)
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
	e.diagList.OnSelected = func(id widget.ListItemID) {
		if id < len(e.diags) {
			e.jump(e.diags[id].Line, e.diags[id].Col)
		}
		e.diagList.Unselect(id)
	}
	e.refresh()

	class := tpl.TemplateClass(f.rel)
	newConf := widget.NewButtonWithIcon("New config…", theme.ContentAddIcon(), func() {
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
	title := widget.NewLabelWithStyle(f.rel, fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	title.Truncation = fyne.TextTruncateEllipsis
	head := container.NewBorder(nil, e.summary, nil, newConf, title)
	// the slots and problems under the text, in tabs: the editor and its highlighted copy keep
	// the editor's whole width (beside them, on a 1024 px screen, each was about 200 px wide)
	side := container.NewAppTabs(
		container.NewTabItem("Slots", e.slotList),
		container.NewTabItem("Problems", e.diagList))
	e.sideTabs = side
	text := container.NewVSplit(e.entry, e.mirror)
	body := container.NewVSplit(text, side)
	body.Offset = 0.7
	e.root = container.NewBorder(head, nil, nil, nil, body)
	return e
}

// refresh re-parses the slots and redraws the mirror and the lists.
func (e *templateEditor) refresh() {
	text := e.file.buf
	e.spans, e.slots, e.diags = highlightTemplate(text)
	e.mirror.Rows = highlightRows(text, e.spans, e.diags)
	e.mirror.Refresh()
	e.slotList.Refresh()
	e.diagList.Refresh()
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

// jump moves the entry's cursor to a 1-based line and character column.
func (e *templateEditor) jump(line, col int) {
	if line < 1 {
		return
	}
	e.entry.CursorRow = line - 1
	e.entry.CursorColumn = max(col-1, 0)
	e.entry.Refresh()
	if c := fyne.CurrentApp().Driver().CanvasForObject(e.entry); c != nil {
		c.Focus(e.entry)
	}
}

// highlightRows turns a text and its highlighted ranges into text-grid rows; lines with an
// error (or warning) get a tinted background.
func highlightRows(text string, spans []hlSpan, diags []*tpl.Error) []widget.TextGridRow {
	kinds := make([]hlKind, len(text))
	for _, s := range spans {
		for i := max(s.Start, 0); i < s.End && i < len(kinds); i++ {
			kinds[i] = s.Kind
		}
	}
	styles := map[hlKind]widget.TextGridStyle{
		hlSlot:     &widget.CustomTextGridStyle{FGColor: theme.Color(theme.ColorNamePlaceHolder)},
		hlModifier: &widget.CustomTextGridStyle{FGColor: theme.Color(theme.ColorNameSuccess)},
		hlIdent:    &widget.CustomTextGridStyle{FGColor: theme.Color(theme.ColorNamePrimary)},
		hlError:    &widget.CustomTextGridStyle{FGColor: theme.Color(theme.ColorNameError), TextStyle: fyne.TextStyle{Underline: true}},
		hlWarning:  &widget.CustomTextGridStyle{FGColor: theme.Color(theme.ColorNameWarning), TextStyle: fyne.TextStyle{Underline: true}},
	}
	lineStyle := map[int]widget.TextGridStyle{}
	errRow := &widget.CustomTextGridStyle{BGColor: widgets.Tint(theme.Color(theme.ColorNameError), 0x40)}
	warnRow := &widget.CustomTextGridStyle{BGColor: widgets.Tint(theme.Color(theme.ColorNameWarning), 0x30)}
	for _, d := range diags {
		if d.Line < 1 {
			continue
		}
		if d.Warning {
			if lineStyle[d.Line-1] == nil {
				lineStyle[d.Line-1] = warnRow
			}
		} else {
			lineStyle[d.Line-1] = errRow
		}
	}
	var rows []widget.TextGridRow
	off := 0
	for i, line := range strings.Split(text, "\n") {
		row := widget.TextGridRow{Cells: make([]widget.TextGridCell, 0, len(line)), Style: lineStyle[i]}
		for j := 0; j < len(line); {
			r, n := utf8.DecodeRuneInString(line[j:])
			if r == '\r' {
				j += n
				continue
			}
			row.Cells = append(row.Cells, widget.TextGridCell{Rune: r, Style: styles[kinds[off+j]]})
			j += n
		}
		rows = append(rows, row)
		off += len(line) + 1
	}
	return rows
}

// twoLines is a list row of a heading line and a detail line.
func twoLines() fyne.CanvasObject {
	a := widget.NewLabelWithStyle("identifier 12:34", fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	a.Truncation = fyne.TextTruncateEllipsis
	b := widget.NewLabel("modifiers")
	b.Truncation = fyne.TextTruncateEllipsis
	b.SizeName = theme.SizeNameCaptionText
	return container.New(&tightVBox{}, a, b)
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
