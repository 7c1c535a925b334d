package widgets

import (
	"slices"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
)

// Column is one column a table can show.
type Column struct {
	Title string
	// Min is the narrowest the column is drawn; Weight is its share of the width left over
	// once every shown column has its minimum (0: it stays at its minimum).
	Min, Weight float32
	// Optional columns make way, last first, when the table is too narrow for every column;
	// the others always show unless the user hides them.
	Optional bool
}

// Columns decides which of a table's columns show and how wide each is, so that a table shows
// every column it has room for, fills its width, and lets the user choose (Chooser): no column
// is left off to the right where nobody finds it. The table's callbacks map the shown column i
// to Index(i).
type Columns struct {
	all   []Column
	shown []int
	// chosen is the user's choice (nil: automatic, by room)
	chosen []bool
	table  *widget.Table
	width  float32
	// widths of the shown columns, in the order shown
	widths []float32
	// OnChange is called after the shown columns change (the table has been refreshed).
	OnChange func()
}

// NewColumns manages all for t; Fit wraps the table.
func NewColumns(all []Column, t *widget.Table) *Columns {
	c := &Columns{all: slices.Clone(all), table: t}
	for i := range all {
		c.shown = append(c.shown, i)
	}
	return c
}

// Len is how many columns show.
func (c *Columns) Len() int { return len(c.shown) }

// Index is the column (of all) shown at position i.
func (c *Columns) Index(i int) int {
	if i < 0 || i >= len(c.shown) {
		return -1
	}
	return c.shown[i]
}

// Width is how wide the column titled title is drawn (0: it does not show).
func (c *Columns) Width(title string) float32 {
	for i, k := range c.shown {
		if c.all[k].Title == title && i < len(c.widths) {
			return c.widths[i]
		}
	}
	return 0
}

// Shown lists the shown columns' titles.
func (c *Columns) Shown() []string {
	out := make([]string, len(c.shown))
	for i, k := range c.shown {
		out[i] = c.all[k].Title
	}
	return out
}

// Choose fixes which columns show (by position in all); nil returns to the automatic choice.
func (c *Columns) Choose(show []bool) {
	c.chosen = show
	c.fit(c.width, true)
}

// Widen makes column k (of all) at least min wide and fits the columns again; it never
// narrows one (a column sized to its content stays so while the content changes).
func (c *Columns) Widen(k int, min float32) {
	if k < 0 || k >= len(c.all) || min <= c.all[k].Min {
		return
	}
	c.all[k].Min = min
	c.fit(c.width, true)
}

// Fit is the table in a container that sizes its columns to its width.
func (c *Columns) Fit() fyne.CanvasObject {
	return container.New(&columnsFit{c: c}, c.table)
}

// fit recomputes the shown columns and their widths for a table width w.
func (c *Columns) fit(w float32, force bool) {
	if w <= 0 {
		return
	}
	if !force && w == c.width {
		return
	}
	c.width = w
	avail := w - theme.ScrollBarSize() - 2*theme.Padding()
	var shown []int
	for i := range c.all {
		if c.chosen == nil || (i < len(c.chosen) && c.chosen[i]) {
			shown = append(shown, i)
		}
	}
	need := func(cols []int) (sum, weight float32) {
		for _, k := range cols {
			sum += c.all[k].Min + theme.Padding()
			weight += c.all[k].Weight
		}
		return sum, weight
	}
	if c.chosen == nil { // optional columns make way, last first
		for sum, _ := need(shown); sum > avail; sum, _ = need(shown) {
			drop := -1
			for j := len(shown) - 1; j >= 0; j-- {
				if c.all[shown[j]].Optional {
					drop = j
					break
				}
			}
			if drop < 0 {
				break
			}
			shown = append(shown[:drop], shown[drop+1:]...)
		}
	}
	changed := !equalInts(shown, c.shown)
	c.shown = shown
	sum, weight := need(shown)
	extra := max(avail-sum, 0)
	c.widths = c.widths[:0]
	for i, k := range shown {
		col := c.all[k]
		width := col.Min
		if weight > 0 {
			width += extra * col.Weight / weight
		}
		c.table.SetColumnWidth(i, width)
		c.widths = append(c.widths, width)
	}
	if changed {
		c.table.Refresh()
		if c.OnChange != nil {
			c.OnChange()
		}
	}
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// Chooser is a "Columns…" button opening a list of the columns to tick.
func (c *Columns) Chooser(win func() fyne.Window) *widget.Button {
	return widget.NewButtonWithIcon("Columns…", theme.ListIcon(), func() {
		shown := map[int]bool{}
		for _, k := range c.shown {
			shown[k] = true
		}
		checks := make([]*widget.Check, len(c.all))
		box := container.NewVBox()
		for i, col := range c.all {
			checks[i] = widget.NewCheck(col.Title, nil)
			checks[i].SetChecked(shown[i])
			box.Add(checks[i])
		}
		auto := widget.NewButton("Fit to the width", nil)
		var d dialog.Dialog
		auto.OnTapped = func() {
			c.Choose(nil)
			d.Hide()
		}
		hidden := []string{}
		for i, col := range c.all {
			if !shown[i] {
				hidden = append(hidden, col.Title)
			}
		}
		note := "Every column shows."
		if len(hidden) > 0 {
			note = "Hidden now: " + strings.Join(hidden, ", ") + "."
		}
		noteL := widget.NewLabel(note)
		noteL.Wrapping = fyne.TextWrapWord
		d = dialog.NewCustomConfirm("Columns", "Show", "Cancel",
			container.NewBorder(noteL, auto, nil, nil, scrolledList(box)), func(ok bool) {
				if !ok {
					return
				}
				show := make([]bool, len(c.all))
				any := false
				for i, ch := range checks {
					show[i] = ch.Checked
					any = any || ch.Checked
				}
				if any {
					c.Choose(show)
				}
			}, win())
		d.Resize(fyne.NewSize(320, 420))
		d.Show()
	})
}

// scrolledList puts a list in a vertical scroll at most 260 high.
func scrolledList(content fyne.CanvasObject) fyne.CanvasObject {
	s := container.NewVScroll(content)
	s.SetMinSize(fyne.NewSize(content.MinSize().Width, min(content.MinSize().Height, 260)))
	return s
}

type columnsFit struct{ c *Columns }

func (l *columnsFit) Layout(objs []fyne.CanvasObject, size fyne.Size) {
	l.c.fit(size.Width, false)
	for _, o := range objs {
		o.Resize(size)
		o.Move(fyne.NewPos(0, 0))
	}
}

func (l *columnsFit) MinSize(objs []fyne.CanvasObject) fyne.Size {
	if len(objs) == 0 {
		return fyne.Size{}
	}
	return objs[0].MinSize()
}
