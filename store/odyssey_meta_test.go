package store

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/agentdesk/agentdesk/engine/episode"
	"github.com/agentdesk/agentdesk/engine/odyssey"
)

// The meta-task (task_info.meta_task): a column of episodes, a facet, and a column of the
// full-text index (migration 6).

const metaSample = "../testdata/conformance/odyssey/sample"

// sampleMetaTasks reads the meta-task of every annotation of the sample, by episode id.
func sampleMetaTasks(t *testing.T) map[string]string {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(metaSample, "annotations", "*.json"))
	out := map[string]string{}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		a, err := odyssey.ParseAnnotation(f, data)
		if err != nil {
			t.Fatal(err)
		}
		out[a.EpisodeID] = a.Task.MetaTask
	}
	if len(out) != 10 {
		t.Fatalf("%d sample annotations", len(out))
	}
	return out
}

func importMetaSample(t *testing.T, s *Store, force bool) {
	t.Helper()
	ds, err := odyssey.OpenDataset(metaSample)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.ImportOdyssey(context.Background(), ds, OdysseyImportOptions{Force: force}); err != nil {
		t.Fatal(err)
	}
}

// metaTaskState is what the store holds of every episode's meta-task: the column, the facet
// rows and whether the full-text index finds the episode by its meta-task's words.
func metaTaskState(t *testing.T, s *Store) (column, facet map[string]string) {
	t.Helper()
	column, facet = map[string]string{}, map[string]string{}
	rows, err := s.db.Query(`SELECT external_id, meta_task FROM episodes`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var id, m string
		rows.Scan(&id, &m)
		column[id] = m
	}
	rows.Close()
	rows, err = s.db.Query(`SELECT e.external_id, f.value FROM episode_facets f JOIN episodes e ON e.id = f.episode_id WHERE f.facet = ?`, episode.FacetMetaTask)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var id, m string
		rows.Scan(&id, &m)
		if prev, dup := facet[id]; dup {
			t.Fatalf("episode %s has two meta-task facets: %q and %q", id, prev, m)
		}
		facet[id] = m
	}
	rows.Close()
	return column, facet
}

func TestOdysseyImportStoresMetaTask(t *testing.T) {
	ctx := context.Background()
	s := openTemp(t)
	want := sampleMetaTasks(t)
	for _, force := range []bool{false, true} { // a re-import replaces, never duplicates
		importMetaSample(t, s, force)
		column, facet := metaTaskState(t, s)
		if !reflect.DeepEqual(column, want) || !reflect.DeepEqual(facet, want) {
			t.Fatalf("force=%v: column %v\nfacets %v\nwant %v", force, column, facet, want)
		}
	}
	// The episode and the listing carry it; the facets read with the episode leave it out.
	id, err := s.EpisodeID(ctx, episode.Key{Source: episode.SourceOdyssey, ExternalID: "4691471567147560"})
	if err != nil {
		t.Fatal(err)
	}
	e, err := s.Episode(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if e.MetaTask != want["4691471567147560"] || e.Facets[episode.FacetMetaTask] != nil {
		t.Fatalf("episode meta-task %q, facets %v", e.MetaTask, e.Facets)
	}
	rows, err := s.EpisodeRows(ctx, []int64{id}, "")
	if err != nil || len(rows) != 1 || rows[0].MetaTask != e.MetaTask {
		t.Fatalf("listing row %+v, %v", rows, err)
	}
	// What the viewer reads back of the stored episode: device, notes and the scroll's path.
	dev, ok := odyssey.DeviceOf(e.Metadata)
	if want := (odyssey.Device{Name: "Pixel 7 Pro", Product: "sdk_gphone64_x86_64", Release: "14", SDK: "34", W: 1440, H: 3120}); !ok || dev != want {
		t.Fatalf("device %+v, want %+v", dev, want)
	}
	notes := odyssey.NotesOf(e.Steps)
	if len(notes) != 1 || notes[0].Step != 11 || notes[0].Action != "INCOMPLETE" || !strings.Contains(notes[0].Text, "login") {
		t.Fatalf("notes %+v", notes)
	}
	path := odyssey.PathOf(&e.Steps[4])
	if len(path) != 8 || path[0] != (episode.Point{X: 0.419, Y: 0.708}) || path[7] != (episode.Point{X: 0.388, Y: 0.458}) {
		t.Fatalf("scroll path %v", path)
	}
}

func TestMetaTaskFilterAndSearch(t *testing.T) {
	ctx := context.Background()
	s := openTemp(t)
	importMetaSample(t, s, false)
	want := sampleMetaTasks(t)
	counts := map[string]int{}
	for _, m := range want {
		counts[m]++
	}

	// The filter's choice lists every meta-task with its number of episodes.
	values, err := s.FacetValues(ctx, episode.FacetMetaTask)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]int{}
	for _, c := range values {
		got[c.Value] = c.N
	}
	if !reflect.DeepEqual(got, counts) {
		t.Fatalf("facet values %v, want %v", got, counts)
	}
	// Filtering by one (alone, with another facet, with a split) selects exactly its episodes.
	shared := "Share a photo of {} to Instagram and send the link to a friend on WhatsApp."
	if counts[shared] != 2 {
		t.Fatalf("the sample has %d episodes of %q", counts[shared], shared)
	}
	for _, c := range []struct {
		f    episode.Filter
		want int
	}{
		{episode.Filter{}.WithFacet(episode.FacetMetaTask, shared), 2},
		{episode.Filter{}.WithFacet(episode.FacetMetaTask, shared, "Find a highly recommended {} and purchase one."), 4},
		{episode.Filter{}.WithFacet(episode.FacetMetaTask, shared).WithFacet(episode.FacetDevice, "Pixel Tablet"), 2},
		{episode.Filter{}.WithFacet(episode.FacetMetaTask, shared).WithFacet(episode.FacetDevice, "Small Phone"), 0},
		{episode.Filter{Text: "whatsapp"}.WithFacet(episode.FacetMetaTask, shared), 2},
		{episode.Filter{}.WithFacet(episode.FacetMetaTask, "no such template {}"), 0},
	} {
		n, err := s.CountMatching(ctx, c.f)
		if err != nil || n != c.want {
			t.Errorf("%s: %d, %v; want %d", c.f.Describe(), n, err, c.want)
		}
		for _, srt := range []episode.Sort{{Key: episode.SortID}, {Key: episode.SortTask, Desc: true}, {Key: episode.SortRelevance}} {
			rows, err := s.MatchingPage(ctx, c.f, srt, 0, 100)
			if err != nil || len(rows) != c.want {
				t.Fatalf("%s by %v: %d rows, %v", c.f.Describe(), srt.Key, len(rows), err)
			}
			for _, r := range rows {
				if ms := c.f.Facets[episode.FacetMetaTask]; !contains(ms, r.MetaTask) {
					t.Errorf("%s: row %s has meta-task %q", c.f.Describe(), r.ExternalID, r.MetaTask)
				}
			}
		}
	}

	// The search finds a word that only the meta-task holds, and marks it there.
	e := &episode.Episode{Source: "test", ExternalID: "m1", Task: "Order a pizza for tonight",
		MetaTask: "Order {} through the Zanzibar template", Instruction: "Use the app to order"}
	if err := s.SaveEpisode(ctx, e); err != nil {
		t.Fatal(err)
	}
	search := func(text string) []episode.Row {
		t.Helper()
		f := episode.Filter{Text: text}
		n, err := s.CountMatching(ctx, f)
		if err != nil {
			t.Fatal(err)
		}
		rows, err := s.MatchingPage(ctx, f, episode.Sort{Key: episode.SortRelevance}, 0, 100)
		if err != nil || len(rows) != n {
			t.Fatalf("search %q: %d rows of %d, %v", text, len(rows), n, err)
		}
		return rows
	}
	rows := search("zanzi")
	if len(rows) != 1 || rows[0].ID != e.ID || rows[0].MetaTaskMarked != "Order {} through the "+episode.MatchStart+"Zanzibar"+episode.MatchEnd+" template" {
		t.Fatalf("search zanzi: %+v", rows)
	}
	if rows := search("pizza zanzibar"); len(rows) != 1 { // words across task and meta-task
		t.Fatalf("task and meta-task words together: %d rows", len(rows))
	}
	if v, _ := s.FacetValues(ctx, episode.FacetMetaTask); len(v) != len(counts)+1 {
		t.Fatalf("a saved episode's meta-task is not a facet: %v", v)
	}
	// Saving again re-indexes it, deleting removes it.
	e.MetaTask = "Order {} through the Mombasa template"
	if err := s.SaveEpisode(ctx, e); err != nil {
		t.Fatal(err)
	}
	if len(search("zanzibar")) != 0 || len(search("mombasa")) != 1 {
		t.Fatal("a changed meta-task is not re-indexed")
	}
	if n, _ := s.CountMatching(ctx, episode.Filter{}.WithFacet(episode.FacetMetaTask, "Order {} through the Zanzibar template")); n != 0 {
		t.Fatal("the old meta-task facet is still there")
	}
	if err := s.DeleteEpisode(ctx, e.ID); err != nil {
		t.Fatal(err)
	}
	if len(search("mombasa")) != 0 {
		t.Fatal("a deleted episode is still found")
	}
	// An episode without a meta-task has no facet row.
	if err := s.SaveEpisode(ctx, &episode.Episode{Source: "test", ExternalID: "plain", Task: "x"}); err != nil {
		t.Fatal(err)
	}
	if v, _ := s.FacetValues(ctx, episode.FacetMetaTask); len(v) != len(counts) {
		t.Fatalf("meta-task values %v", v)
	}
}

// A store written before migration 6 (meta_task) gets the meta-task of its GUI Odyssey episodes from the
// task_info kept in their metadata: column, facet and full-text index.
func TestMigrationSixBackfillsMetaTask(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "v5.db")
	db, err := sql.Open("sqlite", dsn(path, modeReadWrite))
	if err != nil {
		t.Fatal(err)
	}
	old := &Store{reader: reader{q: db}, db: db, path: path}
	metaVersion := 0
	for _, m := range migrations {
		if m.name == "meta_task" {
			metaVersion = m.version
			break
		}
		if err := old.applyMigration(ctx, m); err != nil {
			t.Fatal(err)
		}
	}
	if metaVersion != 6 {
		t.Fatalf("the meta-task migration is version %d", metaVersion)
	}
	// Odyssey episodes as the importer of schema 5 stored them: metadata from MetadataJSON.
	want := sampleMetaTasks(t)
	files, _ := filepath.Glob(filepath.Join(metaSample, "annotations", "*.json"))
	for _, f := range files {
		data, _ := os.ReadFile(f)
		a, err := odyssey.ParseAnnotation(f, data)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := db.Exec(`INSERT INTO episodes (source, external_id, task, instruction, num_steps, metadata) VALUES ('odyssey', ?, ?, ?, ?, ?)`,
			a.EpisodeID, a.Task.Task, a.Task.Instruction, len(a.Steps), string(a.MetadataJSON())); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := db.Exec(`INSERT INTO episodes (source, external_id, task, metadata) VALUES
		('gridworld', 'g1', 'pyramid', '{"level": 3}'),
		('odyssey', 'odd', 'odd one', '{"task_info": {"meta_task": 42}}'),
		('odyssey', 'own', 'Plan a vacation', '{"task_info": {"meta_task": "Plan a trip with the {} Zanzibar planner"}}')`); err != nil {
		t.Fatal(err)
	}
	var cols int
	db.QueryRow(`SELECT count(*) FROM pragma_table_info('episodes') WHERE name = 'meta_task'`).Scan(&cols)
	if cols != 0 {
		t.Fatal("schema 5 already has the column")
	}
	db.Close()

	s, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if v, err := s.Version(ctx); err != nil || v != SchemaVersion {
		t.Fatalf("version %d (build %d), %v", v, SchemaVersion, err)
	}
	column, facet := metaTaskState(t, s)
	for id, m := range want {
		if column[id] != m || facet[id] != m {
			t.Errorf("%s: column %q, facet %q; want %q", id, column[id], facet[id], m)
		}
	}
	if column["own"] != "Plan a trip with the {} Zanzibar planner" || facet["own"] != column["own"] {
		t.Errorf("own: column %q, facet %q", column["own"], facet["own"])
	}
	delete(column, "own")
	delete(facet, "own")
	if column["g1"] != "" || column["odd"] != "" || facet["g1"] != "" || facet["odd"] != "" || len(facet) != len(want) {
		t.Errorf("episodes without a text meta-task: column %q %q, %d facets", column["g1"], column["odd"], len(facet))
	}
	// The index was made again with the meta-task: old words, and words of a meta-task that the
	// task does not instantiate, are both found. A meta-task whose "{}" the task fills in (every
	// sample's) has all its words in the task: it is found by them, and not indexed twice.
	match := func(q string) []string {
		rows, err := s.db.Query(`SELECT e.external_id FROM episode_text t JOIN episodes e ON e.id = t.rowid WHERE episode_text MATCH ? ORDER BY 1`, q)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		var ids []string
		for rows.Next() {
			var id string
			rows.Scan(&id)
			ids = append(ids, id)
		}
		return ids
	}
	if got := match("pyramid"); !reflect.DeepEqual(got, []string{"g1"}) {
		t.Errorf("old task words: %v", got)
	}
	if got := match("zanzibar"); !reflect.DeepEqual(got, []string{"own"}) {
		t.Errorf("a word of the meta-task alone: %v", got)
	}
	if got := match(`"highly recommended"`); len(got) != 2 {
		t.Errorf("words of an instantiated meta-task: %v", got)
	}
	var twice, own int
	s.db.QueryRow(`SELECT count(*) FROM episode_text WHERE episode_text MATCH 'meta_task_search : whatsapp'`).Scan(&twice)
	s.db.QueryRow(`SELECT count(*) FROM episode_text WHERE episode_text MATCH 'meta_task_search : planner'`).Scan(&own)
	if twice != 0 || own != 1 {
		t.Errorf("meta-task column of the index: %d instantiated, %d own", twice, own)
	}
	// The integrity of the rebuilt index (FTS5 checks it against the episodes).
	if _, err := s.db.Exec(`INSERT INTO episode_text (episode_text) VALUES ('integrity-check')`); err != nil {
		t.Fatalf("index integrity: %v", err)
	}
	// Its triggers follow changes of any of the three columns.
	if _, err := s.db.Exec(`UPDATE episodes SET meta_task = 'Feed the {} quokka' WHERE external_id = 'g1'`); err != nil {
		t.Fatal(err)
	}
	if got := match("quokka"); !reflect.DeepEqual(got, []string{"g1"}) {
		t.Errorf("after an update: %v", got)
	}
	if _, err := s.db.Exec(`INSERT INTO episode_text (episode_text) VALUES ('integrity-check')`); err != nil {
		t.Fatalf("index integrity after an update: %v", err)
	}
	// The filter lists the backfilled values with their counts.
	values, err := s.FacetValues(ctx, episode.FacetMetaTask)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, c := range values {
		names = append(names, c.Value)
	}
	sort.Strings(names)
	wantNames := []string{"Plan a trip with the {} Zanzibar planner"}
	seen := map[string]bool{}
	for _, m := range want {
		if !seen[m] {
			seen[m] = true
			wantNames = append(wantNames, m)
		}
	}
	sort.Strings(wantNames)
	if !reflect.DeepEqual(names, wantNames) {
		t.Errorf("facet values %v, want %v", names, wantNames)
	}
}

// The meta-task filter reads the facet index (no table scan), like the other facets.
func TestMetaTaskFilterUsesTheFacetIndex(t *testing.T) {
	s := openTemp(t)
	importMetaSample(t, s, false)
	if _, err := s.db.Exec(`ANALYZE`); err != nil {
		t.Fatal(err)
	}
	f := episode.Filter{Text: "photo"}.WithFacet(episode.FacetMetaTask, "Search for the next {} and set a reminder.")
	for _, srt := range []episode.Sort{{Key: episode.SortID}, {Key: episode.SortTask}, {Key: episode.SortRelevance}} {
		q, args := explorerPageSQL(f, srt)
		rows, err := s.db.Query(`EXPLAIN QUERY PLAN `+q, append(args, 100, 0)...)
		if err != nil {
			t.Fatal(err)
		}
		var plan []string
		for rows.Next() {
			var id, parent, unused int
			var detail string
			rows.Scan(&id, &parent, &unused, &detail)
			plan = append(plan, detail)
		}
		rows.Close()
		all := strings.Join(plan, "\n")
		if !strings.Contains(all, "episode_facets USING") {
			t.Errorf("by %v: the facet is not read by its index:\n%s", srt.Key, all)
		}
		for _, d := range plan {
			if strings.HasPrefix(d, "SCAN ") && !strings.Contains(d, " USING ") && !strings.Contains(d, "VIRTUAL TABLE") && !strings.HasPrefix(d, "SCAN (") {
				t.Errorf("by %v: a table scan: %s\n%s", srt.Key, d, all)
			}
		}
	}
}

// The index leaves out a meta-task whose every word the task has: a task that fills its "{}"
// with a word of its own. Any other meta-task is indexed, so the search finds its words.
func TestMetaTaskIndexedUnlessTheTaskInstantiatesIt(t *testing.T) {
	ctx := context.Background()
	s := openTemp(t)
	for i, c := range []struct {
		meta, task string
		indexed    bool
	}{
		{"Search for the next {} and set a reminder.", "Search for the next solar eclipse and set a reminder.", false},
		{"Translate the phrase '{}' into Spanish.", "Translate the phrase 'where is it' into Spanish.", false},
		{"{} weather tomorrow", "Tokyo weather tomorrow", false},
		{"Look up {}", "Look up Paris", false},
		{"Look up {}", "Look up ", false},                     // filled with nothing: still the task's words
		{"Buy two {}s online", "Buy two phones online", true}, // "s" is not a word of the task
		{"Buy {} online", "Buy a phone in a shop", true},      // another task
		{"Buy a phone online", "Buy a phone online", true},    // no placeholder
		{"Book a {} and a {}", "Book a room and a car", true}, // the second "{}" is no word
		{"Café {} à Genève", "Café Lumière à Genève", false},
	} {
		e := &episode.Episode{Source: "test", ExternalID: fmt.Sprint(i), Task: c.task, MetaTask: c.meta}
		if err := s.SaveEpisode(ctx, e); err != nil {
			t.Fatal(err)
		}
		var got string
		if err := s.db.QueryRow(`SELECT meta_task_search FROM episodes WHERE id = ?`, e.ID).Scan(&got); err != nil {
			t.Fatal(err)
		}
		if want := map[bool]string{true: c.meta, false: ""}[c.indexed]; got != want {
			t.Errorf("%q for the task %q: indexed %q, want %q", c.meta, c.task, got, want)
		}
	}
	// Either way a search finds the episode by any word of its meta-task.
	for text, want := range map[string]int{"eclipse": 1, "reminder": 1, "shop": 1, "online": 3, "genève": 1, "lumiere": 1} {
		if n, err := s.CountMatching(ctx, episode.Filter{Text: text + " "}); err != nil || n != want {
			t.Errorf("search %q: %d, %v; want %d", text, n, err, want)
		}
	}
	if _, err := s.db.Exec(`INSERT INTO episode_text (episode_text) VALUES ('integrity-check')`); err != nil {
		t.Fatalf("index integrity: %v", err)
	}
}
