package evaluation

import (
	"context"
	"image/color"
	"slices"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/agentdesk/agentdesk/ui/uitest"
	"github.com/agentdesk/agentdesk/ui/widgets"
)

// absPos is o's position in the window (zero when not on show).
func absPos(win fyne.Window, o fyne.CanvasObject) fyne.Position {
	r, _, _ := uitest.Locate(win, o)
	return r.Pos
}

// The Serve tab at 1024x670: the ids box shows several rows, every link has a copy button in
// its row that copies it in one click, and the roster says what will appear under its headers
// while nobody has come.
func TestServeTabLinksCopyAndRosterEmptyState(t *testing.T) {
	w, win, st := sampleWS(t, fyne.NewSize(1024, 670))
	addTwoAnnotators(t, w, st)
	if err := w.StartTask(TaskServe); err != nil {
		t.Fatal(err)
	}
	tab := w.serve
	if len(tab.links) < 2 {
		t.Fatalf("links %+v", tab.links)
	}
	if why := inView(win, tab.ids); why != "" {
		t.Errorf("ids box: %s", why)
	}
	line := widget.NewEntry().MinSize().Height
	if h := tab.ids.Size().Height; h < 2*line {
		t.Errorf("the ids box is %.0f px tall: one line (%.0f px) where ids are listed", h, line)
	}
	var copyBtns []*widgets.TipButton
	uitest.Walk(tab.table, func(o fyne.CanvasObject) {
		if b, ok := o.(*widgets.TipButton); ok && b.OnTapped != nil {
			copyBtns = append(copyBtns, b)
		}
	})
	if len(copyBtns) < len(tab.links) {
		t.Fatalf("%d copy buttons for %d links", len(copyBtns), len(tab.links))
	}
	for _, b := range copyBtns {
		if why := inView(win, b); why != "" {
			t.Errorf("copy button %q: %s", b.Tip, why)
		}
		fyne.CurrentApp().Clipboard().SetContent("")
		test.Tap(b)
		got := fyne.CurrentApp().Clipboard().Content()
		found := false
		for _, l := range tab.links {
			if got == l.link && strings.Contains(b.Tip, l.id) {
				found = true
			}
		}
		if !found {
			t.Errorf("button %q copied %q", b.Tip, got)
		}
	}
	if len(tab.roster) != 0 {
		t.Fatalf("roster %+v", tab.roster)
	}
	if why := inView(win, tab.rosterEmpty); why != "" || !strings.Contains(tab.rosterEmpty.Text, "shows here") {
		t.Errorf("the empty roster says nothing about what will appear (%s)", why)
	}
	if tab.rosterBody.Visible() || tab.linksEmpty.Visible() {
		t.Errorf("empty roster's headers on show %v; links' empty note on show with links %v", tab.rosterBody.Visible(), tab.linksEmpty.Visible())
	}
}

// Results at 1024x670: the summary, progress bar, import and export take one line above the
// views, and "α level" sits on the line of its dropdown (not at the top of a taller row).
func TestResultsTopIsOneLineAndLevelAligned(t *testing.T) {
	skipUnderRace(t, "geometry and colours, in one goroutine")
	w, win, st := sampleWS(t, fyne.NewSize(1024, 670))
	addTwoAnnotators(t, w, st)
	if err := w.StartTask(TaskResults); err != nil {
		t.Fatal(err)
	}
	d := w.dash
	// a status long enough to wrap, as the real one does at this width
	d.statsStatus.SetText(strings.Repeat("15 labels, ordinal α. Items are dialogues annotated by at least two participants. ", 2))
	win.Content().Refresh()
	row := widget.NewButton("Import results…", nil).MinSize().Height
	top := absPos(win, d.root).Y
	if y := absPos(win, d.views).Y - top; y > row+2*theme.Padding() {
		t.Errorf("the views start %.0f px below the tab's top: more than one line (%.0f px) of summary and progress", y, row)
	}
	if why := inView(win, d.progress); why != "" {
		t.Errorf("progress: %s", why)
	}
	lp, sp := absPos(win, levelLabelOf(d)), absPos(win, d.level)
	lc := lp.Y + levelLabelOf(d).Size().Height/2
	sc := sp.Y + d.level.Size().Height/2
	if diff := lc - sc; diff > 1 || diff < -1 || levelLabelOf(d).Size().Height > levelLabelOf(d).MinSize().Height+1 {
		t.Errorf("α level at y %.0f (height %.0f), its dropdown at y %.0f (height %.0f): not on one line",
			lp.Y, levelLabelOf(d).Size().Height, sp.Y, d.level.Size().Height)
	}
}
func levelLabelOf(d *evalDashboard) *widget.Label {
	return uitest.Find(d.root, func(l *widget.Label) bool { return l.Text == "α level" })
}

// Deleting a project asks with Cancel and a red Delete, not No/Yes; Cancel keeps it.
func TestDeleteProjectAsksCancelOrDelete(t *testing.T) {
	w, win, st := sampleWS(t, fyne.NewSize(1024, 670))
	if err := w.StartTask(TaskResults); err != nil {
		t.Fatal(err)
	}
	w.tabs.SelectIndex(3)
	uitest.TapButton(t, win.Content(), "Delete project")
	top := win.Canvas().Overlays().Top()
	if top == nil {
		t.Fatal("no dialog")
	}
	var labels []string
	var del *widget.Button
	uitest.Walk(top, func(o fyne.CanvasObject) {
		if b, ok := o.(*widget.Button); ok && b.Visible() {
			labels = append(labels, b.Text)
			if b.Text == "Delete" {
				del = b
			}
		}
	})
	if del == nil || del.Importance != widget.DangerImportance || !slices.Contains(labels, "Cancel") || slices.Contains(labels, "Yes") {
		t.Fatalf("the dialog's buttons: %q (Delete danger: %v)", labels, del != nil && del.Importance == widget.DangerImportance)
	}
	uitest.TapButton(t, top, "Cancel")
	if ps, err := st.EvalProjects(context.Background()); err != nil || len(ps) != 1 {
		t.Fatalf("Cancel: projects %v, %v", ps, err)
	}
}

// The sign-in page says once that a short training with feedback comes first, though the
// sample's description says it too.
func TestSignInSaysTheTrainingOnce(t *testing.T) {
	w, _, _ := sampleWS(t, fyne.NewSize(1024, 670))
	if err := w.StartTask(TaskResults); err != nil {
		t.Fatal(err)
	}
	intro := w.session.intro()
	if n := strings.Count(strings.ToLower(intro), "training with feedback"); n != 1 {
		t.Errorf("the training is announced %d times: %q", n, intro)
	}
}

// inViewIn is inView for an object in a dialog (the overlay root on top of win), a wrapped
// label also as tall as its text needs.
func inViewIn(win fyne.Window, root, obj fyne.CanvasObject) string {
	r, why := uitest.Why(win, root, obj)
	if l, ok := obj.(*widget.Label); ok && why == "" && l.MinSize().Height > r.Size.Height+0.5 {
		return "cut: taller than its room"
	}
	return why
}

// The new-project dialogs fit a 1024x670 window without scrolling: every field of the
// dialogue-collection form and the catalogue's explanation whole.
func TestNewProjectDialogsFitWithoutScrolling(t *testing.T) {
	w, win, _ := evalTestWS(t)
	win.Resize(uitest.Laptop)
	w.showCatalogueForm()
	top := uitest.DialogFits(t, "New project from the ABC-Eval catalogue", win)
	if why := inViewIn(win, top, w.catalogueForm.help); why != "" {
		t.Errorf("catalogue explanation: %s", why)
	}
	win.Canvas().Overlays().Remove(top)
	w.showCollectionForm()
	top = uitest.DialogFits(t, "New dialogue-collection project", win)
	f := w.collectionForm
	for name, o := range map[string]fyne.CanvasObject{"name": f.name, "seconds": f.seconds, "personas": f.personas,
		"under every reply": f.online, "help": f.help, "create": f.create} {
		if why := inViewIn(win, top, o); why != "" {
			t.Errorf("collection form's %s: %s", name, why)
		}
	}
}

// primaryTheme is the default theme with its own primary colour.
type primaryTheme struct {
	fyne.Theme
	primary color.Color
}

func (p primaryTheme) Color(n fyne.ThemeColorName, v fyne.ThemeVariant) color.Color {
	if n == theme.ColorNamePrimary {
		return p.primary
	}
	return p.Theme.Color(n, v)
}

// The outline of the focused turn follows a theme switch (fyne refreshes every widget then),
// as the chat bubbles do: a rectangle coloured when the page was built kept the old theme's.
func TestFocusFrameFollowsTheTheme(t *testing.T) {
	skipUnderRace(t, "geometry and colours, in one goroutine")
	w, win, _ := sampleWS(t, fyne.NewSize(1024, 670))
	a := fyne.CurrentApp()
	first, second := color.NRGBA{0x10, 0x20, 0xc0, 0xff}, color.NRGBA{0x80, 0xa0, 0xff, 0xff}
	a.Settings().SetTheme(primaryTheme{theme.DefaultTheme(), first})
	if err := w.StartTask(TaskAnnotate); err != nil {
		t.Fatal(err)
	}
	p := w.session.page
	var f *widgets.ThemeFill
	for _, fr := range p.frames {
		if fr.Stroke == theme.ColorNamePrimary {
			f = fr
		}
	}
	for _, fr := range p.scaleFrames {
		if fr.Stroke == theme.ColorNamePrimary {
			f = fr
		}
	}
	if f == nil {
		t.Fatal("nothing is framed as focused")
	}
	rect := test.WidgetRenderer(f).Objects()[0].(*canvas.Rectangle)
	if rect.StrokeColor != color.Color(first) {
		t.Fatalf("focus outline %v, want %v", rect.StrokeColor, first)
	}
	a.Settings().SetTheme(primaryTheme{theme.DefaultTheme(), second})
	win.Content().Refresh()
	f.Refresh() // what fyne does to every widget on a theme change
	if rect.StrokeColor != color.Color(second) {
		t.Errorf("after the switch the focus outline is %v, want %v", rect.StrokeColor, second)
	}
}

// The agreement table names a type answered as a whole as people read it, not by its key.
func TestReadableLabelNamesWholeTypes(t *testing.T) {
	for in, want := range map[string]string{"quality_comparative": "Quality: comparison",
		"dialogue_ratings: Consistent": "Dialogue ratings: Consistent", "correct fact (Fac)": "correct fact (Fac)"} {
		if got := readableLabel(in); got != want {
			t.Errorf("%q reads %q, want %q", in, got, want)
		}
	}
}
