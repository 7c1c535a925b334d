package evaluation

import (
	"image/color"
	"math"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
)

// wrappedAt is a word-wrapped label that asks for the height its text takes at width: a
// wrapped label alone asks for one line until it has been laid out, so a dialog sized to its
// content cut the text's last lines off.
func wrappedAt(l *widget.Label, width float32) fyne.CanvasObject {
	l.Wrapping = fyne.TextWrapWord
	inner := width - 2*theme.InnerPadding()
	size := theme.TextSize()
	space := fyne.MeasureText(" ", size, l.TextStyle).Width
	lines := 0
	for _, para := range strings.Split(l.Text, "\n") {
		lines++
		var w float32
		for _, word := range strings.Fields(para) {
			ww := fyne.MeasureText(word, size, l.TextStyle).Width
			if w > 0 && w+space+ww > inner {
				lines++
				w = 0
			}
			if w > 0 {
				w += space
			}
			w += ww
		}
	}
	line := fyne.MeasureText("Mg", size, l.TextStyle).Height + theme.LineSpacing()
	h := float32(math.Ceil(float64(float32(lines)*line + 2*theme.InnerPadding())))
	room := canvas.NewRectangle(color.Transparent)
	room.SetMinSize(fyne.NewSize(0, h))
	return container.NewStack(room, l)
}
