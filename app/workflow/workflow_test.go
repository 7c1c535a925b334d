package workflow

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/agentdesk/agentdesk/engine/conformance"
	"github.com/agentdesk/agentdesk/store"
)

func TestImportAndScore(t *testing.T) {
	ctx := context.Background()
	st, err := store.Open(filepath.Join(t.TempDir(), "w.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	w := Workflows{Store: st}
	// the dataset the end-to-end predictions are for, and the first of its settings
	cdir := conformance.Dir(t, "odyssey")
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
	settings := make([]string, 0, len(exp.Splits))
	for name := range exp.Splits {
		settings = append(settings, name)
	}
	sort.Strings(settings)
	if len(settings) == 0 {
		t.Fatal("e2e_expected.json has no settings")
	}
	dir := filepath.Join(cdir, exp.DatasetDir)
	var phases []string
	summary, warnings, err := w.ImportOdysseyFolder(ctx, dir, func(phase string, _, _ int) {
		if len(phases) == 0 || phases[len(phases)-1] != phase {
			phases = append(phases, phase)
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(summary, "Imported ") || !strings.Contains(summary, "Screenshots:") || phases[0] != "reading the folder" {
		t.Fatalf("summary %q, phases %v, %d warnings", summary, phases, len(warnings))
	}
	again, _, err := w.ImportOdysseyFolder(ctx, dir, nil)
	if err != nil || !strings.HasPrefix(again, "Nothing new") {
		t.Fatalf("the same folder again: %q, %v", again, err)
	}

	level, split, _ := strings.Cut(settings[0], "_")
	pred := filepath.Join(cdir, "e2e", "predictions_"+level+"_"+split+".json")
	if _, err := os.Stat(pred); err != nil { // the low level shares the high level's predictions
		pred = filepath.Join(cdir, "e2e", "predictions_high_"+split+".json")
	}
	preds := []string{pred}
	res, groups, fails, notes, err := w.ScorePredictionsFile(ctx, preds[0], split, store.ScoreLenient, level, "")
	if err != nil || res == nil || len(groups) == 0 {
		t.Fatalf("score of %s: %v %v", preds[0], res, err)
	}
	t.Logf("%s: %d failing steps, notes %q", filepath.Base(preds[0]), len(fails), notes)
	runs, err := st.SavedOdysseyRuns(ctx)
	if err != nil || len(runs) != 1 || runs[0].Name != strings.TrimSuffix(filepath.Base(preds[0]), ".json") {
		t.Fatalf("saved runs %+v, %v", runs, err)
	}

	// a file that is not a prediction file: an error naming it
	bad := filepath.Join(t.TempDir(), "bad.json")
	os.WriteFile(bad, []byte("{"), 0o644)
	if _, err := ScorePredictions(ctx, st, bad, store.OdysseyScoreOptions{Split: split}); err == nil || !strings.Contains(err.Error(), "bad.json") {
		t.Fatalf("a broken file: %v", err)
	}
}
