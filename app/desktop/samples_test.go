package desktop

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/agentdesk/agentdesk/engine/episode"
	"github.com/agentdesk/agentdesk/store"
)

// TestSampleDataLoadsOnce: Home's "Load sample data" pressed when the samples are loaded
// imports nothing again (the Explorer's episodes keep their ids) and says so.
func TestSampleDataLoadsOnce(t *testing.T) {
	ctx := context.Background()
	st, err := store.Open(filepath.Join(t.TempDir(), "s.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	d := sampleData{store: func() *store.Store { return st }, dir: filepath.Join(t.TempDir(), "samples")}
	report := func(float64, string) {}
	first, err := d.Load(ctx, report)
	if err != nil || first.Already {
		t.Fatalf("first load: %+v, %v", first, err)
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
	second, err := d.Load(ctx, report)
	if err != nil || !second.Already || !strings.Contains(second.Summary, "already loaded") || second.Demonstrations != first.Demonstrations {
		t.Fatalf("second load: %+v, %v", second, err)
	}
	if after := ids(); len(before) == 0 || !slices.Equal(after, before) {
		t.Fatalf("the second load changed the episodes: ids %v, then %v", before, after)
	}
}
