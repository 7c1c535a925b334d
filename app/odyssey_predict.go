package app

import (
	"context"
	"flag"
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

// odysseyPredict runs a model (any OpenAI-compatible chat-completions server) over a split's
// test records and writes the predictions file odyssey score reads. Progress is kept in the
// store: the same command run again sends only the records that have no answer yet.
func odysseyPredict(fs *flag.FlagSet) runFunc {
	split := fs.String("split", "", "the split (required)")
	url := fs.String("url", "", "the server's base URL, e.g. http://localhost:8000/v1 (vLLM), http://localhost:11434/v1 (Ollama) (required)")
	model := fs.String("model", "", "the model name the server knows (required)")
	level := fs.String("level", odyssey.LevelHigh, "high (the episode's instruction) or low (the step's instruction)")
	hisLen := fs.Int("his_len", predict.DefaultHisLen, "previous actions and screenshots shown (0: all, as the original's [-0:])")
	conc := fs.Int("concurrency", 8, "requests in flight at most")
	temp := fs.Float64("temperature", 0, "sampling temperature (the original decodes greedily: 0)")
	maxTok := fs.Int("max-tokens", predict.DefaultMaxTokens, "longest answer in tokens (the original's max_new_tokens: 30)")
	timeout := fs.Duration("timeout", 2*time.Minute, "one request's limit, from sending to the whole answer")
	retries := fs.Int("retries", modelclient.DefaultMaxRetries, "retries of a request refused with 429 or 5xx or cut off (backoff with jitter, honouring Retry-After)")
	keyEnv := fs.String("key-env", "", "read the API key from this environment variable (default: AGENTDESK_API_KEY, then OPENAI_API_KEY)")
	keyring := fs.String("keyring", "", "read the API key from the OS keyring, service agentdesk, this `ACCOUNT` (when no variable is set)")
	return func(e *env, args []string) error {
		if len(args) != 1 || *split == "" || *url == "" || *model == "" {
			return usageErrorf("want --split NAME --url URL --model NAME OUT.json")
		}
		if *level != odyssey.LevelHigh && *level != odyssey.LevelLow {
			return usageErrorf("--level must be high or low")
		}
		if *conc < 1 {
			return usageErrorf("--concurrency must be at least 1")
		}
		out, err := filepath.Abs(args[0])
		if err != nil {
			return err
		}
		key := modelclient.KeySource{}
		if *keyEnv != "" {
			key.Env = []string{*keyEnv}
		}
		if *keyring != "" {
			key.Keyring, key.Account = modelclient.SystemKeyring{}, *keyring
		}
		if *retries == 0 {
			*retries = -1 // none
		}
		client, err := modelclient.New(modelclient.Config{BaseURL: *url, Model: *model, Temperature: *temp, MaxTokens: *maxTok,
			Timeout: *timeout, Concurrency: *conc, MaxRetries: *retries, Key: key})
		if err != nil {
			return err
		}
		st, err := e.openStore()
		if err != nil {
			return err
		}
		defer st.Close()
		ctx, stop := e.interruptible()
		defer stop()
		recs, err := st.OdysseyTestRecords(ctx, *split, *level)
		if err != nil {
			return err
		}
		if len(recs) == 0 {
			return fmt.Errorf("split %s has no test records", *split)
		}
		run, err := st.StartPredictRun(ctx, store.PredictRun{OutPath: out, Split: *split, Level: *level, URL: client.Endpoint(),
			Model: *model, HisLen: *hisLen, Temperature: *temp, MaxTokens: *maxTok, Total: len(recs)})
		if err != nil {
			return err
		}
		if run.Total != len(recs) {
			return fmt.Errorf("%s: an earlier run into this file had %d records, the split now has %d; write to another file", out, run.Total, len(recs))
		}
		answers, err := st.PredictAnswers(ctx, run.ID)
		if err != nil {
			return err
		}
		for i, a := range answers {
			if i >= len(recs) || a.RecordID != recs[i].ID {
				return fmt.Errorf("%s: the stored answers do not match the split's records (record %d); write to another file", out, i)
			}
		}
		resumed := len(answers)
		before := maps.Clone(answers)
		if resumed > 0 {
			fmt.Fprintf(e.stderr, "resuming: %d of %d records answered before\n", resumed, len(recs))
		}

		// One writer stores what the workers get, committing whatever has queued up at once.
		results := make(chan predict.Result, 256)
		var mu sync.Mutex
		var firstErr error
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
						mu.Lock()
						answers[r.Idx] = store.PredictAnswer{Idx: r.Idx, RecordID: r.RecordID, Pred: r.Pred}
						mu.Unlock()
					}
				}
				// The store write is not cancelled by the signal: what came back is kept.
				if err := st.SavePredictions(context.WithoutCancel(ctx), run.ID, as, rs); err != nil && saveErr == nil {
					saveErr = err
				}
			}
		}()
		pl := newProgressLine(e.stderr)
		progress := func(p predict.Progress) {
			line := fmt.Sprintf("%d in flight, %d/%d done, %d errors, %d+%d tokens, %s mean latency",
				p.Stats.InFlight, p.Done, p.Total, p.Errors, p.Stats.PromptTokens, p.Stats.CompletionTokens,
				p.Stats.MeanLatency().Round(time.Millisecond))
			pl.show(p.Done+p.Errors == p.Total, "%s", line)
			st.SetProgress(line)
		}
		r := &predict.Run{Client: client, Records: recs, HisLen: *hisLen, Read: odyssey.ReadScreenshot,
			Skip: func(i int) bool { _, ok := before[i]; return ok },
			OnResult: func(res predict.Result) {
				if res.Err != nil {
					mu.Lock()
					if firstErr == nil {
						firstErr = res.Err
					}
					mu.Unlock()
				}
				results <- res
			},
			Progress: progress}
		start := time.Now()
		runErr := r.Do(ctx)
		close(results)
		<-saved
		pl.done()
		if saveErr != nil {
			return fmt.Errorf("%s: %w", st.Path(), saveErr)
		}
		stats := client.Stats()
		answered := len(answers)
		if runErr != nil {
			return kept(runErr, "%d of %d records kept; run again to resume", answered, len(recs))
		}
		if answered < len(recs) {
			return fmt.Errorf("%d of %d records answered; %d failed (first: %v); their requests are in the store; run again to retry them",
				answered, len(recs), len(recs)-answered, firstErr)
		}
		samples := make([]predict.Sample, len(recs))
		for i := range recs {
			samples[i] = predict.SampleOf(&recs[i], *hisLen, answers[i].Pred)
		}
		data, err := predict.Encode(samples)
		if err != nil {
			return err
		}
		if err := atomicfile.Write(out, data, 0o644); err != nil {
			return err
		}
		if err := st.FinishPredictRun(context.WithoutCancel(ctx), run.ID); err != nil {
			return err
		}
		fmt.Fprintf(e.stdout, "wrote %d predictions to %s (%d requests now, %d answered before; %d retries; %d+%d tokens; mean latency %s; %.1f s)\n",
			len(samples), args[0], stats.Requests, resumed, stats.Retries, stats.PromptTokens, stats.CompletionTokens,
			stats.MeanLatency().Round(time.Millisecond), time.Since(start).Seconds())
		return nil
	}
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
