package widgets

import (
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
)

// manualTips replaces the tips' timer with one the test fires.
func manualTips(t *testing.T) (fire func()) {
	type timer struct {
		f       func()
		stopped bool
	}
	var pending []*timer
	old := tipAfter
	tipAfter = func(_ time.Duration, f func()) func() {
		tm := &timer{f: f}
		pending = append(pending, tm)
		return func() { tm.stopped = true }
	}
	t.Cleanup(func() { tipAfter = old })
	return func() {
		due := pending
		pending = nil
		for _, tm := range due {
			if !tm.stopped {
				tm.f()
			}
		}
	}
}

// tipText is the text on the window's tip layer ("" when none is shown).
func tipText(root fyne.CanvasObject) string {
	l := layerOf(root)
	if l == nil || len(l.Objects) == 0 {
		return ""
	}
	var b strings.Builder
	for _, o := range l.Objects[0].(*fyne.Container).Objects {
		if lab, ok := o.(*widget.Label); ok {
			b.WriteString(lab.Text)
		}
	}
	return b.String()
}

// TestTipShowsAfterRestingAndGoes: the tip shows under the button once the pointer rested on
// it, not before; it goes when the pointer leaves and when the button is tapped; a tip whose
// delay ends after the pointer left never shows.
func TestTipShowsAfterRestingAndGoes(t *testing.T) {
	test.NewTempApp(t)
	fire := manualTips(t)
	tapped := 0
	b := NewTipButton("Play the episode", theme.MediaPlayIcon(), func() { tapped++ })
	other := widget.NewButton("elsewhere", nil)
	root := WithTips(container.NewVBox(container.NewHBox(b), other))
	w := test.NewTempWindow(t, root)
	w.Resize(fyne.NewSize(400, 300))

	at := fyne.CurrentApp().Driver().AbsolutePositionForObject(b)
	test.MoveMouse(w.Canvas(), at.AddXY(5, 5))
	if tipText(root) != "" {
		t.Fatal("the tip showed before the delay")
	}
	fire()
	if tipText(root) != "Play the episode" || !b.TipShown() {
		t.Fatalf("tip on show %q", tipText(root))
	}
	tip := layerOf(root).Objects[0]
	if tip.Position().Y < at.Y+b.Size().Height || tip.Position().X+tip.Size().Width > 400 {
		t.Fatalf("tip at %v size %v, not under the button at %v", tip.Position(), tip.Size(), at)
	}
	// the layer takes no pointer events: the button under it keeps the hover
	test.MoveMouse(w.Canvas(), at.AddXY(6, 6))
	if !b.TipShown() {
		t.Fatal("the tip went while the pointer stayed on the button")
	}
	test.MoveMouse(w.Canvas(), fyne.CurrentApp().Driver().AbsolutePositionForObject(other).AddXY(5, 5))
	if tipText(root) != "" {
		t.Fatal("the tip stayed after the pointer left")
	}

	// the pointer leaves before the delay ends
	test.MoveMouse(w.Canvas(), at.AddXY(5, 5))
	test.MoveMouse(w.Canvas(), fyne.NewPos(390, 290))
	fire()
	if tipText(root) != "" {
		t.Fatal("a tip showed after the pointer had left")
	}

	// tapping hides it and runs the button
	test.MoveMouse(w.Canvas(), at.AddXY(5, 5))
	fire()
	test.Tap(b)
	if tapped != 1 || tipText(root) != "" {
		t.Fatalf("after the tap: tapped %d, tip %q", tapped, tipText(root))
	}
}

// TestTipInADialog: a button in a dialog (an overlay, drawn above the tip layer) shows its
// tip in a pop-up of its own, which goes on mouse-out.
func TestTipInADialog(t *testing.T) {
	test.NewTempApp(t)
	fire := manualTips(t)
	root := WithTips(widget.NewLabel("content"))
	w := test.NewTempWindow(t, root)
	w.Resize(fyne.NewSize(500, 400))
	b := NewTipButton("Remove this bot", theme.DeleteIcon(), nil)
	d := dialog.NewCustom("Bots", "Close", container.NewHBox(b), w)
	d.Show()
	b.MouseIn(nil)
	fire()
	overlays := w.Canvas().Overlays().List()
	if len(overlays) != 2 || !b.TipShown() {
		t.Fatalf("%d overlays, tip shown %v", len(overlays), b.TipShown())
	}
	b.MouseOut()
	if len(w.Canvas().Overlays().List()) != 1 {
		t.Fatal("the tip's pop-up stayed")
	}
}

// TestTipLabelKeepsOneLine: a long status stays one line (cut with an ellipsis) and shows its
// whole text in a tip, wrapped to the window, when the pointer rests on it.
func TestTipLabelKeepsOneLine(t *testing.T) {
	test.NewTempApp(t)
	fire := manualTips(t)
	l := NewTipLabel()
	long := "Opened sample.pkl: annotation file, 2 trajectories. 3 instruction options from " +
		"/a/very/long/path/to/the/task/definitions/folder/sample-recipes.textproto."
	root := WithTips(container.NewVBox(l, widget.NewButton("below", nil)))
	w := test.NewTempWindow(t, root)
	w.Resize(fyne.NewSize(300, 400))
	oneLine := l.MinSize().Height
	l.SetText(long)
	if l.MinSize().Height != oneLine || l.MinSize().Width > 300 {
		t.Fatalf("a long status grew the label to %v (one line is %v high)", l.MinSize(), oneLine)
	}
	test.MoveMouse(w.Canvas(), fyne.CurrentApp().Driver().AbsolutePositionForObject(l).AddXY(5, 5))
	fire()
	if tipText(root) != long || !l.TipShown() {
		t.Fatalf("tip %q", tipText(root))
	}
	if tip := layerOf(root).Objects[0]; tip.Position().X < 0 || tip.Position().X+tip.Size().Width > 300 {
		t.Fatalf("tip at %v size %v, wider than the window", tip.Position(), tip.Size())
	}
	test.MoveMouse(w.Canvas(), fyne.NewPos(290, 390))
	if tipText(root) != "" {
		t.Fatal("the tip stayed after the pointer left")
	}
}
