package store

import (
	"bytes"
	"context"
	"runtime"
	"strings"
	"testing"

	ev "github.com/agentdesk/agentdesk/engine/evaluation"
	"github.com/agentdesk/agentdesk/engine/samples"
)

// sampleWithLargeBundle is the sample project with its first bundle's first turn made a text of
// about size bytes (escapes and multi-byte characters in it).
func sampleWithLargeBundle(t *testing.T, size int) *ev.Project {
	t.Helper()
	p, err := samples.EvaluationProject()
	if err != nil {
		t.Fatal(err)
	}
	chunk := "lorem \"ipsum\" dolor é 日本 \n"
	p.Bundles[0].Datapoints[0].Turns[0].Text = strings.Repeat(chunk, size/len(chunk))
	return p
}

func bundlesJSON(bs []ev.Bundle) [][]byte {
	var out [][]byte
	for _, b := range bs {
		out = append(out, ev.AppendBundleJSON(nil, b))
	}
	return out
}

// A bundle of more than a part is stored in parts and read back whole, by the project and by
// its units; the definition does not carry the bundles; deleting the project removes the parts.
func TestEvalLargeBundleStoredInParts(t *testing.T) {
	ctx := context.Background()
	s := openTemp(t)
	p := sampleWithLargeBundle(t, 3*ev.BundlePartSize+12345)
	want := bundlesJSON(p.Bundles)
	id, err := s.SaveEvalProject(ctx, "big", "created", "", p, "")
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := s.EvalProjectConfig(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(cfg, "[[bundle") || len(cfg) > ev.BundlePartSize/4 {
		t.Fatalf("the definition carries the bundles (%d bytes)", len(cfg))
	}
	var column string
	var parts int
	if err := s.db.QueryRowContext(ctx, `SELECT a.bundle, (SELECT count(*) FROM eval_bundle_parts b WHERE b.assignment_id = a.id)
		FROM eval_assignments a WHERE a.project_id = ? AND a.position = 0`, id).Scan(&column, &parts); err != nil {
		t.Fatal(err)
	}
	if column != "null" || parts < 3 {
		t.Fatalf("large bundle: column %.20q, %d parts", column, parts)
	}
	var small int
	s.db.QueryRowContext(ctx, `SELECT count(*) FROM eval_bundle_parts b JOIN eval_assignments a ON a.id = b.assignment_id WHERE a.position > 0`).Scan(&small)
	if small != 0 {
		t.Fatalf("small bundles stored in %d parts", small)
	}
	got, err := s.EvalProject(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if g := bundlesJSON(got.Bundles); len(g) != len(want) {
		t.Fatalf("%d bundles read back, want %d", len(g), len(want))
	} else {
		for i := range g {
			if !bytes.Equal(g[i], want[i]) {
				t.Fatalf("bundle %d read back differs (%d bytes, want %d)", i, len(g[i]), len(want[i]))
			}
		}
	}
	us, err := s.EvalUnits(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	for _, u := range us {
		if u.Position >= 0 && u.Kind == ev.UnitTask && !bytes.Equal(u.Bundle, want[u.Position]) {
			t.Fatalf("unit of assignment %d: its bundle differs (%d bytes)", u.Position, len(u.Bundle))
		}
	}
	if _, res, err := s.EvalResults(ctx, id); err != nil || len(res) == 0 || len(res[0].Bundle.Datapoints[0].Turns[0].Text) < 3*ev.BundlePartSize {
		t.Fatalf("results: %d, %v", len(res), err)
	}
	if err := s.DeleteEvalProject(ctx, id); err != nil {
		t.Fatal(err)
	}
	s.db.QueryRowContext(ctx, `SELECT count(*) FROM eval_bundle_parts`).Scan(&parts)
	if parts != 0 {
		t.Fatalf("%d parts outlive their project", parts)
	}
}

// A project stored by the builds before (its definition carrying every bundle as TOML, and
// each assignment its bundle) reads as it did, and keeps reading the same once its definition
// is rewritten the new way (an edit of its settings).
func TestEvalProjectOfAnOlderStore(t *testing.T) {
	ctx := context.Background()
	s := openTemp(t)
	p, err := samples.EvaluationProject()
	if err != nil {
		t.Fatal(err)
	}
	want := bundlesJSON(p.Bundles)
	old, err := ev.MarshalProject(p) // what SaveEvalProject stored before
	if err != nil {
		t.Fatal(err)
	}
	var as []ev.NewAssignment
	for _, b := range p.Bundles {
		n, _ := p.UnitsFor(b)
		as = append(as, ev.NewAssignment{GroupID: b.GroupID(), Bundle: ev.AppendBundleJSON(nil, b), Units: n})
	}
	id, err := s.CreateEvalProject(ctx, p.Name, "imported", "", string(old), "", as)
	if err != nil {
		t.Fatal(err)
	}
	check := func(when string) *ev.Project {
		got, err := s.EvalProject(ctx, id)
		if err != nil {
			t.Fatalf("%s: %v", when, err)
		}
		g := bundlesJSON(got.Bundles)
		if len(g) != len(want) {
			t.Fatalf("%s: %d bundles, want %d", when, len(g), len(want))
		}
		for i := range g {
			if !bytes.Equal(g[i], want[i]) {
				t.Fatalf("%s: bundle %d differs:\n%s\nwant\n%s", when, i, g[i], want[i])
			}
		}
		return got
	}
	got := check("stored the old way")
	got.Settings.MaxEntrants = 7
	cfg, err := ev.MarshalDefinition(got)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.SetEvalProjectConfig(ctx, id, string(cfg)); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(cfg), "[[bundle") {
		t.Fatal("MarshalDefinition wrote the bundles")
	}
	if got := check("its definition rewritten"); got.Settings.MaxEntrants != 7 {
		t.Fatalf("the edit was lost: %d", got.Settings.MaxEntrants)
	}
}

// The scaled-down copy of issue 29's 100 MB line: storing a project with a 10 MB bundle
// allocates a fraction of the bundle in Go (its JSON goes a part at a time; the definition
// without it), where the definition's TOML and the whole JSON cost several times it before.
func TestEvalSaveLargeBundleAllocations(t *testing.T) {
	ctx := context.Background()
	s := openTemp(t)
	p := sampleWithLargeBundle(t, 10<<20)
	n := uint64(len(p.Bundles[0].Datapoints[0].Turns[0].Text))
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	if _, err := s.SaveEvalProject(ctx, "big", "created", "", p, ""); err != nil {
		t.Fatal(err)
	}
	runtime.ReadMemStats(&after)
	got := after.TotalAlloc - before.TotalAlloc
	t.Logf("a %d-byte bundle stored with %.2fx it allocated", n, float64(got)/float64(n))
	if got > n/2 {
		t.Errorf("storing a %d-byte bundle allocated %d bytes, want at most half of it", n, got)
	}
}
