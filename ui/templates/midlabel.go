package templates

import (
	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
)

// midLabel is a one-line label that, short of room, leaves out the middle of its text rather
// than the end: file names that share a long beginning (Sample_recipe_save-…, Sample_recipe_
// search-…) stay apart in a narrow list.
type midLabel struct {
	widget.BaseWidget
	text string
	// keep is how many characters of the beginning tell the text from its neighbours': the
	// ellipsis comes after them when there is room.
	keep  int
	label *widget.Label
}

func newMidLabel(text string) *midLabel {
	l := &midLabel{text: text, label: widget.NewLabel(text)}
	l.ExtendBaseWidget(l)
	return l
}

// SetText sets the whole text (what is shown depends on the width) and how much of its
// beginning to keep before the ellipsis.
func (l *midLabel) SetText(text string, keep int) {
	l.text, l.keep = text, keep
	l.Refresh()
}

func (l *midLabel) CreateRenderer() fyne.WidgetRenderer { return &midLabelRenderer{l: l} }

type midLabelRenderer struct{ l *midLabel }

func (r *midLabelRenderer) Layout(size fyne.Size) {
	r.l.label.Resize(size)
	r.fit(size.Width)
}

// MinSize is a few characters wide: the list's column may be narrow.
func (r *midLabelRenderer) MinSize() fyne.Size {
	m := r.l.label.MinSize()
	w := fyne.MeasureText("Mm…mm", theme.TextSize(), r.l.label.TextStyle).Width + 2*theme.InnerPadding()
	return fyne.NewSize(min(m.Width, w), m.Height)
}

func (r *midLabelRenderer) Refresh() { r.fit(r.l.Size().Width) }

func (r *midLabelRenderer) fit(width float32) {
	shown := middleEllipsis(r.l.text, r.l.keep, width-2*theme.InnerPadding(), func(s string) float32 {
		return fyne.MeasureText(s, theme.TextSize(), r.l.label.TextStyle).Width
	})
	if r.l.label.Text != shown {
		r.l.label.Text = shown
		r.l.label.Refresh()
	}
}

func (r *midLabelRenderer) Objects() []fyne.CanvasObject { return []fyne.CanvasObject{r.l.label} }
func (r *midLabelRenderer) Destroy()                     {}

// middleEllipsis shortens text to fit width by replacing characters from its middle with
// "…": it keeps the first keep characters (up to where the text differs from its neighbours)
// when they leave room for a few of the end, else two fifths of what fits from the beginning
// and the rest from the end (where names differ: -step.conf). width <= 0 (not laid out yet)
// keeps the text.
func middleEllipsis(text string, keep int, width float32, measure func(string) float32) string {
	if width <= 0 || measure(text) <= width {
		return text
	}
	r := []rune(text)
	cut := func(head, tail int) string { return string(r[:head]) + "…" + string(r[len(r)-tail:]) }
	const minTail = 4
	if keep > 0 && keep+minTail < len(r) {
		for tail := len(r) - keep - 1; tail >= minTail; tail-- {
			if s := cut(keep, tail); measure(s) <= width {
				return s
			}
		}
	}
	for n := len(r) - 1; n > 1; n-- {
		head := n * 2 / 5
		if s := cut(head, n-head); measure(s) <= width {
			return s
		}
	}
	return string(r[:1]) + "…"
}
