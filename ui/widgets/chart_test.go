package widgets

import (
	"fmt"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
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

// TestHistogramCountsEveryBar: a histogram whose labels are too wide for every column still
// shows each bar's count over it (the counts went with the labels: every other bar had none).
func TestHistogramCountsEveryBar(t *testing.T) {
	test.NewTempApp(t)
	var bars []Bar
	for i := range 14 {
		bars = append(bars, Bar{Label: fmt.Sprintf("%d–%d", 2*i+5, 2*i+6), Value: float64(i%3 + 1), Text: fmt.Sprint(i%3 + 1)})
	}
	c := NewBarChart("Episode length (steps)", bars, true)
	w := test.NewWindow(c)
	defer w.Close()
	w.Resize(fyne.NewSize(470, 360))
	counts, labels := 0, 0
	for _, o := range test.WidgetRenderer(c).Objects() {
		if tx, ok := o.(*canvas.Text); ok {
			if strings.Contains(tx.Text, "–") {
				labels++
			} else if tx.Text != c.Title {
				counts++
			}
		}
	}
	if labels >= len(bars) {
		t.Fatalf("every label fits (%d): the test needs narrower columns", labels)
	}
	if counts != len(bars) {
		t.Fatalf("%d counts shown over %d bars", counts, len(bars))
	}
}
