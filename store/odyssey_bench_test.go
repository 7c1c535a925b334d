package store

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/agentdesk/agentdesk/engine/cputime"
	"github.com/agentdesk/agentdesk/engine/odyssey"
)

// benchDataset generates the synthetic GUI Odyssey v2 dataset the import benchmarks read:
// 8,334 episodes (the release's size; AGENTDESK_ODYSSEY_EPISODES changes it), screenshots as
// GenerateOptions.Screenshots takes them.
func benchDataset(b *testing.B, screenshots string) (string, odyssey.GenerateResult) {
	b.Helper()
	n := 8334
	if v, err := strconv.Atoi(os.Getenv("AGENTDESK_ODYSSEY_EPISODES")); err == nil && v > 0 {
		n = v
	}
	dir := filepath.Join(b.TempDir(), "odyssey")
	gen, err := odyssey.Generate(context.Background(), dir, odyssey.GenerateOptions{Episodes: n, Seed: 1, Screenshots: screenshots})
	if err != nil {
		b.Fatal(err)
	}
	return dir, gen
}

// BenchmarkOdysseyImport imports a full-scale synthetic GUI Odyssey v2 dataset (8,334
// episodes, about 128k steps, its four splits and a zip of tiny screenshots) into an empty
// store: reading and checking every annotation, one transaction for everything.
// AGENTDESK_ODYSSEY_EPISODES changes the size.
func BenchmarkOdysseyImport(b *testing.B) {
	ctx := context.Background()
	dir, gen := benchDataset(b, "zip")
	n := gen.Episodes
	steps := 0
	for b.Loop() {
		b.StopTimer()
		s, err := Open(filepath.Join(b.TempDir(), fmt.Sprintf("bench-%d.db", steps)))
		if err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		ds, err := odyssey.OpenDataset(dir)
		if err != nil {
			b.Fatal(err)
		}
		res, err := s.ImportOdyssey(ctx, ds, OdysseyImportOptions{})
		if err != nil {
			b.Fatal(err)
		}
		if res.Episodes != n || res.Steps != gen.Steps || res.MissingScreenshots != 0 {
			b.Fatalf("imported %+v, generated %+v", res, gen)
		}
		steps += res.Steps
		b.StopTimer()
		s.Close()
		b.StartTimer()
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(steps), "ns/step")
	b.ReportMetric(float64(gen.Steps), "steps")
}

// BenchmarkOdysseyWriteFloor writes the annotation files of a synthetic dataset (8,334
// episodes; AGENTDESK_ODYSSEY_EPISODES changes it) as they are, one row of one blob per
// episode, through the import's own connection settings, committing every 20,000: what any
// layout of the store costs at least to hold the data, with no index, search text, facet or
// step row. With BenchmarkReadDataset (the reading half) it bounds the import rate a machine
// can reach.
func BenchmarkOdysseyWriteFloor(b *testing.B) {
	ctx := context.Background()
	dir, gen := benchDataset(b, "none")
	n := gen.Episodes
	files, err := filepath.Glob(filepath.Join(dir, "annotations", "*.json"))
	if err != nil || len(files) != n {
		b.Fatalf("%d annotation files, %v", len(files), err)
	}
	blobs := make([][]byte, len(files))
	var bytes int64
	for i, f := range files {
		if blobs[i], err = os.ReadFile(f); err != nil {
			b.Fatal(err)
		}
		bytes += int64(len(blobs[i]))
	}
	b.SetBytes(bytes)
	round := 0
	var cpu time.Duration
	for b.Loop() {
		b.StopTimer()
		round++
		s, err := Open(filepath.Join(b.TempDir(), fmt.Sprintf("floor-%d.db", round)))
		if err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		cpu0 := cputime.Process()
		err = s.bulkConn(ctx, func(conn *sql.Conn) error {
			if _, err := conn.ExecContext(ctx, `CREATE TABLE floor (id INTEGER PRIMARY KEY, data BLOB NOT NULL)`); err != nil {
				return err
			}
			for start := 0; start < len(blobs); start += DefaultChunkEpisodes {
				tx, err := conn.BeginTx(ctx, nil)
				if err != nil {
					return err
				}
				st, err := tx.PrepareContext(ctx, `INSERT INTO floor (data) VALUES (?)`)
				if err != nil {
					tx.Rollback()
					return err
				}
				for _, blob := range blobs[start:min(start+DefaultChunkEpisodes, len(blobs))] {
					if _, err := st.ExecContext(ctx, blob); err != nil {
						tx.Rollback()
						return err
					}
				}
				st.Close()
				if err := tx.Commit(); err != nil {
					return err
				}
			}
			return nil
		})
		cpu += cputime.Process() - cpu0
		if err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		s.Close()
		b.StartTimer()
	}
	b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "episodes/s")
	b.ReportMetric(float64(n)*float64(b.N)/cpu.Seconds(), "episodes/CPU-s")
}
