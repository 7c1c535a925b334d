package widgets

import (
	"image/color"
	"math"
	"strconv"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
)

// Plot draws a series against labelled axes in the theme's colours: as bars (one value per
// episode, say: positive in the success colour, negative in the error colour) or as a line (a
// value per step). The y axis is labelled with its range and zero, the x axis with the first and
// last index and XLabel; the plot follows theme changes.
type Plot struct {
	widget.BaseWidget
	Title  string
	XLabel string
	Bars   bool
	// FirstX is the x value of the first point (1 for episodes counted from one).
	FirstX int
	values []float64
}

// NewPlot returns an empty plot.
func NewPlot(title, xLabel string, bars bool, firstX int) *Plot {
	p := &Plot{Title: title, XLabel: xLabel, Bars: bars, FirstX: firstX}
	p.ExtendBaseWidget(p)
	return p
}

// SetValues replaces the series and redraws.
func (p *Plot) SetValues(v []float64) {
	p.values = append(p.values[:0], v...)
	p.Refresh()
}

// Values is the series shown.
func (p *Plot) Values() []float64 { return p.values }

func (p *Plot) CreateRenderer() fyne.WidgetRenderer { return &plotRenderer{p: p} }

type plotRenderer struct {
	p       *Plot
	objects []fyne.CanvasObject
}

const plotText = 11

func (r *plotRenderer) MinSize() fyne.Size {
	th := fyne.MeasureText("Ag", plotText, fyne.TextStyle{}).Height
	return fyne.NewSize(200, 3*th+90)
}

// plotTick formats an axis value with at most three significant digits.
func plotTick(v float64) string {
	if v == 0 {
		return "0"
	}
	return strconv.FormatFloat(v, 'g', 3, 64)
}

func (r *plotRenderer) Layout(s fyne.Size) {
	r.objects = r.objects[:0]
	fg := theme.Color(theme.ColorNameForeground)
	axis := theme.Color(theme.ColorNameDisabled)
	th := fyne.MeasureText("Ag", plotText, fyne.TextStyle{}).Height
	text := func(str string, x, y, w float32, align fyne.TextAlign, bold bool) {
		t := canvas.NewText(str, fg)
		t.TextSize = plotText
		t.TextStyle.Bold = bold
		t.Alignment = align
		t.Move(fyne.NewPos(x, y))
		t.Resize(fyne.NewSize(w, th))
		r.objects = append(r.objects, t)
	}
	text(r.p.Title, 0, 0, s.Width, fyne.TextAlignLeading, true)
	vals := r.p.values
	lo, hi := 0.0, 0.0
	for _, v := range vals {
		lo, hi = math.Min(lo, v), math.Max(hi, v)
	}
	if hi-lo < 1e-9 {
		hi = lo + 1
	}
	ticks := []float64{hi, lo}
	if lo < 0 && hi > 0 {
		ticks = append(ticks, 0)
	}
	labelW := float32(0)
	for _, v := range ticks {
		labelW = max(labelW, fyne.MeasureText(plotTick(v), plotText, fyne.TextStyle{}).Width)
	}
	left, top := labelW+6, th+6
	right, bottom := s.Width-4, s.Height-2*th-4
	if right-left < 10 || bottom-top < 10 {
		return
	}
	y := func(v float64) float32 { return top + float32((hi-v)/(hi-lo))*(bottom-top) }
	seg := func(x0, y0, x1, y1 float32, width float32, c color.Color) {
		l := canvas.NewLine(c)
		l.StrokeWidth = width
		l.Position1, l.Position2 = fyne.NewPos(x0, y0), fyne.NewPos(x1, y1)
		r.objects = append(r.objects, l)
	}
	// axes, zero line and y ticks
	seg(left, top, left, bottom, 1, axis)
	seg(left, y(0), right, y(0), 1, axis)
	for _, v := range ticks {
		text(plotTick(v), 0, y(v)-th/2, labelW, fyne.TextAlignTrailing, false)
		seg(left-3, y(v), left, y(v), 1, axis)
	}
	n := len(vals)
	switch {
	case n == 0:
		text("nothing yet", left+4, top, right-left-4, fyne.TextAlignLeading, false)
	case r.p.Bars:
		bw := (right - left) / float32(max(n, 10))
		for i, v := range vals {
			c := theme.Color(theme.ColorNameSuccess)
			if v < 0 {
				c = theme.Color(theme.ColorNameError)
			}
			t, b := y(v), y(0)
			if t > b {
				t, b = b, t
			}
			bar := canvas.NewRectangle(c)
			bar.Move(fyne.NewPos(left+float32(i)*bw+1, t))
			bar.Resize(fyne.NewSize(max(bw-2, 1), max(b-t, 1)))
			r.objects = append(r.objects, bar)
		}
	default:
		// at most one segment per two pixels: long episodes are thinned, not drawn in thousands
		step := max(1, int(float32(n)/max((right-left)/2, 1)))
		prev := 0
		for i := step; i < n+step; i += step {
			j := min(i, n-1)
			if j == prev {
				break
			}
			x0 := left + float32(prev)/float32(max(n-1, 1))*(right-left)
			x1 := left + float32(j)/float32(max(n-1, 1))*(right-left)
			seg(x0, y(vals[prev]), x1, y(vals[j]), 2, theme.Color(theme.ColorNamePrimary))
			prev = j
		}
	}
	// x axis labels: the first and last index, and what they count
	first, last := strconv.Itoa(r.p.FirstX), strconv.Itoa(r.p.FirstX+max(n-1, 0))
	if r.p.Bars {
		last = strconv.Itoa(r.p.FirstX + max(n, 10) - 1)
	}
	text(first, left-20, bottom+2, 40, fyne.TextAlignCenter, false)
	text(last, right-40, bottom+2, 40, fyne.TextAlignTrailing, false)
	text(r.p.XLabel, left, bottom+2+th, right-left, fyne.TextAlignCenter, false)
}

func (r *plotRenderer) Refresh() {
	r.Layout(r.p.Size())
	canvas.Refresh(r.p)
}

func (r *plotRenderer) Objects() []fyne.CanvasObject { return r.objects }
func (r *plotRenderer) Destroy()                     {}
