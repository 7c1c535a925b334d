package store

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"testing/fstest"

	"github.com/agentdesk/agentdesk/engine/episode"
)

func openTemp(t *testing.T) *Store {
	t.Helper()
	s, err := Open(filepath.Join(t.TempDir(), "sub", "agentdesk.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func TestOpenCreatesAndMigrates(t *testing.T) {
	ctx := context.Background()
	s := openTemp(t)
	v, err := s.Version(ctx)
	if err != nil || v != SchemaVersion {
		t.Fatalf("version = %d, %v; want %d", v, err, SchemaVersion)
	}
	var mode string
	var fk, appID int
	if err := s.db.QueryRow(`SELECT (SELECT journal_mode FROM pragma_journal_mode),
		(SELECT foreign_keys FROM pragma_foreign_keys), (SELECT application_id FROM pragma_application_id)`).
		Scan(&mode, &fk, &appID); err != nil {
		t.Fatal(err)
	}
	if mode != "wal" || fk != 1 || appID != ApplicationID {
		t.Fatalf("journal_mode=%s foreign_keys=%d application_id=%#x", mode, fk, appID)
	}
	for _, table := range []string{"episodes", "steps", "splits", "split_members", "imported_files",
		"template_folders", "eval_projects", "recent_files"} {
		var n int
		if err := s.db.QueryRow(`SELECT count(*) FROM sqlite_schema WHERE type='table' AND name=?`, table).Scan(&n); err != nil || n != 1 {
			t.Errorf("table %s missing (%v)", table, err)
		}
	}
}

func TestReopenKeepsData(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "a.db")
	s, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	e := &episode.Episode{Source: episode.SourceGridworld, ExternalID: "g1", Task: "tower",
		Steps: []episode.Step{{Index: 0, Reward: 1, Action: episode.Action{Kind: "place"}}}}
	if err := s.SaveEpisode(ctx, e); err != nil {
		t.Fatal(err)
	}
	s.Close()
	s, err = Open(path)
	if err != nil {
		t.Fatalf("reopen: %v", err)
	}
	defer s.Close()
	got, err := s.Episode(ctx, e.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.Task != "tower" || len(got.Steps) != 1 || got.Steps[0].Action.Kind != "place" {
		t.Fatalf("reopened episode = %+v", got)
	}
}

// writeFile creates a file and returns its bytes, to check later that nothing changed.
func snapshot(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func assertRefused(t *testing.T, path string, want error) {
	t.Helper()
	before := snapshot(t, path)
	entriesBefore, _ := os.ReadDir(filepath.Dir(path))
	s, err := Open(path)
	if err == nil {
		s.Close()
		t.Fatalf("Open(%s) accepted a file it must refuse", path)
	}
	var oe *OpenError
	if !errors.As(err, &oe) || !errors.Is(err, want) {
		t.Fatalf("Open error = %v, want an *OpenError wrapping %v", err, want)
	}
	if !bytes.Equal(before, snapshot(t, path)) {
		t.Fatal("refused file was modified")
	}
	entriesAfter, _ := os.ReadDir(filepath.Dir(path))
	if len(entriesAfter) != len(entriesBefore) {
		t.Fatalf("refusing created files next to the store: %d -> %d entries", len(entriesBefore), len(entriesAfter))
	}
	t.Logf("refused with: %v", err)
}

func TestRefusesNewerSchema(t *testing.T) {
	path := filepath.Join(t.TempDir(), "newer.db")
	s, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.db.Exec(fmt.Sprintf("PRAGMA user_version = %d", SchemaVersion+1)); err != nil {
		t.Fatal(err)
	}
	s.Close()
	assertRefused(t, path, ErrNewerSchema)
}

func TestRefusesForeignFiles(t *testing.T) {
	dir := t.TempDir()
	text := filepath.Join(dir, "notes.txt")
	if err := os.WriteFile(text, []byte("hello, this is not a database at all, but it is long enough to have a header.................................."), 0o644); err != nil {
		t.Fatal(err)
	}
	assertRefused(t, text, ErrNotAStore)

	other := filepath.Join(t.TempDir(), "other.db")
	db, err := sql.Open("sqlite", other)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`CREATE TABLE contacts (name TEXT); INSERT INTO contacts VALUES ('ada')`); err != nil {
		t.Fatal(err)
	}
	db.Close()
	assertRefused(t, other, ErrNotAStore)

	foreignApp := filepath.Join(t.TempDir(), "foreign.db")
	db, err = sql.Open("sqlite", foreignApp)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`PRAGMA application_id = 1234`); err != nil {
		t.Fatal(err)
	}
	db.Close()
	assertRefused(t, foreignApp, ErrNotAStore)
}

func TestAdoptsEmptyFiles(t *testing.T) {
	dir := t.TempDir()
	empty := filepath.Join(dir, "empty.db")
	if err := os.WriteFile(empty, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := Open(empty)
	if err != nil {
		t.Fatalf("empty file refused: %v", err)
	}
	s.Close()
}

func TestMigrationFilesAreWellFormed(t *testing.T) {
	if _, err := loadMigrations(fstest.MapFS{"migrations/0001_a.sql": {}, "migrations/0003_b.sql": {}}); err == nil {
		t.Fatal("a gap in migration versions was accepted")
	}
	if _, err := loadMigrations(fstest.MapFS{"migrations/first.sql": {}}); err == nil {
		t.Fatal("a migration without a number was accepted")
	}
	ms, err := loadMigrations(migrationFiles)
	if err != nil || len(ms) != SchemaVersion {
		t.Fatalf("embedded migrations: %d, %v", len(ms), err)
	}
}

func TestMigrationIsOneTransaction(t *testing.T) {
	// A broken migration must leave the store at the previous version with none of its effects.
	path := filepath.Join(t.TempDir(), "m.db")
	s, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	bad := migration{version: SchemaVersion + 1, name: "broken", sql: `CREATE TABLE half_done (x); SELECT * FROM no_such_table;`}
	if err := s.applyMigration(context.Background(), bad); err == nil {
		t.Fatal("broken migration succeeded")
	}
	var n int
	s.db.QueryRow(`SELECT count(*) FROM sqlite_schema WHERE name = 'half_done'`).Scan(&n)
	v, _ := s.Version(context.Background())
	if n != 0 || v != SchemaVersion {
		t.Fatalf("after failed migration: half_done tables=%d version=%d", n, v)
	}
}

func TestConcurrentWriters(t *testing.T) {
	// Two connections (as two app instances would have) write at once; busy_timeout and
	// immediate transactions make every write land.
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "c.db")
	a, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	b, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	const perWriter = 40
	var wg sync.WaitGroup
	errs := make(chan error, 2*perWriter)
	for w, s := range []*Store{a, b} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < perWriter; i++ {
				e := &episode.Episode{Source: "test", ExternalID: fmt.Sprintf("w%d-%d", w, i),
					Steps: []episode.Step{{Index: 0}, {Index: 1, Reward: 1}}}
				if err := s.SaveEpisode(ctx, e); err != nil {
					errs <- err
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	o, err := a.Overview(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if o.EpisodesBySource["test"] != 2*perWriter || o.Steps != 4*perWriter {
		t.Fatalf("overview after concurrent writes: %+v", o)
	}
}

func TestEpisodeRoundTripAndReplace(t *testing.T) {
	ctx := context.Background()
	s := openTemp(t)
	e := &episode.Episode{
		Source: episode.SourceOdyssey, ExternalID: "ep-1", Task: "book a table", Instruction: "Open the app",
		Metadata: map[string]any{"device": "Pixel 7", "apps": []any{"Maps"}},
		Steps: []episode.Step{
			{Index: 0, Action: episode.Action{Kind: "click", Points: []episode.Point{{X: 0.5, Y: 0.25}}}, ObservationRef: "/data/1.png"},
			{Index: 1, Action: episode.Action{Kind: "type", Text: "pizza"}, Reward: 1, Instruction: "search",
				Observation: []byte{0x89, 'P', 'N', 'G'}, Extra: map[string]any{"ps": 3.0}},
		},
	}
	if err := s.SaveEpisode(ctx, e); err != nil {
		t.Fatal(err)
	}
	got, err := s.Episode(ctx, e.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.Metadata["device"] != "Pixel 7" || got.Steps[0].Action.Points[0].Y != 0.25 ||
		got.Steps[1].Action.Text != "pizza" || !bytes.Equal(got.Steps[1].Observation, e.Steps[1].Observation) ||
		got.Steps[1].Extra["ps"] != 3.0 || got.Steps[0].ObservationRef != "/data/1.png" || got.CreatedAt.IsZero() {
		t.Fatalf("round trip lost data: %+v", got)
	}
	// Replacing keeps the id and replaces the steps.
	id := e.ID
	e.Steps = e.Steps[:1]
	if err := s.SaveEpisode(ctx, e); err != nil {
		t.Fatal(err)
	}
	if e.ID != id {
		t.Fatalf("replace changed id %d -> %d", id, e.ID)
	}
	list, err := s.Episodes(ctx, episode.Query{Source: episode.SourceOdyssey})
	if err != nil || len(list) != 1 || list[0].NumSteps != 1 || list[0].TotalReward != 0 {
		t.Fatalf("summaries after replace: %+v %v", list, err)
	}
	if n, err := s.CountEpisodes(ctx, episode.Query{Source: episode.SourceOdyssey}); err != nil || n != 1 {
		t.Fatalf("count: %d %v", n, err)
	}
	if n, _ := s.CountEpisodes(ctx, episode.Query{Source: "other"}); n != 0 {
		t.Fatalf("count of another source: %d", n)
	}
	if _, err := s.Episode(ctx, 999); !errors.Is(err, ErrNotFound) {
		t.Fatalf("missing episode: %v", err)
	}
	if err := s.DeleteEpisode(ctx, id); err != nil {
		t.Fatal(err)
	}
	var steps int
	s.db.QueryRow(`SELECT count(*) FROM steps`).Scan(&steps)
	if steps != 0 {
		t.Fatalf("deleting an episode left %d steps", steps)
	}
}

func TestFailedTransactionStoresNothing(t *testing.T) {
	ctx := context.Background()
	s := openTemp(t)
	err := s.Update(ctx, func(tx *Tx) error {
		if err := tx.SaveEpisode(ctx, &episode.Episode{Source: "x", ExternalID: "1"}); err != nil {
			return err
		}
		return tx.SaveEpisode(ctx, &episode.Episode{Source: "x"}) // invalid: no external id
	})
	if err == nil {
		t.Fatal("invalid episode accepted")
	}
	o, _ := s.Overview(ctx)
	if o.Episodes() != 0 {
		t.Fatalf("failed transaction stored %d episodes", o.Episodes())
	}
}

func TestSplits(t *testing.T) {
	ctx := context.Background()
	s := openTemp(t)
	for _, id := range []string{"a", "b", "c"} {
		if err := s.SaveEpisode(ctx, &episode.Episode{Source: "odyssey", ExternalID: id}); err != nil {
			t.Fatal(err)
		}
	}
	sp := episode.Split{Name: "random", Kind: episode.SplitOfficial, Parts: map[string][]episode.Key{
		"train": {{Source: "odyssey", ExternalID: "c"}, {Source: "odyssey", ExternalID: "a"}}, "test": {{Source: "odyssey", ExternalID: "b"}}}}
	if err := s.SaveSplit(ctx, sp); err != nil {
		t.Fatal(err)
	}
	got, err := s.Split(ctx, "random")
	if err != nil {
		t.Fatal(err)
	}
	if got.Kind != episode.SplitOfficial || len(got.Parts["train"]) != 2 || got.Parts["train"][0].ExternalID != "c" || got.Parts["test"][0].ExternalID != "b" {
		t.Fatalf("split round trip: %+v", got)
	}
	bad := episode.Split{Name: "broken", Parts: map[string][]episode.Key{"train": {{Source: "odyssey", ExternalID: "zzz"}}}}
	if err := s.SaveSplit(ctx, bad); !errors.Is(err, ErrNotFound) {
		t.Fatalf("split naming a missing episode: %v", err)
	}
	infos, err := s.Splits(ctx)
	if err != nil || len(infos) != 1 || infos[0].PartSizes["train"] != 2 || infos[0].PartSizes["test"] != 1 {
		t.Fatalf("split infos: %+v %v", infos, err)
	}
	// Deleting an episode removes it from the split.
	id, _ := s.EpisodeID(ctx, episode.Key{Source: "odyssey", ExternalID: "a"})
	if err := s.DeleteEpisode(ctx, id); err != nil {
		t.Fatal(err)
	}
	got, _ = s.Split(ctx, "random")
	if len(got.Parts["train"]) != 1 {
		t.Fatalf("deleted episode still in split: %+v", got)
	}
	if err := s.Update(ctx, func(tx *Tx) error { return tx.DeleteSplit(ctx, "random") }); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Split(ctx, "random"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("deleted split: %v", err)
	}
}

func TestImportedFilesAndRecent(t *testing.T) {
	ctx := context.Background()
	s := openTemp(t)
	path := filepath.Join(t.TempDir(), "data.pkl")
	os.WriteFile(path, []byte("some bytes"), 0o644)
	sum, err := SumFile(path)
	if err != nil || sum.Size != 10 || len(sum.SHA256) != 64 {
		t.Fatalf("SumFile: %+v %v", sum, err)
	}
	var first ImportedFile
	err = s.Update(ctx, func(tx *Tx) error {
		f, existed, err := tx.RecordImportedFile(ctx, "pickle", path, sum)
		if existed {
			t.Error("new file reported as existing")
		}
		first = f
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	err = s.Update(ctx, func(tx *Tx) error {
		f, existed, err := tx.RecordImportedFile(ctx, "pickle", "/elsewhere/copy.pkl", sum)
		if !existed || f.ID != first.ID || f.Path != path {
			t.Errorf("re-import not recognised: %+v existed=%v", f, existed)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.TouchRecent(ctx, "/x/a.pkl", "pickle"); err != nil {
		t.Fatal(err)
	}
	if err := s.TouchRecent(ctx, "/x/templates", "template-folder"); err != nil {
		t.Fatal(err)
	}
	if err := s.TouchRecent(ctx, "/x/a.pkl", "pickle"); err != nil {
		t.Fatal(err)
	}
	o, err := s.Overview(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if o.ImportedFiles != 1 || len(o.Recent) != 2 || o.Recent[0].Path != "/x/a.pkl" {
		t.Fatalf("overview: %+v", o)
	}
}
