package app

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"time"

	"github.com/agentdesk/agentdesk/app/workflow"
	"github.com/agentdesk/agentdesk/engine/modelclient"
	"github.com/agentdesk/agentdesk/engine/odyssey"
	"github.com/agentdesk/agentdesk/engine/odyssey/predict"
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
	conc := fs.Int("concurrency", predict.DefaultConcurrency, "requests in flight at most")
	temp := fs.Float64("temperature", 0, "sampling temperature (the original decodes greedily: 0)")
	maxTok := fs.Int("max-tokens", predict.DefaultMaxTokens, "longest answer in tokens (the original's max_new_tokens: 30)")
	timeout := fs.Duration("timeout", predict.DefaultTimeout, "one request's limit, from sending to the whole answer")
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
		cfg := modelclient.Config{BaseURL: *url, Model: *model, Temperature: *temp, MaxTokens: *maxTok,
			Timeout: *timeout, Concurrency: *conc, MaxRetries: *retries, Key: key}
		if _, err := modelclient.New(cfg); err != nil { // the URL, the model, the key: before the store opens
			return err
		}
		st, err := e.openStore()
		if err != nil {
			return err
		}
		defer st.Close()
		ctx, stop := e.interruptible()
		defer stop()
		pl := newProgressLine(e.stderr)
		opts := workflow.PredictOptions{Split: *split, Level: *level, HisLen: *hisLen, Out: args[0], Client: cfg,
			Progress: func(p predict.Progress) {
				line := fmt.Sprintf("%d in flight, %d/%d done, %d errors, %d+%d tokens, %s mean latency",
					p.Stats.InFlight, p.Done, p.Total, p.Errors, p.Stats.PromptTokens, p.Stats.CompletionTokens,
					p.Stats.MeanLatency().Round(time.Millisecond))
				pl.show(p.Done+p.Errors == p.Total, "%s", line)
				st.SetProgress(line)
			},
			Started: func(resumed, total int) { // called once, before the first request
				if resumed > 0 {
					fmt.Fprintf(e.stderr, "resuming: %d of %d records answered before\n", resumed, total)
				}
			}}
		res, err := workflow.Predict(ctx, st, opts)
		pl.done()
		if errors.Is(err, context.Canceled) {
			return kept(err, "%d of %d records kept; run again to resume", res.Answered, res.Total)
		}
		if err != nil {
			return err
		}
		fmt.Fprintf(e.stdout, "wrote %d predictions to %s (%d requests now, %d answered before; %d retries; %d+%d tokens; mean latency %s; %.1f s)\n",
			res.Total, args[0], res.Stats.Requests, res.Resumed, res.Stats.Retries, res.Stats.PromptTokens, res.Stats.CompletionTokens,
			res.Stats.MeanLatency().Round(time.Millisecond), res.Duration.Seconds())
		return nil
	}
}
