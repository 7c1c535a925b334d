package store

import (
	"context"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode"

	"github.com/agentdesk/agentdesk/engine/cputime"
	"github.com/agentdesk/agentdesk/engine/episode"
	"github.com/agentdesk/agentdesk/engine/odyssey"
)

// benchPage is the Explorer's page size (ui.explorerPage).
const benchPage = 100

// explorerBenchStore generates (or reuses) the full-scale dataset and imports it.
func explorerBenchStore(b *testing.B) (*Store, []int64) {
	ctx := context.Background()
	dir := os.Getenv("AGENTDESK_EXPLORER_DATASET")
	shots := "zip"
	if dir == "" {
		dir, shots = filepath.Join(b.TempDir(), "odyssey"), "none"
	}
	if _, err := os.Stat(dir); err != nil {
		t0 := time.Now()
		gen, err := odyssey.Generate(ctx, dir, odyssey.GenerateOptions{Episodes: 8334, Seed: 1, Screenshots: shots})
		if err != nil {
			b.Fatal(err)
		}
		b.Logf("generated %d episodes, %d steps in %v", gen.Episodes, gen.Steps, time.Since(t0).Round(time.Millisecond))
	}
	path := os.Getenv("AGENTDESK_EXPLORER_STORE")
	if path == "" {
		path = filepath.Join(b.TempDir(), "explorer.db")
	}
	s, err := Open(path)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { s.Close() })
	t0 := time.Now()
	ds, err := odyssey.OpenDataset(dir)
	if err != nil {
		b.Fatal(err)
	}
	res, err := s.ImportOdyssey(ctx, ds, OdysseyImportOptions{})
	if err != nil {
		b.Fatal(err)
	}
	s.OptimizeQueries(ctx) // as an import by the app does (app/workflow)
	b.Logf("imported %d episodes (with statistics: %v)", res.Episodes, time.Since(t0).Round(time.Millisecond))
	var ids []int64
	if err := s.ForEachMatchingID(ctx, episode.Filter{}, func(p []int64) error { ids = append(ids, p...); return nil }); err != nil {
		b.Fatal(err)
	}
	if os.Getenv("AGENTDESK_EXPLORER_INDEX") != "sql" { // as the Explorer does when it opens
		var m0, m1 runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&m0)
		t0 := time.Now()
		if err := s.PrepareExplorer(ctx); err != nil {
			b.Fatal(err)
		}
		runtime.GC()
		runtime.ReadMemStats(&m1)
		b.Logf("memory index of %d episodes made in %v, %.1f MB of heap", len(ids), time.Since(t0).Round(time.Millisecond),
			float64(int64(m1.HeapAlloc)-int64(m0.HeapAlloc))/1e6)
	}
	return s, ids
}

// BenchmarkExplorer measures the Explorer's queries on a store of GUI Odyssey v2's full size:
// 8,334 episodes (about 128k steps) made by the Odyssey generator with its four official
// splits and imported by the Odyssey importer, as a user would. Each sub-benchmark cycles
// through many different queries and reports the median, the 95th percentile and the worst
// latency over all of them (p50-ms, p95-ms, max-ms), and on Linux the median and 95th
// percentile of the CPU time the process spent on a query (cpu-p50-ms, cpu-p95-ms), which
// waiting for a core shared with other work does not inflate.
//
//	go test -run '^$' -bench Explorer -benchtime 400x ./store/
//
// AGENTDESK_EXPLORER_DATASET=DIR keeps the generated dataset (with zipped screenshots) in DIR
// and reuses it; AGENTDESK_EXPLORER_STORE=PATH keeps the store, for measuring the app on it.
// The queries use the memory index the Explorer makes when it opens (explorer_index.go);
// AGENTDESK_EXPLORER_INDEX=sql measures SQL alone; AGENTDESK_EXPLORER_COLD_SEARCH=1 makes
// every search afresh (the index keeps the last few searches' matches and rankings).
func BenchmarkExplorer(b *testing.B) {
	ctx := context.Background()
	s, ids := explorerBenchStore(b)
	r := rand.New(rand.NewPCG(9, 9))
	values := map[string][]string{}
	for _, f := range []string{episode.FacetCategory, episode.FacetApp, episode.FacetDevice, episode.FacetAction} {
		cs, err := s.FacetValues(ctx, f)
		if err != nil || len(cs) == 0 {
			b.Fatalf("facet %s: %v %v", f, cs, err)
		}
		byCount(cs)
		for _, c := range cs {
			values[f] = append(values[f], c.Value)
		}
	}
	pick := func(xs []string) string { return xs[r.IntN(len(xs))] }
	popular := func(xs []string) string { return xs[int(r.ExpFloat64()*float64(len(xs))/8)%len(xs)] }
	splits := []string{"random_split", "task_split", "device_split", "app_split"}
	randomFilter := func() episode.Filter {
		var f episode.Filter
		switch r.IntN(8) {
		case 0: // everything
		case 1:
			f = f.WithFacet(episode.FacetCategory, pick(values[episode.FacetCategory]))
		case 2:
			f = f.WithFacet(episode.FacetApp, popular(values[episode.FacetApp]))
		case 3:
			f = f.WithFacet(episode.FacetDevice, pick(values[episode.FacetDevice])).
				WithFacet(episode.FacetCategory, pick(values[episode.FacetCategory]), pick(values[episode.FacetCategory]))
		case 4:
			f = f.WithFacet(episode.FacetAction, pick(values[episode.FacetAction]))
			f.MinSteps = 10 + r.IntN(5)
		case 5:
			f.Split, f.Part = pick(splits), pick([]string{"train", "test"})
		case 6:
			f.Split, f.Part = "random_split", "test"
			f = f.WithFacet(episode.FacetCategory, pick(values[episode.FacetCategory]))
			f.MaxSteps = 12
		case 7:
			f.Source = episode.SourceOdyssey
			f.MinSteps, f.MaxSteps = 8, 20
		}
		return f
	}
	randomSort := func() episode.Sort {
		keys := []episode.SortKey{episode.SortID, episode.SortSource, episode.SortSteps, episode.SortReward, episode.SortCreated, episode.SortEpisode, episode.SortTask}
		return episode.Sort{Key: keys[r.IntN(len(keys))], Desc: r.IntN(2) == 0}
	}
	words := []string{"tokyo", "photography", "recipe", "weather forecast", "jazz", "fashion week", "chrome", "share",
		"shopping list", "video", "remind", "museum", "solar eclipse", "send contact", "Paris", "podcast", "note",
		"coffee maker", "use TickTick", "laptop", "gardening", "the", "app"}
	typing := true
	if os.Getenv("AGENTDESK_EXPLORER_WORDS") == "tasks" {
		words, typing = taskWords(b, s, r), false
		b.Logf("search terms from the task texts: %q", words)
	}
	randomText := func() string {
		w := pick(words)
		if typing && r.IntN(3) == 0 { // typing in progress: a prefix
			w = w[:max(2, len(w)-2)]
		}
		return w
	}

	measure := func(b *testing.B, op func() error) {
		var lat, cpu []time.Duration
		for b.Loop() {
			t0, c0 := time.Now(), cputime.Process()
			if err := op(); err != nil {
				b.Fatal(err)
			}
			lat = append(lat, time.Since(t0))
			cpu = append(cpu, cputime.Process()-c0)
		}
		q := func(ds []time.Duration, p float64) float64 {
			slices.Sort(ds)
			return float64(ds[int(p*float64(len(ds)-1))]) / 1e6
		}
		b.ReportMetric(q(lat, 0.5), "p50-ms")
		b.ReportMetric(q(lat, 0.95), "p95-ms")
		b.ReportMetric(q(lat, 1), "max-ms")
		if cputime.Process() > 0 {
			b.ReportMetric(q(cpu, 0.5), "cpu-p50-ms")
			b.ReportMetric(q(cpu, 0.95), "cpu-p95-ms")
		}
	}

	b.Run("count", func(b *testing.B) {
		measure(b, func() error { _, err := s.CountMatching(ctx, randomFilter()); return err })
	})
	b.Run("page", func(b *testing.B) {
		// A page (the Explorer reads 100 rows at a time) anywhere in the listing: the first, or one
		// reached by scrolling.
		measure(b, func() error {
			f, srt := randomFilter(), randomSort()
			off := 0
			if r.IntN(2) == 0 {
				off = benchPage * r.IntN(80)
			}
			_, err := s.MatchingPage(ctx, f, srt, off, benchPage)
			return err
		})
	})
	b.Run("filter-change", func(b *testing.B) {
		// What the listing does when the filter changes: count, then the first page.
		measure(b, func() error {
			f := randomFilter()
			if _, err := s.CountMatching(ctx, f); err != nil {
				return err
			}
			_, err := s.MatchingPage(ctx, f, randomSort(), 0, benchPage)
			return err
		})
	})
	b.Run("fts", func(b *testing.B) {
		// A search as typed: count and the first page, by relevance or by a column, alone or
		// with other conditions.
		cold := os.Getenv("AGENTDESK_EXPLORER_COLD_SEARCH") != ""
		measure(b, func() error {
			if idx := s.explorerIndex(ctx); cold && idx != nil {
				idx.texts = nil // every search afresh: none of the recent searches kept
			}
			f := episode.Filter{Text: randomText()}
			if r.IntN(2) == 0 {
				g := randomFilter()
				g.Text = f.Text
				f = g
			}
			srt := episode.Sort{Key: episode.SortRelevance}
			if r.IntN(2) == 0 {
				srt = randomSort()
			}
			if _, err := s.CountMatching(ctx, f); err != nil {
				return err
			}
			_, err := s.MatchingPage(ctx, f, srt, 0, benchPage)
			return err
		})
	})
	b.Run("stats", func(b *testing.B) {
		measure(b, func() error { _, err := s.MatchingStats(ctx, randomFilter()); return err })
	})
	b.Run("episode", func(b *testing.B) {
		// Opening an episode in the detail view.
		measure(b, func() error { _, err := s.Episode(ctx, ids[r.IntN(len(ids))]); return err })
	})
}

// BenchmarkExplorer100k pages through a store of 100,000 synthetic episodes (about 1.5 million
// steps; explorer_gen_test.go) the way the Explorer's table scrolls: pages of 100 rows anywhere
// in the listing, in every sort order, unfiltered and with a category filter. "page" reads a
// page on its own (MatchingPage, as the first page of a listing is read); "scroll" reads it by
// id from the listing's order (EpisodeRows), which the Explorer reads once per filter and sort
// (SortedIDs, timed in "order").
//
//	go test -run '^$' -bench Explorer100k -benchtime 200x ./store/
func BenchmarkExplorer100k(b *testing.B) {
	ctx := context.Background()
	s, err := Open(filepath.Join(b.TempDir(), "explorer100k.db"))
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	t0 := time.Now()
	steps := fillSynthetic(b, s, 100000, 5)
	if err := s.OptimizeQueries(ctx); err != nil {
		b.Fatal(err)
	}
	b.Logf("100000 episodes, %d steps, filled in %v", steps, time.Since(t0).Round(time.Second))
	r := rand.New(rand.NewPCG(3, 3))
	keys := []episode.SortKey{episode.SortID, episode.SortSource, episode.SortSteps, episode.SortReward, episode.SortCreated,
		episode.SortEpisode, episode.SortTask}
	report := func(b *testing.B, lat []time.Duration) {
		slices.Sort(lat)
		b.ReportMetric(float64(lat[len(lat)/2])/1e6, "p50-ms")
		b.ReportMetric(float64(lat[len(lat)*95/100])/1e6, "p95-ms")
		b.ReportMetric(float64(lat[len(lat)-1])/1e6, "max-ms")
	}
	for _, c := range []struct {
		name string
		f    episode.Filter
	}{{"all", episode.Filter{}}, {"category", episode.Filter{}.WithFacet(episode.FacetCategory, genCategories[1])},
		{"category+device", episode.Filter{}.WithFacet(episode.FacetCategory, genCategories[2]).WithFacet(episode.FacetDevice, genDevices[0])}} {
		n, err := s.CountMatching(ctx, c.f)
		if err != nil {
			b.Fatal(err)
		}
		randomSort := func() episode.Sort { return episode.Sort{Key: keys[r.IntN(len(keys))], Desc: r.IntN(2) == 0} }
		b.Run(c.name+"/page", func(b *testing.B) {
			var lat []time.Duration
			for b.Loop() {
				srt, off := randomSort(), benchPage*r.IntN(n/benchPage)
				t0 := time.Now()
				if _, err := s.MatchingPage(ctx, c.f, srt, off, benchPage); err != nil {
					b.Fatal(err)
				}
				lat = append(lat, time.Since(t0))
			}
			report(b, lat)
		})
		orders := map[episode.Sort][]int64{}
		b.Run(c.name+"/order", func(b *testing.B) {
			var lat []time.Duration
			for b.Loop() {
				srt := randomSort()
				t0 := time.Now()
				ids, err := s.SortedIDs(ctx, c.f, srt)
				if err != nil || len(ids) != n {
					b.Fatalf("%d ids of %d: %v", len(ids), n, err)
				}
				lat = append(lat, time.Since(t0))
				orders[srt] = ids
			}
			report(b, lat)
		})
		b.Run(c.name+"/scroll", func(b *testing.B) {
			var lat []time.Duration
			for b.Loop() {
				srt := randomSort()
				ids := orders[srt]
				if ids == nil {
					if ids, err = s.SortedIDs(ctx, c.f, srt); err != nil {
						b.Fatal(err)
					}
					orders[srt] = ids
				}
				off := benchPage * r.IntN(n/benchPage)
				t0 := time.Now()
				if _, err := s.EpisodeRows(ctx, ids[off:min(off+benchPage, len(ids))], ""); err != nil {
					b.Fatal(err)
				}
				lat = append(lat, time.Since(t0))
			}
			report(b, lat)
		})
	}
}

// taskWords are the search terms of the scale measurement: the 20 most frequent words
// of the stored task texts and 20 two-word phrases taken at random from them.
func taskWords(b *testing.B, s *Store, r *rand.Rand) []string {
	rows, err := s.db.Query(`SELECT task FROM episodes`)
	if err != nil {
		b.Fatal(err)
	}
	defer rows.Close()
	counts := map[string]int{}
	var tasks [][]string
	for rows.Next() {
		var t string
		if err := rows.Scan(&t); err != nil {
			b.Fatal(err)
		}
		ws := strings.FieldsFunc(strings.ToLower(t), func(c rune) bool { return !unicode.IsLetter(c) && !unicode.IsDigit(c) })
		for _, w := range ws {
			counts[w]++
		}
		if len(ws) >= 2 {
			tasks = append(tasks, ws)
		}
	}
	all := make([]string, 0, len(counts))
	for w := range counts {
		all = append(all, w)
	}
	slices.SortFunc(all, func(a, b string) int { return counts[b] - counts[a] })
	out := append([]string(nil), all[:min(20, len(all))]...)
	for i := 0; i < 20 && len(tasks) > 0; i++ {
		ws := tasks[r.IntN(len(tasks))]
		k := r.IntN(len(ws) - 1)
		out = append(out, ws[k]+" "+ws[k+1])
	}
	return out
}
