package store

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/agentdesk/agentdesk/engine/conformance"
	"github.com/agentdesk/agentdesk/engine/episode"
	"github.com/agentdesk/agentdesk/engine/odyssey"
)

type odysseyDatasetCase struct {
	Dir         string                    `json:"dir"`
	Episodes    int                       `json:"episodes"`
	Steps       int                       `json:"steps"`
	Screenshots int                       `json:"screenshots"`
	Splits      map[string]map[string]int `json:"splits"`
	AllFile     string                    `json:"all_file"`
	Schema      string                    `json:"schema"`
}

// odysseyDatasets reads datasets*.json of the conformance area ($AGENTDESK_CONFORMANCE or the
// repository's copy).
func odysseyDatasets(t *testing.T) []odysseyDatasetCase {
	t.Helper()
	return readOdysseyDatasets(t, conformance.Files(t, "odyssey", "datasets*.json"))
}

// fixtureDataset returns the folder and the datasets.json entry of one dataset of the
// repository's own conformance copy (not the $AGENTDESK_CONFORMANCE override): fixture tests
// that change or rely on a particular dataset use it, with its counts taken from the file.
func fixtureDataset(t *testing.T, name string) (string, odysseyDatasetCase) {
	t.Helper()
	base := conformance.RepoDir(t, "odyssey")
	paths, _ := filepath.Glob(filepath.Join(base, "datasets*.json"))
	for _, dc := range readOdysseyDatasets(t, paths) {
		if dc.Dir == name {
			return filepath.Join(base, dc.Dir), dc
		}
	}
	t.Fatalf("no dataset %s in %s/datasets*.json", name, base)
	return "", odysseyDatasetCase{}
}

func readOdysseyDatasets(t *testing.T, paths []string) []odysseyDatasetCase {
	t.Helper()
	var out []odysseyDatasetCase
	for _, path := range paths {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		var doc struct {
			Datasets []odysseyDatasetCase `json:"datasets"`
		}
		if err := json.Unmarshal(data, &doc); err != nil {
			t.Fatal(err)
		}
		out = append(out, doc.Datasets...)
	}
	return out
}

func importOdyssey(t *testing.T, s *Store, dir string, opts OdysseyImportOptions) OdysseyImportResult {
	t.Helper()
	ds, err := odyssey.OpenDataset(dir)
	if err != nil {
		t.Fatal(err)
	}
	res, err := s.ImportOdyssey(context.Background(), ds, opts)
	if err != nil {
		t.Fatalf("import %s: %v", dir, err)
	}
	return res
}

// odysseyImportsTable labels the rows of the import log in dumpOdyssey's output.
const odysseyImportsTable = "odyssey_imports"

// dumpOdyssey renders every table an import writes, for before/after comparisons.
func dumpOdyssey(t *testing.T, s *Store) string {
	t.Helper()
	var b strings.Builder
	for _, tq := range []struct{ table, q string }{
		{"episodes", `SELECT id, source, external_id, task, instruction, num_steps, metadata, file_id FROM episodes ORDER BY id`},
		{"steps", `SELECT episode_id, idx, action, action_kind, instruction, observation_ref, extra FROM steps ORDER BY episode_id, idx`},
		{"episode_facets", `SELECT episode_id, facet, value FROM episode_facets ORDER BY 1, 2, 3`},
		{"imported_files", `SELECT id, kind, path, sha256 FROM imported_files ORDER BY id`},
		{"splits", `SELECT name, kind FROM splits ORDER BY name`},
		{"split_members", `SELECT split_id, episode_id, part, position FROM split_members ORDER BY 1, 2`},
		{odysseyImportsTable, `SELECT id, root, episodes FROM odyssey_imports ORDER BY id`},
		{"episode_text", `SELECT rowid, task, instruction FROM episode_text WHERE episode_text MATCH 'the OR a OR use' ORDER BY rowid`},
	} {
		q := tq.q
		rows, err := s.db.Query(q)
		if err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		cols, _ := rows.Columns()
		for rows.Next() {
			vals := make([]any, len(cols))
			ptrs := make([]any, len(cols))
			for i := range vals {
				ptrs[i] = &vals[i]
			}
			rows.Scan(ptrs...)
			fmt.Fprint(&b, tq.table, ": ")
			fmt.Fprintln(&b, vals...)
		}
		rows.Close()
	}
	return b.String()
}

func TestOdysseyConformanceImport(t *testing.T) {
	ctx := context.Background()
	n := 0
	for _, dc := range odysseyDatasets(t) {
		dir := filepath.Join(conformance.Dir(t, "odyssey"), dc.Dir)
		s := openTemp(t)
		var phases []string
		res := importOdyssey(t, s, dir, OdysseyImportOptions{Progress: func(p OdysseyProgress) {
			if len(phases) == 0 || phases[len(phases)-1] != p.Phase {
				phases = append(phases, p.Phase)
			}
		}})
		n++
		if res.Episodes != dc.Episodes || res.Steps != dc.Steps || res.Screenshots != dc.Screenshots ||
			res.MissingScreenshots != dc.Steps-dc.Screenshots || res.Schema != dc.Schema {
			t.Errorf("%s: imported %+v; want %d episodes, %d steps, %d screenshots (%d missing), schema %s", dc.Dir, res,
				dc.Episodes, dc.Steps, dc.Screenshots, dc.Steps-dc.Screenshots, dc.Schema)
		}
		// The annotations are read first and the import ends with its commit, then the
		// encoding for exports; the split files (if any) are read in between.
		if len(phases) < 3 || phases[0] != "annotations" || phases[len(phases)-2] != "commit" || phases[len(phases)-1] != "encoding for exports" ||
			(len(dc.Splits) > 0 && !reflect.DeepEqual(phases, []string{"annotations", "splits", "commit", "encoding for exports"})) {
			t.Errorf("%s: progress phases %v", dc.Dir, phases)
		}
		got := map[string]map[string]int{}
		for _, sp := range res.Splits {
			got[sp.Name] = map[string]int{}
			for _, part := range []string{"train", "test"} {
				got[sp.Name][part] = sp.PartSizes[part]
			}
		}
		if (len(got) > 0 || len(dc.Splits) > 0) && !reflect.DeepEqual(got, dc.Splits) {
			t.Errorf("%s: splits %v, want %v", dc.Dir, got, dc.Splits)
		}
		// Facets: one category and device per episode, every app, every action kind.
		var cats, devices, eps int
		s.db.QueryRow(`SELECT count(*) FROM episode_facets WHERE facet = 'category'`).Scan(&cats)
		s.db.QueryRow(`SELECT count(*) FROM episode_facets WHERE facet = 'device'`).Scan(&devices)
		s.db.QueryRow(`SELECT count(*) FROM episodes WHERE source = 'odyssey'`).Scan(&eps)
		if cats != dc.Episodes || devices != dc.Episodes || eps != dc.Episodes {
			t.Errorf("%s: %d category and %d device facets, %d episodes", dc.Dir, cats, devices, eps)
		}
		var badActions int
		s.db.QueryRow(`SELECT count(*) FROM (SELECT DISTINCT episode_id, action_kind FROM steps
			EXCEPT SELECT episode_id, value FROM episode_facets WHERE facet = 'action')`).Scan(&badActions)
		if badActions != 0 {
			t.Errorf("%s: %d action kinds without a facet row", dc.Dir, badActions)
		}
		// Every step carries its ground truth and, when the dataset has every screenshot,
		// references a readable one.
		id, _ := s.OdysseyEpisodeIDs(ctx)
		if len(id) == 0 {
			t.Fatalf("%s: no episode stored", dc.Dir)
		}
		epID, _ := s.EpisodeID(ctx, episode.Key{Source: episode.SourceOdyssey, ExternalID: id[0]})
		e, err := s.Episode(ctx, epID)
		if err != nil {
			t.Fatal(err)
		}
		for _, st := range e.Steps {
			if dc.Steps == dc.Screenshots {
				if _, err := odyssey.ReadScreenshot(st.ObservationRef); err != nil {
					t.Errorf("%s: episode %s step %d: %v", dc.Dir, e.ExternalID, st.Index, err)
				}
			}
			if st.Extra[odyssey.ExtraGTCommand] == nil {
				t.Errorf("%s: episode %s step %d has no ground truth: %v", dc.Dir, e.ExternalID, st.Index, st.Extra)
			}
		}
		// Importing the same folder again is a no-op.
		before := dumpOdyssey(t, s)
		again := importOdyssey(t, s, dir, OdysseyImportOptions{})
		if again.Episodes != 0 || again.Unchanged != len(mustDataset(t, dir).AnnotationFiles) {
			t.Errorf("%s: re-import %+v", dc.Dir, again)
		}
		after := dumpOdyssey(t, s)
		// Only the import log grows.
		if stripImports(before) != stripImports(after) {
			t.Errorf("%s: re-importing changed the store", dc.Dir)
		}
	}
	conformance.Report(t, "odyssey dataset import", n)
}

func mustDataset(t *testing.T, dir string) *odyssey.Dataset {
	ds, err := odyssey.OpenDataset(dir)
	if err != nil {
		t.Fatal(err)
	}
	return ds
}

// stripImports drops the import log's rows from a dumpOdyssey output, whatever the dataset's
// folder is called.
func stripImports(dump string) string {
	var keep []string
	for _, line := range strings.Split(dump, "\n") {
		if !strings.HasPrefix(line, odysseyImportsTable+": ") {
			keep = append(keep, line)
		}
	}
	return strings.Join(keep, "\n")
}

// copyDir copies a conformance dataset so a test can change it.
func copyDir(t *testing.T, src string) string {
	t.Helper()
	dst := t.TempDir()
	conformance.CopyTree(t, src, dst)
	return dst
}

func TestOdysseyFailedOrCancelledImportLeavesTheStore(t *testing.T) {
	ctx := context.Background()
	v1, _ := fixtureDataset(t, "sample-v1")
	sample, dc := fixtureDataset(t, "sample")
	s := openTemp(t)
	importOdyssey(t, s, v1, OdysseyImportOptions{})
	before := dumpOdyssey(t, s)

	// A malformed annotation after the good ones: the error names the file and the line.
	dir := copyDir(t, sample)
	bad := filepath.Join(dir, "annotations", "9999999999999999.json")
	os.WriteFile(bad, []byte("{\n  \"episode_id\": \"9999999999999999\",\n  \"steps\": [ {\"step\": 0, \"action\": 5} ]\n}\n"), 0o644)
	ds := mustDataset(t, dir)
	_, err := s.ImportOdyssey(ctx, ds, OdysseyImportOptions{})
	var pe *odyssey.PosError
	if !errors.As(err, &pe) || pe.File != bad || pe.Line != 3 || !strings.Contains(err.Error(), "step 0") {
		t.Fatalf("malformed file: %v", err)
	}
	if dumpOdyssey(t, s) != before {
		t.Fatal("a failed import changed the store")
	}

	// Cancelled half way: nothing stored.
	os.Remove(bad)
	cctx, cancel := context.WithCancel(ctx)
	_, err = s.ImportOdyssey(cctx, mustDataset(t, dir), OdysseyImportOptions{Progress: func(p OdysseyProgress) {
		if p.Phase == "splits" {
			cancel()
		}
	}})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled import: %v", err)
	}
	if dumpOdyssey(t, s) != before {
		t.Fatal("a cancelled import changed the store")
	}
	// And the same import, not cancelled, goes through.
	res := importOdyssey(t, s, dir, OdysseyImportOptions{})
	if res.Episodes != dc.Episodes {
		t.Fatalf("import after the failures: %+v, want %d episodes", res, dc.Episodes)
	}
}

// annotationIDs lists the episode ids of a dataset folder's annotations/ files, sorted.
func annotationIDs(t *testing.T, dir string) []string {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(dir, "annotations", "*.json"))
	var ids []string
	for _, f := range files {
		ids = append(ids, strings.TrimSuffix(filepath.Base(f), ".json"))
	}
	return ids
}

// splitEntries counts the entries of a dataset folder's split files that name one of ids.
func splitEntries(t *testing.T, dir string, ids []string) int {
	t.Helper()
	want := map[string]bool{}
	for _, id := range ids {
		want[id] = true
	}
	files, _ := filepath.Glob(filepath.Join(dir, "splits", "*.json"))
	n := 0
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var parts map[string][]string
		if err := json.Unmarshal(data, &parts); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		for _, list := range parts {
			for _, e := range list {
				if want[strings.TrimSuffix(e, ".json")] {
					n++
				}
			}
		}
	}
	return n
}

func TestOdysseyFillFromAllFile(t *testing.T) {
	sample, dc := fixtureDataset(t, "sample")
	dir := copyDir(t, sample)
	ids := annotationIDs(t, dir)
	if len(ids) < 3 || dc.AllFile == "" {
		t.Fatalf("the fixture needs at least 3 annotation files and a one-file variant: %d, %q", len(ids), dc.AllFile)
	}
	removed := ids[:2]
	for _, id := range removed {
		os.Remove(filepath.Join(dir, "annotations", id+".json"))
	}
	inSplits := splitEntries(t, dir, removed)
	s := openTemp(t)
	res := importOdyssey(t, s, dir, OdysseyImportOptions{})
	kept := dc.Episodes - len(removed)
	if res.Episodes != kept || res.MissingSplitEpisodes != inSplits || !strings.Contains(strings.Join(res.Warnings, "\n"), dc.AllFile+" not read") {
		t.Fatalf("without filling: %+v; want %d episodes, %d missing split entries", res, kept, inSplits)
	}
	ds := mustDataset(t, dir)
	ds.FillFromAllFile = true
	res, err := s.ImportOdyssey(context.Background(), ds, OdysseyImportOptions{})
	if err != nil || res.Episodes != len(removed) || res.Unchanged != kept || res.MissingSplitEpisodes != 0 {
		t.Fatalf("filling: %+v, %v", res, err)
	}
	got, _ := s.OdysseyEpisodeIDs(context.Background())
	if len(got) != dc.Episodes {
		t.Fatalf("%d episodes, want %d", len(got), dc.Episodes)
	}
}

func TestOdysseyOneFileVariantProgress(t *testing.T) {
	sample, dc := fixtureDataset(t, "sample")
	dir := copyDir(t, sample)
	os.RemoveAll(filepath.Join(dir, "annotations"))
	s := openTemp(t)
	var last OdysseyProgress
	res := importOdyssey(t, s, dir, OdysseyImportOptions{Progress: func(p OdysseyProgress) {
		if p.Phase == "annotations" {
			last = p
		}
	}})
	if res.Episodes != dc.Episodes || res.Layout != dc.AllFile ||
		last != (OdysseyProgress{Phase: "annotations", Done: dc.Episodes, Total: dc.Episodes}) {
		t.Fatalf("%+v, last progress %+v; want %d episodes from %s", res, last, dc.Episodes, dc.AllFile)
	}
}

func TestOdysseyMissingScreenshotsAndCopies(t *testing.T) {
	v1, dc := fixtureDataset(t, "sample-v1")
	dir := copyDir(t, v1)
	ids := annotationIDs(t, dir)
	if len(ids) == 0 {
		t.Fatal("the fixture has no annotation files")
	}
	shots, _ := filepath.Glob(filepath.Join(dir, "screenshots", ids[0]+"_*.png"))
	removed := min(3, len(shots))
	if removed == 0 {
		t.Fatalf("episode %s has no screenshots", ids[0])
	}
	for _, p := range shots[:removed] {
		os.Remove(p)
	}
	s := openTemp(t)
	res := importOdyssey(t, s, dir, OdysseyImportOptions{CopyScreenshots: true})
	missing, copied := dc.Steps-dc.Screenshots+removed, dc.Screenshots-removed
	if res.MissingScreenshots != missing || res.CopiedScreenshots != copied || len(res.Warnings) == 0 {
		t.Fatalf("%+v; want %d missing, %d copied", res, missing, copied)
	}
	var blobs int
	s.db.QueryRow(`SELECT count(*) FROM steps WHERE observation IS NOT NULL AND length(observation) > 8`).Scan(&blobs)
	if blobs != copied {
		t.Fatalf("%d screenshots stored, want %d", blobs, copied)
	}
}

func TestOdysseyExportRoundTrip(t *testing.T) {
	ctx := context.Background()
	base, dc := fixtureDataset(t, "sample")
	s := openTemp(t)
	importOdyssey(t, s, base, OdysseyImportOptions{})
	out := t.TempDir()
	files, n, err := odyssey.ExportEpisodes(ctx, odyssey.FormatJSON, out, func(fn func(odyssey.Record) error) error {
		return s.OdysseyRecords(ctx, nil, fn)
	})
	if err != nil || n != dc.Episodes || len(files) != dc.Episodes {
		t.Fatalf("export: %d episodes, %v, %v", n, files, err)
	}
	for _, f := range files {
		got, _ := os.ReadFile(f)
		want, err := os.ReadFile(filepath.Join(base, "annotations", filepath.Base(f)))
		if err != nil {
			t.Fatal(err)
		}
		var g, w any
		json.Unmarshal(got, &g)
		json.Unmarshal(want, &w)
		if !reflect.DeepEqual(g, w) {
			t.Errorf("%s differs from the original", filepath.Base(f))
		}
	}
	// Official splits export byte for byte.
	if len(dc.Splits) == 0 {
		t.Fatal("the fixture has no splits")
	}
	for name := range dc.Splits {
		parts, err := s.OdysseySplitParts(ctx, name)
		if err != nil {
			t.Fatal(err)
		}
		got, _ := odyssey.WriteSplitJSON(parts)
		want, _ := os.ReadFile(filepath.Join(base, "splits", name+".json"))
		if string(got) != string(want) {
			t.Errorf("%s:\n%s\nwant\n%s", name, got, want)
		}
	}
	// The one-file variant and JSON Lines read back as the same episodes.
	for _, format := range []string{odyssey.FormatAll, odyssey.FormatJSONL} {
		dest := filepath.Join(t.TempDir(), "all_annot.json")
		if _, _, err := odyssey.ExportEpisodes(ctx, format, dest, func(fn func(odyssey.Record) error) error {
			return s.OdysseyRecords(ctx, nil, fn)
		}); err != nil {
			t.Fatal(err)
		}
		data, _ := os.ReadFile(dest)
		count := 0
		if format == odyssey.FormatAll {
			err = odyssey.ParseAnnotationList(dest, data, func(*odyssey.Annotation) error { count++; return nil })
		} else {
			for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
				if _, err = odyssey.ParseAnnotation(dest, []byte(line)); err != nil {
					break
				}
				count++
			}
		}
		if err != nil || count != dc.Episodes {
			t.Errorf("%s: %d episodes, want %d, %v", format, count, dc.Episodes, err)
		}
	}
}

func TestOdysseyUserSplits(t *testing.T) {
	ctx := context.Background()
	s := openTemp(t)
	sample, dc := fixtureDataset(t, "sample")
	importOdyssey(t, s, sample, OdysseyImportOptions{})
	ids, _ := s.OdysseyEpisodeIDs(ctx)
	if len(ids) != dc.Episodes || len(ids) < 4 {
		t.Fatalf("%d episodes stored, want %d (at least 4)", len(ids), dc.Episodes)
	}
	parts, err := odyssey.RandomSplit(ids, 0.2, 7)
	if err != nil {
		t.Fatal(err)
	}
	nTest := int(math.Round(0.2 * float64(len(ids)))) // the nearest whole number of episodes
	info, err := s.SaveOdysseySplit(ctx, "mine", "20% test", parts, false)
	if err != nil || info.PartSizes["train"] != len(ids)-nTest || info.PartSizes["test"] != nTest {
		t.Fatalf("%+v, %v; want train %d, test %d", info, err, len(ids)-nTest, nTest)
	}
	if _, err := s.SaveOdysseySplit(ctx, "mine", "", parts, false); !errors.Is(err, ErrSplitExists) {
		t.Fatalf("replacing without asking: %v", err)
	}
	if _, err := s.SaveOdysseySplit(ctx, "random_split", "", parts, true); err == nil {
		t.Fatal("an official split was replaced")
	}
	if _, err := s.SaveOdysseySplit(ctx, "bad", "", []odyssey.SplitPart{{Name: "test", IDs: []string{"0000000000000000"}}}, false); !errors.Is(err, ErrNotFound) {
		t.Fatalf("unknown episode: %v", err)
	}
	back, err := s.OdysseySplitParts(ctx, "mine")
	if err != nil || !reflect.DeepEqual(back, parts) {
		t.Fatalf("read back %v, %v; want %v", back, err, parts)
	}
	held := odyssey.HoldOut(ids, ids[:3])
	if _, err := s.SaveOdysseySplit(ctx, "mine", "held out", held, true); err != nil {
		t.Fatal(err)
	}
	if back, _ := s.OdysseySplitParts(ctx, "mine"); len(back) != 2 || len(back[1].IDs) != 3 || len(back[0].IDs) != len(ids)-3 {
		t.Fatalf("hold-out split %v", back)
	}
}

func TestOdysseyConformanceScoring(t *testing.T) {
	ctx := context.Background()
	dir := conformance.Dir(t, "odyssey")
	data, err := os.ReadFile(conformance.Files(t, "odyssey", "e2e/e2e_expected.json")[0])
	if err != nil {
		t.Fatal(err)
	}
	var exp struct {
		DatasetDir string `json:"dataset_dir"`
		Splits     map[string]struct {
			Metric  string          `json:"metric"`
			Info    json.RawMessage `json:"expected_info"`
			Printed []string        `json:"per_category_printed"`
		} `json:"splits"`
	}
	if err := json.Unmarshal(data, &exp); err != nil {
		t.Fatal(err)
	}
	s := openTemp(t)
	importOdyssey(t, s, filepath.Join(dir, exp.DatasetDir), OdysseyImportOptions{})
	n := 0
	for setting, want := range exp.Splits {
		level, split, _ := strings.Cut(setting, "_")
		path := e2ePredictions(dir, "predictions", level, split)
		samples, err := odyssey.ReadPredictionsFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if len(samples) == 0 {
			t.Fatalf("%s: %s has no predictions", setting, path)
		}
		raw, _ := os.ReadFile(path)
		sc, err := s.ScoreOdyssey(ctx, samples, OdysseyScoreOptions{Split: split, Level: level, Name: "fake",
			Save: true, Source: odyssey.SumBytes(path, raw)})
		if err != nil {
			t.Fatalf("%s: %v", setting, err)
		}
		n++
		got, _ := json.Marshal(sc.Info)
		if !jsonTextEqual(got, want.Info) || (len(want.Printed) > 0 && !reflect.DeepEqual(sc.PrintedCategories(), want.Printed)) {
			t.Errorf("%s: %s %q, want %s %q", setting, got, sc.PrintedCategories(), want.Info, want.Printed)
		}
		if sc.UnknownEpisodes != 0 || sc.OutsideSplit != 0 || sc.GTMismatches != 0 {
			t.Errorf("%s: %+v", setting, sc)
		}
		if want.Metric != "" && string(sc.Branch) != want.Metric {
			t.Errorf("%s: scored with the %s branch, want %s", setting, sc.Branch, want.Metric)
		}
		steps := 0
		for _, g := range sc.Breakdowns[odyssey.ByCategory] {
			steps += g.Steps
		}
		wrong := 0
		for _, sm := range sc.Samples {
			if !sm.Correct() {
				wrong++
			}
		}
		if steps != sc.Info.Total || len(sc.Failures) != wrong || len(sc.Breakdowns[odyssey.ByDevice]) == 0 {
			t.Errorf("%s: breakdown steps %d, failures %d of %d", setting, steps, len(sc.Failures), wrong)
		}
		for _, f := range sc.Failures {
			if f.GTAction.Kind == "" || f.PredAction.Kind == "" {
				t.Errorf("%s: failure without actions %+v", setting, f)
			}
		}
		// A saved run reloads and scores the same.
		saved, err := s.OdysseyRunSamples(ctx, sc.RunID)
		if err != nil {
			t.Fatal(err)
		}
		again, err := s.ScoreOdyssey(ctx, saved, OdysseyScoreOptions{Split: split})
		if err != nil || !reflect.DeepEqual(again.Info, sc.Info) {
			t.Errorf("%s: rescored %+v, %v", setting, again.Info, err)
		}
		// Opened again (the Scoring tab's saved runs): the same numbers, breakdowns and failures.
		opened, run, err := s.OpenOdysseyRun(ctx, sc.RunID)
		if err != nil || !reflect.DeepEqual(opened.Info, sc.Info) || !reflect.DeepEqual(opened.Breakdowns, sc.Breakdowns) ||
			!reflect.DeepEqual(opened.Failures, sc.Failures) || run.Split != sc.Split || run.Branch != sc.Branch {
			t.Errorf("%s: opened run %d: %+v, %v", setting, sc.RunID, run, err)
		}
		if saved[0].Question == "" || opened.Samples[0].Question != "" {
			t.Errorf("%s: prompts: saved %q, opened %q (the Explorer needs none)", setting, saved[0].Question, opened.Samples[0].Question)
		}
		if info, _ := json.Marshal(sc.Info); !jsonTextEqual(info, run.Info) {
			t.Errorf("%s: saved info %s, scored %s", setting, run.Info, info)
		}
		// Strict mode with every prediction present gives the same verdicts, and a missing
		// prediction counts as wrong there while the official mode leaves its episode out.
		strict, err := s.ScoreOdyssey(ctx, samples[1:], OdysseyScoreOptions{Split: split, Mode: ScoreStrict})
		if err != nil || strict.Missing != 1 || strict.Info.Total != len(samples) || strict.Official() || sc.Official() != true {
			t.Errorf("%s: strict %+v, %v", setting, strict, err)
		}
	}
	runs, _ := s.OdysseyRuns(ctx, "")
	if len(runs) != n { // one per level and split
		t.Fatalf("%d runs saved, want %d", len(runs), n)
	}
	if err := s.DeleteOdysseyRun(ctx, runs[0].ID); err != nil {
		t.Fatal(err)
	}
	if left, _ := s.SavedOdysseyRuns(ctx); len(left) != n-1 || (len(left) > 0 && left[0].ID == runs[0].ID) {
		t.Errorf("after deleting run %d: %d runs, want %d", runs[0].ID, len(left), n-1)
	}
	if _, _, err := s.OpenOdysseyRun(ctx, runs[0].ID); !errors.Is(err, ErrNotFound) {
		t.Errorf("opening a deleted run: %v", err)
	}
	conformance.Report(t, "odyssey store scoring", n)
}

// e2ePredictions returns the e2e prediction file of a setting: <kind>_<level>_<split>.json when
// the folder has one, otherwise the high level's file (the low level shares its predictions).
func e2ePredictions(dir, kind, level, split string) string {
	path := filepath.Join(dir, "e2e", kind+"_"+level+"_"+split+".json")
	if _, err := os.Stat(path); err == nil {
		return path
	}
	return filepath.Join(dir, "e2e", kind+"_high_"+split+".json")
}

func jsonTextEqual(a, b []byte) bool {
	var x, y map[string]json.RawMessage
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil || len(x) != len(y) {
		return false
	}
	for k := range x {
		if string(x[k]) != string(y[k]) {
			return false
		}
	}
	return true
}

func TestOdysseyTestRecordsFromStore(t *testing.T) {
	ctx := context.Background()
	dir := conformance.Dir(t, "odyssey")
	data, err := os.ReadFile(conformance.Files(t, "odyssey", "e2e/e2e_expected.json")[0])
	if err != nil {
		t.Fatal(err)
	}
	var exp struct {
		DatasetDir string                     `json:"dataset_dir"`
		Splits     map[string]json.RawMessage `json:"splits"`
	}
	if err := json.Unmarshal(data, &exp); err != nil {
		t.Fatal(err)
	}
	s := openTemp(t)
	importOdyssey(t, s, filepath.Join(dir, exp.DatasetDir), OdysseyImportOptions{})
	n := 0
	for setting := range exp.Splits {
		level, split, _ := strings.Cut(setting, "_")
		if level != odyssey.LevelHigh {
			continue
		}
		path := filepath.Join(dir, "e2e", "test_anno_high_"+split+".json")
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatalf("%s: %v", setting, err)
		}
		var want []odyssey.TestRecord
		if err := json.Unmarshal(data, &want); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		recs, err := s.OdysseyTestRecords(ctx, split, odyssey.LevelHigh)
		if err != nil {
			t.Fatalf("%s: %v", setting, err)
		}
		n++
		if len(recs) != len(want) {
			t.Errorf("%s: %d records, want %d", setting, len(recs), len(want))
			continue
		}
		for i := range want {
			g, w := recs[i], want[i]
			if g.ID != w.ID || g.Question != w.Question || g.Answer != w.Answer || g.Category != w.Category ||
				g.StepLength != w.StepLength || g.HistoryAction != w.HistoryAction ||
				filepath.Base(g.Image) != filepath.Base(w.Image) || compactJSON(g.Sam2Bbox) != compactJSON(w.Sam2Bbox) {
				t.Errorf("%s: record %d: %+v, want %+v", setting, i, g, w)
			}
			// the image reads back when the dataset has the screenshot
			if _, err := os.Stat(filepath.Join(dir, exp.DatasetDir, "screenshots", filepath.Base(w.Image))); err != nil {
				continue
			}
			if _, err := odyssey.ReadScreenshot(g.Image); err != nil {
				t.Errorf("%s: record %d image: %v", setting, i, err)
			}
		}
	}
	conformance.Report(t, "odyssey store test-record", n)
}

func compactJSON(raw json.RawMessage) string {
	var buf bytes.Buffer
	if err := json.Compact(&buf, raw); err != nil {
		return string(raw)
	}
	return buf.String()
}
