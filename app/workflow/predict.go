package workflow

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"path/filepath"
	"sync"
	"time"

	"github.com/agentdesk/agentdesk/engine/atomicfile"
	"github.com/agentdesk/agentdesk/engine/modelclient"
	"github.com/agentdesk/agentdesk/engine/odyssey"
	"github.com/agentdesk/agentdesk/engine/odyssey/predict"
	"github.com/agentdesk/agentdesk/store"
)

// PredictOptions describe a model run over a split (odyssey predict, and the Explorer's Run a
// model…).
type PredictOptions struct {
	Split  string
	Level  string // odyssey.LevelHigh or LevelLow
	HisLen int
	Out    string // the predictions file
	Client modelclient.Config
	// Progress hears each record's outcome (from several goroutines).
	Progress func(predict.Progress)
	// Started, when set, hears how many records earlier runs answered, before any request.
	Started func(resumed, total int)
}

// PredictOutcome is what a run did.
type PredictOutcome struct {
	Out      string // the predictions file, absolute
	Total    int    // test records of the split
	Resumed  int    // answered by earlier runs
	Answered int    // answered now, earlier runs included
	Stats    modelclient.Stats
	FirstErr error // the first record that failed, if any
	Duration time.Duration
}

// Summary says in a sentence what the run did.
func (o PredictOutcome) Summary() string {
	return fmt.Sprintf("%d of %d records answered (%d by earlier runs); %d requests, %d retries, %d+%d tokens, mean latency %s.",
		o.Answered, o.Total, o.Resumed, o.Stats.Requests, o.Stats.Retries, o.Stats.PromptTokens, o.Stats.CompletionTokens,
		o.Stats.MeanLatency().Round(time.Millisecond))
}

// IncompleteError is a run that ended with records left unanswered (their requests failed).
type IncompleteError struct{ Outcome PredictOutcome }

func (e *IncompleteError) Error() string {
	o := e.Outcome
	return fmt.Sprintf("%d of %d records answered; %d failed (first: %v); their requests are in the store; run again to retry them",
		o.Answered, o.Total, o.Total-o.Answered, o.FirstErr)
}

// PredictSplit runs a model over a split (Predict) on the workflows' store and says what it did.
func (w Workflows) PredictSplit(ctx context.Context, split, level string, hisLen int, out string, client modelclient.Config, progress func(predict.Progress)) (string, error) {
	res, err := Predict(ctx, w.Store, PredictOptions{Split: split, Level: level, HisLen: hisLen, Out: out, Client: client, Progress: progress})
	if err != nil {
		return res.Summary(), err
	}
	return fmt.Sprintf("Wrote %d predictions to %s. %s", res.Total, res.Out, res.Summary()), nil
}

// Predict sends each test record of the split that has no answer yet in the store to the model,
// keeps each answer and every request in the store as they come, and once every record has an
// answer writes the predictions file (atomically). Stopped by ctx, it returns ctx's error with
// what was kept; run again with the same options, it resumes.
func Predict(ctx context.Context, st *store.Store, o PredictOptions) (PredictOutcome, error) {
	out := PredictOutcome{}
	if o.Level == "" {
		o.Level = odyssey.LevelHigh
	}
	abs, err := filepath.Abs(o.Out)
	if err != nil {
		return out, err
	}
	out.Out = abs
	client, err := modelclient.New(o.Client)
	if err != nil {
		return out, err
	}
	recs, err := st.OdysseyTestRecords(ctx, o.Split, o.Level)
	if err != nil {
		return out, err
	}
	if len(recs) == 0 {
		return out, fmt.Errorf("split %s has no test records", o.Split)
	}
	out.Total = len(recs)
	cfg := client.Config()
	run, err := st.StartPredictRun(ctx, store.PredictRun{OutPath: abs, Split: o.Split, Level: o.Level, URL: client.Endpoint(),
		Model: cfg.Model, HisLen: o.HisLen, Temperature: cfg.Temperature, MaxTokens: cfg.MaxTokens, Total: len(recs)})
	if err != nil {
		return out, err
	}
	if run.Total != len(recs) {
		return out, fmt.Errorf("%s: an earlier run into this file had %d records, the split now has %d; write to another file", abs, run.Total, len(recs))
	}
	answers, err := st.PredictAnswers(ctx, run.ID)
	if err != nil {
		return out, err
	}
	for i, a := range answers {
		if i >= len(recs) || a.RecordID != recs[i].ID {
			return out, fmt.Errorf("%s: the stored answers do not match the split's records (record %d); write to another file", abs, i)
		}
	}
	out.Resumed = len(answers)
	before := maps.Clone(answers)
	if o.Started != nil {
		o.Started(out.Resumed, out.Total)
	}

	// One writer stores what the workers get, committing whatever has queued up at once; a
	// failed save stops the run (its answers could not be kept).
	runCtx, stopRun := context.WithCancel(ctx)
	defer stopRun()
	results := make(chan predict.Result, 256)
	var mu sync.Mutex
	var saveErr error
	saved := make(chan struct{})
	go func() {
		defer close(saved)
		for r := range results {
			batch := []predict.Result{r}
		drain:
			for len(batch) < 512 {
				select {
				case more, ok := <-results:
					if !ok {
						break drain
					}
					batch = append(batch, more)
				default:
					break drain
				}
			}
			var as []store.PredictAnswer
			var rs []store.PredictRequest
			for _, r := range batch {
				for _, a := range r.Attempts {
					q := store.PredictRequest{Idx: r.Idx, Try: a.Try, Status: a.Status, LatencyMS: ms(a.Latency),
						PromptTokens: a.Usage.PromptTokens, CompletionTokens: a.Usage.CompletionTokens}
					if a.Err != nil {
						q.Error = a.Err.Error()
					}
					rs = append(rs, q)
				}
				if r.Err == nil {
					as = append(as, store.PredictAnswer{Idx: r.Idx, RecordID: r.RecordID, Pred: r.Pred,
						PromptTokens: r.Answer.Usage.PromptTokens, CompletionTokens: r.Answer.Usage.CompletionTokens,
						LatencyMS: ms(r.Answer.Latency), Attempts: r.Answer.Attempts})
				}
			}
			// Not cancelled by a stop: what came back is kept.
			err := st.SavePredictions(context.WithoutCancel(ctx), run.ID, as, rs)
			mu.Lock()
			if err != nil && saveErr == nil {
				saveErr = err
				stopRun()
			}
			if err == nil {
				for _, a := range as {
					answers[a.Idx] = a
				}
			}
			mu.Unlock()
		}
	}()
	r := &predict.Run{Client: client, Records: recs, HisLen: o.HisLen, Read: odyssey.ReadScreenshot,
		Skip: func(i int) bool { _, ok := before[i]; return ok },
		OnResult: func(res predict.Result) {
			if res.Err != nil {
				mu.Lock()
				if out.FirstErr == nil {
					out.FirstErr = res.Err
				}
				mu.Unlock()
			}
			results <- res
		},
		Progress: o.Progress}
	start := time.Now()
	runErr := r.Do(runCtx)
	close(results)
	<-saved
	out.Duration = time.Since(start)
	out.Stats = client.Stats()
	out.Answered = len(answers)
	if saveErr != nil {
		return out, fmt.Errorf("%s: %w", st.Path(), saveErr)
	}
	if runErr != nil && !errors.Is(runErr, context.Canceled) && !errors.Is(runErr, context.DeadlineExceeded) {
		return out, fmt.Errorf("stopped at an answer every request would get (%d of %d records answered): %w", out.Answered, out.Total, runErr)
	}
	if runErr != nil {
		return out, runErr
	}
	if out.Answered < len(recs) {
		return out, &IncompleteError{Outcome: out}
	}
	samples := make([]predict.Sample, len(recs))
	for i := range recs {
		samples[i] = predict.SampleOf(&recs[i], o.HisLen, answers[i].Pred)
	}
	data, err := predict.Encode(samples)
	if err != nil {
		return out, err
	}
	if err := atomicfile.Write(abs, data, 0o644); err != nil {
		return out, err
	}
	return out, st.FinishPredictRun(context.WithoutCancel(ctx), run.ID)
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
