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
	level := fs.String("level", odyssey.LevelHigh, "high (the episode's instruction) or low (the step's instruction)")
	hisLen := fs.Int("his_len", predict.DefaultHisLen, "previous actions and screenshots shown (0: all, as the original's [-0:])")
	mf := addModelFlags(fs, modelDefaults{concurrency: predict.DefaultConcurrency, maxTokens: predict.DefaultMaxTokens,
		timeout: predict.DefaultTimeout, concHelp: "requests in flight at most",
		tempHelp: "sampling temperature (the original decodes greedily: 0)", maxTokensHelp: "longest answer in tokens (the original's max_new_tokens: 30)"})
	return func(e *env, args []string) error {
		if len(args) != 1 || *split == "" || !mf.given() {
			return usageErrorf("want --split NAME --url URL --model NAME OUT.json")
		}
		if *level != odyssey.LevelHigh && *level != odyssey.LevelLow {
			return usageErrorf("--level must be high or low")
		}
		if *mf.conc < 1 {
			return usageErrorf("--concurrency must be at least 1")
		}
		cfg := mf.config()
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
