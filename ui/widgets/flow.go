package widgets

import (
	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
)

// NewFlow lays objects out left to right at their minimum size and wraps them onto new rows
// when the width runs out, like words in a paragraph: a toolbar that fits a 1024-pixel
// screen on two rows and a 1920-pixel one on one. Its minimum width is its widest object; its
// minimum height follows the rows of the last layout (as fyne's GridWrap does). Hidden objects
// take no room.
func NewFlow(objects ...fyne.CanvasObject) *fyne.Container {
	return container.New(&flowLayout{}, objects...)
}

type flowLayout struct {
	height float32 // of the rows at the last layout's width
	width  float32
}

// rows places the visible objects in rows no wider than width and returns each object's
// position, with the total height.
func (f *flowLayout) rows(objects []fyne.CanvasObject, width float32, place bool) float32 {
	pad := theme.Padding()
	x, y, rowH := float32(0), float32(0), float32(0)
	for _, o := range objects {
		if !o.Visible() {
			continue
		}
		m := o.MinSize()
		if x > 0 && x+m.Width > width {
			x, y = 0, y+rowH+pad
			rowH = 0
		}
		if place {
			o.Move(fyne.NewPos(x, y))
			o.Resize(m)
		}
		x += m.Width + pad
		rowH = max(rowH, m.Height)
	}
	return y + rowH
}

func (f *flowLayout) Layout(objects []fyne.CanvasObject, size fyne.Size) {
	f.width = size.Width
	f.height = f.rows(objects, size.Width, true)
}

func (f *flowLayout) MinSize(objects []fyne.CanvasObject) fyne.Size {
	w := float32(0)
	for _, o := range objects {
		if o.Visible() {
			w = max(w, o.MinSize().Width)
		}
	}
	if f.width <= 0 { // not laid out yet: one row
		return fyne.NewSize(w, f.rows(objects, 1e9, false))
	}
	return fyne.NewSize(w, f.rows(objects, f.width, false))
}

// RowHeights are the heights of the rows of a grid of objs laid out cols to a row, left to
// right: each row as tall as its tallest object's minimum.
func RowHeights(objs []fyne.CanvasObject, cols int) []float32 {
	var rows []float32
	for i, o := range objs {
		if i%cols == 0 {
			rows = append(rows, 0)
		}
		rows[len(rows)-1] = max(rows[len(rows)-1], o.MinSize().Height)
	}
	return rows
}
