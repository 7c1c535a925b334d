package uitest

import (
	"fmt"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"
)

// The UI tour's rule for the widgets of a task (workspace.TaskView): a widget is in view when
// it lies wholly inside the window and inside the viewport of every scroll container around
// it, without scrolling; a table has at least one row in view.

// Rect is a widget's place in window coordinates.
type Rect struct {
	Pos  fyne.Position
	Size fyne.Size
}

func (r Rect) inside(o Rect) bool {
	const eps = 0.5
	return r.Pos.X >= o.Pos.X-eps && r.Pos.Y >= o.Pos.Y-eps &&
		r.Pos.X+r.Size.Width <= o.Pos.X+o.Size.Width+eps && r.Pos.Y+r.Size.Height <= o.Pos.Y+o.Size.Height+eps
}

// Locate finds target under the window's content: its place in window coordinates and the
// viewports of the scroll containers around it, innermost last; false when it is not on show.
func Locate(win fyne.Window, target fyne.CanvasObject) (Rect, []Rect, bool) {
	return LocateIn(win.Content(), target)
}

// LocateIn is Locate under root, an object whose parent is drawn at the window's origin (the
// window's content, or an overlay such as a dialog).
func LocateIn(root, target fyne.CanvasObject) (Rect, []Rect, bool) {
	var at Rect
	var views []Rect
	found := false
	var walk func(o fyne.CanvasObject, origin fyne.Position, scrolls []Rect)
	walk = func(o fyne.CanvasObject, origin fyne.Position, scrolls []Rect) {
		if found || o == nil || !o.Visible() {
			return
		}
		pos := origin.Add(o.Position())
		if o == target {
			at, views, found = Rect{pos, o.Size()}, scrolls, true
			return
		}
		if s, ok := o.(*container.Scroll); ok {
			scrolls = append(append([]Rect(nil), scrolls...), Rect{pos, s.Size()})
		}
		switch v := o.(type) {
		case *fyne.Container:
			for _, c := range v.Objects {
				walk(c, pos, scrolls)
			}
		case fyne.Widget:
			for _, c := range test.WidgetRenderer(v).Objects() {
				walk(c, pos, scrolls)
			}
		}
	}
	walk(root, fyne.Position{}, nil)
	return at, views, found
}

// Relayout lays out every container and widget under o again at its present size, as the
// desktop driver does before it draws a frame when something was shown, hidden or changed its
// size (fyne's test driver does not).
func Relayout(o fyne.CanvasObject) {
	if o == nil || !o.Visible() {
		return
	}
	switch v := o.(type) {
	case *fyne.Container:
		if v.Layout != nil {
			v.Layout.Layout(v.Objects, v.Size())
		}
		for _, c := range v.Objects {
			Relayout(c)
		}
	case fyne.Widget:
		r := test.WidgetRenderer(v)
		r.Layout(v.Size())
		for _, c := range r.Objects() {
			Relayout(c)
		}
	}
}

// Why says why o, looked for under root (the window's content, or an overlay on it), is not in
// view in win by the tour's rule, "" when it is, and where it is. It does not lay the window out
// again (InView does; see Relayout).
func Why(win fyne.Window, root, o fyne.CanvasObject) (Rect, string) {
	if o == nil {
		return Rect{}, "missing"
	}
	r, scrolls, ok := LocateIn(root, o)
	switch {
	case !ok:
		return r, "not on show"
	case r.Size.Width <= 0 || r.Size.Height <= 0:
		return r, "without a size"
	case !r.inside(Rect{Size: win.Canvas().Size()}):
		return r, fmt.Sprintf("not wholly inside the %v window", win.Canvas().Size())
	}
	for _, s := range scrolls {
		if !r.inside(s) {
			return r, fmt.Sprintf("not wholly inside the viewport of a scroll at %v size %v", s.Pos, s.Size)
		}
	}
	if tb, ok := o.(*widget.Table); ok {
		if rows, _ := tb.Length(); rows == 0 {
			return r, "a table without rows"
		}
	}
	return r, ""
}

// TableShowsRows says why table tb, drawn at r, does not show n rows without scrolling, ""
// when it does: it has n rows and room for n rows of text (n counts a header the table keeps
// in its first row).
func TableShowsRows(tb *widget.Table, r Rect, n int) string {
	row := test.WidgetRenderer(widget.NewLabel("x")).MinSize().Height
	if rows, _ := tb.Length(); rows < n {
		return fmt.Sprintf("a table of %d rows", rows)
	}
	if r.Size.Height < float32(n)*row {
		return fmt.Sprintf("a table without room for %d rows", n)
	}
	return ""
}

// InView fails the test when the task widget named name is not in view in win by the tour's
// rule, and returns its place.
func InView(t testing.TB, win fyne.Window, name string, o fyne.CanvasObject) Rect {
	t.Helper()
	Relayout(win.Content())
	r, why := Why(win, win.Content(), o)
	if why != "" {
		t.Errorf("%s at %v size %v is %s", name, r.Pos, r.Size, why)
		return r
	}
	t.Logf("%s at %.0f,%.0f size %.0fx%.0f", name, r.Pos.X, r.Pos.Y, r.Size.Width, r.Size.Height)
	return r
}
