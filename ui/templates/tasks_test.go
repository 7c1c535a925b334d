package templates

import (
	"context"
	"slices"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"

	"github.com/agentdesk/agentdesk/engine/samples"
	"github.com/agentdesk/agentdesk/ui/uitest"
)

// TestTemplatesEditTaskInView: with the sample data loaded, templates.edit opens the sample
// template folder with a template in the editor; the editor and the preview are both wholly
// in view at 1024x670 (the window on a 1024x700 screen) and in the room the shell leaves a
// workspace there, and on a 1366x768 screen, with room to work in each.
func TestTemplatesEditTaskInView(t *testing.T) {
	for _, size := range []fyne.Size{uitest.Laptop, uitest.Workspace, fyne.NewSize(1366, 738)} {
		test.NewTempApp(t)
		st := uitest.OpenStore(t)
		set, err := samples.Write(t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		// what loading the samples remembers (workflow.LoadSamples)
		if err := st.AddTemplateFolder(context.Background(), set.Templates, "Sample templates"); err != nil {
			t.Fatal(err)
		}
		h := uitest.NewHost(t, size.Width, size.Height)
		ws := New(h, st)
		ws.logf = t.Logf
		h.Put(ws)
		if got := ws.TaskNames(); !slices.Equal(got, []string{"templates.edit"}) {
			t.Fatalf("tasks %v", got)
		}
		if err := ws.StartTask("templates.edit"); err != nil {
			t.Fatal(err)
		}
		if ws.dir != set.Templates || ws.ed == nil || ws.pv.last.text == "" {
			t.Fatalf("%v: folder %q, editor %v, preview %d bytes", size, ws.dir, ws.ed != nil, len(ws.pv.last.text))
		}
		h.Win.Resize(size)
		tv, err := ws.TaskView("templates.edit")
		if err != nil {
			t.Fatal(err)
		}
		for _, name := range []string{"editor", "preview"} {
			o := tv.Widgets[name]
			r, why := uitest.Why(h.Win, h.Win.Canvas().Content(), o)
			pos, sz := r.Pos, r.Size
			t.Logf("%v: %s at %v, %v", size, name, pos, sz)
			if why != "" {
				t.Errorf("%v: %s at %v, %v is %s", size, name, pos, sz, why)
			}
			if sz.Width < 250 || sz.Height < 250 {
				t.Errorf("%v: %s is %v: too small to work in", size, name, sz)
			}
		}
		if _, err := ws.TaskView("templates.other"); err == nil {
			t.Error("an unknown task has a view")
		}
	}
}

// TestTemplatesEditTaskNeedsAFolder: without a remembered folder the task says what to do.
func TestTemplatesEditTaskNeedsAFolder(t *testing.T) {
	test.NewTempApp(t)
	h := uitest.NewHost(t, 1024, 670)
	ws := New(h, uitest.OpenStore(t))
	h.Put(ws)
	if err := ws.StartTask("templates.edit"); err == nil {
		t.Fatal("the task started without a template folder")
	}
}
