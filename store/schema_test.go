package store

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentdesk/agentdesk/engine/episode"
)

// damageSchema makes a sound store at path, then changes its schema behind Agentdesk's back
// (what a user's sqlite3 session, or another tool, may do).
func damageSchema(t *testing.T, path string, stmts ...string) {
	t.Helper()
	s, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	fill(t, s, 3, "odyssey")
	s.Close()
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, stmt := range stmts {
		if _, err := db.Exec(stmt); err != nil {
			t.Fatalf("%s: %v", stmt, err)
		}
	}
	if _, err := db.Exec(`PRAGMA wal_checkpoint(TRUNCATE)`); err != nil {
		t.Fatal(err)
	}
}

// TestSchemaDifferencesAreDamage: a store whose schema is not what its migrations made (a
// table, index, trigger or full-text table dropped, a column added) is refused for writing,
// with the store's path, what differs and what to do, and its file is not changed; opened for
// reading it stays readable and Check lists what differs. Before, such a store opened as
// sound, `store check` said "ok" and imports wrote into it.
func TestSchemaDifferencesAreDamage(t *testing.T) {
	ctx := context.Background()
	cases := []struct {
		name  string
		stmts []string
		want  string
	}{
		{"splits", []string{`DROP TABLE splits`}, "the table splits is missing"},
		{"eval_units", []string{`DROP TABLE eval_units`}, "the table eval_units is missing"},
		{"steps", []string{`DROP TABLE steps`}, "the table steps is missing"},
		{"index", []string{`DROP INDEX episodes_by_source`}, "the index episodes_by_source is missing"},
		{"trigger", []string{`DROP TRIGGER episodes_text_insert`}, "the trigger episodes_text_insert is missing"},
		{"fts", []string{`DROP TABLE episode_text`}, "the full-text table episode_text is missing"},
		{"fts shadow", []string{`DROP TABLE episode_text_docsize`}, "the table episode_text_docsize is missing"},
		{"extra column", []string{`ALTER TABLE splits ADD COLUMN note TEXT`}, "the table splits differs: extra column note"},
		{"extra table", []string{`CREATE TABLE mine (x)`}, "the table mine is not made by the migrations"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "shape.db")
			damageSchema(t, path, c.stmts...)
			before, _ := os.ReadFile(path)
			s, refused := Open(path)
			if refused == nil {
				s.Close()
				t.Fatalf("a store with a changed schema opened for writing")
			}
			if msg := refused.Error(); !errors.Is(refused, ErrDamaged) || !strings.Contains(msg, path) || !strings.Contains(msg, c.want) ||
				!strings.Contains(msg, "store check") || !strings.Contains(msg, "backup") {
				t.Fatalf("open for writing: %v", refused)
			}
			if after, _ := os.ReadFile(path); !bytes.Equal(before, after) {
				t.Fatal("the damaged store was written to")
			}
			s, err := OpenWith(path, Options{ReadOnly: true})
			if err != nil {
				t.Fatalf("read-only open of a damaged store: %v", err)
			}
			defer s.Close()
			if !strings.Contains(s.Damaged(), c.want) {
				t.Errorf("Damaged() = %q", s.Damaged())
			}
			problems, err := s.Check(ctx, true)
			if err != nil || len(problems) == 0 || !strings.Contains(strings.Join(problems, "\n"), c.want) {
				t.Fatalf("Check: %v, %v", problems, err)
			}
			if _, err := s.Overview(ctx); err != nil && c.name != "splits" && c.name != "steps" {
				t.Errorf("reading a damaged store: %v", err)
			}
			t.Logf("%s: refused: %v", c.name, refused)
		})
	}
}

// TestSoundStoresPassTheSchemaCheck: a new store, one reopened, one whose import dropped the
// action-kind index (a stopped chunked import; the next import builds it again) and one with
// the planner's statistics all pass.
func TestSoundStoresPassTheSchemaCheck(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "sound.db")
	s, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	fill(t, s, 10, "odyssey")
	if err := s.OptimizeQueries(ctx); err != nil {
		t.Fatal(err)
	}
	if p, err := s.Check(ctx, true); err != nil || len(p) != 0 {
		t.Fatalf("new store: %v %v", p, err)
	}
	if err := s.Update(ctx, func(tx *Tx) error {
		_, err := tx.SQL().ExecContext(ctx, `DROP INDEX steps_by_action_kind`)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	s.Close()
	s, err = Open(path)
	if err != nil {
		t.Fatalf("reopen: %v", err)
	}
	defer s.Close()
	if p, err := s.Check(ctx, true); err != nil || len(p) != 0 {
		t.Fatalf("reopened store: %v %v", p, err)
	}
}

// TestSQLErrorsNameTheStore: an SQLite error that reaches the store's boundary names the store
// and what to do: a table dropped while the store is open, a full disk (SQLite's page limit
// stands in for it).
func TestSQLErrorsNameTheStore(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "errors.db")
	s, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(`DROP TABLE splits`); err != nil {
		t.Fatal(err)
	}
	err = s.Update(ctx, func(tx *Tx) error {
		_, err := tx.SQL().ExecContext(ctx, `DELETE FROM splits`)
		return err
	})
	var se *StoreError
	if !errors.As(err, &se) || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), "no such table: splits") ||
		!strings.Contains(err.Error(), "store check") {
		t.Fatalf("missing table: %v", err)
	}
	t.Logf("missing table: %v", err)

	err = s.Update(ctx, func(tx *Tx) error {
		var pages int
		if err := tx.SQL().QueryRowContext(ctx, `PRAGMA page_count`).Scan(&pages); err != nil {
			return err
		}
		if _, err := tx.SQL().ExecContext(ctx, fmt.Sprintf(`PRAGMA max_page_count = %d`, pages)); err != nil {
			return err
		}
		for i := 0; i < 100; i++ {
			e := &episode.Episode{Source: "full", ExternalID: fmt.Sprint(i), Task: strings.Repeat("a long task ", 1000)}
			if err := tx.SaveEpisode(ctx, e); err != nil {
				return err
			}
		}
		return nil
	})
	if !errors.As(err, &se) || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), "full") ||
		!strings.Contains(err.Error(), "free some space") {
		t.Fatalf("full disk: %v", err)
	}
	t.Logf("full disk: %v", err)
}

// BenchmarkSchemaCheck measures what the check adds to every open (the expected schema is
// made once per process, outside the loop), and an open of a store as a whole.
func BenchmarkSchemaCheck(b *testing.B) {
	path := filepath.Join(b.TempDir(), "bench.db")
	s, err := Open(path)
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	b.Run("check", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			if p, err := s.schemaProblems(ctx); err != nil || len(p) != 0 {
				b.Fatal(p, err)
			}
		}
	})
	b.Run("open", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			s, err := Open(path)
			if err != nil {
				b.Fatal(err)
			}
			s.Close()
		}
	})
	b.Run("expected", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			if _, _, err := buildExpectedSchema(); err != nil {
				b.Fatal(err)
			}
		}
	})
}
