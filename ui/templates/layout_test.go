package templates

import (
	"context"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/agentdesk/agentdesk/engine/samples"
	"github.com/agentdesk/agentdesk/ui/uitest"
)

// shellRoom is what the shell leaves a workspace in a 1024x670 window with the navigation as
// icons: less the menu bar, the navigation and the header line.
var shellRoom = fyne.NewSize(975, 590)

func openSampleFolder(t *testing.T, size fyne.Size) (*Workspace, fyne.Window) {
	t.Helper()
	test.NewTempApp(t)
	st := uitest.OpenStore(t)
	set, err := samples.Write(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if err := st.AddTemplateFolder(context.Background(), set.Templates, "Sample templates"); err != nil {
		t.Fatal(err)
	}
	h := uitest.NewHost(t, size.Width, size.Height)
	ws := New(h, st)
	ws.logf = t.Logf
	h.Put(ws)
	if err := ws.StartTask("templates.edit"); err != nil {
		t.Fatal(err)
	}
	h.Win.Resize(size)
	return ws, h.Win
}

// TestTemplatesSampleFolderReadsAt1024: in the room a workspace has at 1024x700, the files'
// names can be told apart (the sample's share their first 15 characters), the Slots tab shows
// at least three slots in body text, the Problems tab says there are none rather than stay
// blank, and the Output path is not cut off.
func TestTemplatesSampleFolderReadsAt1024(t *testing.T) {
	ws, w := openSampleFolder(t, shellRoom)
	root := w.Content()
	if m := root.MinSize(); m.Height > shellRoom.Height || m.Width > shellRoom.Width {
		t.Errorf("the workspace needs %v, more than the %v it has", m, shellRoom)
	}

	seen := map[string]bool{}
	shown := 0
	uitest.Walk(root, func(o fyne.CanvasObject) {
		if l, ok := o.(*midLabel); ok && l.Visible() && l.text != "" {
			shown++
			if seen[l.label.Text] {
				t.Errorf("two files show as %q", l.label.Text)
			}
			seen[l.label.Text] = true
			t.Logf("%q shows as %q", l.text, l.label.Text)
			if l.label.MinSize().Width > l.Size().Width+0.5 {
				t.Errorf("%q is cut: %.0f px shown in %.0f", l.label.Text, l.label.MinSize().Width, l.Size().Width)
			}
		}
	})
	if shown < len(ws.files) || len(ws.files) < 9 {
		t.Fatalf("%d of %d file names shown", shown, len(ws.files))
	}

	ed := ws.ed
	if ed == nil || len(ed.slots) < 3 {
		t.Fatal("no template with slots in the editor")
	}
	rowH := ed.slotList.CreateItem().MinSize().Height
	if h := ed.slotList.Size().Height; h < 3*rowH {
		t.Errorf("the Slots tab is %.0f px tall: %.1f rows of %.0f", h, h/rowH, rowH)
	}
	uitest.Walk(ed.slotList, func(o fyne.CanvasObject) {
		if l, ok := o.(*widget.Label); ok && l.SizeName != "" && l.SizeName != theme.SizeNameText {
			t.Errorf("%q in the Slots tab is in %s", l.Text, l.SizeName)
		}
	})
	for _, mk := range []func() fyne.CanvasObject{twoLines, oneLine} {
		uitest.Walk(mk(), func(o fyne.CanvasObject) {
			if l, ok := o.(*widget.Label); ok && l.SizeName != "" && l.SizeName != theme.SizeNameText {
				t.Errorf("a list row's %q is in %s", l.Text, l.SizeName)
			}
		})
	}

	if len(ed.diags) == 0 {
		ed.sideTabs.SelectIndex(1)
		if !ed.noProblems.Visible() || !strings.HasPrefix(ed.noProblems.Text, "No problems") || ed.diagList.Visible() {
			t.Error("the Problems tab of a template without problems does not say so")
		}
	} else {
		t.Errorf("the sample template has problems: %v", ed.diags)
	}

	out := ws.pv.output
	need := fyne.MeasureText(out.Text, theme.TextSize(), out.TextStyle).Width + 2*theme.InnerPadding()
	if out.Text == "" || out.Size().Width < need {
		t.Errorf("the Output %q is %.0f px wide, it needs %.0f", out.Text, out.Size().Width, need)
	}
}

// TestMiddleEllipsis: the ellipsis comes after the characters that tell a name apart when
// there is room for a few of its end, else two fifths from the start.
func TestMiddleEllipsis(t *testing.T) {
	w := func(s string) float32 { return float32(len([]rune(s))) }
	for _, c := range []struct {
		text  string
		keep  int
		width float32
		want  string
	}{
		{"recipe_search-tomato_soup.conf", 15, 40, "recipe_search-tomato_soup.conf"},
		{"recipe_search-tomato_soup.conf", 15, 21, "recipe_search-t….conf"},
		{"recipe_save-tomato_soup.conf", 13, 21, "recipe_save-t…up.conf"},
		{"recipe_search-tomato_soup.conf", 0, 11, "reci…p.conf"},
		{"recipe_search-tomato_soup.conf", 20, 11, "reci…p.conf"}, // no room after the 20
	} {
		if got := middleEllipsis(c.text, c.keep, c.width, w); got != c.want {
			t.Errorf("middleEllipsis(%q, %d, %.0f) = %q, want %q", c.text, c.keep, c.width, got, c.want)
		}
	}
}
