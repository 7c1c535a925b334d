package app

import (
	"flag"
	"fmt"
	"time"

	"github.com/agentdesk/agentdesk/engine/evaluation/annotate"
	"github.com/agentdesk/agentdesk/engine/evaluation/session"
	"github.com/agentdesk/agentdesk/engine/modelclient"
)

// evalAnnotate lets a model annotate a project beside people (annotate.Run): it answers the
// units through the same session engine, screening included, and its answers are stored as a
// model participant's. Everything is saved as it is given: the same command run again
// continues with the units not yet answered.
func evalAnnotate(fs *flag.FlagSet) runFunc {
	url := fs.String("url", "", "the server's base URL, e.g. http://localhost:8000/v1 (vLLM), http://localhost:11434/v1 (Ollama), https://api.openai.com/v1 (required)")
	model := fs.String("model", "", "the model name the server knows (required)")
	units := fs.Int("units", 0, "submit at most N units in this run (0: every unit the project gives the model)")
	conc := fs.Int("concurrency", 4, "requests in flight at most (pages of a unit are asked ahead)")
	temp := fs.Float64("temperature", 0, "sampling temperature")
	maxTok := fs.Int("max-tokens", 1024, "longest reply in tokens (0: the server's default)")
	timeout := fs.Duration("timeout", 2*time.Minute, "one request's limit, from sending to the whole answer")
	asks := fs.Int("asks", annotate.DefaultMaxAsks, "asks per page at most when the replies cannot be read as its answer (then the page is recorded as an error)")
	keyEnv := fs.String("key-env", "", "read the API key from this environment variable (default: AGENTDESK_API_KEY, then OPENAI_API_KEY)")
	keyring := fs.String("keyring", "", "read the API key from the OS keyring, service agentdesk, this `ACCOUNT` (when no variable is set)")
	as := fs.String("as", "", "the model's participant id (default: model:NAME)")
	return func(e *env, args []string) error {
		if len(args) != 1 || *url == "" || *model == "" {
			return usageErrorf("want --url URL --model NAME PROJECT")
		}
		if *conc < 1 || *units < 0 || *asks < 1 {
			return usageErrorf("--concurrency and --asks must be at least 1, --units at least 0")
		}
		key := modelclient.KeySource{}
		if *keyEnv != "" {
			key.Env = []string{*keyEnv}
		}
		if *keyring != "" {
			key.Keyring, key.Account = modelclient.SystemKeyring{}, *keyring
		}
		client, err := modelclient.New(modelclient.Config{BaseURL: *url, Model: *model, Temperature: *temp, MaxTokens: *maxTok,
			Timeout: *timeout, Concurrency: *conc, Key: key})
		if err != nil {
			return err
		}
		ctx, stop := e.interruptible()
		defer stop()
		st, info, p, err := e.openEvalProjectDef(ctx, args, 1, "give the project")
		if err != nil {
			return err
		}
		defer st.Close()
		pl := newProgressLine(e.stderr)
		line := func(pr annotate.Progress) string {
			s := client.Stats()
			return fmt.Sprintf("%s: %d units, %d pages, %d requests (%d asked again), %d in flight, %d+%d tokens, %s mean latency",
				pr.Participant, pr.Units+pr.Golds, pr.Pages, pr.Requests, pr.Reasks, s.InFlight, s.PromptTokens, s.CompletionTokens,
				s.MeanLatency().Round(time.Millisecond))
		}
		res, err := annotate.Run(ctx, st, session.NewProject(info.ID, info.Name, p), client, annotate.Options{Model: *model, URL: client.Endpoint(),
			Participant: *as, Units: *units, MaxAsks: *asks, Ahead: *conc,
			Progress: func(pr annotate.Progress) {
				l := line(pr)
				pl.show(false, "%s", l)
				st.SetProgress(l)
			}})
		pl.done()
		if err != nil {
			return kept(err, "%s and %s answered in this run are kept in the store; run it again to continue",
				pluralWord(res.Units+res.Golds, "unit"), pluralWord(res.Pages, "page"))
		}
		fmt.Fprintln(e.stdout, line(res.Progress))
		if res.Screening != "" {
			fmt.Fprintf(e.stdout, "screening: %s\n", res.Screening)
		}
		switch {
		case res.Refusal == "":
			fmt.Fprintf(e.stdout, "stopped after %d units (--units); run it again to continue\n", res.Units+res.Golds)
		default:
			fmt.Fprintf(e.stdout, "no more work for the model: %s\n", res.Message)
		}
		return nil
	}
}
