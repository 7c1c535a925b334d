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
	mf := addModelFlags(fs, modelDefaults{concurrency: 4, maxTokens: 1024, timeout: 2 * time.Minute,
		concHelp: "requests in flight at most (pages of a unit are asked ahead)", tempHelp: "sampling temperature",
		maxTokensHelp: "longest reply in tokens (0: the server's default)"})
	units := fs.Int("units", 0, "submit at most N units in this run (0: every unit the project gives the model)")
	asks := fs.Int("asks", annotate.DefaultMaxAsks, "asks per page at most when the replies cannot be read as its answer (then the page is recorded as an error)")
	as := fs.String("as", "", "the model's participant id (default: model:NAME)")
	return func(e *env, args []string) error {
		if len(args) != 1 || !mf.given() {
			return usageErrorf("want --url URL --model NAME PROJECT")
		}
		if *mf.conc < 1 || *units < 0 || *asks < 1 {
			return usageErrorf("--concurrency and --asks must be at least 1, --units at least 0")
		}
		client, err := modelclient.New(mf.config())
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
		res, err := annotate.Run(ctx, st, session.NewProject(info.ID, info.Name, p), client, annotate.Options{Model: *mf.model, URL: client.Endpoint(),
			Participant: *as, Units: *units, MaxAsks: *asks, Ahead: *mf.conc,
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
