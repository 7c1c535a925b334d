package widgets

import (
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
)

// A line of several segments never draws wider than its size: what does not fit ends in "…".
func TestLineTextCutsToItsWidth(t *testing.T) {
	test.NewTempApp(t)
	bold := widget.RichTextStyleInline
	bold.TextStyle = fyne.TextStyle{Bold: true}
	segs := []widget.RichTextSegment{
		&widget.TextSegment{Text: "Uninstall ", Style: widget.RichTextStyleInline},
		&widget.TextSegment{Text: "the", Style: bold},
		&widget.TextSegment{Text: " Tokyo app via ", Style: widget.RichTextStyleInline},
		&widget.TextSegment{Text: "the", Style: bold},
		&widget.TextSegment{Text: " Google Play Store and then verify ", Style: widget.RichTextStyleInline},
		&widget.TextSegment{Text: "the", Style: bold},
	}
	whole := ""
	for _, seg := range segs {
		whole += seg.(*widget.TextSegment).Text
	}
	l := NewLineText()
	l.SetSegments(segs)
	w := test.NewWindow(l)
	defer w.Close()
	width := func() (float32, string) {
		var sum float32
		var s strings.Builder
		for _, seg := range l.rt.Segments {
			ts := seg.(*widget.TextSegment)
			sum += fyne.MeasureText(ts.Text, theme.TextSize(), ts.Style.TextStyle).Width
			s.WriteString(ts.Text)
		}
		return sum, s.String()
	}
	for _, cell := range []float32{40, 120, 180, 260, 1000} {
		l.Resize(fyne.NewSize(cell, 36))
		got, text := width()
		if got > cell-2*theme.InnerPadding()+0.5 {
			t.Errorf("cell %v: the line is %v wide (%q)", cell, got, text)
		}
		if cell == 1000 && text != whole {
			t.Errorf("a wide cell shows %q, want the whole line %q", text, whole)
		}
		if cell < 1000 && !strings.HasSuffix(text, "…") {
			t.Errorf("cell %v: a cut line %q does not end in …", cell, text)
		}
	}
	// Matches keep their style where they show.
	l.Resize(fyne.NewSize(1000, 36))
	if ts := l.rt.Segments[1].(*widget.TextSegment); !ts.Style.TextStyle.Bold || ts.Text != "the" {
		t.Errorf("second segment %+v", ts)
	}
}
