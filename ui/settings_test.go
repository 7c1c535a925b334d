package ui

import (
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/agentdesk/agentdesk/ui/uitest"
)

// TestSettingsFitsAndReadsAsGroups: at 1024x670 every setting is in view without scrolling;
// each group's options stand together (no option padded out to the widest one's width, which
// left a wide gap before the next); the keyboard shortcuts are a button away, not a second copy
// of Help's table on the page.
func TestSettingsFitsAndReadsAsGroups(t *testing.T) {
	test.NewTempApp(t)
	s, w := newTestShell(t, Deps{})
	w.Resize(uitest.Laptop)
	s.Show(ScreenSettings)
	w.Resize(uitest.Laptop)
	root := w.Content()

	groups := 0
	uitest.Walk(root, func(o fyne.CanvasObject) {
		r, ok := o.(*widget.RadioGroup)
		if !ok {
			return
		}
		groups++
		items := test.WidgetRenderer(r).Objects()
		for i, it := range items {
			if at, why := uitest.Why(w, root, it); why != "" {
				t.Errorf("option %q is out of view: at %v, %v %s", r.Options[i], at.Pos, at.Size, why)
			}
			if i == 0 || it.Position().Y != items[i-1].Position().Y {
				continue
			}
			prev := items[i-1]
			gap := it.Position().X - (prev.Position().X + prev.MinSize().Width)
			if gap > 2*theme.Padding() {
				t.Errorf("%.0f px of nothing before option %q", gap, r.Options[i])
			}
		}
	})
	if groups != 2 {
		t.Fatalf("%d radio groups on Settings, want theme and navigation", groups)
	}
	if strings.Contains(uitest.Texts(root), "Ctrl+Shift+S") {
		t.Error("Settings repeats the keyboard shortcuts table")
	}
	var button fyne.CanvasObject
	uitest.Walk(root, func(o fyne.CanvasObject) {
		if b, ok := o.(*widget.Button); ok && strings.HasPrefix(b.Text, "Keyboard shortcuts") {
			button = b
		}
	})
	if button == nil {
		t.Fatal("no Keyboard shortcuts button on Settings")
	}
	if r, why := uitest.Why(w, root, button); why != "" {
		t.Errorf("the Keyboard shortcuts button is out of view: at %v, %v %s", r.Pos, r.Size, why)
	}
	test.Tap(button.(*widget.Button))
	top := w.Canvas().Overlays().Top()
	if top == nil || !strings.Contains(uitest.Texts(top), "Ctrl+Shift+S") {
		t.Fatal("the button does not open the list of shortcuts")
	}
}
