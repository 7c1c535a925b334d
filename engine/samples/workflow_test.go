package samples_test

// The sample dataset imports and its predictions score through the workflows the app uses
// (an external test package: app/workflow itself loads the samples).

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/agentdesk/agentdesk/app/workflow"
	"github.com/agentdesk/agentdesk/engine/odyssey"
	"github.com/agentdesk/agentdesk/engine/samples"
	"github.com/agentdesk/agentdesk/store"
)

func TestOdysseyImportAndScore(t *testing.T) {
	s, err := samples.Write(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	st, err := store.Open(filepath.Join(t.TempDir(), "store.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	im, err := workflow.ImportDataset(ctx, st, s.Odyssey, workflow.ImportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if im.Episodes != 15 || im.MissingScreenshots != 0 || im.Screenshots != im.Steps || len(im.Warnings) > 0 || im.Schema != odyssey.SchemaV2 {
		t.Fatalf("import: %s (warnings %v)", im.Summary(), im.Warnings)
	}
	var names []string
	testEpisodes := 0
	for _, sp := range im.Splits {
		names = append(names, sp.Name)
		if sp.Name == s.OdysseySplit {
			testEpisodes = sp.PartSizes["test"]
		}
	}
	sort.Strings(names)
	if !slices.Equal(names, []string{samples.Marker + "_app_split", samples.Marker + "_device_split", samples.Marker + "_random_split", samples.Marker + "_task_split"}) || testEpisodes != 3 {
		t.Fatalf("splits %v, %d test episodes in %s", names, testEpisodes, s.OdysseySplit)
	}
	if !strings.Contains(filepath.Base(s.OdysseyPredictions), s.OdysseySplit) {
		t.Errorf("the prediction file %s does not name its split", s.OdysseyPredictions)
	}

	sc, err := workflow.ScorePredictions(ctx, st, s.OdysseyPredictions, store.OdysseyScoreOptions{Split: s.OdysseySplit})
	if err != nil {
		t.Fatal(err) // official mode: an abort of the original evaluation is an error
	}
	if !sc.Official() || sc.Branch != odyssey.BranchMacro || len(sc.Notes()) > 0 {
		t.Fatalf("official %v, branch %s, notes %v", sc.Official(), sc.Branch, sc.Notes())
	}
	if sc.EpisodesScored != 3 || sc.EpisodesSucceeded <= 0 || sc.EpisodesSucceeded >= sc.EpisodesScored {
		t.Errorf("%d of %d episodes succeeded", sc.EpisodesSucceeded, sc.EpisodesScored)
	}
	sr := float64(sc.EpisodesSucceeded) / float64(sc.EpisodesScored)
	if sr <= 0 || sr >= 1 || sc.Info.SR.Value <= 0 || sc.Info.SR.Value >= 100 {
		t.Errorf("success rate %v (printed %s)", sr, sc.Info.SR)
	}
	if ams := sc.Info.AMS.Value; ams < 60 || ams > 75 {
		t.Errorf("AMS %v, want 60–75 %%", ams)
	}
	kinds := map[string]int{}
	for _, smp := range sc.Samples {
		kinds[smp.Info]++
	}
	for _, k := range []string{odyssey.InfoActionFail, odyssey.InfoClickFail, odyssey.InfoTypeFail, odyssey.InfoClickCorrect, odyssey.InfoTypeCorrect} {
		if kinds[k] == 0 {
			t.Errorf("no step judged %s (%v)", k, kinds)
		}
	}
	t.Logf("%d samples, AMS %s, SR %s, %s, %s; verdicts %v; %d failures", sc.Info.Total, sc.Info.AMS, sc.Info.SR,
		sc.Info.ActionType, sc.Info.Text, kinds, len(sc.Failures))

	// strict mode scores every test step of the split: none is missing
	strict, err := workflow.ScorePredictions(ctx, st, s.OdysseyPredictions, store.OdysseyScoreOptions{Split: s.OdysseySplit, Mode: store.ScoreStrict})
	if err != nil || strict.Missing != 0 || strict.Info.Total != sc.Info.Total {
		t.Errorf("strict: %v, %d missing, %d vs %d samples", err, strict.Missing, strict.Info.Total, sc.Info.Total)
	}
	// the engine on its own gives the same numbers
	preds, err := odyssey.ReadPredictionsFile(s.OdysseyPredictions)
	if err != nil {
		t.Fatal(err)
	}
	res, err := odyssey.Evaluate(preds, odyssey.BranchForSplit(s.OdysseySplit), odyssey.Options{})
	if err != nil || res.Info != sc.Info {
		t.Errorf("engine: %+v, %v; store %+v", res.Info, err, sc.Info)
	}
	// the predictions are the official evaluator's input records
	var recs []map[string]any
	data, _ := os.ReadFile(s.OdysseyPredictions)
	if err := json.Unmarshal(data, &recs); err != nil || len(recs) != len(preds) {
		t.Fatalf("%v, %d records", err, len(recs))
	}
	for _, k := range []string{"question", "pred", "gt", "more_info"} {
		if _, ok := recs[0][k]; !ok {
			t.Errorf("a record lacks %q", k)
		}
	}
}

// ----------------------------------------------------------------------------- Evaluation
