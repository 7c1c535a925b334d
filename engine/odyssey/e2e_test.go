package odyssey

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/agentdesk/agentdesk/engine/conformance"
)

// DatasetCase is an entry of datasets.json: a dataset folder and the counts an importer must
// report.
type DatasetCase struct {
	Dir         string                    `json:"dir"`
	Episodes    int                       `json:"episodes"`
	Steps       int                       `json:"steps"`
	Screenshots int                       `json:"screenshots"`
	Splits      map[string]map[string]int `json:"splits"`
	AllFile     string                    `json:"all_file"`
	Schema      string                    `json:"schema"`
}

func datasetCases(t *testing.T) []DatasetCase {
	t.Helper()
	var cases []DatasetCase
	for _, path := range conformance.Files(t, area, "datasets*.json") {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		var doc struct {
			Datasets []DatasetCase `json:"datasets"`
		}
		if err := json.Unmarshal(data, &doc); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		cases = append(cases, doc.Datasets...)
	}
	return cases
}

// readAll reads every episode of a dataset folder, by id.
func readAll(t *testing.T, ds *Dataset) (map[string]*Annotation, []string) {
	t.Helper()
	eps := map[string]*Annotation{}
	var order []string
	err := ds.Episodes(context.Background(), EpisodeOptions{}, func(a *Annotation, _ SourceFile) error {
		eps[a.EpisodeID] = a
		order = append(order, a.EpisodeID)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return eps, order
}

func TestConformanceDatasets(t *testing.T) {
	n := 0
	for _, dc := range datasetCases(t) {
		dir := filepath.Join(conformance.Dir(t, area), dc.Dir)
		for _, variant := range []string{"annotations", "all_file"} {
			root := dir
			if variant == "all_file" {
				// The one-file variant alone: a copy of the folder without annotations/.
				root = t.TempDir()
				data, err := os.ReadFile(filepath.Join(dir, dc.AllFile))
				if err != nil {
					t.Fatal(err)
				}
				os.WriteFile(filepath.Join(root, dc.AllFile), data, 0o644)
				os.Symlink(filepath.Join(dir, "splits"), filepath.Join(root, "splits"))
				os.Symlink(filepath.Join(dir, "screenshots"), filepath.Join(root, "screenshots"))
			}
			ds, err := OpenDataset(root)
			if err != nil {
				t.Fatalf("%s (%s): %v", dc.Dir, variant, err)
			}
			eps, _ := readAll(t, ds)
			steps, shots, schemaOK := 0, 0, true
			for _, a := range eps {
				steps += len(a.Steps)
				for _, s := range a.Steps {
					if ds.Screenshots.Ref(s.Screenshot) != "" {
						shots++
					}
				}
				schemaOK = schemaOK && a.Schema() == dc.Schema
			}
			if len(eps) != dc.Episodes || steps != dc.Steps || shots != dc.Screenshots || !schemaOK {
				t.Errorf("%s (%s): %d episodes, %d steps, %d screenshots, schema ok %v; want %d, %d, %d, %s",
					dc.Dir, variant, len(eps), steps, shots, schemaOK, dc.Episodes, dc.Steps, dc.Screenshots, dc.Schema)
			}
			splits, err := ds.Splits()
			if err != nil {
				t.Fatal(err)
			}
			got := map[string]map[string]int{}
			for _, sf := range splits {
				got[sf.Name] = map[string]int{}
				for _, p := range sf.Parts {
					got[sf.Name][p.Name] = len(p.IDs)
				}
			}
			if !reflect.DeepEqual(got, dc.Splits) {
				t.Errorf("%s (%s): splits %v, want %v", dc.Dir, variant, got, dc.Splits)
			}
			n++
		}
	}
	conformance.Report(t, "dataset", n)
}

func TestConformanceRealExcerpt(t *testing.T) {
	n := 0
	for _, path := range conformance.Files(t, area, "real-excerpts/*.json") {
		data, _ := os.ReadFile(path)
		var doc struct {
			Schema  string          `json:"schema_version"`
			Episode json.RawMessage `json:"episode_partial"`
			GT      []string        `json:"official_ground_truth_strings_for_these_steps"`
		}
		if err := json.Unmarshal(data, &doc); err != nil {
			t.Fatal(err)
		}
		// What the excerpt itself says it holds (nothing here is one file's fact).
		var raw struct {
			ID     string         `json:"episode_id"`
			Device map[string]any `json:"device_info"`
			Len    *int           `json:"step_length"`
			Steps  []any          `json:"steps"`
		}
		if err := json.Unmarshal(doc.Episode, &raw); err != nil {
			t.Fatal(err)
		}
		a, err := ParseAnnotation(path, doc.Episode)
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		if a.EpisodeID != raw.ID || len(a.Steps) != len(raw.Steps) {
			t.Errorf("%s: episode %q with %d steps, want %q with %d", path, a.EpisodeID, len(a.Steps), raw.ID, len(raw.Steps))
		}
		if raw.Len != nil && a.StepLength != *raw.Len {
			t.Errorf("%s: step_length %d, want %d", path, a.StepLength, *raw.Len)
		}
		if name, ok := raw.Device["device_name"].(string); ok && string(a.Device.DeviceName) != name {
			t.Errorf("%s: device %q, want %q", path, a.Device.DeviceName, name)
		}
		// "v1 (2024-06 release: ...)": the schema is the first word
		if f := strings.Fields(doc.Schema); len(f) > 0 && string(a.Schema()) != f[0] {
			t.Errorf("%s: schema %v, the excerpt says %q", path, a.Schema(), doc.Schema)
		}
		for i, want := range doc.GT {
			n++
			if got, err := a.Steps[i].GroundTruth(); err != nil || got != want {
				t.Errorf("%s step %d: %q, %v; want %q", path, i, got, err, want)
			}
		}
	}
	conformance.Report(t, "real excerpt step", n)
}

func TestConformanceEndToEnd(t *testing.T) {
	expPath := conformance.Files(t, area, "e2e/e2e_expected.json")[0]
	data, _ := os.ReadFile(expPath)
	type expSplit struct {
		Metric       Branch          `json:"metric"`
		TestSteps    int             `json:"test_steps"`
		TestEpisodes int             `json:"test_episodes"`
		Info         json.RawMessage `json:"expected_info"`
		Printed      []string        `json:"per_category_printed"`
		PerStep      []struct {
			GT, Pred  string
			IsCorrect string `json:"is_correct"`
			Info      string `json:"info"`
		} `json:"per_step"`
	}
	var exp struct {
		DatasetDir string              `json:"dataset_dir"`
		Splits     map[string]expSplit `json:"splits"`
		Oracle     struct {
			Splits map[string]expSplit `json:"splits"`
		} `json:"oracle_variant"`
	}
	if err := json.Unmarshal(data, &exp); err != nil {
		t.Fatal(err)
	}
	dir := conformance.Dir(t, area)
	ds, err := OpenDataset(filepath.Join(dir, exp.DatasetDir))
	if err != nil {
		t.Fatal(err)
	}
	eps, _ := readAll(t, ds)
	splits, err := ds.Splits()
	if err != nil {
		t.Fatal(err)
	}
	bySplit := map[string]*SplitFile{}
	for _, sf := range splits {
		bySplit[sf.Name] = sf
	}
	cases := 0
	for setting, want := range exp.Splits {
		level, split, _ := strings.Cut(setting, "_")
		sf := bySplit[split]
		if sf == nil {
			t.Fatalf("%s: no split file %s", setting, split)
		}
		var test []*Annotation
		for _, id := range sf.Part("test") {
			test = append(test, eps[id])
		}
		records, err := TestRecords(split, level, test, func(name string) string { return "screenshots/" + name })
		if err != nil {
			t.Fatal(err)
		}
		if len(records) != want.TestSteps || len(test) != want.TestEpisodes {
			t.Errorf("%s: %d records of %d episodes, want %d of %d", setting, len(records), len(test), want.TestSteps, want.TestEpisodes)
		}
		if level == LevelHigh { // the official records are given for the high level
			compareRecords(t, filepath.Join(dir, "e2e", "test_anno_high_"+split+".json"), records)
		}
		for _, variant := range []string{"", "oracle_"} {
			w := want
			if variant == "oracle_" {
				var ok bool
				if w, ok = exp.Oracle.Splits[setting]; !ok {
					continue
				}
			}
			predPath := filepath.Join(dir, "e2e", "predictions_"+variant+"high_"+split+".json")
			preds, err := ReadPredictionsFile(predPath)
			if err != nil {
				t.Fatal(err)
			}
			if len(preds) != len(records) {
				t.Fatalf("%s: %d predictions for %d records", setting, len(preds), len(records))
			}
			samples := make([]Sample, len(preds))
			for i, p := range preds {
				samples[i] = records[i].Sample(p.Pred)
				if level == LevelHigh && samples[i].Question != p.Question {
					t.Errorf("%s sample %d: prompt\n%q\nwant\n%q", setting, i, samples[i].Question, p.Question)
				}
				if p.EpisodeID != records[i].EpisodeID || p.Step != records[i].Step || p.GT != records[i].Answer {
					t.Errorf("%s sample %d: prediction for %s/%d %q, record %s/%d %q", setting, i, p.EpisodeID, p.Step, p.GT, records[i].EpisodeID, records[i].Step, records[i].Answer)
				}
			}
			if w.Metric != BranchForSplit(setting) {
				t.Errorf("%s: branch %s, want %s", setting, BranchForSplit(setting), w.Metric)
			}
			// Score both the samples built here and the prediction file as read.
			for _, in := range [][]Sample{samples, preds} {
				res, err := Evaluate(in, w.Metric, Options{})
				if err != nil {
					t.Errorf("%s%s: %v", variant, setting, err)
					continue
				}
				cases++
				got, _ := json.Marshal(res.Info)
				if !sameJSONText(got, w.Info) {
					t.Errorf("%s%s: info %s, want %s", variant, setting, got, w.Info)
				}
				if p := res.PrintedCategories(); !reflect.DeepEqual(p, w.Printed) && (len(p) > 0 || len(w.Printed) > 0) {
					t.Errorf("%s%s: printed %q, want %q", variant, setting, p, w.Printed)
				}
				for j, ps := range w.PerStep {
					s := res.Samples[j]
					if s.GT != ps.GT || s.Pred != ps.Pred || s.IsCorrect != ps.IsCorrect || s.Info != ps.Info {
						t.Errorf("%s step %d: %q %q %s %s, want %+v", setting, j, s.GT, s.Pred, s.IsCorrect, s.Info, ps)
					}
				}
			}
		}
	}
	conformance.Report(t, "end-to-end setting", cases)
}

func compareRecords(t *testing.T, path string, got []TestRecord) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var want []map[string]json.RawMessage
	if err := json.Unmarshal(data, &want); err != nil {
		t.Fatal(err)
	}
	if len(want) != len(got) {
		t.Fatalf("%s: %d records, want %d", path, len(got), len(want))
	}
	for i := range want {
		b, _ := json.Marshal(got[i])
		var g map[string]json.RawMessage
		json.Unmarshal(b, &g)
		for k, v := range want[i] {
			if !jsonEqual(g[k], v) {
				t.Errorf("%s record %d: %s = %s, want %s", filepath.Base(path), i, k, g[k], v)
			}
		}
		if len(g) != len(want[i]) {
			t.Errorf("%s record %d: fields %d, want %d", filepath.Base(path), i, len(g), len(want[i]))
		}
	}
}

func TestConformanceMeta(t *testing.T) {
	n := 0
	for _, path := range conformance.Files(t, area, "meta*.json") {
		data, _ := os.ReadFile(path)
		var meta struct {
			Constants     map[string]float64 `json:"constants"`
			SplitToBranch map[string]Branch  `json:"split_to_branch"`
		}
		if err := json.Unmarshal(data, &meta); err != nil {
			t.Fatal(err)
		}
		if meta.Constants["TEXT_ANLS_THRESHOLD"] != TextThreshold || meta.Constants["CLICK_COORD_THRESHOLD"] != ClickThreshold {
			t.Errorf("%s: thresholds %v", path, meta.Constants)
		}
		for setting, want := range meta.SplitToBranch {
			n++
			if got := BranchForSplit(setting); got != want {
				t.Errorf("%s: branch %s, want %s", setting, got, want)
			}
		}
	}
	conformance.Report(t, "split-to-branch", n)
}

// TestConformanceSampleCounts reads each dataset's own SAMPLE.json (counts and split sizes).
func TestConformanceSampleCounts(t *testing.T) {
	n := 0
	for _, path := range conformance.Files(t, area, "*/SAMPLE.json") {
		data, _ := os.ReadFile(path)
		var want struct {
			Episodes int                       `json:"episodes"`
			Steps    int                       `json:"steps"`
			Splits   map[string]map[string]int `json:"splits"`
		}
		if err := json.Unmarshal(data, &want); err != nil {
			t.Fatal(err)
		}
		ds, err := OpenDataset(filepath.Dir(path))
		if err != nil {
			t.Fatal(err)
		}
		eps, _ := readAll(t, ds)
		steps := 0
		for _, a := range eps {
			steps += len(a.Steps)
		}
		splits, _ := ds.Splits()
		got := map[string]map[string]int{}
		for _, sf := range splits {
			got[sf.Name] = map[string]int{"train": len(sf.Part("train")), "test": len(sf.Part("test"))}
		}
		if len(eps) != want.Episodes || steps != want.Steps || !reflect.DeepEqual(got, want.Splits) {
			t.Errorf("%s: %d episodes, %d steps, splits %v", path, len(eps), steps, got)
		}
		n++
	}
	conformance.Report(t, "sample count", n)
}
