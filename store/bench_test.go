package store

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/agentdesk/agentdesk/engine/episode"
)

func benchEpisode(id string, steps int) *episode.Episode {
	e := &episode.Episode{Source: episode.SourceOdyssey, ExternalID: id, Task: "task " + id,
		Metadata: map[string]any{"device": "Pixel 7", "category": "Shopping"}}
	for i := 0; i < steps; i++ {
		e.Steps = append(e.Steps, episode.Step{Index: i, Reward: 0.1,
			Action:         episode.Action{Kind: "click", Points: []episode.Point{{X: 0.5, Y: 0.5}}},
			ObservationRef: fmt.Sprintf("screenshots/%s_%d.png", id, i)})
	}
	return e
}

// BenchmarkSaveEpisodes stores 100 episodes of 15 steps in one transaction, as an import does.
func BenchmarkSaveEpisodes(b *testing.B) {
	ctx := context.Background()
	s, err := Open(filepath.Join(b.TempDir(), "b.db"))
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	b.ReportAllocs()
	for n := 0; b.Loop(); n++ {
		err := s.Update(ctx, func(tx *Tx) error {
			for i := 0; i < 100; i++ {
				if err := tx.SaveEpisode(ctx, benchEpisode(fmt.Sprintf("%d-%d", n, i), 15)); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*1500), "ns/step")
}

// BenchmarkOverview reads the Home view's counts from a store of 10,000 episodes.
func BenchmarkOverview(b *testing.B) {
	ctx := context.Background()
	s, err := Open(filepath.Join(b.TempDir(), "b.db"))
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	err = s.Update(ctx, func(tx *Tx) error {
		for i := 0; i < 10000; i++ {
			if err := tx.SaveEpisode(ctx, benchEpisode(fmt.Sprint(i), 15)); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := s.Overview(ctx); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkOpen opens an existing store (inspection, migrations check).
func BenchmarkOpen(b *testing.B) {
	path := filepath.Join(b.TempDir(), "b.db")
	s, err := Open(path)
	if err != nil {
		b.Fatal(err)
	}
	s.Close()
	for b.Loop() {
		s, err := Open(path)
		if err != nil {
			b.Fatal(err)
		}
		s.Close()
	}
}
