package store

import (
	"context"
	"database/sql"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/agentdesk/agentdesk/engine/episode"
)

func TestFacetsSavedReplacedAndRead(t *testing.T) {
	ctx := context.Background()
	s := openTemp(t)
	e := &episode.Episode{Source: "odyssey", ExternalID: "007", Task: "t",
		Facets: map[string][]string{episode.FacetApp: {"Maps", "Chrome"}, episode.FacetCategory: {"Web_Shopping"}},
		Steps: []episode.Step{{Index: 0, Action: episode.Action{Kind: "click"}},
			{Index: 1, Action: episode.Action{Kind: "type"}}, {Index: 2, Action: episode.Action{Kind: "click"}}}}
	if err := s.SaveEpisode(ctx, e); err != nil {
		t.Fatal(err)
	}
	got, err := s.Episode(ctx, e.ID)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string][]string{episode.FacetApp: {"Chrome", "Maps"}, episode.FacetCategory: {"Web_Shopping"}}
	if !reflect.DeepEqual(got.Facets, want) {
		t.Fatalf("facets = %v, want %v", got.Facets, want)
	}
	actions := facetValues(t, s.db, e.ID, episode.FacetAction)
	if !reflect.DeepEqual(actions, []string{"click", "type"}) {
		t.Fatalf("action facets = %v", actions)
	}
	// Saving again replaces every facet row.
	e.Facets = map[string][]string{episode.FacetDevice: {"Pixel 7"}}
	e.Steps = []episode.Step{{Index: 0, Action: episode.Action{Kind: "scroll"}}}
	if err := s.SaveEpisode(ctx, e); err != nil {
		t.Fatal(err)
	}
	if got := facetValues(t, s.db, e.ID, episode.FacetApp); len(got) != 0 {
		t.Fatalf("old app facets survived: %v", got)
	}
	if got := facetValues(t, s.db, e.ID, episode.FacetAction); !reflect.DeepEqual(got, []string{"scroll"}) {
		t.Fatalf("action facets after replace = %v", got)
	}
	// Deleting the episode deletes its facets.
	if err := s.DeleteEpisode(ctx, e.ID); err != nil {
		t.Fatal(err)
	}
	var n int
	if err := s.db.QueryRow(`SELECT count(*) FROM episode_facets`).Scan(&n); err != nil || n != 0 {
		t.Fatalf("facet rows after delete: %d, %v", n, err)
	}
}

func facetValues(t *testing.T, db *sql.DB, id int64, facet string) []string {
	t.Helper()
	rows, err := db.Query(`SELECT value FROM episode_facets WHERE episode_id = ? AND facet = ? ORDER BY value`, id, facet)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var v string
		if err := rows.Scan(&v); err != nil {
			t.Fatal(err)
		}
		out = append(out, v)
	}
	return out
}

func TestFullTextIndexFollowsEpisodes(t *testing.T) {
	ctx := context.Background()
	s := openTemp(t)
	e := &episode.Episode{Source: "x", ExternalID: "1", Task: "Buy shoes", Instruction: "Open the café app"}
	if err := s.SaveEpisode(ctx, e); err != nil {
		t.Fatal(err)
	}
	match := func(q string) int {
		t.Helper()
		var n int
		if err := s.db.QueryRow(`SELECT count(*) FROM episode_text WHERE episode_text MATCH ?`, q).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	if match("cafe") != 1 || match("shoes") != 1 {
		t.Fatalf("new episode not searchable (diacritics folded): cafe=%d shoes=%d", match("cafe"), match("shoes"))
	}
	e.Task = "Sell boots"
	if err := s.SaveEpisode(ctx, e); err != nil {
		t.Fatal(err)
	}
	if match("shoes") != 0 || match("boots") != 1 {
		t.Fatal("replaced text not re-indexed")
	}
	if err := s.DeleteEpisode(ctx, e.ID); err != nil {
		t.Fatal(err)
	}
	if match("boots") != 0 {
		t.Fatal("deleted episode still found")
	}
}

func TestMigrationTwoIndexesExistingEpisodes(t *testing.T) {
	// A store written before the Explorer's indexes existed: its episodes become searchable
	// and filterable by action kind when it is opened.
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "v1.db")
	db, err := sql.Open("sqlite", dsn(path, modeReadWrite))
	if err != nil {
		t.Fatal(err)
	}
	old := &Store{reader: reader{q: db}, db: db, path: path}
	if err := old.applyMigration(ctx, migrations[0]); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`INSERT INTO episodes (id, source, external_id, task, instruction, num_steps)
		VALUES (1, 'gridworld', 'g1', 'pyramid', 'Build a red tower', 2);
		INSERT INTO steps (episode_id, idx, action_kind) VALUES (1, 0, 'forward'), (1, 1, 'place'), (1, 2, '')`); err != nil {
		t.Fatal(err)
	}
	db.Close()
	s, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var n int
	if err := s.db.QueryRow(`SELECT count(*) FROM episode_text WHERE episode_text MATCH 'tower'`).Scan(&n); err != nil || n != 1 {
		t.Fatalf("old episode not searchable after migration: %d, %v", n, err)
	}
	if got := facetValues(t, s.db, 1, episode.FacetAction); !reflect.DeepEqual(got, []string{"forward", "place"}) {
		t.Fatalf("action facets backfilled = %v", got)
	}
}
