package explorer

import (
	"context"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/agentdesk/agentdesk/app/workflow"
	"github.com/agentdesk/agentdesk/engine/episode"
	"github.com/agentdesk/agentdesk/engine/samples"
	"github.com/agentdesk/agentdesk/store"
	"github.com/agentdesk/agentdesk/ui/uitest"
	"github.com/agentdesk/agentdesk/ui/widgets"
)

// sampleStore is a store with the bundled sample data loaded, as Home's Load sample data does.
func sampleStore(t *testing.T) (*store.Store, workflow.Samples) {
	t.Helper()
	st := uitest.OpenStore(t)
	s, err := workflow.LoadSamples(context.Background(), st, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return st, s
}

// Rooms a workspace has on a 1024x700 screen: the whole window content (1024x670), and what is
// left of it beside a navigation with its labels (about 190 px) under a one-line header.
var laptopRooms = []fyne.Size{uitest.Laptop, fyne.NewSize(834, 630)}

// TestExplorerEpisodeTaskInView: stepping through the first sample episode, the frame (at least
// 300 px tall) and its step controls are both in view without scrolling on a laptop screen
// (the frame was a thumbnail in a scrolling pane, never in view with its controls).
func TestExplorerEpisodeTaskInView(t *testing.T) {
	test.NewTempApp(t)
	st, _ := sampleStore(t)
	h, x, w := openExplorer(t, wf(st))
	if err := x.StartTask(taskEpisode); err != nil {
		t.Fatal(err)
	}
	if x.detail.ep == nil || x.detail.ep.ExternalID != samples.OdysseyEpisode(1) || x.detail.viewer.Len() == 0 {
		t.Fatalf("the task shows %+v", x.detail.row)
	}
	if x.selected < 0 {
		t.Fatal("the sample episode is on show but not selected in the listing")
	}
	for _, room := range laptopRooms {
		w.Resize(room)
		h.Put(x)
		view, err := x.TaskView(taskEpisode)
		if err != nil {
			t.Fatal(err)
		}
		for _, name := range []string{"frame", "step-controls"} {
			o := view.Widgets[name]
			if o == nil {
				t.Fatalf("no widget %q", name)
			}
			r := uitest.InView(t, w, name, o)
			if name == "frame" && r.Size.Height < 300 {
				t.Errorf("at %v the frame is %.0f px tall, less than 300", room, r.Size.Height)
			}
		}
	}
	if err := x.StartTask("explorer.nothing"); err == nil {
		t.Fatal("an unknown task started")
	}
}

// TestExplorerDetailFollowsTheListing: the detail pane never shows an episode the listing does
// not list: a filter that leaves it out empties the pane; Clear filters keeps the episode on
// show selected where the listing has it (it used to show it, unselected, or one no longer
// listed).
func TestExplorerDetailFollowsTheListing(t *testing.T) {
	test.NewTempApp(t)
	st := uitest.SeededStore(t)
	saveGridworldEpisode(t, st)
	_, x, _ := openExplorer(t, wf(st))
	x.source.SetSelected("gridworld (3)")
	x.sortBy(episode.SortCreated) // the one just played first
	x.table.Select(widget.TableCellID{Row: 0, Col: 0})
	played := x.detail.row.ID
	if x.detail.ep == nil || x.detail.ep.Task != "tower" {
		t.Fatalf("the detail shows %+v", x.detail.row)
	}
	// Clear filters: the episode stays on show, selected in the whole listing.
	x.toggleFilters()
	tapIn(t, x, "Clear filters")
	if x.detail.ep == nil || x.detail.row.ID != played {
		t.Fatalf("after Clear filters the detail shows %+v", x.detail.row)
	}
	if x.selected < 0 {
		t.Fatal("after Clear filters the listing selects nothing; the detail shows an episode")
	}
	if r, ok := x.row(x.selected); !ok || r.ID != played {
		t.Fatalf("after Clear filters the listing selects row %d, not the episode on show", x.selected)
	}
	// A filter that leaves it out: the pane empties.
	x.source.SetSelected("odyssey (3)")
	if x.detail.ep != nil || x.detail.page.Visible() || x.detail.viewer.Len() != 0 {
		t.Fatalf("an episode no longer listed is still on show: %q", x.detail.title.Text)
	}
	if x.detail.viewer.Frame().Bounds().Dx() > 1 {
		t.Fatal("the frame of an episode no longer listed is still drawn")
	}
}

// tapIn taps the button of the Explorer's content whose text is text.
func tapIn(t *testing.T, x *Workspace, text string) {
	t.Helper()
	b := uitest.Find(x.Content(), func(b *widget.Button) bool { return b.Text == text })
	if b == nil {
		t.Fatalf("no button %q", text)
	}
	test.Tap(b)
}

// TestExplorerScoreReportsItsRun: Score says what came of it under the button, in view, and
// selects its run in the saved runs: a new run when the settings are new, the run saved before
// when the same file was scored with the same settings (the sample's own run): it used to say
// nothing and select the newest run, another one.
func TestExplorerScoreReportsItsRun(t *testing.T) {
	test.NewTempApp(t)
	st, set := sampleStore(t)
	_, x, w := openExplorer(t, wf(st))
	w.Resize(uitest.Laptop)
	x.tabs.SelectIndex(3)
	sc := x.scoring
	if len(sc.runs) != 1 {
		t.Fatalf("the samples come with %d runs", len(sc.runs))
	}
	sampleRun := sc.runs[0].ID
	sc.setPath(set.OdysseyPredictions)
	if sc.split.Selected != set.OdysseySplit {
		t.Fatalf("split %q picked for %s", sc.split.Selected, set.OdysseyPredictions)
	}
	// lenient: new settings, a new run, selected
	sc.mode.SetSelected(scoringModes[1].label)
	test.Tap(sc.scoreB)
	if len(sc.runs) != 2 {
		t.Fatalf("%d runs after scoring in lenient mode", len(sc.runs))
	}
	lenient, _ := sc.selectedRun()
	if lenient.ID == sampleRun || lenient.Mode != "lenient" {
		t.Fatalf("selected run %+v after scoring in lenient mode", lenient)
	}
	if !sc.outcome.Visible() || !strings.Contains(sc.outcome.Text, "Saved as run #") || !strings.Contains(sc.outcome.Text, "AMS ") {
		t.Fatalf("outcome %q", sc.outcome.Text)
	}
	if r := uitest.InView(t, w, "the outcome of Score", sc.outcome); r.Size.Height < 20 {
		t.Errorf("the outcome of Score is %v", r.Size)
	}
	// official again: the sample's run, selected, and said so
	sc.mode.SetSelected(scoringModes[0].label)
	test.Tap(sc.scoreB)
	if r, _ := sc.selectedRun(); r.ID != sampleRun || len(sc.runs) != 2 {
		t.Fatalf("scoring the sample file again selects run %d of %d, not the sample's run %d", r.ID, len(sc.runs), sampleRun)
	}
	if !strings.Contains(sc.outcome.Text, "scored with these settings before") {
		t.Fatalf("outcome %q", sc.outcome.Text)
	}
}

// TestExplorerDetailReadable: with nothing selected the pane says what to do (it showed empty
// panes with stray splitter handles); with the sample episode on a laptop screen the episode's
// texts are wholly in view beside the frame (a splitter cut "Task: Turn on machine" mid-line),
// the thumbnails' captions fit their action ("1 lon…"), and the search's hint fits its field.
func TestExplorerDetailReadable(t *testing.T) {
	test.NewTempApp(t)
	st, _ := sampleStore(t)
	h, x, w := openExplorer(t, wf(st))
	w.Resize(uitest.Laptop)
	h.Put(x)
	if x.detail.page.Visible() || !x.detail.empty.Visible() || !strings.Contains(uitest.Texts(x.detail.empty), "Select an episode") {
		t.Fatal("with nothing selected the pane shows no empty state")
	}
	if err := x.StartTask(taskEpisode); err != nil {
		t.Fatal(err)
	}
	if !x.detail.page.Visible() || x.detail.empty.Visible() {
		t.Fatal("the episode's page is not on show")
	}
	// at 1024x670 they fit (laid out as they come, the pane on show already); narrower, the
	// column scrolls what does not
	uitest.InView(t, w, "episode texts", x.detail.text)
	if !strings.Contains(x.detail.text.String(), "Task: ") {
		t.Fatalf("the texts: %q", x.detail.text.String())
	}
	cell := x.detail.thumbs.CreateItem()
	need := fyne.MeasureText(longestActionKind, theme.CaptionTextSize(), fyne.TextStyle{}).Width + 2*theme.InnerPadding()
	if got := cell.MinSize().Width; got < need {
		t.Errorf("a thumbnail is %.0f px wide, its caption %q needs %.0f", got, longestActionKind, need)
	}
	if c := thumbCaption(0, "long_press"); !strings.HasSuffix(c, "\nlong_press") {
		t.Errorf("caption %q", c)
	}
	hint := fyne.MeasureText(x.search.PlaceHolder, theme.TextSize(), fyne.TextStyle{}).Width
	if room := x.search.Size().Width - x.search.ActionItem.MinSize().Width - 2*theme.InnerPadding(); hint > room {
		t.Errorf("the search hint %q is %.0f px wide in a %.0f px field", x.search.PlaceHolder, hint, room)
	}
}

// TestExplorerScoringLaidOut: on a laptop screen, after scoring the sample predictions, the
// run's summary is wholly in view (it was cut at the window's foot under the choices) and the
// Score button keeps clear of the splitter beside it.
func TestExplorerScoringLaidOut(t *testing.T) {
	test.NewTempApp(t)
	st, set := sampleStore(t)
	h, x, w := openExplorer(t, wf(st))
	w.Resize(uitest.Laptop)
	x.tabs.SelectIndex(3)
	sc := x.scoring
	sc.setPath(set.OdysseyPredictions)
	test.Tap(sc.scoreB)
	h.Put(x)
	if !strings.Contains(sc.headline.Text, "AMS") {
		t.Fatalf("headline %q", sc.headline.Text)
	}
	uitest.InView(t, w, "the run's headline", sc.headline)
	uitest.InView(t, w, "the run's details", sc.details)
	b := uitest.InView(t, w, "Score", sc.scoreB)
	col, _, ok := uitest.Locate(w, sc.content.(*container.Split).Leading)
	if !ok {
		t.Fatal("the choices' column is not on show")
	}
	if gap := col.Pos.X + col.Size.Width - (b.Pos.X + b.Size.Width); gap < 2*theme.Padding() {
		t.Errorf("the Score button ends %.0f px from the splitter", gap)
	}
}

// TestExplorerStatisticsFitALaptop: with the sample data, every chart of the Statistics tab is
// in view at once on a laptop screen (two rows of two put the third row below the fold).
func TestExplorerStatisticsFitALaptop(t *testing.T) {
	test.NewTempApp(t)
	st, _ := sampleStore(t)
	h, x, w := openExplorer(t, wf(st))
	w.Resize(uitest.Laptop)
	x.tabs.SelectIndex(1)
	h.Put(x)
	s := x.stats
	if !strings.HasPrefix(s.summary.Text, "15 episodes") {
		t.Fatalf("summary %q", s.summary.Text)
	}
	for _, c := range []*widgets.BarChart{s.lengths, s.actions, s.category, s.devices, s.apps, s.splits} {
		if r := uitest.InView(t, w, c.Title, c); r.Size.Height < 150 {
			t.Errorf("%s is %.0f px tall", c.Title, r.Size.Height)
		}
	}
}
