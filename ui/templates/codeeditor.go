package templates

import (
	"image/color"
	"strconv"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
)

// codeEditor is the one template editor: line numbers with the problems' marks in a gutter,
// and the highlighted text, edited in place. fyne's Entry draws one colour, so the editor
// lays a multi-line Entry whose text, background and border are transparent (its cursor and
// selection are not) over a codeText that draws the same rows in colour; both are laid out
// with the same metrics. The Entry does not scroll itself: both sit in one scroll container,
// the gutter follows its vertical offset, and the view follows the cursor.
type codeEditor struct {
	widget.BaseWidget
	entry  *widget.Entry
	under  *codeText
	gutter *codeGutter
	scroll *container.Scroll
	bg     *canvas.Rectangle
	// OnCursorChanged runs after the cursor moved (and was brought into view).
	OnCursorChanged func()
}

func newCodeEditor() *codeEditor {
	e := &codeEditor{entry: widget.NewMultiLineEntry(), under: newCodeText(false), bg: canvas.NewRectangle(color.Transparent)}
	e.entry.TextStyle = codeStyle
	e.entry.Wrapping = fyne.TextWrapOff
	e.entry.Scroll = fyne.ScrollNone
	e.scroll = container.NewScroll(container.NewStack(e.under, container.NewThemeOverride(e.entry, hiddenText{})))
	e.under.view = e.scroll
	e.gutter = newCodeGutter(e.scroll)
	e.scroll.OnScrolled = func(fyne.Position) { e.scrolled() }
	e.entry.OnCursorChanged = func() {
		e.revealCursor()
		if e.OnCursorChanged != nil {
			e.OnCursorChanged()
		}
	}
	e.ExtendBaseWidget(e)
	return e
}

// setRows shows the highlighted rows of the entry's text and the gutter's marks.
func (e *codeEditor) setRows(rows []codeRow, marks map[int]fyne.ThemeColorName) {
	e.gutter.n, e.gutter.marks = len(rows), marks
	e.under.setRows(rows)
	e.gutter.Refresh()
}

func (e *codeEditor) scrolled() {
	e.under.Refresh()
	e.gutter.Refresh()
}

// cursorRect is where the cursor's character is, in the entry's coordinates.
func (e *codeEditor) cursorRect() (fyne.Position, fyne.Size) {
	textSize, pad, rowH := codeMetrics(e.Theme())
	lines := strings.Split(e.entry.Text, "\n")
	x := pad
	if row := e.entry.CursorRow; row >= 0 && row < len(lines) {
		r := []rune(lines[row])
		x += codeWidth(string(r[:min(max(e.entry.CursorColumn, 0), len(r))]), textSize)
	}
	return fyne.NewPos(x, pad+float32(e.entry.CursorRow)*rowH), fyne.NewSize(fyne.MeasureText("M", textSize, codeStyle).Width, rowH)
}

// revealCursor scrolls the cursor's line into view, with a line and a few characters to spare.
func (e *codeEditor) revealCursor() {
	pos, sz := e.cursorRect()
	view := e.scroll.Size()
	if view.Width <= 0 || view.Height <= 0 {
		return
	}
	off := e.scroll.Offset
	margin := fyne.NewSize(4*sz.Width, sz.Height)
	if pos.Y-margin.Height < off.Y {
		off.Y = max(pos.Y-margin.Height, 0)
	} else if pos.Y+sz.Height+margin.Height > off.Y+view.Height {
		off.Y = pos.Y + sz.Height + margin.Height - view.Height
	}
	if pos.X-margin.Width < off.X {
		off.X = max(pos.X-margin.Width, 0)
	} else if pos.X+margin.Width > off.X+view.Width {
		off.X = pos.X + margin.Width - view.Width
	}
	if off != e.scroll.Offset {
		// the text may have grown since the scroll container was laid out (a new line): it
		// takes its new size first, as its layout would give it, or the offset is clamped
		c := e.scroll.Content
		c.Resize(c.MinSize().Max(view))
		e.scroll.ScrollToOffset(off)
		e.scrolled()
	}
}

// moveCursor puts the cursor at a 0-based row and rune column, focuses the editor and scrolls
// the place into view.
func (e *codeEditor) moveCursor(row, col int) {
	e.entry.CursorRow, e.entry.CursorColumn = row, max(col, 0)
	e.entry.Refresh()
	if c := fyne.CurrentApp().Driver().CanvasForObject(e.entry); c != nil {
		c.Focus(e.entry)
	}
	e.revealCursor()
}

func (e *codeEditor) CreateRenderer() fyne.WidgetRenderer {
	return &codeEditorRenderer{e: e, content: container.NewBorder(nil, nil, e.gutter, nil, e.scroll)}
}

type codeEditorRenderer struct {
	e       *codeEditor
	content *fyne.Container
}

func (r *codeEditorRenderer) Destroy() {}
func (r *codeEditorRenderer) Objects() []fyne.CanvasObject {
	return []fyne.CanvasObject{r.e.bg, r.content}
}
func (r *codeEditorRenderer) MinSize() fyne.Size {
	// a few lines, however long the text: the scroll container shows the rest
	_, pad, rowH := codeMetrics(r.e.Theme())
	return fyne.NewSize(r.e.gutter.MinSize().Width+120, 4*rowH+2*pad)
}
func (r *codeEditorRenderer) Layout(size fyne.Size) {
	r.e.bg.Resize(size)
	r.content.Resize(size)
	r.e.scrolled()
}
func (r *codeEditorRenderer) Refresh() {
	th, v := r.e.Theme(), fyne.CurrentApp().Settings().ThemeVariant()
	r.e.bg.FillColor = th.Color(theme.ColorNameInputBackground, v)
	r.e.bg.CornerRadius = th.Size(theme.SizeNameInputRadius)
	r.e.bg.Refresh()
	r.content.Refresh()
}

// hiddenText is the theme of the editor's Entry: the app's theme, with its text, background
// and border transparent (the codeText under it draws them). It asks the app's settings, not
// theme.Current, which answers with the theme being rendered: this one.
type hiddenText struct{}

func appTheme() fyne.Theme { return fyne.CurrentApp().Settings().Theme() }

func (hiddenText) Color(n fyne.ThemeColorName, v fyne.ThemeVariant) color.Color {
	switch n {
	case theme.ColorNameForeground, theme.ColorNameInputBackground, theme.ColorNameInputBorder, theme.ColorNameDisabled:
		return color.Transparent
	}
	return appTheme().Color(n, v)
}

func (hiddenText) Size(n fyne.ThemeSizeName) float32 {
	if n == theme.SizeNameInputBorder {
		return 0
	}
	return appTheme().Size(n)
}

func (hiddenText) Font(s fyne.TextStyle) fyne.Resource     { return appTheme().Font(s) }
func (hiddenText) Icon(n fyne.ThemeIconName) fyne.Resource { return appTheme().Icon(n) }

// codeGutter shows the line numbers of the rows in view beside a scroll container, and marks
// rows (a problem's colour); tapping a row calls OnTapped with it (0-based).
type codeGutter struct {
	widget.BaseWidget
	view     *container.Scroll
	n        int
	marks    map[int]fyne.ThemeColorName
	OnTapped func(row int)
}

func newCodeGutter(view *container.Scroll) *codeGutter {
	g := &codeGutter{view: view}
	g.ExtendBaseWidget(g)
	return g
}

func (g *codeGutter) digits() int { return max(len(strconv.Itoa(g.n)), 3) }

func (g *codeGutter) MinSize() fyne.Size {
	textSize, pad, _ := codeMetrics(g.Theme())
	w := fyne.MeasureText(strings.Repeat("0", g.digits()), textSize, codeStyle).Width
	return fyne.NewSize(w+pad+markWidth+pad/2, 0)
}

// markWidth is the width of a problem's mark at the gutter's edge.
const markWidth = 4

func (g *codeGutter) Tapped(ev *fyne.PointEvent) {
	_, pad, rowH := codeMetrics(g.Theme())
	row := int((ev.Position.Y + g.view.Offset.Y - pad) / rowH)
	if row >= 0 && row < g.n && g.OnTapped != nil {
		g.OnTapped(row)
	}
}

// Scrolled scrolls the text beside the gutter (the wheel over the line numbers).
func (g *codeGutter) Scrolled(ev *fyne.ScrollEvent) { g.view.Scrolled(ev) }

func (g *codeGutter) CreateRenderer() fyne.WidgetRenderer {
	return &rowsRenderer{w: g, draw: g.draw}
}

// draw appends the line numbers in view to objs, each with its problem's mark if any.
func (g *codeGutter) draw(th fyne.Theme, v fyne.ThemeVariant, objs []fyne.CanvasObject) []fyne.CanvasObject {
	textSize, pad, rowH := codeMetrics(th)
	size := g.Size()
	first, last := visibleRows(g.view, g.n, pad, rowH, size.Height)
	numRight := size.Width - markWidth - pad/2
	for i := first; i < last; i++ {
		y := pad + float32(i)*rowH - g.view.Offset.Y
		name := theme.ColorNamePlaceHolder
		if m, ok := g.marks[i]; ok {
			name = m
			mark := canvas.NewRectangle(th.Color(m, v))
			mark.Move(fyne.NewPos(size.Width-markWidth, y))
			mark.Resize(fyne.NewSize(markWidth, rowH))
			objs = append(objs, mark)
		}
		num := strconv.Itoa(i + 1)
		txt := canvas.NewText(num, th.Color(name, v))
		txt.TextSize, txt.TextStyle = textSize, codeStyle
		w := codeWidth(num, textSize)
		txt.Move(fyne.NewPos(numRight-w, y))
		txt.Resize(fyne.NewSize(w, rowH))
		objs = append(objs, txt)
	}
	return objs
}
