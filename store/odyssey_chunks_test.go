package store

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentdesk/agentdesk/engine/odyssey"
)

// TestOdysseyChunkedImportResumes: an import larger than a chunk commits chunk by chunk; when
// it stops, the chunks before stay, and the same import run again resumes (per-episode files
// by their content, a one-file variant by its episodes) and ends with the same store as one
// uninterrupted import: episodes, steps and splits.
func TestOdysseyChunkedImportResumes(t *testing.T) {
	ctx := context.Background()
	for _, layout := range []string{"files", "one-file"} {
		t.Run(layout, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "ds")
			gen, err := odyssey.Generate(ctx, dir, odyssey.GenerateOptions{Episodes: 500, Seed: 7, Screenshots: "none", AllFile: layout == "one-file"})
			if err != nil {
				t.Fatal(err)
			}
			if layout == "one-file" {
				if err := os.RemoveAll(filepath.Join(dir, "annotations")); err != nil {
					t.Fatal(err)
				}
			}
			open := func(name string) *Store {
				s, err := Open(filepath.Join(t.TempDir(), name))
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { s.Close() })
				return s
			}
			dataset := func() *odyssey.Dataset {
				ds, err := odyssey.OpenDataset(dir)
				if err != nil {
					t.Fatal(err)
				}
				return ds
			}
			// reference: one transaction
			ref := open("ref.db")
			whole, err := ref.ImportOdyssey(ctx, dataset(), OdysseyImportOptions{ChunkEpisodes: -1})
			if err != nil || whole.Episodes != gen.Episodes || whole.Chunks != 1 {
				t.Fatalf("one transaction: %+v %v", whole, err)
			}
			// chunks of one batch (episodes are written a batch at a time), stopped after 300
			chunk := episodeBatch
			want := 300 / chunk * chunk
			s := open("chunked.db")
			cctx, cancel := context.WithCancel(ctx)
			_, err = s.ImportOdyssey(cctx, dataset(), OdysseyImportOptions{ChunkEpisodes: chunk, Progress: func(p OdysseyProgress) {
				if p.Phase == "annotations" && p.Done >= 300 {
					cancel()
				}
			}})
			cancel()
			if !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), fmt.Sprintf("%d episodes were stored in %d earlier transactions", want, want/chunk)) ||
				!strings.Contains(err.Error(), "again resumes") {
				t.Fatalf("interrupted import: %v", err)
			}
			var stored int
			s.db.QueryRowContext(ctx, `SELECT count(*) FROM episodes`).Scan(&stored)
			if stored != want {
				t.Fatalf("%d episodes stored after the interruption, want the chunks' %d", stored, want)
			}
			again, err := s.ImportOdyssey(ctx, dataset(), OdysseyImportOptions{ChunkEpisodes: chunk})
			if err != nil {
				t.Fatal(err)
			}
			if again.Episodes != gen.Episodes-want || again.Unchanged+again.Resumed != want || again.Chunks < 2 {
				t.Fatalf("resumed import: %+v", again)
			}
			// the same store as one uninterrupted import
			for _, q := range []string{`SELECT count(*) FROM episodes`, `SELECT count(*) FROM steps`, `SELECT count(*) FROM split_members`,
				`SELECT count(*) FROM episode_facets`, `SELECT count(*) FROM imported_files WHERE sha256 LIKE 'partial:%'`,
				`SELECT count(*) FROM episodes WHERE file_id IS NULL`} {
				var a, b int
				ref.db.QueryRowContext(ctx, q).Scan(&a)
				s.db.QueryRowContext(ctx, q).Scan(&b)
				if a != b {
					t.Errorf("%s: %d after the resumed import, %d after one import", q, b, a)
				}
			}
			// a dataset of exactly a chunk's size is one transaction, as a smaller one is
			exact := open("exact.db")
			one, err := exact.ImportOdyssey(ctx, dataset(), OdysseyImportOptions{ChunkEpisodes: gen.Episodes})
			if err != nil || one.Episodes != gen.Episodes || one.Chunks != 1 {
				t.Fatalf("import in chunks of its own size: %d episodes in %d transactions, %v", one.Episodes, one.Chunks, err)
			}
			// and a third run changes nothing
			third, err := s.ImportOdyssey(ctx, dataset(), OdysseyImportOptions{ChunkEpisodes: chunk})
			if err != nil || third.Episodes != 0 {
				t.Fatalf("third import: %+v %v", third, err)
			}
		})
	}
}

// TestOdysseyChunkedFillFromAllFile: a folder whose per-episode files lack some episodes, filled
// in from its one-file variant, still commits a chunk at a time through both parts (the count
// of the one-file variant arrives on the way) and stores every episode.
func TestOdysseyChunkedFillFromAllFile(t *testing.T) {
	skipUnderRace(t, "a one-file dataset read in one goroutine")
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "ds")
	gen, err := odyssey.Generate(ctx, dir, odyssey.GenerateOptions{Episodes: 600, Seed: 3, Screenshots: "none", AllFile: true})
	if err != nil {
		t.Fatal(err)
	}
	files, err := filepath.Glob(filepath.Join(dir, "annotations", "*.json"))
	if err != nil || len(files) != gen.Episodes {
		t.Fatalf("%d annotation files, %v", len(files), err)
	}
	for _, f := range files[:350] {
		if err := os.Remove(f); err != nil {
			t.Fatal(err)
		}
	}
	ds, err := odyssey.OpenDataset(dir)
	if err != nil {
		t.Fatal(err)
	}
	ds.FillFromAllFile = true
	s, err := Open(filepath.Join(t.TempDir(), "fill.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	res, err := s.ImportOdyssey(ctx, ds, OdysseyImportOptions{ChunkEpisodes: episodeBatch})
	if err != nil {
		t.Fatal(err)
	}
	if res.Episodes != gen.Episodes || res.Chunks < gen.Episodes/episodeBatch {
		t.Fatalf("%d episodes in %d transactions; want %d in at least %d", res.Episodes, res.Chunks, gen.Episodes, gen.Episodes/episodeBatch)
	}
	var stored int
	s.db.QueryRowContext(ctx, `SELECT count(*) FROM episodes`).Scan(&stored)
	if stored != gen.Episodes {
		t.Fatalf("%d episodes stored, want %d", stored, gen.Episodes)
	}
}
