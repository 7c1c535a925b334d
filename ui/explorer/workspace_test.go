package explorer

import (
	"archive/zip"
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"image"
	"image/draw"
	"image/png"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/agentdesk/agentdesk/app/workflow"
	"github.com/agentdesk/agentdesk/engine/conformance"
	"github.com/agentdesk/agentdesk/engine/episode"
	"github.com/agentdesk/agentdesk/engine/mobileenv"
	"github.com/agentdesk/agentdesk/engine/odyssey"
	"github.com/agentdesk/agentdesk/store"
	"github.com/agentdesk/agentdesk/ui/uitest"
)

const odysseyVectors = "../../testdata/conformance/odyssey"

// openExplorer shows the Explorer on st in a test host and returns it.
func openExplorer(t *testing.T, st Store) (*uitest.Host, *Workspace, fyne.Window) {
	t.Helper()
	h := uitest.NewHost(t, 1100, 750)
	x := New(h, st)
	h.Put(x)
	return h, x, h.Win
}

// saveGridworldEpisode stores a played gridworld episode of three steps, each with a 64x64
// first-person thumbnail, as the Gridworld workspace records one.
func saveGridworldEpisode(t *testing.T, st *store.Store) {
	t.Helper()
	e := &episode.Episode{Source: episode.SourceGridworld, ExternalID: "played", Task: "tower"}
	for i := 0; i < 3; i++ {
		var b bytes.Buffer
		png.Encode(&b, image.NewRGBA(image.Rect(0, 0, 64, 64)))
		e.Steps = append(e.Steps, episode.Step{Index: i, Observation: b.Bytes(), Action: episode.Action{Kind: "forward"}})
	}
	if err := st.SaveEpisode(context.Background(), e); err != nil {
		t.Fatal(err)
	}
}

func TestExplorerListsFiltersAndOpens(t *testing.T) {
	test.NewTempApp(t)
	st := uitest.SeededStore(t)
	saveGridworldEpisode(t, st) // as the Gridworld workspace records a played episode
	h, x, _ := openExplorer(t, wf(st))
	if !strings.Contains(x.status.Text, "7 episodes") {
		t.Fatalf("explorer status: %q", x.status.Text)
	}
	if got := strings.Join(x.source.Options, "|"); got != "All sources|gridworld (3)|mobileenv (1)|odyssey (3)" {
		t.Fatalf("source filter options %q", got)
	}
	x.source.SetSelected("gridworld (3)")
	if rows, _ := x.table.Length(); rows != 3 {
		t.Fatalf("gridworld rows %d", rows)
	}
	// Newest first by the stored time: the one just played.
	x.sortBy(episode.SortCreated)
	if r, _ := x.row(0); r.NumSteps != 3 || r.Task != "tower" {
		t.Fatalf("newest gridworld row: %+v", r)
	}
	x.table.Select(widget.TableCellID{Row: 0, Col: 0})
	v := x.detail.viewer
	if v.Len() != 3 {
		t.Fatalf("viewer shows %d steps", v.Len())
	}
	if b := v.Frame().Bounds(); b.Dx() != 64 || b.Dy() != 64 {
		t.Fatalf("gridworld frame is %v, want the 64x64 pov thumbnail", b)
	}
	if len(x.detail.images) != 3 {
		t.Fatalf("%d thumbnails made", len(x.detail.images))
	}
	x.detail.thumbs.Select(2)
	if v.Index() != 2 {
		t.Fatalf("thumbnail 3 shows step %d", v.Index()+1)
	}
	if !x.detail.demoBtn.Hidden {
		t.Fatal("a gridworld episode offers to open in Demonstrations")
	}
	// The filter is remembered for the next time the workspace opens.
	again := New(h, wf(st))
	if again.filter.Source != episode.SourceGridworld || again.count != 3 || again.source.Selected != "gridworld (3)" {
		t.Fatalf("reopened explorer: filter %+v, %d rows, source %q", again.filter, again.count, again.source.Selected)
	}
}

// bulkStore is a store with n synthetic odyssey-like episodes: categories and devices round
// robin, "tokyo" in every seventh task, lengths 1..30.
func bulkStore(t *testing.T, n int) *store.Store {
	t.Helper()
	st := uitest.SeededStore(t)
	ctx := context.Background()
	cats := []string{"General_Tool", "Web_Shopping", "Multi_Apps"}
	err := st.Update(ctx, func(tx *store.Tx) error {
		for i := 0; i < n; i++ {
			task := fmt.Sprintf("Look up the weather in Paris number %d", i)
			if i%7 == 0 {
				task = fmt.Sprintf("Look up the weather in Tokyo number %d", i)
			}
			e := &episode.Episode{Source: "bulk", ExternalID: fmt.Sprint(i), Task: task,
				Facets: map[string][]string{episode.FacetCategory: {cats[i%3]}, episode.FacetDevice: {"Pixel Fold"}}}
			for j := 0; j < 1+i%30; j++ {
				e.Steps = append(e.Steps, episode.Step{Index: j, Action: episode.Action{Kind: "click"}})
			}
			if err := tx.SaveEpisode(ctx, e); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return st
}

func TestExplorerPagesThroughManyEpisodes(t *testing.T) {
	skipUnderRace(t, "paging a 2,450-episode store, read in one goroutine")
	test.NewTempApp(t)
	_, x, _ := openExplorer(t, wf(bulkStore(t, 2450)))
	if x.count != 2456 {
		t.Fatalf("count %d", x.count)
	}
	// Rows are read a page at a time; only the pages touched are kept.
	if r, ok := x.row(420); !ok || r.Source != "bulk" {
		t.Fatalf("row 420: %+v %v", r, ok)
	}
	if _, ok := x.row(2455); !ok {
		t.Fatal("last row missing")
	}
	if _, ok := x.row(2456); ok {
		t.Fatal("row past the end")
	}
	for p := 0; p*explorerPage < x.count; p++ {
		x.row(p * explorerPage)
	}
	if len(x.pages) > explorerKeepPages {
		t.Fatalf("%d pages kept", len(x.pages))
	}
	// A filter change drops the pages read for the previous one.
	selectPrefix(t, x.facets[episode.FacetCategory], "Web_Shopping (")
	if x.count != 817 || len(x.pages) > 1 {
		t.Fatalf("Web_Shopping: %d rows, %d pages kept", x.count, len(x.pages))
	}
	x.minSteps.SetText("10")
	x.maxSteps.SetText("12")
	want := 0
	for i := 0; i < 2450; i++ {
		if i%3 == 1 && 1+i%30 >= 10 && 1+i%30 <= 12 {
			want++
		}
	}
	if x.count != want {
		t.Fatalf("Web_Shopping with 10-12 steps: %d rows, want %d", x.count, want)
	}
	for r := 0; r < x.count; r++ {
		row, _ := x.row(r)
		if row.NumSteps < 10 || row.NumSteps > 12 || row.Facets[episode.FacetCategory][0] != "Web_Shopping" {
			t.Fatalf("row %d does not match the filter: %+v", r, row)
		}
	}
}

// countingStore counts the listing reads the Explorer makes.
type countingStore struct {
	Store
	orders, pages, byID int
}

func (c *countingStore) SortedIDs(ctx context.Context, f episode.Filter, s episode.Sort) ([]int64, error) {
	c.orders++
	return c.Store.SortedIDs(ctx, f, s)
}

func (c *countingStore) MatchingPage(ctx context.Context, f episode.Filter, s episode.Sort, offset, limit int) ([]episode.Row, error) {
	c.pages++
	return c.Store.MatchingPage(ctx, f, s, offset, limit)
}

func (c *countingStore) EpisodeRows(ctx context.Context, ids []int64, text string) ([]episode.Row, error) {
	c.byID++
	return c.Store.EpisodeRows(ctx, ids, text)
}

// Scrolling a listing reads its selection once: the first page on its own, the ids of the whole
// listing when the table needs another page, and every later page by id, until the filter or
// the sort changes.
func TestExplorerReadsTheListingOncePerFilter(t *testing.T) {
	test.NewTempApp(t)
	st := &countingStore{Store: wf(bulkStore(t, 2450))}
	_, x, _ := openExplorer(t, st)
	*st = countingStore{Store: st.Store}
	selectPrefix(t, x.facets[episode.FacetCategory], "Web_Shopping (")
	var got []int64
	for r := 0; r < x.count; r++ {
		row, ok := x.row(r)
		if !ok {
			t.Fatalf("row %d missing", r)
		}
		got = append(got, row.ID)
	}
	pages := (x.count + explorerPage - 1) / explorerPage
	if st.orders != 1 || st.pages != 1 || st.byID != pages-1 {
		t.Fatalf("%d pages read with %d listings, %d pages and %d reads by id", pages, st.orders, st.pages, st.byID)
	}
	want, _ := st.Store.SortedIDs(context.Background(), x.filter, x.sort)
	if !slices.Equal(got, want) {
		t.Fatal("the rows read by id are not the listing")
	}
	x.sortBy(episode.SortSteps)
	x.row(explorerPage * 3)
	if st.orders != 2 {
		t.Fatalf("a new sort read %d listings in all", st.orders)
	}
	direct, _ := st.Store.MatchingPage(context.Background(), x.filter, x.sort, explorerPage*3, 1)
	if r, _ := x.row(explorerPage * 3); r.ID != direct[0].ID {
		t.Fatalf("row %d by steps: episode %d, the store's page says %d", explorerPage*3, r.ID, direct[0].ID)
	}
}

// selectPrefix selects the option that starts with prefix.
func selectPrefix(t *testing.T, s *widget.Select, prefix string) {
	t.Helper()
	for _, o := range s.Options {
		if strings.HasPrefix(o, prefix) {
			s.SetSelected(o)
			return
		}
	}
	t.Fatalf("no option %q in %v", prefix, s.Options)
}

// A search too common to rank (store.RelevanceLimit) is listed in store order, and the status
// line says so; a rarer one is ranked.
func TestExplorerSaysWhenASearchIsTooCommonToRank(t *testing.T) {
	test.NewTempApp(t)
	defer func(n int) { store.RelevanceLimit = n }(store.RelevanceLimit)
	store.RelevanceLimit = 85
	_, x, _ := openExplorer(t, wf(bulkStore(t, 300)))
	x.search.OnSubmitted("tokyo wea") // 43 matches of two words: 86
	if x.count != 43 || x.sort.Key != episode.SortRelevance {
		t.Fatalf("search found %d, sorted by %v", x.count, x.sort.Key)
	}
	if !strings.Contains(x.status.Text, "in store order: the search matches 43 episodes, too many to rank by relevance") {
		t.Fatalf("status %q", x.status.Text)
	}
	prev := int64(0)
	for i := 0; i < x.count; i++ {
		r, _ := x.row(i)
		if r.ID <= prev {
			t.Fatalf("row %d: id %d after %d: not in store order", i, r.ID, prev)
		}
		prev = r.ID
	}
	store.RelevanceLimit = 86
	x.search.OnSubmitted("tokyo weat")
	if !strings.Contains(x.status.Text, "best matches first") {
		t.Fatalf("status %q", x.status.Text)
	}
}

func TestExplorerSearchMarksMatchesAndSorts(t *testing.T) {
	test.NewTempApp(t)
	_, x, w := openExplorer(t, wf(bulkStore(t, 300)))
	x.search.OnSubmitted("tokyo wea")
	if x.count != 43 { // i = 0, 7, ..., 294
		t.Fatalf("search found %d", x.count)
	}
	if x.sort.Key != episode.SortRelevance {
		t.Fatalf("a search sorts by %v", x.sort.Key)
	}
	r, _ := x.row(0)
	var bold []string
	for _, sp := range episode.SplitMarked(r.TaskMarked) {
		if sp.Match {
			bold = append(bold, sp.Text)
		}
	}
	if strings.Join(bold, ",") != "weather,Tokyo" {
		t.Fatalf("marked %q in %q", bold, r.TaskMarked)
	}
	// The Task cell shows the marks as rich text (cut to the column: "weather" comes first).
	w.Resize(fyne.NewSize(1920, 1080)) // the listing has a share of the width: the Episode column shown
	found := false
	uitest.Walk(x.table, func(o fyne.CanvasObject) {
		if rt, ok := o.(*widget.RichText); ok && rt.Visible() {
			for _, seg := range rt.Segments {
				if ts, ok := seg.(*widget.TextSegment); ok && (ts.Text == "Tokyo" || ts.Text == "weather") && ts.Style.TextStyle.Bold {
					found = true
				}
			}
		}
	})
	if !found {
		t.Fatal("no bold match in the table")
	}
	// Sorting by steps, longest first, then reversing.
	x.sortBy(episode.SortSteps)
	first, _ := x.row(0)
	last, _ := x.row(x.count - 1)
	if first.NumSteps < last.NumSteps || x.sort.Desc != true {
		t.Fatalf("steps descending: first %d last %d", first.NumSteps, last.NumSteps)
	}
	x.sortBy(episode.SortSteps)
	first, _ = x.row(0)
	if first.NumSteps != 1 {
		t.Fatalf("steps ascending starts with %d", first.NumSteps)
	}
	if h := x.sortMark(explorerColumns[colSteps]); h != " ▲" {
		t.Fatalf("sort mark %q", h)
	}
	// Clearing the search goes back to store order.
	x.search.OnSubmitted("")
	if x.count != 306 || x.sort.Key == episode.SortRelevance {
		t.Fatalf("cleared search: %d rows sorted by %v", x.count, x.sort.Key)
	}
	// The Episode (external id) and Task headers sort too; a second tap reverses.
	ordered := func(key func(episode.Row) string, desc bool) {
		t.Helper()
		var got []string
		for i := 0; i < x.count; i++ {
			r, _ := x.row(i)
			got = append(got, key(r))
		}
		want := slices.Clone(got)
		slices.Sort(want)
		if desc {
			slices.Reverse(want)
		}
		if !slices.Equal(got, want) {
			t.Fatalf("sorted by %v: %q...", x.sort, got[:8])
		}
	}
	tapHeader(t, x, "Task")
	ordered(func(r episode.Row) string { return strings.ToLower(r.Task) }, false)
	tapHeader(t, x, "Episode")
	ordered(func(r episode.Row) string { return r.ExternalID }, false)
	tapHeader(t, x, "Episode")
	ordered(func(r episode.Row) string { return r.ExternalID }, true)
}

// tapHeader taps the header of the column titled title (with or without its sort mark).
func tapHeader(t *testing.T, x *Workspace, title string) {
	t.Helper()
	var hit *widget.Button
	uitest.Walk(x.table, func(o fyne.CanvasObject) {
		if b, ok := o.(*widget.Button); ok && strings.TrimRight(b.Text, " ▲▼") == title {
			hit = b
		}
	})
	if hit == nil || hit.OnTapped == nil {
		t.Fatalf("no sortable header %q", title)
	}
	test.Tap(hit)
}

func TestExplorerStatisticsCharts(t *testing.T) {
	test.NewTempApp(t)
	_, x, _ := openExplorer(t, wf(bulkStore(t, 90)))
	x.facets[episode.FacetDevice].SetSelected("Pixel Fold (90)")
	x.tabs.SelectIndex(1)
	st := x.stats
	if !strings.HasPrefix(st.summary.Text, "90 episodes, 1395 steps") {
		t.Fatalf("summary %q", st.summary.Text)
	}
	if len(st.category.Bars) != 3 || st.category.Bars[0].Value != 30 || !strings.Contains(st.category.Bars[0].Text, "33.3%") {
		t.Fatalf("category bars %+v", st.category.Bars)
	}
	total := 0.0
	for _, b := range st.lengths.Bars {
		total += b.Value
	}
	if total != 90 || len(st.lengths.Bars) == 0 {
		t.Fatalf("length histogram %+v", st.lengths.Bars)
	}
	if len(st.actions.Bars) != 1 || st.actions.Bars[0].Label != "click" || st.actions.Bars[0].Value != 1395 {
		t.Fatalf("action bars %+v", st.actions.Bars)
	}
	// Tapping a category bar narrows the filter and goes back to the listing.
	st.category.OnTapped(0) // (where a tap lands is widgets' TestBarChartTaps)
	if x.tabs.SelectedIndex() != 0 || len(x.filter.Facets[episode.FacetCategory]) != 1 || x.count != 30 {
		t.Fatalf("after tapping a bar: tab %d, filter %+v, %d rows", x.tabs.SelectedIndex(), x.filter, x.count)
	}
}

func TestExplorerSplits(t *testing.T) {
	test.NewTempApp(t)
	_, x, _ := openExplorer(t, wf(bulkStore(t, 100)))
	x.source.SetSelected("bulk (100)")
	x.tabs.SelectIndex(2)
	sp := x.splits
	if err := sp.createRandom("bulk_random", 0.8, 7); err != nil {
		t.Fatal(err)
	}
	if err := sp.createRandom("bulk_random", 0.8, 7); err == nil {
		t.Fatal("a second split of the same name")
	}
	x.search.OnSubmitted("tokyo")
	if err := sp.createFromFilter("tokyo", "test"); err != nil {
		t.Fatal(err)
	}
	var lines []string
	for _, s := range sp.list {
		lines = append(lines, fmt.Sprintf("%s %s %v", s.Name, s.Kind, s.Parts))
	}
	if strings.Join(lines, "; ") != "bulk_random user [{train 80} {test 20}]; random official [{train 1} {test 1}]; tokyo user [{test 15}]" {
		t.Fatalf("splits: %q", lines)
	}
	// The split filter lists the new splits and their parts.
	if !strings.Contains(strings.Join(x.split.Options, "|"), "bulk_random · test (20)") {
		t.Fatalf("split options %v", x.split.Options)
	}
	x.setFilter(episode.Filter{})
	x.split.SetSelected("bulk_random · test (20)")
	if x.count != 20 {
		t.Fatalf("bulk_random/test lists %d", x.count)
	}
	// Export the split file in the official format.
	out := filepath.Join(t.TempDir(), "bulk_random_split.json")
	if err := x.st.ExportSplitFile(context.Background(), "bulk_random", out); err != nil {
		t.Fatal(err)
	}
	sf, err := odyssey.ReadSplitFile(out)
	if err != nil || len(sf.Part("train")) != 80 || len(sf.Part("test")) != 20 {
		t.Fatalf("exported split file: %v", err)
	}
	// Official splits cannot be deleted; user splits can.
	for i, s := range sp.list {
		if s.Name == "random" {
			sp.table.Select(i)
		}
	}
	if !sp.del.Disabled() {
		t.Fatal("delete offered for an official split")
	}
	for i, s := range sp.list {
		if s.Name == "bulk_random" {
			sp.table.Select(i)
		}
	}
	if sp.del.Disabled() {
		t.Fatal("delete not offered for a user split")
	}
	sp.deleteSplit("bulk_random")
	if x.filter.Split != "" || len(sp.list) != 2 {
		t.Fatalf("after delete: filter %+v, %d splits", x.filter, len(sp.list))
	}
}

// importSample imports the conformance sample into a fresh store through the workspace.
func importSample(t *testing.T) (*Workspace, fyne.Window) {
	t.Helper()
	test.NewTempApp(t)
	_, x, w := openExplorer(t, wf(uitest.SeededStore(t)))
	dir := copyTree(t, filepath.Join(odysseyVectors, "sample"))
	x.importFolder(dir)
	if n := x.filter.Source; n != "" {
		t.Fatalf("filter %q", n)
	}
	if got := x.source.Options; !strings.Contains(strings.Join(got, "|"), "odyssey (13)") {
		t.Fatalf("after import, sources %v", got)
	}
	return x, w
}

func copyTree(t *testing.T, src string) string {
	t.Helper()
	dst := filepath.Join(t.TempDir(), filepath.Base(src))
	conformance.CopyTree(t, src, dst)
	return dst
}

func TestExplorerImportsBrowsesAndExportsOdyssey(t *testing.T) {
	x, _ := importSample(t)
	x.source.SetSelected("odyssey (13)")
	x.split.SetSelected(x.split.Options[len(x.split.Options)-1])
	x.setFilter(episode.Filter{Source: episode.SourceOdyssey, Split: "random_split", Part: "test"})
	if x.count != 6 {
		t.Fatalf("random_split test lists %d", x.count)
	}
	x.table.Select(widget.TableCellID{Row: 0, Col: 0})
	v := x.detail.viewer
	if v.Len() == 0 || len(x.detail.images) != v.Len() {
		t.Fatalf("viewer %d steps, %d thumbnails", v.Len(), len(x.detail.images))
	}
	if b := v.Frame().Bounds(); b.Dx() < 30 {
		t.Fatalf("screenshot not decoded: %v", b)
	}
	if !strings.Contains(x.detail.title.Text, "odyssey/") || x.detail.row.Facets[episode.FacetCategory] == nil {
		t.Fatalf("detail title %q", x.detail.title.Text)
	}

	dest := filepath.Join(t.TempDir(), "sel.jsonl")
	x.setFilter(episode.Filter{})
	x.exportTo(odyssey.FormatJSONL, dest, true)
	f, err := os.Open(dest)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	n := 0
	for sc := bufio.NewScanner(f); sc.Scan(); n++ {
		var ep struct {
			EpisodeID string `json:"episode_id"`
		}
		if err := json.Unmarshal(sc.Bytes(), &ep); err != nil || ep.EpisodeID == "" {
			t.Fatalf("line %d: %v", n+1, err)
		}
	}
	if n != 13 { // the 10 imported and the 3 of the seeded store
		t.Fatalf("exported %d odyssey episodes of 13", n)
	}
	folder := t.TempDir()
	x.setFilter(episode.Filter{Split: "random_split", Part: "test"})
	x.exportTo(odyssey.FormatJSON, folder, true)
	files, _ := os.ReadDir(filepath.Join(folder, "annotations"))
	if len(files) != 6 {
		t.Fatalf("%d annotation files for the 6 test episodes", len(files))
	}
	for _, file := range files {
		orig, _ := os.ReadFile(filepath.Join(odysseyVectors, "sample", "annotations", file.Name()))
		back, _ := os.ReadFile(filepath.Join(folder, "annotations", file.Name()))
		var a, b any
		json.Unmarshal(orig, &a)
		json.Unmarshal(back, &b)
		if a == nil || fmt.Sprint(a) != fmt.Sprint(b) {
			t.Fatalf("%s does not round-trip", file.Name())
		}
	}
}

func TestExplorerScoresLikeTheOfficialEvaluation(t *testing.T) {
	x, _ := importSample(t)
	var expected struct {
		Splits map[string]struct {
			Metric       string          `json:"metric"`
			ExpectedInfo json.RawMessage `json:"expected_info"`
			PerStep      []struct {
				IsCorrect string `json:"is_correct"`
			} `json:"per_step"`
		} `json:"splits"`
	}
	data, err := os.ReadFile(filepath.Join(odysseyVectors, "e2e", "e2e_expected.json"))
	if err != nil {
		t.Fatal(err)
	}
	json.Unmarshal(data, &expected)
	x.tabs.SelectIndex(3)
	sc := x.scoring
	for _, split := range []string{"random_split", "device_split"} {
		exp := expected.Splits["high_"+split]
		var info struct {
			AMS, SR json.Number
		}
		json.Unmarshal(exp.ExpectedInfo, &info)
		sc.setPath(filepath.Join(odysseyVectors, "e2e", "predictions_high_"+split+".json"))
		if sc.split.Selected != split {
			t.Fatalf("the file's split was not picked: %q", sc.split.Selected)
		}
		sc.score()
		if want := fmt.Sprintf("AMS %s · SR %s", info.AMS, info.SR); sc.headline.Text != want {
			t.Fatalf("%s: headline %q, want %q (%s)", split, sc.headline.Text, want, sc.details.Text)
		}
		label := "step accuracy"
		if exp.Metric == "micro" {
			label = "per-category mean"
		}
		if !strings.HasPrefix(sc.details.Text, label) || !strings.Contains(sc.details.Text, ", official.") {
			t.Fatalf("%s: details %q", split, sc.details.Text)
		}
		wrong := 0
		for _, p := range exp.PerStep {
			if p.IsCorrect != "yes" {
				wrong++
			}
		}
		if len(sc.failures) != wrong || sc.viewer.Len() != wrong {
			t.Fatalf("%s: %d failures listed, %d in the viewer, expected %d", split, len(sc.failures), sc.viewer.Len(), wrong)
		}
		if len(sc.breakdowns[odyssey.ByCategory]) == 0 || len(sc.groups) == 0 {
			t.Fatalf("%s: no breakdown", split)
		}
	}
	// Walking the failures: each shows its screenshot with the prediction drawn in.
	for i := range sc.failures {
		if sc.failures[i].PredAction.Points == nil {
			continue
		}
		sc.failList.Select(i)
		img := sc.viewer.Frame()
		if img.Bounds().Dx() < 30 {
			t.Fatalf("failure %d: no screenshot (%v)", i, first(sc.viewer.Captions()))
		}
		f := sc.failures[i]
		p := f.PredAction.Points[0]
		px := image.Pt(int(p.X*float64(img.Bounds().Dx())), int(p.Y*float64(img.Bounds().Dy())))
		if c := img.At(px.X, px.Y); c != predictedColour && fmt.Sprint(c) != fmt.Sprint(predictedColour) {
			r, g, b, _ := c.RGBA()
			if r>>8 != 235 || g>>8 != 70 || b>>8 != 40 {
				t.Fatalf("failure %d: no prediction cross at %v: %v", i, px, c)
			}
		}
		if _, caption := sc.viewer.Captions(); !strings.Contains(caption, f.Info) {
			t.Fatalf("failure %d caption %q", i, caption)
		}
		break
	}
	// A random split whose predictions cover fewer than six categories aborts; lenient mode
	// still computes numbers, labelled as not official.
	sc.split.SetSelected("random_split")
	sc.setPath(filepath.Join(odysseyVectors, "e2e", "predictions_high_device_split.json"))
	sc.split.SetSelected("random_split")
	sc.score()
	if sc.headline.Text != "The official evaluation aborts" {
		t.Fatalf("aborting evaluation shows %q / %q", sc.headline.Text, sc.details.Text)
	}
	sc.mode.SetSelected(scoringModes[1].label)
	sc.score()
	if !strings.HasPrefix(sc.headline.Text, "AMS ") || !strings.Contains(sc.details.Text, "NOT official") {
		t.Fatalf("lenient: %q / %q", sc.headline.Text, sc.details.Text)
	}
	lenient := sc.headline.Text

	// Every run is listed (newest first, the aborted official one was not saved); opening one
	// shows its numbers and failing steps again; deleting one removes it from the list.
	if len(sc.runs) != 3 || !strings.Contains(sc.runSel.Selected, "high_random_split · lenient") {
		t.Fatalf("saved runs %q (selected %q)", sc.runSel.Options, sc.runSel.Selected)
	}
	sc.runSel.SetSelected(sc.runSel.Options[2]) // the first run: official, random split
	sc.split.SetSelected(sc.split.Options[len(sc.split.Options)-1])
	sc.mode.SetSelected(scoringModes[2].label)
	sc.openRun()
	if r, _ := sc.selectedRun(); sc.split.Selected != r.Split || sc.mode.Selected != scoringModes[0].label || sc.path != r.PredictionsPath {
		t.Fatalf("a reopened run shows split %q, mode %q, file %q; it was scored on %q, %s, from %q",
			sc.split.Selected, sc.mode.Selected, sc.path, r.Split, r.Mode, r.PredictionsPath)
	}
	exp := expected.Splits["high_random_split"]
	var info struct{ AMS, SR json.Number }
	json.Unmarshal(exp.ExpectedInfo, &info)
	if want := fmt.Sprintf("AMS %s · SR %s", info.AMS, info.SR); sc.headline.Text != want || !strings.Contains(sc.details.Text, ", official.") {
		t.Fatalf("opened run: %q, want %q (%s)", sc.headline.Text, want, sc.details.Text)
	}
	if len(sc.failures) == 0 || sc.viewer.Len() != len(sc.failures) {
		t.Fatalf("opened run lists %d failures, the viewer %d", len(sc.failures), sc.viewer.Len())
	}
	sc.runSel.SetSelected(sc.runSel.Options[0])
	sc.openRun()
	if sc.headline.Text != lenient || !strings.Contains(sc.details.Text, "NOT official") {
		t.Fatalf("opened lenient run: %q / %q", sc.headline.Text, sc.details.Text)
	}
	run, _ := sc.selectedRun()
	sc.deleteRun(run.ID) // what the confirmation dialog does on Yes
	if len(sc.runs) != 2 || strings.Contains(strings.Join(sc.runSel.Options, "|"), "lenient") {
		t.Fatalf("after deleting: %q", sc.runSel.Options)
	}

	// The metric is fixed for official splits and a choice for user splits; the prompt level
	// labels the run.
	if !sc.metric.Disabled() {
		t.Fatal("the metric can be changed for an official split")
	}
	if _, err := x.st.CreateSplitFromFilter(context.Background(), "mine", "test", episode.Filter{Split: "device_split", Part: "test"}); err != nil {
		t.Fatal(err)
	}
	sc.refreshSplits()
	sc.split.SetSelected("mine")
	if sc.metric.Disabled() {
		t.Fatal("no metric choice for a user split")
	}
	sc.metric.SetSelected(scoringMetrics[2].label) // step accuracy: the device split's numbers
	sc.level.SetSelected(odyssey.LevelLow)
	sc.mode.SetSelected(scoringModes[0].label)
	sc.score()
	dev := expected.Splits["high_device_split"]
	json.Unmarshal(dev.ExpectedInfo, &info)
	if want := fmt.Sprintf("AMS %s · SR %s", info.AMS, info.SR); sc.headline.Text != want || !strings.HasPrefix(sc.details.Text, "step accuracy") {
		t.Fatalf("user split by step accuracy: %q, want %q (%s)", sc.headline.Text, want, sc.details.Text)
	}
	sc.metric.SetSelected(scoringMetrics[1].label) // the per-category mean, which needs six categories
	sc.mode.SetSelected(scoringModes[1].label)
	sc.score()
	if !strings.HasPrefix(sc.details.Text, "per-category mean") || !strings.Contains(sc.details.Text, "chosen for mine") {
		t.Fatalf("user split by the per-category mean: %q / %q", sc.headline.Text, sc.details.Text)
	}
	if !strings.Contains(sc.runSel.Selected, "low_mine") {
		t.Fatalf("the new run is labelled %q", sc.runSel.Selected)
	}
}

func TestExplorerOpensMobileEnvEpisodeInDemonstrations(t *testing.T) {
	test.NewTempApp(t)
	st := uitest.SeededStore(t)
	path := filepath.Join(t.TempDir(), "demo_task.pkl")
	data, err := os.ReadFile(filepath.Join(odysseyVectors, "..", "mobileenv", "pickles", "inputs", "synthetic_documented.pkl"))
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(path, data, 0o644)
	f, err := mobileenv.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	for i := range f.Trajectories { // as the Demonstrations workspace imports a file
		ep, err := f.Episode(i, mobileenv.EpisodeOptions{EncodePNG: true})
		if err != nil {
			t.Fatal(err)
		}
		ep.ExternalID = mobileenv.ExternalID(path, i)
		if err := st.SaveEpisode(context.Background(), &ep); err != nil {
			t.Fatal(err)
		}
	}
	h, x, _ := openExplorer(t, wf(st))
	x.setFilter(episode.Filter{Source: episode.SourceMobileEnv})
	x.sortBy(episode.SortID)
	x.sortBy(episode.SortID) // newest first
	var target episode.Row
	for r := 0; r < x.count; r++ {
		row, _ := x.row(r)
		if strings.HasSuffix(row.ExternalID, "#1") {
			target = row
		}
	}
	if target.ID == 0 {
		t.Fatal("the imported trajectory 1 is not listed")
	}
	x.detail.open(target)
	if x.detail.demoBtn.Hidden {
		t.Fatal("no Open in Demonstrations for a Mobile-Env episode")
	}
	x.detail.openInDemonstrations()
	// (the shell shows the workspace that opens the file: TestShellRoutesFiles; the
	// Demonstrations workspace selects the trajectory: TestDemonstrationsOpenAtATrajectory)
	if len(h.Opened) != 1 || h.Opened[0] != path || h.OpenedAt[0] != 1 {
		t.Fatalf("asked to open %v at %v", h.Opened, h.OpenedAt)
	}
}

func TestFitFrame(t *testing.T) {
	big := image.NewRGBA(image.Rect(0, 0, 1080, 2400))
	if b := fitFrame(big, 1200).Bounds(); b.Dx() != 540 || b.Dy() != 1200 {
		t.Fatalf("portrait fitted to %v", b)
	}
	wide := image.NewRGBA(image.Rect(0, 0, 2560, 1600))
	if b := fitFrame(wide, 1200).Bounds(); b.Dx() != 1200 || b.Dy() != 750 {
		t.Fatalf("landscape fitted to %v", b)
	}
	small := image.NewRGBA(image.Rect(0, 0, 64, 64))
	if fitFrame(small, 1200) != image.Image(small) {
		t.Fatal("a small frame was copied")
	}
	if b := thumbnail(big, thumbHeight).Bounds(); b.Dy() != thumbHeight || b.Dx() != 1080*thumbHeight/2400 {
		t.Fatalf("thumbnail %v", b)
	}
}

func TestFrameSourceReadsZippedScreenshotsAndLetsGo(t *testing.T) {
	dir := t.TempDir()
	zpath := filepath.Join(dir, "shots.zip")
	zf, _ := os.Create(zpath)
	zw := zip.NewWriter(zf)
	w, _ := zw.Create("screenshots/ep_0.png")
	png.Encode(w, image.NewRGBA(image.Rect(0, 0, 30, 60)))
	zw.Close()
	zf.Close()
	f := newFrameSource(20 * time.Millisecond)
	step := &episode.Step{ObservationRef: odyssey.ZipRef(zpath, "screenshots/ep_0.png")}
	for i := 0; i < 2; i++ { // the second read comes after the archive was closed
		img, err := f.load(step)
		if err != nil || img.Bounds().Dx() != 30 {
			t.Fatalf("read %d: %v %v", i, img, err)
		}
		time.Sleep(60 * time.Millisecond)
	}
	if _, err := f.load(&episode.Step{ObservationRef: odyssey.ZipRef(zpath, "missing.png")}); err == nil {
		t.Fatal("a missing member read")
	}
	if _, err := f.load(&episode.Step{}); err == nil {
		t.Fatal("a step without a frame read")
	}
}

// A GUI Odyssey folder dropped on the window (or a zip of its annotations) is imported in the
// Explorer, which opens for it.
func TestDroppedOdysseyDatasetIsImported(t *testing.T) {
	test.NewTempApp(t)
	st := uitest.SeededStore(t)
	_, x, _ := openExplorer(t, wf(st))
	dir := copyTree(t, filepath.Join(odysseyVectors, "sample"))
	if !x.Opens(dir) {
		t.Fatal("the workspace does not take a dataset folder")
	}
	if err := x.Open(dir, -1); err != nil { // as the shell opens a dropped folder
		t.Fatal(err)
	}
	if n, _ := st.CountMatching(context.Background(), episode.Filter{Source: episode.SourceOdyssey}); n != 13 {
		t.Fatalf("%d odyssey episodes after dropping the folder", n)
	}

	// The same episodes zipped, alone in a folder with their splits: the drop imports its folder.
	zdir := filepath.Join(t.TempDir(), "zipped")
	os.MkdirAll(zdir, 0o755)
	zf, err := os.Create(filepath.Join(zdir, "annotations.zip"))
	if err != nil {
		t.Fatal(err)
	}
	zw := zip.NewWriter(zf)
	files, _ := filepath.Glob(filepath.Join(dir, "annotations", "*.json"))
	for _, p := range files {
		data, _ := os.ReadFile(p)
		data = []byte(strings.Replace(string(data), "Pixel", "Pixel ", 1)) // new content: not a no-op
		w, _ := zw.Create("annotations/" + filepath.Base(p))
		w.Write(data)
	}
	zw.Close()
	zf.Close()
	if zip := filepath.Join(zdir, "annotations.zip"); !x.Opens(zip) {
		t.Fatal("the workspace does not take a zip of annotations")
	} else if err := x.Open(zip, -1); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(x.status.Text, "16 episodes") { // the same 10 episodes, updated
		t.Fatalf("explorer status after the zip: %q", x.status.Text)
	}
	var runs int
	st.DB().QueryRow(`SELECT count(*) FROM odyssey_imports`).Scan(&runs)
	if runs != 2 {
		t.Fatalf("%d imports recorded", runs)
	}
	if x.Opens(filepath.Join(dir, "SAMPLE.json")) {
		t.Fatal("a dropped JSON file that is no dataset was taken")
	}
}

// The predicted action's cross reads on a screenshot of its own red: it has a white edge. A
// screenshot of a few pixels is enlarged first, so the cross marks a point instead of covering
// the frame.
func TestPredictionCrossReadsOnRedAndTinyFrames(t *testing.T) {
	for _, size := range []image.Point{{120, 200}, {600, 1000}, {4, 8}} {
		img := image.NewRGBA(image.Rect(0, 0, size.X, size.Y))
		draw.Draw(img, img.Bounds(), image.NewUniform(predictedColour), image.Point{}, draw.Src)
		out := drawPrediction(img, episode.Action{Kind: "click", Points: []episode.Point{{X: 0.5, Y: 0.5}}})
		b := out.Bounds()
		if max(b.Dx(), b.Dy()) < predictionMinSide || b.Dx()*size.Y != b.Dy()*size.X {
			t.Fatalf("%v drawn on %v", size, b)
		}
		red, white := 0, 0
		cx, cy, r := b.Dx()/2, b.Dy()/2, min(b.Dx(), b.Dy())/10
		for y := cy - r; y < cy+r; y++ {
			for x := cx - r; x < cx+r; x++ {
				switch r, g, b, _ := out.At(x, y).RGBA(); {
				case r>>8 == 255 && g>>8 == 255 && b>>8 == 255:
					white++
				case r>>8 == 235 && g>>8 == 70 && b>>8 == 40:
					red++
				}
			}
		}
		if white < 20 || red < r*r {
			t.Fatalf("%v: around the cross %d white and %d red pixels", size, white, red)
		}
	}
	// On a white screenshot the cross covers a small part of it.
	img := image.NewRGBA(image.Rect(0, 0, 4, 8))
	draw.Draw(img, img.Bounds(), image.White, image.Point{}, draw.Src)
	out := drawPrediction(img, episode.Action{Kind: "click", Points: []episode.Point{{X: 0.5, Y: 0.5}}})
	covered := 0
	for y := out.Bounds().Min.Y; y < out.Bounds().Max.Y; y++ {
		for x := out.Bounds().Min.X; x < out.Bounds().Max.X; x++ {
			if r, _, _, _ := out.At(x, y).RGBA(); r>>8 != 255 {
				covered++
			}
		}
	}
	if all := out.Bounds().Dx() * out.Bounds().Dy(); covered*10 > all {
		t.Fatalf("the cross covers %d of %d pixels of a tiny screenshot", covered, all)
	}
}

// The importer records the folder among the recent files, once, in its own transaction.
func TestExplorerImportRecordsTheFolderAsRecent(t *testing.T) {
	test.NewTempApp(t)
	st := uitest.SeededStore(t)
	_, x, _ := openExplorer(t, wf(st))
	dir := copyTree(t, filepath.Join(odysseyVectors, "sample"))
	x.importFolder(dir)
	recent, err := st.Recent(context.Background(), 10)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, r := range recent {
		if r.Path == dir {
			n++
			if r.Kind != "odyssey" {
				t.Fatalf("recent %s kind %q", r.Path, r.Kind)
			}
		}
	}
	if n != 1 {
		t.Fatalf("the folder is %d times among the recent files %v", n, recent)
	}
}

func first(info, _ string) string { return info }

// wf is st as the app gives it to the workspace: with the imports and scoring of app/workflow.
func wf(st *store.Store) Store { return workflow.Workflows{Store: st} }

// TestExplorerFitsALaptop: every tab, with a dataset imported and a scoring run, fits a
// 1024x700 screen.
func TestExplorerFitsALaptop(t *testing.T) {
	x, _ := importSample(t)
	for i := range x.tabs.Items {
		x.tabs.SelectIndex(i)
		uitest.Fits(t, "Explorer tab "+x.tabs.Items[i].Text, x.Content())
	}
}

// TestEmptyExplorerFitsALaptop: the empty store's explanation wraps instead of widening the
// window (it did, to 1224 pixels).
func TestEmptyExplorerFitsALaptop(t *testing.T) {
	test.NewTempApp(t)
	_, x, _ := openExplorer(t, wf(uitest.OpenStore(t)))
	if !strings.Contains(x.status.Text, "no episode yet") {
		t.Fatalf("status %q", x.status.Text)
	}
	uitest.Fits(t, "the empty Explorer", x.Content())
}

// TestSplitFormsKeepTheirInput: the split forms fit the window and keep Create off while a
// field is wrong, instead of closing and then showing the error.
func TestSplitFormsKeepTheirInput(t *testing.T) {
	test.NewTempApp(t)
	_, x, w := openExplorer(t, wf(bulkStore(t, 20)))
	w.Resize(uitest.Laptop)
	x.splits.randomDialog()
	top := uitest.DialogFits(t, "Random split", w)
	var entries []*widget.Entry
	uitest.Walk(top, func(o fyne.CanvasObject) {
		if e, ok := o.(*widget.Entry); ok {
			entries = append(entries, e)
		}
	})
	create := uitest.Find(top, func(b *widget.Button) bool { return b.Text == "Create" })
	test.Type(entries[0], "mine")
	if create.Disabled() {
		t.Fatal("Create is off with valid input")
	}
	entries[1].SetText("180")
	if !create.Disabled() {
		t.Fatal("Create is on with a train share of 180 %")
	}
}

// TestExplorerIDColumnFitsLongIDs: a store with six-digit episode ids (any store past 100,000
// episodes) widens the ID column to show them whole; a small store keeps it narrow.
func TestExplorerIDColumnFitsLongIDs(t *testing.T) {
	test.NewTempApp(t)
	st := uitest.SeededStore(t)
	_, x, _ := openExplorer(t, wf(st))
	narrow := x.columns.Width("ID")
	if narrow == 0 {
		t.Fatal("no ID column")
	}
	ctx := context.Background()
	if _, err := st.DB().ExecContext(ctx, `INSERT INTO episodes (id, source, external_id, task) VALUES (216543, 'bulk', 'far', 'an episode with a long id')`); err != nil {
		t.Fatal(err)
	}
	x.reload()
	for r := 0; r < x.count; r++ {
		x.row(r)
	}
	need := fyne.MeasureText("216543", theme.TextSize(), fyne.TextStyle{}).Width + 2*theme.InnerPadding()
	if got := x.columns.Width("ID"); got < need || got <= narrow {
		t.Fatalf("ID column %v wide with a six-digit id (%v needed; %v before)", got, need, narrow)
	}
	if narrow >= need {
		t.Fatalf("the ID column started at %v, wide enough for six digits: the test shows nothing", narrow)
	}
}
