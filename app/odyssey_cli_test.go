package app

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/agentdesk/agentdesk/engine/conformance"
	"github.com/agentdesk/agentdesk/engine/odyssey"
)

// odysseyFixture is the datasets.json entry of a dataset of the repository's own conformance
// copy (not the $AGENTDESK_CONFORMANCE override), with its folder: the CLI fixture tests change
// or rely on that one dataset and take its counts from the file.
type odysseyFixture struct {
	Dir         string                    `json:"dir"`
	Episodes    int                       `json:"episodes"`
	Steps       int                       `json:"steps"`
	Screenshots int                       `json:"screenshots"`
	Splits      map[string]map[string]int `json:"splits"`
	Schema      string                    `json:"schema"`
	Path        string                    `json:"-"`
}

func odysseyFixtureDataset(t *testing.T, name string) odysseyFixture {
	t.Helper()
	base := conformance.RepoDir(t, "odyssey")
	data, err := os.ReadFile(filepath.Join(base, "datasets.json"))
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Datasets []odysseyFixture `json:"datasets"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	for _, dc := range doc.Datasets {
		if dc.Dir == name {
			dc.Path = filepath.Join(base, dc.Dir)
			return dc
		}
	}
	t.Fatalf("no dataset %s in %s/datasets.json", name, base)
	return odysseyFixture{}
}

func TestOdysseyCLIImportSplitsExport(t *testing.T) {
	dir := isolate(t)
	db := filepath.Join(dir, "s.db")
	dc := odysseyFixtureDataset(t, "sample")
	sample := dc.Path
	splitNames := make([]string, 0, len(dc.Splits))
	for name := range dc.Splits {
		splitNames = append(splitNames, name)
	}
	sort.Strings(splitNames)
	if len(splitNames) == 0 {
		t.Fatal("the fixture has no splits")
	}
	r := runCLI(t, "--store", db, "odyssey", "import", sample)
	wantOut := []string{fmt.Sprintf("imported %d episodes (%d steps, schema %s", dc.Episodes, dc.Steps, dc.Schema), "time: "}
	for _, name := range splitNames {
		wantOut = append(wantOut, fmt.Sprintf("split %s: train %d, test %d", name, dc.Splits[name]["train"], dc.Splits[name]["test"]))
	}
	for _, w := range wantOut {
		if r.code != 0 || !strings.Contains(r.stdout, w) {
			t.Fatalf("import: want %q in %+v", w, r)
		}
	}
	if r := runCLI(t, "--store", db, "odyssey", "import", sample); r.code != 0 || !strings.Contains(r.stdout, "already imported") {
		t.Fatalf("second import: %+v", r)
	}
	r = runCLI(t, "--store", db, "odyssey", "splits", "--json")
	var splits []map[string]any
	if r.code != 0 || json.Unmarshal([]byte(r.stdout), &splits) != nil || len(splits) != len(dc.Splits) {
		t.Fatalf("splits: %+v", r)
	}
	// Official split files export byte for byte, named in full or without "_split".
	for i, file := range splitNames {
		name := file
		if i%2 == 0 {
			name = strings.TrimSuffix(file, "_split")
		}
		out := filepath.Join(dir, file+".json")
		if r := runCLI(t, "--store", db, "odyssey", "export", "split", name, out); r.code != 0 {
			t.Fatalf("export split %s: %+v", name, r)
		}
		got, _ := os.ReadFile(out)
		want, _ := os.ReadFile(filepath.Join(sample, "splits", file+".json"))
		if string(got) != string(want) {
			t.Errorf("split %s differs from the original", name)
		}
	}
	// A user split from ids (one with ".json", one without), and a random one.
	anns, _ := filepath.Glob(filepath.Join(sample, "annotations", "*.json"))
	if len(anns) < 3 {
		t.Fatalf("the fixture has %d annotation files", len(anns))
	}
	held := []string{strings.TrimSuffix(filepath.Base(anns[0]), ".json"), strings.TrimSuffix(filepath.Base(anns[1]), ".json")}
	ids := filepath.Join(dir, "ids.txt")
	os.WriteFile(ids, []byte("# held out\n"+held[0]+".json\n"+held[1]+"\n"), 0o644)
	if r := runCLI(t, "--store", db, "odyssey", "split", "--ids", ids, "mine"); r.code != 0 ||
		!strings.Contains(r.stdout, fmt.Sprintf("train %d, test %d", dc.Episodes-len(held), len(held))) {
		t.Fatalf("split --ids: %+v", r)
	}
	if r := runCLI(t, "--store", db, "odyssey", "split", "--ids", ids, "mine"); r.code != 1 || !strings.Contains(r.stderr, "--replace") {
		t.Fatalf("split over an existing one: %+v", r)
	}
	nTest := int(math.Round(0.3 * float64(dc.Episodes))) // the nearest whole number of episodes
	if r := runCLI(t, "--store", db, "odyssey", "split", "--test-fraction", "0.3", "--seed", "4", "rnd"); r.code != 0 ||
		!strings.Contains(r.stdout, fmt.Sprintf("train %d, test %d", dc.Episodes-nTest, nTest)) {
		t.Fatalf("random split: %+v", r)
	}
	// Episodes of the test part of a split, in the original layout.
	out := filepath.Join(dir, "export")
	if r := runCLI(t, "--store", db, "odyssey", "export", "episodes", "--split", "mine", "--part", "test", out); r.code != 0 ||
		!strings.Contains(r.stdout, fmt.Sprintf("wrote %d episodes", len(held))) {
		t.Fatalf("export episodes: %+v", r)
	}
	got, _ := os.ReadFile(filepath.Join(out, "annotations", held[0]+".json"))
	want, _ := os.ReadFile(filepath.Join(sample, "annotations", held[0]+".json"))
	var g, w any
	json.Unmarshal(got, &g)
	json.Unmarshal(want, &w)
	if !jsonDeepEqual(g, w) {
		t.Error("exported episode differs from the original")
	}
	// Test records as the official converter writes them: as many as the fixture's
	// e2e/test_anno_high_<split>.json of every split it has.
	annos, _ := filepath.Glob(filepath.Join(filepath.Dir(sample), "e2e", "test_anno_high_*.json"))
	checked := 0
	for _, anno := range annos {
		split := strings.TrimSuffix(strings.TrimPrefix(filepath.Base(anno), "test_anno_high_"), ".json")
		if _, ok := dc.Splits[split]; !ok {
			continue
		}
		var wantRecs []json.RawMessage
		data, _ := os.ReadFile(anno)
		if err := json.Unmarshal(data, &wantRecs); err != nil {
			t.Fatalf("%s: %v", anno, err)
		}
		recs := filepath.Join(dir, "test_anno_"+split+".json")
		if r := runCLI(t, "--store", db, "odyssey", "records", "--split", strings.TrimSuffix(split, "_split"), recs); r.code != 0 ||
			!strings.Contains(r.stdout, fmt.Sprintf("wrote %d test records", len(wantRecs))) {
			t.Fatalf("records of %s: %+v, want %d", split, r, len(wantRecs))
		}
		checked++
	}
	if checked == 0 {
		t.Fatal("no test-record file of the fixture's splits")
	}
}

func jsonDeepEqual(a, b any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return string(x) == string(y)
}

// TestOdysseyCLIScorePrintsTheOfficialNumbers runs `odyssey score` on every end-to-end
// prediction file and compares what it prints with the original's output.
func TestOdysseyCLIScorePrintsTheOfficialNumbers(t *testing.T) {
	dir := isolate(t)
	db := filepath.Join(dir, "s.db")
	cdir := conformance.Dir(t, "odyssey")
	data, err := os.ReadFile(conformance.Files(t, "odyssey", "e2e/e2e_expected.json")[0])
	if err != nil {
		t.Fatal(err)
	}
	type setting struct {
		Metric  string          `json:"metric"`
		Info    json.RawMessage `json:"expected_info"`
		Printed []string        `json:"per_category_printed"`
		PerStep []struct {
			IsCorrect string `json:"is_correct"`
		} `json:"per_step"`
	}
	var exp struct {
		DatasetDir string             `json:"dataset_dir"`
		Splits     map[string]setting `json:"splits"`
		Oracle     struct {
			Splits map[string]setting `json:"splits"`
		} `json:"oracle_variant"`
	}
	if err := json.Unmarshal(data, &exp); err != nil {
		t.Fatal(err)
	}
	if r := runCLI(t, "--store", db, "odyssey", "import", filepath.Join(cdir, exp.DatasetDir)); r.code != 0 {
		t.Fatalf("import: %+v", r)
	}
	n := 0
	check := func(name, file string, want setting) {
		level, split, _ := strings.Cut(name, "_")
		out := filepath.Join(dir, name+".out.json")
		r := runCLI(t, "--store", db, "odyssey", "score", "--split", split, "--level", level, "--official-only",
			"--model", "ckpt/fake", "--out", out, file)
		if r.code != 0 {
			t.Fatalf("%s: %+v", name, r)
		}
		n++
		infoLine, err := pythonJSONLine(want.Info)
		if err != nil {
			t.Fatalf("%s: expected_info: %v", name, err)
		}
		lines := strings.Split(strings.TrimSuffix(r.stdout, "\n"), "\n")
		wantLines := append(append([]string{}, want.Printed...), infoLine)
		if strings.Join(lines, "\n") != strings.Join(wantLines, "\n") {
			t.Errorf("%s printed\n%s\nwant\n%s", name, r.stdout, strings.Join(wantLines, "\n"))
		}
		var wantInfo map[string]json.RawMessage
		json.Unmarshal(want.Info, &wantInfo)
		var rec struct {
			Dataset string `json:"dataset"`
			Model   string `json:"model"`
			Metrics struct {
				Info map[string]json.RawMessage `json:"info"`
				Pred []map[string]any           `json:"pred"`
			} `json:"metrics"`
		}
		raw, _ := os.ReadFile(out)
		if err := json.Unmarshal(raw, &rec); err != nil || rec.Dataset != name || rec.Model != "ckpt_fake" ||
			string(rec.Metrics.Info["AMS"]) != string(wantInfo["AMS"]) || len(rec.Metrics.Pred) == 0 {
			t.Errorf("%s: result file %s: %v", name, raw[:min(200, len(raw))], err)
		}
		// The branch the CLI used is the one the original used.
		if want.Metric != "" {
			r := runCLI(t, "--store", db, "odyssey", "score", "--split", split, "--level", level, "--json", "--failures", "0", file)
			var js struct {
				Metric string `json:"metric"`
			}
			if r.code != 0 || json.Unmarshal([]byte(r.stdout), &js) != nil || js.Metric != want.Metric {
				t.Errorf("%s: scored with metric %q, want %q (%+v)", name, js.Metric, want.Metric, r.code)
			}
		}
	}
	for name, want := range exp.Splits {
		level, split, _ := strings.Cut(name, "_")
		check(name, e2ePredictionFile(cdir, "predictions", level, split), want)
	}
	for name, want := range exp.Oracle.Splits {
		level, split, _ := strings.Cut(name, "_")
		check(name, e2ePredictionFile(cdir, "predictions_oracle", level, split), want)
	}
	conformance.Report(t, "odyssey score command", n)

	// The full report, a saved run, and the JSON view, for the first setting (in name order)
	// with failing steps: as many failures as its per_step has steps that are not correct.
	names := make([]string, 0, len(exp.Splits))
	for name := range exp.Splits {
		names = append(names, name)
	}
	sort.Strings(names)
	chosen, wrong := "", 0
	for _, name := range names {
		wrong = 0
		for _, st := range exp.Splits[name].PerStep {
			if st.IsCorrect != "yes" {
				wrong++
			}
		}
		if wrong > 0 {
			chosen = name
			break
		}
	}
	if chosen == "" {
		t.Fatal("no e2e setting with failing steps")
	}
	level, split, _ := strings.Cut(chosen, "_")
	pred := e2ePredictionFile(cdir, "predictions", level, split)
	r := runCLI(t, "--store", db, "odyssey", "score", "--split", split, "--level", level, "--save", "--failures", "2", pred)
	if r.code != 0 || !strings.Contains(r.stdout, "by device") || !strings.Contains(r.stdout, fmt.Sprintf("failing steps (%d)", wrong)) ||
		!strings.Contains(r.stdout, "saved as run 1") {
		t.Fatalf("score report of %s: want %d failing steps: %+v", chosen, wrong, r)
	}
	if r := runCLI(t, "--store", db, "odyssey", "runs"); r.code != 0 || !strings.Contains(r.stdout, chosen) {
		t.Fatalf("runs: %+v", r)
	}
	r = runCLI(t, "--store", db, "odyssey", "score", "--split", split, "--level", level, "--json", "--failures", "-1", pred)
	var js struct {
		Failures []odyssey.Failure `json:"failures"`
		Official bool              `json:"official"`
	}
	if r.code != 0 || json.Unmarshal([]byte(r.stdout), &js) != nil || len(js.Failures) != wrong || !js.Official ||
		js.Failures[0].GTAction.Kind == "" {
		t.Fatalf("score --json of %s: want %d failures: %+v", chosen, wrong, r)
	}
	// Strict mode is labelled; an abort is explained.
	if r := runCLI(t, "--store", db, "odyssey", "score", "--split", split, "--level", level, "--mode", "strict", pred); r.code != 0 || !strings.Contains(r.stdout, "NOT OFFICIAL") {
		t.Fatalf("strict: %+v", r)
	}
	noType := filepath.Join(dir, "notype.json")
	os.WriteFile(noType, []byte(`[{"question": "<img>x/1000000000000000_0.png</img>", "pred": "COMPLETE", "gt": "COMPLETE",
		"more_info": {"category": "General_Tool", "step_length": 1}}]`), 0o644)
	if r := runCLI(t, "--store", db, "odyssey", "score", "--split", split, noType); r.code != 1 || !strings.Contains(r.stderr, "ZeroDivisionError") || !strings.Contains(r.stderr, "--mode lenient") {
		t.Fatalf("abort: %+v", r)
	}
	if r := runCLI(t, "--store", db, "odyssey", "score", "--split", split, "--mode", "lenient", noType); r.code != 0 || !strings.Contains(r.stdout, "NOT OFFICIAL") {
		t.Fatalf("lenient: %+v", r)
	}
}

// e2ePredictionFile returns the e2e prediction file of a setting: <kind>_<level>_<split>.json
// when the folder has one, otherwise the high level's file (the low level shares its predictions).
func e2ePredictionFile(dir, kind, level, split string) string {
	path := filepath.Join(dir, "e2e", kind+"_"+level+"_"+split+".json")
	if _, err := os.Stat(path); err == nil {
		return path
	}
	return filepath.Join(dir, "e2e", kind+"_high_"+split+".json")
}

// pythonJSONLine renders a JSON object as Python's json.dumps prints it ("key": value, with
// ", " and ": " separators), keeping the keys in the order of the file and each value's text.
func pythonJSONLine(obj json.RawMessage) (string, error) {
	dec := json.NewDecoder(bytes.NewReader(obj))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return "", fmt.Errorf("not an object: %s", obj)
	}
	var parts []string
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return "", err
		}
		key, _ := tok.(string)
		var val json.RawMessage
		if err := dec.Decode(&val); err != nil {
			return "", err
		}
		var compact bytes.Buffer
		if err := json.Compact(&compact, val); err != nil {
			return "", err
		}
		k, _ := json.Marshal(key)
		parts = append(parts, string(k)+": "+compact.String())
	}
	return "{" + strings.Join(parts, ", ") + "}", nil
}

func TestOdysseyCLIBadInput(t *testing.T) {
	dir := isolate(t)
	db := filepath.Join(dir, "s.db")
	bad := filepath.Join(dir, "preds.json")
	os.WriteFile(bad, []byte("[\n {\"question\": \"<img>a_0.png</img>\", \"pred\": \"CLICK: (1, 2)\",\n  \"gt\": 5}\n]"), 0o644)
	r := runCLI(t, "--store", db, "odyssey", "score", "--split", "random", bad)
	if r.code != 1 || !strings.Contains(r.stderr, bad+":3:10: sample 0: field gt must be a string, not number") {
		t.Fatalf("bad predictions: %+v", r)
	}
	if r := runCLI(t, "--store", db, "odyssey", "score", bad); r.code != 2 {
		t.Fatalf("no --split: %+v", r)
	}
	if r := runCLI(t, "--store", db, "odyssey", "import", dir); r.code != 1 || !strings.Contains(r.stderr, "no annotations") {
		t.Fatalf("not a dataset: %+v", r)
	}
	if r := runCLI(t, "--store", db, "odyssey", "score", "--split", "random", filepath.Join(conformance.RepoDir(t, "odyssey"), "e2e", "predictions_high_random_split.json")); r.code != 1 || !strings.Contains(r.stderr, "no split") {
		t.Fatalf("score on an empty store: %+v", r)
	}
}

func TestOdysseyCLIZippedAnnotations(t *testing.T) {
	dir := isolate(t)
	out := filepath.Join(dir, "gen")
	if r := runCLI(t, "odyssey", "generate", "--out", out, "--episodes", "30", "--zip-annotations", "--screenshots", "none"); r.code != 0 {
		t.Fatalf("generate: %+v", r)
	}
	db := filepath.Join(dir, "s.db")
	r := runCLI(t, "--store", db, "odyssey", "import", out)
	if r.code != 0 || !strings.Contains(r.stdout, "imported 30 episodes") || !strings.Contains(r.stdout, "missing") {
		t.Fatalf("import zipped annotations: %+v", r)
	}
	if r := runCLI(t, "--store", db, "odyssey", "import", out); r.code != 0 || !strings.Contains(r.stdout, "already imported (30 unchanged files)") {
		t.Fatalf("re-import: %+v", r)
	}
}

func TestOdysseyCLIGenerateAndImport(t *testing.T) {
	dir := isolate(t)
	out := filepath.Join(dir, "gen")
	r := runCLI(t, "odyssey", "generate", "--out", out, "--episodes", "40", "--all-file")
	if r.code != 0 || !strings.Contains(r.stdout, "wrote 40 episodes") {
		t.Fatalf("generate: %+v", r)
	}
	r = runCLI(t, "--store", filepath.Join(dir, "s.db"), "odyssey", "import", "--copy-screenshots", out)
	if r.code != 0 || !strings.Contains(r.stdout, "imported 40 episodes") || !strings.Contains(r.stdout, "0 missing") ||
		!strings.Contains(r.stdout, "copied into the store") {
		t.Fatalf("import generated: %+v", r)
	}
}
