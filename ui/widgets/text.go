package widgets

import (
	"fmt"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
)

// Plural is "1 episode", "2 episodes", "3 trajectories".
func Plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	if l := len(noun); l > 1 && noun[l-1] == 'y' && !strings.ContainsRune("aeiou", rune(noun[l-2])) {
		return fmt.Sprintf("%d %sies", n, noun[:l-1])
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// ShowMessage shows a short message as a label, a long one (an import's warnings) in a
// scrollable, selectable box. A nil w shows nothing.
func ShowMessage(title, msg string, w fyne.Window) {
	if w == nil {
		return
	}
	if len(msg) < 200 && !strings.Contains(msg, "\n") {
		l := widget.NewLabel(msg)
		l.Wrapping = fyne.TextWrapWord
		dialog.ShowCustom(title, "OK", container.NewGridWrap(fyne.NewSize(460, l.MinSize().Height*3), l), w)
		return
	}
	e := widget.NewMultiLineEntry()
	e.SetText(msg)
	e.Wrapping = fyne.TextWrapWord
	dialog.ShowCustom(title, "OK", container.NewGridWrap(fyne.NewSize(560, 260), e), w)
}

// Sized is o at width w (and its own height).
func Sized(o fyne.CanvasObject, w float32) fyne.CanvasObject {
	return container.NewGridWrap(fyne.NewSize(w, o.MinSize().Height), o)
}

// SelectFits gives a choice the width of its longest option, so that no option shows cut
// ("Walking · di…"); the width is capped at 420.
func SelectFits(s *widget.Select) fyne.CanvasObject {
	w := s.MinSize().Width
	for _, o := range s.Options {
		w = max(w, fyne.MeasureText(o, theme.TextSize(), fyne.TextStyle{}).Width+
			theme.IconInlineSize()+4*theme.InnerPadding()+2*theme.Padding())
	}
	return Sized(s, min(w, 420))
}
