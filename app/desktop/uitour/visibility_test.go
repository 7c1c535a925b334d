package main

import (
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"
)

// tall is a rectangle that asks for a height.
func tall(h float32) fyne.CanvasObject {
	r := canvas.NewRectangle(nil)
	r.SetMinSize(fyne.NewSize(100, h))
	return r
}

func TestCheckVisible(t *testing.T) {
	test.NewTempApp(t)
	above := widget.NewButton("above the fold", nil)
	below := widget.NewButton("below the fold", nil)
	pinned := widget.NewButton("pinned", nil)
	hidden := widget.NewButton("hidden", nil)
	hidden.Hide()
	scroll := container.NewVScroll(container.NewVBox(above, tall(900), below, hidden))
	content := container.NewBorder(nil, pinned, nil, nil, scroll)
	w := test.NewWindow(content)
	defer w.Close()
	w.Resize(fyne.NewSize(400, 300))
	win := w.Canvas().Size()
	root := w.Content()

	for _, c := range []struct {
		name string
		o    fyne.CanvasObject
		want bool
	}{
		{"in the scroll's viewport", above, true},
		{"below the scroll's viewport", below, false},
		{"pinned under the scroll", pinned, true},
		{"hidden", hidden, false},
		{"not in the window", widget.NewButton("elsewhere", nil), false},
		{"nothing named", nil, false},
	} {
		if _, got, why := checkVisible(root, win, c.o); got != c.want {
			t.Errorf("%s: visible %v, want %v (%s)", c.name, got, c.want, why)
		}
	}

	// scrolled down, the one below the fold comes into view and the first goes out of it
	scroll.ScrollToBottom()
	if _, got, why := checkVisible(root, win, below); !got {
		t.Errorf("scrolled to the bottom: the lower button is not visible (%s)", why)
	}
	if _, got, _ := checkVisible(root, win, above); got {
		t.Errorf("scrolled to the bottom: the upper button still counts as visible")
	}
	// a window too small for what is pinned: outside the window
	w.Resize(fyne.NewSize(400, 20))
	if _, got, _ := checkVisible(w.Content(), fyne.NewSize(400, 20), pinned); got {
		t.Errorf("a button below a 20 px window counts as visible")
	}
}

func TestTableNeedsARowInView(t *testing.T) {
	test.NewTempApp(t)
	rows := 0
	table := widget.NewTableWithHeaders(func() (int, int) { return rows, 2 },
		func() fyne.CanvasObject { return widget.NewLabel("cell") },
		func(widget.TableCellID, fyne.CanvasObject) {})
	table.ShowHeaderColumn = false
	box := container.NewGridWrap(fyne.NewSize(300, 200), table)
	w := test.NewWindow(box)
	defer w.Close()
	w.Resize(fyne.NewSize(320, 220))
	if _, got, _ := checkVisible(w.Content(), w.Canvas().Size(), table); got {
		t.Errorf("a table with no rows counts as visible")
	}
	rows = 3
	table.Refresh()
	if _, got, why := checkVisible(w.Content(), w.Canvas().Size(), table); !got {
		t.Errorf("a 200 px table with 3 rows is not visible: %s", why)
	}
	// only room for the header
	box.Layout = container.NewGridWrap(fyne.NewSize(300, 45)).Layout
	box.Refresh()
	if _, got, _ := checkVisible(w.Content(), w.Canvas().Size(), table); got {
		t.Errorf("a table with room for its header alone counts as visible")
	}
}
