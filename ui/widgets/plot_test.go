package widgets

import (
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/test"
)

// TestPlotAxes: a plot labels its y range and zero, its x range and what x counts, and draws a
// bar per value (negative ones below the zero line) or a thinned line.
func TestPlotAxes(t *testing.T) {
	test.NewTempApp(t)
	p := NewPlot("Reward per episode", "episode", true, 1)
	w := test.NewTempWindow(t, p)
	w.Resize(fyne.NewSize(300, 200))
	p.SetValues([]float64{1.5, -0.5, 3})
	texts := map[string]bool{}
	var bars []*canvas.Rectangle
	for _, o := range test.WidgetRenderer(p).Objects() {
		switch o := o.(type) {
		case *canvas.Text:
			texts[o.Text] = true
		case *canvas.Rectangle:
			bars = append(bars, o)
		}
	}
	for _, want := range []string{"Reward per episode", "3", "-0.5", "0", "1", "10", "episode"} {
		if !texts[want] {
			t.Errorf("no %q among the plot's labels %v", want, texts)
		}
	}
	if len(bars) != 3 {
		t.Fatalf("%d bars, want 3", len(bars))
	}
	zero := bars[1].Position().Y // the negative bar starts at the zero line
	if bars[0].Position().Y+bars[0].Size().Height != zero || bars[2].Size().Height <= bars[0].Size().Height {
		t.Errorf("bars not on the zero line or not to scale: %v %v %v", bars[0].Position(), bars[1].Position(), bars[2].Size())
	}

	line := NewPlot("This episode", "step", false, 0)
	w.SetContent(line)
	w.Resize(fyne.NewSize(300, 200))
	long := make([]float64, 5000)
	for i := range long {
		long[i] = float64(i) / 100
	}
	line.SetValues(long)
	segs := 0
	for _, o := range test.WidgetRenderer(line).Objects() {
		if l, ok := o.(*canvas.Line); ok && l.StrokeWidth == 2 {
			segs++
		}
	}
	if segs == 0 || segs > 200 {
		t.Fatalf("%d line segments for 5000 steps in 300 px", segs)
	}
}
