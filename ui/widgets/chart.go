package widgets

import (
	"image"
	"image/color"
	"math"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
)

// Line draws a 2-pixel line (Bresenham).
func Line(img *image.RGBA, x0, y0, x1, y1 int, c color.Color) {
	dx, dy := abs(x1-x0), -abs(y1-y0)
	sx, sy := sign(x1-x0), sign(y1-y0)
	err := dx + dy
	for {
		img.Set(x0, y0, c)
		img.Set(x0, y0+1, c)
		if x0 == x1 && y0 == y1 {
			return
		}
		if e2 := 2 * err; e2 >= dy {
			err += dy
			x0 += sx
		} else {
			err += dx
			y0 += sy
		}
	}
}

func abs(v int) int {
	if v < 0 {
		return -v
	}
	return v
}

func sign(v int) int {
	switch {
	case v < 0:
		return -1
	case v > 0:
		return 1
	}
	return 0
}

// Bar is one bar of a BarChart: a label, the value that sets its length, and the text shown
// next to it.
type Bar struct {
	Label string
	Value float64
	Text  string
}

// BarChart draws labelled values as bars in the theme's colours: horizontal bars with the
// labels on the left (counts per category), or, with Vertical, columns with the labels
// underneath (a histogram). Tapping a bar calls OnTapped with its index.
type BarChart struct {
	widget.BaseWidget
	Title    string
	Bars     []Bar
	Vertical bool
	OnTapped func(i int)
}

// NewBarChart returns a chart of bars.
func NewBarChart(title string, bars []Bar, vertical bool) *BarChart {
	c := &BarChart{Title: title, Bars: bars, Vertical: vertical}
	c.ExtendBaseWidget(c)
	return c
}

// SetBars replaces the bars and redraws.
func (c *BarChart) SetBars(bars []Bar) {
	c.Bars = bars
	c.Refresh()
}

// Tapped finds the bar under the pointer.
func (c *BarChart) Tapped(ev *fyne.PointEvent) {
	if c.OnTapped == nil {
		return
	}
	r := &barChartRenderer{c: c}
	if i := r.barAt(ev.Position, c.Size()); i >= 0 {
		c.OnTapped(i)
	}
}

func (c *BarChart) CreateRenderer() fyne.WidgetRenderer {
	return &barChartRenderer{c: c}
}

type barChartRenderer struct {
	c       *BarChart
	objects []fyne.CanvasObject
}

const chartTextSize = 12

func (r *barChartRenderer) titleHeight() float32 {
	if r.c.Title == "" {
		return 0
	}
	return fyne.MeasureText(r.c.Title, theme.TextSize(), fyne.TextStyle{Bold: true}).Height + 6
}

func (r *barChartRenderer) rowHeight() float32 {
	return fyne.MeasureText("Ag", chartTextSize, fyne.TextStyle{}).Height + 6
}

// labelWidth is the width of the label column of a horizontal chart.
func (r *barChartRenderer) labelWidth(w float32) float32 {
	lw := float32(0)
	for _, b := range r.c.Bars {
		lw = max(lw, fyne.MeasureText(b.Label, chartTextSize, fyne.TextStyle{}).Width)
	}
	return min(lw+8, w*0.4)
}

func (r *barChartRenderer) barAt(p fyne.Position, s fyne.Size) int {
	n := len(r.c.Bars)
	top := r.titleHeight()
	if n == 0 || p.Y < top {
		return -1
	}
	if r.c.Vertical {
		i := int(p.X / (s.Width / float32(n)))
		return min(max(i, 0), n-1)
	}
	i := int((p.Y - top) / r.rowHeight())
	if i >= n {
		return -1
	}
	return i
}

func (r *barChartRenderer) Layout(s fyne.Size) {
	r.objects = r.objects[:0]
	fg := theme.Color(theme.ColorNameForeground)
	accent := theme.Color(theme.ColorNamePrimary)
	top := r.titleHeight()
	if r.c.Title != "" {
		t := canvas.NewText(r.c.Title, fg)
		t.TextStyle.Bold = true
		t.Move(fyne.NewPos(0, 0))
		r.objects = append(r.objects, t)
	}
	hi := 0.0
	for _, b := range r.c.Bars {
		hi = math.Max(hi, b.Value)
	}
	if hi <= 0 {
		hi = 1
	}
	text := func(s string, pos fyne.Position, align fyne.TextAlign, width float32) {
		t := canvas.NewText(s, fg)
		t.TextSize = chartTextSize
		t.Alignment = align
		t.Move(pos)
		t.Resize(fyne.NewSize(width, t.MinSize().Height))
		r.objects = append(r.objects, t)
	}
	n := len(r.c.Bars)
	if n == 0 {
		text("no data", fyne.NewPos(0, top), fyne.TextAlignLeading, s.Width)
		return
	}
	if !r.c.Vertical {
		rh := r.rowHeight()
		lw := r.labelWidth(s.Width)
		valueW := float32(0)
		for _, b := range r.c.Bars {
			valueW = max(valueW, fyne.MeasureText(b.Text, chartTextSize, fyne.TextStyle{}).Width)
		}
		barMax := max(s.Width-lw-valueW-12, 10)
		for i, b := range r.c.Bars {
			y := top + float32(i)*rh
			text(fitText(b.Label, lw-8), fyne.NewPos(0, y+2), fyne.TextAlignTrailing, lw-8)
			bar := canvas.NewRectangle(accent)
			bar.Move(fyne.NewPos(lw, y+3))
			bar.Resize(fyne.NewSize(max(float32(b.Value/hi)*barMax, 1), rh-6))
			r.objects = append(r.objects, bar)
			text(b.Text, fyne.NewPos(lw+bar.Size().Width+6, y+2), fyne.TextAlignLeading, valueW+4)
		}
		return
	}
	rh := r.rowHeight()
	colW := s.Width / float32(n)
	plotH := max(s.Height-top-2*rh, 10)
	// Show every k-th label so that labels do not overlap.
	widest := float32(0)
	for _, b := range r.c.Bars {
		widest = max(widest, fyne.MeasureText(b.Label, chartTextSize, fyne.TextStyle{}).Width)
	}
	every := max(1, int(math.Ceil(float64((widest+6)/colW))))
	for i, b := range r.c.Bars {
		x := float32(i) * colW
		h := float32(b.Value/hi) * plotH
		bar := canvas.NewRectangle(accent)
		bar.Move(fyne.NewPos(x+1, top+rh+plotH-h))
		bar.Resize(fyne.NewSize(max(colW-2, 1), max(h, 1)))
		r.objects = append(r.objects, bar)
		w := colW * float32(every)
		if i%every == 0 {
			text(b.Label, fyne.NewPos(x+colW/2-w/2, top+rh+plotH+2), fyne.TextAlignCenter, w)
		}
		// every bar's count that fits over it is shown, labelled or not (the counts used to
		// go with the labels, so every other bar had none)
		if tw := fyne.MeasureText(b.Text, chartTextSize, fyne.TextStyle{}).Width; tw <= colW {
			text(b.Text, fyne.NewPos(x, top+rh+plotH-h-rh), fyne.TextAlignCenter, colW)
		} else if i%every == 0 {
			text(b.Text, fyne.NewPos(x+colW/2-w/2, top+rh+plotH-h-rh), fyne.TextAlignCenter, w)
		}
	}
}

// fitText shortens s with an ellipsis to fit width at the chart's text size.
func fitText(s string, width float32) string {
	if fyne.MeasureText(s, chartTextSize, fyne.TextStyle{}).Width <= width {
		return s
	}
	r := []rune(s)
	for len(r) > 1 {
		r = r[:len(r)-1]
		if fyne.MeasureText(string(r)+"…", chartTextSize, fyne.TextStyle{}).Width <= width {
			return string(r) + "…"
		}
	}
	return "…"
}

func (r *barChartRenderer) MinSize() fyne.Size {
	top := r.titleHeight()
	if r.c.Vertical {
		return fyne.NewSize(160, top+140)
	}
	return fyne.NewSize(160, top+float32(max(len(r.c.Bars), 1))*r.rowHeight())
}

func (r *barChartRenderer) Refresh() {
	r.Layout(r.c.Size())
	canvas.Refresh(r.c)
}

func (r *barChartRenderer) Objects() []fyne.CanvasObject { return r.objects }
func (r *barChartRenderer) Destroy()                     {}

var _ fyne.Tappable = (*BarChart)(nil)
