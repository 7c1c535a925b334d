package widgets

import (
	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
)

// LineText is one line of styled text (bold, coloured parts such as search matches) that never
// draws outside its size: text that does not fit ends in "…". fyne's RichText truncates each
// segment of a line on its own, so a line of several segments in a table cell drew over the
// cells to its right.
type LineText struct {
	widget.BaseWidget
	segs []*widget.TextSegment
	rt   *widget.RichText
	fit  float32 // the width the shown segments were cut for (-1: not cut yet)
}

// NewLineText makes an empty line.
func NewLineText() *LineText {
	t := &LineText{rt: widget.NewRichText(), fit: -1}
	t.ExtendBaseWidget(t)
	return t
}

// SetSegments shows segs (text segments; others are left out) on the line.
func (t *LineText) SetSegments(segs []widget.RichTextSegment) {
	t.segs = t.segs[:0]
	for _, s := range segs {
		if ts, ok := s.(*widget.TextSegment); ok {
			t.segs = append(t.segs, ts)
		}
	}
	t.fit = -1
	t.cut(t.Size().Width)
}

// cut fits the segments into width w.
func (t *LineText) cut(w float32) {
	if w == t.fit && t.fit >= 0 {
		return
	}
	t.fit = w
	avail := w - 2*theme.InnerPadding()
	var out []widget.RichTextSegment
	used := float32(0)
	size := theme.TextSize()
	for _, s := range t.segs {
		sw := fyne.MeasureText(s.Text, size, s.Style.TextStyle).Width
		if used+sw <= avail || w <= 0 {
			out = append(out, s)
			used += sw
			continue
		}
		c := *s // the first segment that does not fit: cut, with the ellipsis
		c.Text = cutToWidth(s.Text, size, s.Style.TextStyle, avail-used)
		out = append(out, &c)
		break
	}
	if len(out) == 0 {
		out = append(out, &widget.TextSegment{Style: widget.RichTextStyleInline})
	}
	t.rt.Segments = out
	t.rt.Refresh()
}

// CreateRenderer implements fyne.Widget.
func (t *LineText) CreateRenderer() fyne.WidgetRenderer { return &lineTextRenderer{t: t} }

type lineTextRenderer struct{ t *LineText }

func (r *lineTextRenderer) Layout(size fyne.Size) {
	r.t.cut(size.Width)
	r.t.rt.Resize(size)
}

func (r *lineTextRenderer) MinSize() fyne.Size {
	h := r.t.rt.MinSize().Height
	return fyne.NewSize(2*theme.InnerPadding(), h)
}

func (r *lineTextRenderer) Refresh()                     { r.t.fit = -1; r.Layout(r.t.Size()) }
func (r *lineTextRenderer) Objects() []fyne.CanvasObject { return []fyne.CanvasObject{r.t.rt} }
func (r *lineTextRenderer) Destroy()                     {}

// cutToWidth is text when it fits in room, else its longest prefix that fits with "…" after it.
func cutToWidth(text string, size float32, style fyne.TextStyle, room float32) string {
	if fyne.MeasureText(text, size, style).Width <= room {
		return text
	}
	runes := []rune(text)
	lo, hi := 0, len(runes)
	for lo < hi {
		mid := (lo + hi + 1) / 2
		if fyne.MeasureText(string(runes[:mid])+"…", size, style).Width <= room {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	return string(runes[:lo]) + "…"
}
