package dataset

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"
)

func ptr(f float64) *float64 { return &f }

// stepsOf makes n steps of an episode in the shapes the sources store: clicks with a point,
// scrolls with two, typing with text and none, unicode and long annotation JSON.
func stepsOf(ep string, n int) []StepRow {
	var out []StepRow
	for i := range n {
		r := StepRow{EpisodeID: ep, Source: "odyssey", Step: int64(i), ActionKind: "click",
			ActionJSON: fmt.Sprintf(`{"kind":"click","points":[{"x":0.%d,"y":0.5}]}`, i+1), Action: "CLICK",
			Instruction: "Tap «Réglages» " + ep, ObservationRef: fmt.Sprintf("/data/%s_%d.png", ep, i),
			Extra: fmt.Sprintf(`{"step":%d,"note":"%s"}`, i, strings.Repeat("é", i*40)), Reward: float64(i) / 2}
		switch i % 3 {
		case 0:
			r.ActionX, r.ActionY = ptr(float64(i+1)/10), ptr(0.5)
		case 1:
			r.ActionKind, r.Action, r.ActionText = "scroll", "SCROLL", "UP"
			r.ActionX, r.ActionY, r.ActionX2, r.ActionY2 = ptr(0.5), ptr(0.9), ptr(0.5), ptr(0.1)
		case 2:
			r.ActionKind, r.Action, r.ActionText = "type", "TEXT", "hello wörld"
		}
		out = append(out, r)
	}
	return out
}

// Episodes given as stored pages and episodes given as rows make the same files, read back
// whole by parquet-go in order, over several row groups, shards and splits; each page's
// encodings are among those the footer names.
func TestStepPagesSpliceIntoValidFiles(t *testing.T) {
	dest := filepath.Join(t.TempDir(), "ds")
	x, err := NewExporter(dest, Options{NoImages: true, ShardBytes: 64 << 10})
	if err != nil {
		t.Fatal(err)
	}
	enc := NewPageEncoder()
	want := map[string][]StepRow{}
	wantEps := map[string][]EpisodeRow{}
	for e := range 400 {
		split := []string{"train", "test"}[e%2]
		ep := fmt.Sprintf("%05d", e)
		rows := stepsOf(ep, e%17)
		want[split] = append(want[split], stepsOf(ep, e%17)...)
		er := EpisodeRow{EpisodeID: ep, Source: "odyssey", NumSteps: int64(len(rows)), Facets: `{"app":["Réglages"]}`, Metadata: "{}",
			Apps: []string{"Réglages", "Maps"}[:e%3], Task: strings.Repeat("t", e)}
		if e%4 == 1 {
			er.Reward = ptr(float64(e))
		}
		wantEps[split] = append(wantEps[split], er)
		if e%3 == 0 { // as the store gives them: encoded when the episode was imported
			eb, err := enc.Episodes(nil, []EpisodeRow{er})
			if err != nil {
				t.Fatal(err)
			}
			sb, err := enc.Steps(nil, rows)
			if err != nil {
				t.Fatal(err)
			}
			if err := x.EpisodePages(split, eb, sb); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if err := x.Episode(split, &er); err != nil {
			t.Fatal(err)
		}
		for i := range rows {
			if err := x.Step(split, &rows[i]); err != nil {
				t.Fatal(err)
			}
		}
	}
	sum, err := x.Commit([]string{ConfigEpisodes, ConfigSteps})
	if err != nil {
		t.Fatal(err)
	}
	if n := len(sum.Files[ConfigSteps]); n < 4 {
		t.Fatalf("steps in %d files: a 64 KB shard size should cut them", n)
	}
	gotEps := map[string][]EpisodeRow{}
	err = ReadEpisodes(context.Background(), dest, func(file string, row int64, r *EpisodeRow) error {
		split := strings.Split(filepath.Base(file), "-")[0]
		if len(r.Apps) == 0 {
			r.Apps = nil
		}
		gotEps[split] = append(gotEps[split], *r)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for split, w := range wantEps {
		for i := range w {
			if len(w[i].Apps) == 0 {
				w[i].Apps = nil
			}
		}
		if !reflect.DeepEqual(gotEps[split], w) {
			t.Fatalf("%s episodes: read back differ (%d rows, wrote %d)", split, len(gotEps[split]), len(w))
		}
	}
	got := map[string][]StepRow{}
	err = ReadSteps(context.Background(), dest, func(file string, row int64, r *StepRow) error {
		split := strings.Split(filepath.Base(file), "-")[0]
		got[split] = append(got[split], *r)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for split, w := range want {
		if len(got[split]) != len(w) {
			t.Fatalf("%s: read %d steps, wrote %d", split, len(got[split]), len(w))
		}
		for i := range w {
			if !reflect.DeepEqual(got[split][i], w[i]) {
				t.Fatalf("%s step row %d:\n got %+v\nwant %+v", split, i, got[split][i], w[i])
			}
		}
	}
	// the footers as parquet-go reads them: row groups, and the encodings pages use
	groups := 0
	var nullsX2 int64
	for _, rel := range append(sum.Files[ConfigSteps], sum.Files[ConfigEpisodes]...) {
		f, err := os.Open(filepath.Join(dest, rel))
		if err != nil {
			t.Fatal(err)
		}
		fi, _ := f.Stat()
		pf, err := parquet.OpenFile(f, fi.Size())
		if err != nil {
			t.Fatalf("%s: %v", rel, err)
		}
		groups += len(pf.RowGroups())
		for _, rg := range pf.Metadata().RowGroups {
			for _, c := range rg.Columns {
				if strings.Join(c.MetaData.PathInSchema, ".") == "action_x2" {
					nullsX2 += c.MetaData.Statistics.NullCount
				}
				named := map[string]bool{}
				for _, e := range c.MetaData.Encoding {
					named[e.String()] = true
				}
				if len(named) == 0 {
					t.Fatalf("%s: column %v names no encoding", rel, c.MetaData.PathInSchema)
				}
			}
		}
		// every page decodes, and the chunk's pages hold the values its metadata counts
		for gi, rg := range pf.RowGroups() {
			for ci, cc := range rg.ColumnChunks() {
				pages := cc.Pages()
				var n int64
				for {
					p, err := pages.ReadPage()
					if err == io.EOF {
						break
					}
					if err != nil {
						t.Fatalf("%s group %d column %d: %v", rel, gi, ci, err)
					}
					n += p.NumValues()
					parquet.Release(p)
				}
				pages.Close()
				if want := pf.Metadata().RowGroups[gi].Columns[ci].MetaData.NumValues; n != want {
					t.Fatalf("%s group %d column %d: pages hold %d values, the footer says %d", rel, gi, ci, n, want)
				}
			}
		}
		f.Close()
	}
	// the footers count the nulls (DuckDB reads none where a chunk says 0)
	var nilX2 int64
	for _, rows := range got {
		for _, r := range rows {
			if r.ActionX2 == nil {
				nilX2++
			}
		}
	}
	if nullsX2 != nilX2 || nilX2 == 0 {
		t.Fatalf("the footers count %d nulls in action_x2, the rows hold %d", nullsX2, nilX2)
	}
	if groups < 8 {
		t.Fatalf("%d row groups: a 16 KB group (a quarter of the shard) should cut more", groups)
	}
}

// Damaged or foreign stored pages are refused, not spliced.
func TestStepPagesRefuseDamage(t *testing.T) {
	enc := NewPageEncoder()
	b, err := enc.Steps(nil, stepsOf("1", 3))
	if err != nil {
		t.Fatal(err)
	}
	for name, bad := range map[string][]byte{
		"cut":          b[:len(b)-5],
		"longer":       append(append([]byte{}, b...), 0),
		"other layout": append([]byte{PagesLayout + 1}, b[1:]...),
		"empty":        nil,
	} {
		p := &pageShards{tmpl: stepTemplate, dir: t.TempDir(), split: "train", shardBytes: 1 << 20, groupBytes: 1 << 20}
		if _, err := p.add(bad); err == nil {
			t.Fatalf("%s: accepted", name)
		}
	}
}
