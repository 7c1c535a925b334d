package store

import (
	"context"
	"errors"
	"path/filepath"
	"testing"
)

// A predict run is found again by its key (that is how a run resumes), keeps the first answer of
// a record, and sums its requests.
func TestPredictRunsResume(t *testing.T) {
	ctx := context.Background()
	s, err := Open(filepath.Join(t.TempDir(), "s.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	key := PredictRun{OutPath: "/o/p.json", Split: "random_split", Level: "high", URL: "http://x/v1/chat/completions",
		Model: "m", HisLen: 4, MaxTokens: 30, Total: 3}
	a, err := s.StartPredictRun(ctx, key)
	if err != nil || a.ID == 0 || a.Answered != 0 || a.Created == "" {
		t.Fatalf("%+v %v", a, err)
	}
	err = s.SavePredictions(ctx, a.ID, []PredictAnswer{{Idx: 0, RecordID: "r0", Pred: "CLICK: (1, 2)", PromptTokens: 10, CompletionTokens: 3, LatencyMS: 12.5, Attempts: 2}},
		[]PredictRequest{{Idx: 0, Try: 1, Status: 503, LatencyMS: 1, Error: "server answered 503"}, {Idx: 0, Try: 2, Status: 200, LatencyMS: 12.5, PromptTokens: 10, CompletionTokens: 3}})
	if err != nil {
		t.Fatal(err)
	}
	// The same answer again (a record saved twice) keeps the first.
	if err := s.SavePredictions(ctx, a.ID, []PredictAnswer{{Idx: 0, RecordID: "r0", Pred: "other"}}, nil); err != nil {
		t.Fatal(err)
	}
	b, err := s.StartPredictRun(ctx, key)
	if err != nil || b.ID != a.ID || b.Answered != 1 {
		t.Fatalf("again: %+v %v", b, err)
	}
	other := key
	other.HisLen = 2
	if c, _ := s.StartPredictRun(ctx, other); c.ID == a.ID {
		t.Fatal("another history length resumed the same run")
	}
	ans, err := s.PredictAnswers(ctx, a.ID)
	if err != nil || len(ans) != 1 || ans[0].Pred != "CLICK: (1, 2)" || ans[0].Attempts != 2 {
		t.Fatalf("answers %+v %v", ans, err)
	}
	st, err := s.PredictRequests(ctx, a.ID)
	if err != nil || st.Requests != 2 || st.Failed != 1 || st.PromptTokens != 10 || st.LatencyMS != 13.5 {
		t.Fatalf("requests %+v %v", st, err)
	}
	if err := s.FinishPredictRun(ctx, a.ID); err != nil {
		t.Fatal(err)
	}
	runs, err := s.PredictRuns(ctx)
	if err != nil || len(runs) != 2 || runs[1].Finished == "" || runs[0].Finished != "" {
		t.Fatalf("runs %+v %v", runs, err)
	}
	if _, err := s.predictRun(ctx, `WHERE id = ?`, 999); !errors.Is(err, ErrNotFound) {
		t.Fatalf("missing run: %v", err)
	}
}
