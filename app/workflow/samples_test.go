package workflow

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/agentdesk/agentdesk/engine/conformance"
	"github.com/agentdesk/agentdesk/engine/episode"
	ev "github.com/agentdesk/agentdesk/engine/evaluation"
	"github.com/agentdesk/agentdesk/engine/evaluation/agreement"
	"github.com/agentdesk/agentdesk/store"
)

// TestSamplesLoadAndRemove: the bundled samples load into a store beside the user's own
// dataset; loading again leaves one copy; removing takes exactly the samples away, files
// included, and leaves the user's data as it was.
func TestSamplesLoadAndRemove(t *testing.T) {
	ctx := context.Background()
	st, err := store.Open(filepath.Join(t.TempDir(), "s.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	// the user's own dataset first
	if _, err := ImportDataset(ctx, st, filepath.Join(conformance.RepoDir(t, "odyssey"), "sample"), ImportOptions{}); err != nil {
		t.Fatal(err)
	}
	before, err := st.Overview(ctx)
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), SamplesFolder)
	s, err := LoadSamples(ctx, st, dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Log(s.Summary())
	c, err := SampleContents(ctx, st, dir)
	if err != nil {
		t.Fatal(err)
	}
	if c.Episodes == 0 || c.Episodes != s.Dataset.Episodes || c.Splits == 0 || c.Runs != 1 || c.Projects != 1 || c.Folders != 1 {
		t.Fatalf("after loading: %+v (dataset %d episodes)", c, s.Dataset.Episodes)
	}
	for _, p := range []string{s.Demonstrations, s.Templates, s.OdysseyPredictions, s.Evaluation} {
		if _, err := os.Stat(p); err != nil {
			t.Fatalf("sample file: %v", err)
		}
	}
	again, err := LoadSamples(ctx, st, dir)
	if err != nil {
		t.Fatalf("loading twice: %v", err)
	}
	if c2, _ := SampleContents(ctx, st, dir); c2 != c || again.Dataset.Episodes != c.Episodes {
		t.Fatalf("loading twice: %+v, then %+v", c, c2)
	}
	removed, err := RemoveSamples(ctx, st, dir)
	if err != nil || removed != c {
		t.Fatalf("removed %+v (%v), loaded %+v", removed, err, c)
	}
	if c3, _ := SampleContents(ctx, st, dir); !c3.Empty() {
		t.Fatalf("left after removing: %+v", c3)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Fatalf("the samples folder is still there: %v", err)
	}
	after, err := st.Overview(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if after.Episodes() != before.Episodes() || after.Splits != before.Splits {
		t.Fatalf("the user's data changed: %d episodes and %d splits before, %d and %d after",
			before.Episodes(), before.Splits, after.Episodes(), after.Splits)
	}
	// a fresh load after removing works (the store forgot the imported files)
	if s, err := LoadSamples(ctx, st, dir); err != nil || s.Dataset.Episodes != c.Episodes {
		t.Fatalf("loading after removing: %d episodes, %v", s.Dataset.Episodes, err)
	}
}

// BenchmarkLoadSamples is what Load sample data costs: writing the samples and loading them
// into a store (replacing the previous copy after the first round).
func BenchmarkLoadSamples(b *testing.B) {
	st, err := store.Open(filepath.Join(b.TempDir(), "s.db"))
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	dir := filepath.Join(b.TempDir(), SamplesFolder)
	for b.Loop() {
		if _, err := LoadSamples(context.Background(), st, dir); err != nil {
			b.Fatal(err)
		}
	}
}

// TestEnsureSamplesImportsOnce: loading the samples when they are loaded imports nothing (the
// episodes keep their ids) and only writes back missing files; the evaluation sample comes
// with two annotators' answers, so its agreement statistics have rows, and a unit of each
// bundle stays open.
func TestEnsureSamplesImportsOnce(t *testing.T) {
	ctx := context.Background()
	st, err := store.Open(filepath.Join(t.TempDir(), "s.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	dir := filepath.Join(t.TempDir(), SamplesFolder)
	first, loaded, err := EnsureSamples(ctx, st, dir)
	if err != nil || !loaded {
		t.Fatalf("first load: loaded %v, %v", loaded, err)
	}
	ids := func() []int64 {
		eps, err := st.Episodes(ctx, episode.Query{})
		if err != nil {
			t.Fatal(err)
		}
		var out []int64
		for _, e := range eps {
			out = append(out, e.ID)
		}
		return out
	}
	before := ids()
	if len(before) == 0 {
		t.Fatal("no sample episodes")
	}
	if err := os.Remove(first.Demonstrations); err != nil {
		t.Fatal(err)
	}
	again, loaded, err := EnsureSamples(ctx, st, dir)
	if err != nil || loaded {
		t.Fatalf("second load: loaded %v, %v", loaded, err)
	}
	if after := ids(); !slices.Equal(after, before) {
		t.Fatalf("episode ids changed: %v, then %v", before, after)
	}
	if _, err := os.Stat(again.Demonstrations); err != nil || again.Demonstrations != first.Demonstrations {
		t.Fatalf("the missing demonstrations file was not written back: %v", err)
	}
	if again.ProjectID != first.ProjectID || again.Contents.Projects != 1 || !strings.Contains(again.AlreadyLoaded(), "already loaded") {
		t.Fatalf("second load reports %+v", again)
	}

	info, err := st.EvalProjectInfo(ctx, first.ProjectID)
	if err != nil {
		t.Fatal(err)
	}
	if info.Done == 0 || info.Done*3 != info.Units*2 || info.Participants != 2 {
		t.Fatalf("sample project: %d of %d units done by %d participants; want two of three per bundle, by two", info.Done, info.Units, info.Participants)
	}
	p, results, err := st.EvalResults(ctx, first.ProjectID)
	if err != nil {
		t.Fatal(err)
	}
	stats, err := ev.ComputeStats(ctx, p, results, agreement.Ordinal, nil)
	if err != nil {
		t.Fatal(err)
	}
	compared := 0
	for _, l := range stats.Labels {
		if l.Items > 0 && !math.IsNaN(l.PercentAgreement) {
			compared++
		}
	}
	if compared < 5 {
		t.Fatalf("%d of %d labels compared between the annotators", compared, len(stats.Labels))
	}
}
