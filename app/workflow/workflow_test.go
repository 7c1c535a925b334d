package workflow

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentdesk/agentdesk/engine/conformance"
	"github.com/agentdesk/agentdesk/engine/odyssey"
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
	dir := filepath.Join(conformance.Dir(t, "odyssey"), "sample")
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

	preds, _ := filepath.Glob(filepath.Join(conformance.Dir(t, "odyssey"), "e2e", "predictions_high_*_split.json"))
	if len(preds) == 0 {
		t.Fatal("no prediction files")
	}
	split := strings.TrimSuffix(strings.TrimPrefix(filepath.Base(preds[0]), "predictions_high_"), ".json")
	res, groups, fails, notes, err := w.ScorePredictionsFile(ctx, preds[0], split, store.ScoreLenient, odyssey.LevelHigh, "")
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
