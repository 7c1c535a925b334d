package widgets

import (
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
)

func TestBarChartTaps(t *testing.T) {
	test.NewTempApp(t)
	c := NewBarChart("t", []Bar{{"a", 1, "1"}, {"b", 3, "3"}}, false)
	w := test.NewWindow(c)
	defer w.Close()
	w.Resize(fyne.NewSize(300, 200))
	var got int = -1
	c.OnTapped = func(i int) { got = i }
	r := &barChartRenderer{c: c}
	c.Tapped(&fyne.PointEvent{Position: fyne.NewPos(100, r.titleHeight()+r.rowHeight()*1.5)})
	if got != 1 {
		t.Fatalf("tapped bar %d", got)
	}
	v := NewBarChart("", []Bar{{"1–5", 4, "4"}, {"6–10", 2, "2"}}, true)
	w.SetContent(v)
	v.OnTapped = func(i int) { got = i }
	v.Tapped(&fyne.PointEvent{Position: fyne.NewPos(v.Size().Width*0.75, v.Size().Height/2)})
	if got != 1 {
		t.Fatalf("tapped column %d", got)
	}
}
