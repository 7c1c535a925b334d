package widgets

import (
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"
)

// TestColumnsFitTheWidth: a narrow table drops optional columns from the right instead of
// leaving columns off screen; a wide one shows them all and gives the extra width to the
// weighted columns; the user's choice overrides both.
func TestColumnsFitTheWidth(t *testing.T) {
	test.NewTempApp(t)
	all := []Column{{Title: "ID", Min: 50}, {Title: "Task", Min: 150, Weight: 1}, {Title: "Device", Min: 100, Optional: true},
		{Title: "Steps", Min: 60}, {Title: "Stored", Min: 120, Optional: true}}
	var cols *Columns
	table := widget.NewTable(func() (int, int) { return 3, cols.Len() },
		func() fyne.CanvasObject { return widget.NewLabel("") },
		func(id widget.TableCellID, o fyne.CanvasObject) {
			o.(*widget.Label).SetText(all[cols.Index(id.Col)].Title)
		})
	cols = NewColumns(all, table)
	w := test.NewTempWindow(t, cols.Fit())
	w.Resize(fyne.NewSize(400, 200))
	if got := cols.Shown(); len(got) != 3 || got[0] != "ID" || got[1] != "Task" || got[2] != "Steps" {
		t.Fatalf("at 400 px: %v, want ID Task Steps (optional columns make way)", got)
	}
	w.Resize(fyne.NewSize(1000, 200))
	if got := cols.Shown(); len(got) != 5 {
		t.Fatalf("at 1000 px: %v, want all five", got)
	}
	cols.Choose([]bool{true, true, false, true, false})
	if got := cols.Shown(); len(got) != 3 || got[2] != "Steps" {
		t.Fatalf("chosen: %v", got)
	}
	cols.Choose(nil)
	if got := cols.Shown(); len(got) != 5 {
		t.Fatalf("back to automatic at 1000 px: %v", got)
	}
}

// TestColumnsWiden: a column widened for its content takes the width from the weighted
// columns, never narrows again, and keeps the table within its width.
func TestColumnsWiden(t *testing.T) {
	test.NewTempApp(t)
	all := []Column{{Title: "ID", Min: 50}, {Title: "Task", Min: 150, Weight: 1}, {Title: "Steps", Min: 60}}
	var cols *Columns
	table := widget.NewTable(func() (int, int) { return 3, cols.Len() },
		func() fyne.CanvasObject { return widget.NewLabel("") },
		func(id widget.TableCellID, o fyne.CanvasObject) {})
	cols = NewColumns(all, table)
	w := test.NewTempWindow(t, cols.Fit())
	w.Resize(fyne.NewSize(600, 200))
	id, task := cols.Width("ID"), cols.Width("Task")
	if id != 50 || task <= 150 {
		t.Fatalf("before: ID %v, Task %v", id, task)
	}
	cols.Widen(0, 72)
	if got := cols.Width("ID"); got != 72 {
		t.Fatalf("widened ID: %v, want 72", got)
	}
	if got := cols.Width("Task"); got != task-22 {
		t.Fatalf("Task after widening ID: %v, want %v", got, task-22)
	}
	cols.Widen(0, 60)
	if got := cols.Width("ID"); got != 72 {
		t.Fatalf("a narrower Widen changed ID to %v", got)
	}
	if all[0].Min != 50 {
		t.Fatal("Widen changed the caller's column list")
	}
}
