package templates

import (
	"context"
	"slices"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/test"

	"github.com/agentdesk/agentdesk/engine/samples"
	"github.com/agentdesk/agentdesk/ui/uitest"
)

// inView reports where o is drawn in the window of root and whether it lies wholly inside the
// window and inside the viewport of every scroll container around it (the UI tour's rule).
func inView(root fyne.CanvasObject, win fyne.Size, o fyne.CanvasObject) (fyne.Position, fyne.Size, bool) {
	type box struct{ p, s fyne.Size }
	inside := func(outer, inner box) bool {
		return inner.p.Width >= outer.p.Width-0.5 && inner.p.Height >= outer.p.Height-0.5 &&
			inner.p.Width+inner.s.Width <= outer.p.Width+outer.s.Width+0.5 &&
			inner.p.Height+inner.s.Height <= outer.p.Height+outer.s.Height+0.5
	}
	var at box
	var clips []box
	found := false
	var walk func(c fyne.CanvasObject, origin fyne.Position, scrolls []box) bool
	walk = func(c fyne.CanvasObject, origin fyne.Position, scrolls []box) bool {
		if c == nil || !c.Visible() {
			return false
		}
		pos := origin.Add(c.Position())
		here := box{fyne.NewSize(pos.X, pos.Y), c.Size()}
		if c == o {
			at, clips, found = here, slices.Clone(scrolls), true
			return true
		}
		if _, ok := c.(*container.Scroll); ok {
			scrolls = append(scrolls, here)
		}
		var children []fyne.CanvasObject
		switch v := c.(type) {
		case *fyne.Container:
			children = v.Objects
		case fyne.Widget:
			children = test.WidgetRenderer(v).Objects()
		}
		for _, ch := range children {
			if walk(ch, pos, scrolls) {
				return true
			}
		}
		return false
	}
	walk(root, fyne.Position{}, nil)
	if !found || at.s.Width < 1 || at.s.Height < 1 || !inside(box{s: win}, at) {
		return fyne.NewPos(at.p.Width, at.p.Height), at.s, false
	}
	for _, c := range clips {
		if !inside(c, at) {
			return fyne.NewPos(at.p.Width, at.p.Height), at.s, false
		}
	}
	return fyne.NewPos(at.p.Width, at.p.Height), at.s, true
}

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
			pos, sz, ok := inView(h.Win.Canvas().Content(), h.Win.Canvas().Size(), o)
			t.Logf("%v: %s at %v, %v", size, name, pos, sz)
			if !ok {
				t.Errorf("%v: %s at %v, %v is not wholly in view", size, name, pos, sz)
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
