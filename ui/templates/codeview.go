package templates

import (
	"image/color"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/agentdesk/agentdesk/ui/widgets"
)

// Monospace text with coloured pieces, drawn row by row the way a multi-line widget.Entry
// draws its text (each row at the theme's inner padding, one text height apart), so that it
// can lie under an Entry whose own text is transparent (the template editor) or stand alone
// (the preview). Only the rows in view are drawn: a long text costs what a screenful costs.

// codeSpan colours the bytes [start, end) of a row; underline marks a problem's range.
type codeSpan struct {
	start, end int
	color      fyne.ThemeColorName
	underline  bool
}

// codeRow is one line of text, its coloured spans (in order, not overlapping) and, when set,
// the colour that tints the whole row (a line with an error, an added line of a diff).
type codeRow struct {
	text  string
	spans []codeSpan
	tint  fyne.ThemeColorName
}

var codeStyle = fyne.TextStyle{Monospace: true}

// codeWidth is the width of s in monospace text: its length in characters for plain ASCII
// (every character of a monospace font is as wide as any other; shaping each prefix of each
// row in view would cost more than drawing them), measured otherwise (tabs, other scripts).
func codeWidth(s string, textSize float32) float32 {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < ' ' || c > '~' {
			return fyne.MeasureText(s, textSize, codeStyle).Width
		}
	}
	return float32(len(s)) * fyne.MeasureText("M", textSize, codeStyle).Width
}

// codeMetrics are the sizes rows are laid out with: the theme's text size, inner padding and
// the height of one row of monospace text.
func codeMetrics(th fyne.Theme) (textSize, pad, rowH float32) {
	textSize = th.Size(theme.SizeNameText)
	pad = th.Size(theme.SizeNameInnerPadding)
	rowH = fyne.MeasureText("M", textSize, codeStyle).Height
	return textSize, pad, rowH
}

// codeText draws rows of code. view, when set, says which part of it is in view (the offset
// and size of the scroll container around it); without it every row is drawn.
type codeText struct {
	widget.BaseWidget
	rows []codeRow
	// sized: the minimum size covers every row (the preview); otherwise it is zero and the
	// widget takes the size it is given (under the editor's entry, which sizes the text).
	sized bool
	view  *container.Scroll
	// width caches the widest row's width at a text size (0: not measured)
	width, widthAt float32
}

func newCodeText(sized bool) *codeText {
	t := &codeText{sized: sized}
	t.ExtendBaseWidget(t)
	return t
}

func (t *codeText) setRows(rows []codeRow) {
	t.rows, t.width = rows, 0
	t.Refresh()
}

// lines are the rows' text, a line each (tests read them).
func (t *codeText) lines() []string {
	out := make([]string, len(t.rows))
	for i, r := range t.rows {
		out[i] = r.text
	}
	return out
}

// colorAt is the colour name of the byte at col of row ("" for plain text).
func (t *codeText) colorAt(row, col int) fyne.ThemeColorName {
	if row >= len(t.rows) {
		return ""
	}
	for _, s := range t.rows[row].spans {
		if col >= s.start && col < s.end {
			return s.color
		}
	}
	return ""
}

func (t *codeText) MinSize() fyne.Size {
	if !t.sized {
		return fyne.Size{}
	}
	textSize, pad, rowH := codeMetrics(t.Theme())
	if t.width == 0 || t.widthAt != textSize {
		t.width, t.widthAt = 1, textSize
		for _, r := range t.rows {
			t.width = max(t.width, codeWidth(r.text, textSize))
		}
	}
	return fyne.NewSize(t.width+2*pad, float32(len(t.rows))*rowH+2*pad)
}

func (t *codeText) CreateRenderer() fyne.WidgetRenderer {
	return &rowsRenderer{w: t, draw: t.draw}
}

// visibleRows is the range of rows [first, last) in view.
func visibleRows(view *container.Scroll, n int, pad, rowH, height float32) (first, last int) {
	top, bottom := float32(0), height
	if view != nil {
		top, bottom = view.Offset.Y, view.Offset.Y+view.Size().Height
	}
	first = max(int((top-pad)/rowH), 0)
	last = min(int((bottom-pad)/rowH)+1, n)
	return first, max(first, last)
}

// rowsRenderer draws the rows in view of a code widget (its text, the editor's gutter) with
// draw, again on every layout (a scroll) and refresh (a theme switch), in the widget's theme.
type rowsRenderer struct {
	w interface {
		fyne.Widget
		Theme() fyne.Theme
	}
	// draw appends the objects of the rows in view to objs.
	draw    func(th fyne.Theme, v fyne.ThemeVariant, objs []fyne.CanvasObject) []fyne.CanvasObject
	objects []fyne.CanvasObject
}

func (r *rowsRenderer) Destroy()                     {}
func (r *rowsRenderer) Objects() []fyne.CanvasObject { return r.objects }
func (r *rowsRenderer) MinSize() fyne.Size           { return r.w.MinSize() }
func (r *rowsRenderer) Layout(fyne.Size)             { r.build() }
func (r *rowsRenderer) Refresh()                     { r.build(); canvas.Refresh(r.w) }

// IsClip keeps what a row draws beyond the widget (a long line) inside it.
func (r *rowsRenderer) IsClip() {}

func (r *rowsRenderer) build() {
	r.objects = r.draw(r.w.Theme(), fyne.CurrentApp().Settings().ThemeVariant(), r.objects[:0])
}

// draw appends the rows in view to objs: each row's tint behind it, and its text.
func (t *codeText) draw(th fyne.Theme, v fyne.ThemeVariant, objs []fyne.CanvasObject) []fyne.CanvasObject {
	textSize, pad, rowH := codeMetrics(th)
	size := t.Size()
	first, last := visibleRows(t.view, len(t.rows), pad, rowH, size.Height)
	for i := first; i < last; i++ {
		row := t.rows[i]
		y := pad + float32(i)*rowH
		if row.tint != "" {
			bg := canvas.NewRectangle(widgets.Tint(th.Color(row.tint, v), 0x38))
			bg.Move(fyne.NewPos(0, y))
			bg.Resize(fyne.NewSize(size.Width, rowH))
			objs = append(objs, bg)
		}
		objs = appendRowText(objs, row, th, v, textSize, pad, y, rowH)
	}
	return objs
}

// appendRowText adds a row's text pieces: each span, and the plain text between them, cut at
// tabs, each placed where the whole line's text puts it (so tab stops and the Entry agree).
func appendRowText(objs []fyne.CanvasObject, row codeRow, th fyne.Theme, v fyne.ThemeVariant, textSize, pad, y, rowH float32) []fyne.CanvasObject {
	piece := func(start, end int, name fyne.ThemeColorName) {
		if name == "" {
			name = theme.ColorNameForeground
		}
		c := th.Color(name, v)
		for start < end {
			stop := end
			if i := strings.IndexByte(row.text[start:end], '\t'); i >= 0 {
				stop = start + i
			}
			if s := strings.TrimRight(row.text[start:stop], "\r"); s != "" {
				txt := canvas.NewText(s, c)
				txt.TextSize, txt.TextStyle = textSize, codeStyle
				txt.Move(fyne.NewPos(pad+codeWidth(row.text[:start], textSize), y))
				txt.Resize(fyne.NewSize(codeWidth(s, textSize), rowH))
				objs = append(objs, txt)
			}
			start = stop + 1
		}
	}
	pos := 0
	for _, s := range row.spans {
		if s.start > pos {
			piece(pos, s.start, "")
		}
		start := max(s.start, pos)
		if s.end > start {
			piece(start, s.end, s.color)
		}
		if s.underline {
			objs = underlineRange(objs, row.text, start, max(s.end, start), th.Color(s.color, v), textSize, pad, y, rowH)
		}
		pos = max(pos, s.end)
	}
	if pos < len(row.text) {
		piece(pos, len(row.text), "")
	}
	return objs
}

// underlineRange marks the bytes [start, end) of a row with a line under them (one character
// wide at least, so a problem at the end of a line shows).
func underlineRange(objs []fyne.CanvasObject, text string, start, end int, c color.Color, textSize, pad, y, rowH float32) []fyne.CanvasObject {
	x0 := pad + codeWidth(text[:start], textSize)
	x1 := pad + codeWidth(text[:end], textSize)
	if x1-x0 < 2 {
		x1 = x0 + fyne.MeasureText("M", textSize, codeStyle).Width
	}
	line := canvas.NewRectangle(c)
	line.Move(fyne.NewPos(x0, y+rowH-2))
	line.Resize(fyne.NewSize(x1-x0, 2))
	return append(objs, line)
}
