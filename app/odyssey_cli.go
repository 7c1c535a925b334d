package app

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/agentdesk/agentdesk/app/workflow"
	"github.com/agentdesk/agentdesk/engine/atomicfile"
	"github.com/agentdesk/agentdesk/engine/limits"
	"github.com/agentdesk/agentdesk/engine/odyssey"
	"github.com/agentdesk/agentdesk/store"
)

// odysseyCommands is the odyssey group: GUI Odyssey episode datasets.
func odysseyCommands() *command {
	return &command{name: "odyssey", summary: "GUI Odyssey episode datasets", sub: []*command{
		&command{name: "import", args: "DIR", summary: "import a GUI Odyssey folder (annotations, splits, screenshots) into the store",
			setup: odysseyImport},
		&command{name: "splits", summary: "list the splits in the store with their sizes", setup: odysseySplits},
		&command{name: "split", args: "NAME", summary: "make a user split: random (--test-fraction, --seed) or holding out --ids",
			setup: odysseySplit},
		&command{name: "export", summary: "write a split in the split-file format, or episodes as JSON, JSONL or one file", sub: []*command{
			{name: "split", args: "NAME FILE", summary: "write a split as {\"train\": [...], \"test\": [...]}", setup: odysseyExportSplit},
			{name: "episodes", args: "DEST", summary: "write episodes in the original annotation format", setup: odysseyExportEpisodes},
		}},
		&command{name: "records", args: "FILE", summary: "write the official test records of a split (the converter's test_anno file)",
			setup: odysseyRecords},
		&command{name: "convert", args: "OUT_DIR", summary: "write a split's training chats, test records and history index as the original converter does",
			setup: odysseyConvert},
		&command{name: "predict", args: "OUT.json", summary: "run a model (an OpenAI-compatible server) over a split's test records and write its predictions",
			setup: odysseyPredict},
		&command{name: "score", args: "PREDICTIONS", summary: "score predictions as the official evaluation does (AMS, SR) with breakdowns",
			setup: odysseyScore},
		&command{name: "runs", summary: "list saved scoring runs", setup: odysseyRuns},
		&command{name: "generate", summary: "write a synthetic full-scale dataset in the real layout (development)",
			setup: odysseyGenerate},
	}}
}

// progressLine rewrites one status line on a terminal; elsewhere it stays silent.
type progressLine struct {
	w       io.Writer
	on      bool
	last    time.Time
	printed bool
}

func newProgressLine(w io.Writer) *progressLine {
	f, ok := w.(*os.File)
	on := false
	if ok {
		if st, err := f.Stat(); err == nil && st.Mode()&os.ModeCharDevice != 0 {
			on = true
		}
	}
	return &progressLine{w: w, on: on}
}

func (p *progressLine) show(force bool, format string, args ...any) {
	if !p.on || !force && time.Since(p.last) < 100*time.Millisecond {
		return
	}
	p.last = time.Now()
	fmt.Fprintf(p.w, "\r\033[K"+format, args...)
	p.printed = true
}

func (p *progressLine) done() {
	if p.printed {
		fmt.Fprint(p.w, "\r\033[K")
	}
}

func odysseyImport(fs *flag.FlagSet) runFunc {
	var opts workflow.ImportOptions
	fs.BoolVar(&opts.CopyScreenshots, "copy-screenshots", false, "store the screenshots in the store (default: reference them where they are)")
	fs.BoolVar(&opts.Force, "force", false, "re-import files that were imported before (e.g. after moving the screenshots)")
	fill := fs.Bool("fill-from-all-file", false, "also read all_annot.json / all_anno.json for the episodes annotations/ lacks (incomplete downloads)")
	asJSON := fs.Bool("json", false, "print the result as JSON")
	return func(e *env, args []string) error {
		st, err := e.openStoreFor(args, 1, "want one dataset folder")
		if err != nil {
			return err
		}
		defer st.Close()
		ctx, stop := e.interruptible()
		defer stop()
		start := time.Now()
		opts.FillFromAllFile = *fill
		pl := newProgressLine(e.stderr)
		opts.Progress = func(p store.OdysseyProgress) {
			pl.show(p.Done == p.Total, "%s %d/%d", p.Phase, p.Done, p.Total)
			st.SetProgress(fmt.Sprintf("%s %d of %d", p.Phase, p.Done, p.Total))
		}
		im, err := workflow.ImportDataset(ctx, st, args[0], opts)
		res := im.OdysseyImportResult
		pl.done()
		var partial *store.PartialImportError
		if errors.As(err, &partial) {
			// a chunked import keeps its committed chunks (the error says how many)
			return kept(err, "%d episodes stored by %d earlier transactions stay; importing %s again resumes after them", partial.Episodes, partial.Chunks, args[0])
		}
		if errors.Is(err, context.Canceled) {
			return kept(err, "the import was rolled back; the store is unchanged")
		}
		if err != nil {
			return kept(fmt.Errorf("%w (nothing was imported)", err), "the import was rolled back; the store is unchanged")
		}
		total := time.Since(start)
		if *asJSON {
			return writeJSON(e.stdout, res)
		}
		w := e.stdout
		if res.Episodes == 0 && res.Unchanged > 0 {
			fmt.Fprintf(w, "%s: already imported (%d unchanged files); nothing to do (--force re-imports, e.g. after adding or moving screenshots)\n", res.Root, res.Unchanged)
		} else {
			fmt.Fprintf(w, "imported %d episodes (%d steps, schema %s, layout %s) from %s\n", res.Episodes, res.Steps, res.Schema, res.Layout, res.Root)
			if res.Resumed > 0 {
				fmt.Fprintf(w, "  resumed an interrupted import: %d episodes it stored were kept\n", res.Resumed)
			}
			if res.Chunks > 1 {
				fmt.Fprintf(w, "  committed in %d transactions of up to %d episodes\n", res.Chunks, store.DefaultChunkEpisodes)
			}
			if res.Unchanged > 0 {
				fmt.Fprintf(w, "  %d files unchanged since an earlier import, left alone\n", res.Unchanged)
			}
			fmt.Fprintf(w, "  screenshots: %d found, %d missing", res.Screenshots, res.MissingScreenshots)
			if opts.CopyScreenshots {
				fmt.Fprintf(w, ", %d copied into the store", res.CopiedScreenshots)
			}
			fmt.Fprintln(w)
		}
		for _, sp := range res.Splits {
			fmt.Fprintf(w, "  split %s: %s\n", sp.Name, partSizes(sp.PartSizes))
		}
		if len(res.Warnings) > 0 {
			fmt.Fprintf(w, "  %d warnings:\n", len(res.Warnings))
			for i, wn := range res.Warnings {
				if i == 10 {
					fmt.Fprintf(w, "    … %d more (agentdesk odyssey import --json shows all)\n", len(res.Warnings)-10)
					break
				}
				fmt.Fprintf(w, "    %s\n", wn)
			}
		}
		fmt.Fprintf(w, "time: %.2f s (import of annotations and splits %.2f s)\n", total.Seconds(), res.Duration.Seconds())
		return nil
	}
}

func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

func partSizes(sizes map[string]int) string {
	names := make([]string, 0, len(sizes))
	for n := range sizes {
		names = append(names, n)
	}
	sort.Slice(names, func(i, j int) bool {
		rank := map[string]int{"train": 0, "test": 1}
		ri, oki := rank[names[i]]
		rj, okj := rank[names[j]]
		if oki != okj {
			return oki
		}
		if oki {
			return ri < rj
		}
		return names[i] < names[j]
	})
	var parts []string
	for _, n := range names {
		parts = append(parts, fmt.Sprintf("%s %d", n, sizes[n]))
	}
	if len(parts) == 0 {
		return "empty"
	}
	return strings.Join(parts, ", ")
}

func odysseySplits(fs *flag.FlagSet) runFunc {
	asJSON := fs.Bool("json", false, "print the splits as JSON")
	return func(e *env, args []string) error {
		st, err := e.openStoreFor(args, 0, "takes no arguments")
		if err != nil {
			return err
		}
		defer st.Close()
		infos, err := st.Splits(e.context())
		if err != nil {
			return err
		}
		if *asJSON {
			if infos == nil {
				infos = []store.SplitInfo{}
			}
			return writeJSON(e.stdout, infos)
		}
		if len(infos) == 0 {
			fmt.Fprintln(e.stdout, "no splits; import a dataset with `agentdesk odyssey import DIR`")
			return nil
		}
		tw := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "NAME\tKIND\tPARTS\tMETRIC\tDESCRIPTION")
		for _, in := range infos {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", in.Name, in.Kind, partSizes(in.PartSizes),
				odyssey.BranchForSplit(in.Name).Label(), in.Description)
		}
		return tw.Flush()
	}
}

func odysseySplit(fs *flag.FlagSet) runFunc {
	idsFile := fs.String("ids", "", "episode ids, one a line (`FILE`, - for standard input): the test part, or the episodes to split with --test-fraction")
	fraction := fs.Float64("test-fraction", 0, "split at random with this share in test (0.2 = 4 : 1); default with no --ids: 0.2")
	seed := fs.Uint64("seed", 1, "random seed of --test-fraction")
	desc := fs.String("description", "", "what the split is for")
	replace := fs.Bool("replace", false, "replace a user split of the same name")
	return func(e *env, args []string) error {
		st, err := e.openStoreFor(args, 1, "want the new split's name")
		if err != nil {
			return err
		}
		defer st.Close()
		ctx := e.context()
		all, err := st.OdysseyEpisodeIDs(ctx)
		if err != nil {
			return err
		}
		var parts []odyssey.SplitPart
		var ids []string
		if *idsFile != "" {
			if ids, err = readIDFile(*idsFile); err != nil {
				return err
			}
			if len(ids) == 0 {
				return fmt.Errorf("%s names no episode", *idsFile)
			}
		}
		switch {
		case *idsFile != "" && *fraction == 0:
			parts = odyssey.HoldOut(all, ids)
			if *desc == "" {
				*desc = fmt.Sprintf("%d episodes from %s held out for test", len(ids), *idsFile)
			}
		default:
			if *fraction == 0 {
				*fraction = 0.2
			}
			if ids == nil {
				ids = all
			}
			if len(ids) == 0 {
				return errors.New("the store has no GUI Odyssey episode; import a dataset first")
			}
			if parts, err = odyssey.RandomSplit(ids, *fraction, *seed); err != nil {
				return usageErrorf("%v", err)
			}
			if *desc == "" {
				*desc = fmt.Sprintf("random, %.0f%% test, seed %d", *fraction*100, *seed)
			}
		}
		info, err := st.SaveOdysseySplit(ctx, args[0], *desc, parts, *replace)
		if errors.Is(err, store.ErrSplitExists) {
			return fmt.Errorf("%w; use --replace to replace it", err)
		}
		if err != nil {
			return err
		}
		fmt.Fprintf(e.stdout, "split %s: %s\n", info.Name, partSizes(info.PartSizes))
		return nil
	}
}

// readIDFile reads episode ids, one a line, from file (- for standard input).
func readIDFile(file string) ([]string, error) {
	if file == "-" {
		return odyssey.ReadIDList(os.Stdin)
	}
	f, _, err := limits.Open(file, limits.SplitFile)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return odyssey.ReadIDList(f)
}

func odysseyExportSplit(fs *flag.FlagSet) runFunc {
	return func(e *env, args []string) error {
		st, err := e.openStoreFor(args, 2, "want NAME FILE")
		if err != nil {
			return err
		}
		defer st.Close()
		parts, err := odysseySplitParts(e.context(), st, args[0])
		if err != nil {
			return err
		}
		if err := odyssey.WriteSplitFile(args[1], parts); err != nil {
			return err
		}
		sizes := map[string]int{}
		for _, p := range parts {
			sizes[p.Name] = len(p.IDs)
		}
		fmt.Fprintf(e.stdout, "wrote %s (%s)\n", args[1], partSizes(sizes))
		return nil
	}
}

// odysseySplitParts finds the split ref names (ResolveSplitName's rules) and reads its parts.
func odysseySplitParts(ctx context.Context, st *store.Store, ref string) ([]odyssey.SplitPart, error) {
	name, err := st.ResolveSplitName(ctx, ref)
	if err != nil {
		return nil, err
	}
	return st.OdysseySplitParts(ctx, name)
}

func odysseyExportEpisodes(fs *flag.FlagSet) runFunc {
	format := fs.String("format", odyssey.FormatJSON, "json (DEST/annotations/<id>.json, the original layout), jsonl (one episode a line in DEST) or all (DEST is a one-file all_annot.json)")
	split := fs.String("split", "", "only the episodes of this split")
	part := fs.String("part", "", "with --split: only this part (train, test)")
	return func(e *env, args []string) error {
		if len(args) != 1 {
			return usageErrorf("want DEST")
		}
		if *part != "" && *split == "" {
			return usageErrorf("--part needs --split")
		}
		st, err := e.openStore()
		if err != nil {
			return err
		}
		defer st.Close()
		ctx, stop := e.interruptible()
		defer stop()
		var ids []string
		if *split != "" {
			parts, err := odysseySplitParts(ctx, st, *split)
			if err != nil {
				return err
			}
			ids = []string{}
			for _, p := range parts {
				if *part == "" || p.Name == *part {
					ids = append(ids, p.IDs...)
				}
			}
		}
		pl := newProgressLine(e.stderr)
		files, n, err := odyssey.ExportEpisodes(ctx, *format, args[0], func(fn func(odyssey.Record) error) error {
			count := 0
			return st.OdysseyRecords(ctx, ids, func(r odyssey.Record) error {
				count++
				pl.show(false, "exporting episode %d", count)
				return fn(r)
			})
		})
		pl.done()
		if err != nil {
			return err
		}
		if *format == odyssey.FormatJSON {
			fmt.Fprintf(e.stdout, "wrote %d episodes to %s\n", n, filepath.Join(args[0], "annotations"))
		} else {
			fmt.Fprintf(e.stdout, "wrote %d episodes to %s\n", n, files[len(files)-1])
		}
		return nil
	}
}

func odysseyRecords(fs *flag.FlagSet) runFunc {
	split := fs.String("split", "", "the split (required)")
	level := fs.String("level", odyssey.LevelHigh, "high (the episode's instruction) or low (the step's instruction)")
	return func(e *env, args []string) error {
		if len(args) != 1 || *split == "" {
			return usageErrorf("want --split NAME FILE")
		}
		st, err := e.openStore()
		if err != nil {
			return err
		}
		defer st.Close()
		recs, err := st.OdysseyTestRecords(e.context(), *split, *level)
		if err != nil {
			return err
		}
		if recs == nil {
			recs = []odyssey.TestRecord{}
		}
		data, err := json.MarshalIndent(recs, "", " ")
		if err != nil {
			return err
		}
		if err := atomicfile.Write(args[0], data, 0o644); err != nil {
			return err
		}
		fmt.Fprintf(e.stdout, "wrote %d test records to %s\n", len(recs), args[0])
		return nil
	}
}

func odysseyScore(fs *flag.FlagSet) runFunc {
	var opts store.OdysseyScoreOptions
	fs.StringVar(&opts.Split, "split", "", "the split the predictions are for (random, task, device, app or a user split); decides the metric")
	fs.StringVar(&opts.Level, "level", odyssey.LevelHigh, "high or low: names the setting (e.g. high_random_split)")
	fs.StringVar(&opts.Mode, "mode", store.ScoreOfficial, "official (exactly the original), lenient (numbers even when the original aborts) or strict (every test step; a missing prediction is wrong)")
	fs.StringVar(&opts.Name, "model", "", "the model or checkpoint, for the saved run and --out")
	branch := fs.String("metric", "", "override the split's metric: micro (per-category mean) or macro (step accuracy)")
	fs.BoolVar(&opts.Save, "save", false, "save the run in the store (see agentdesk odyssey runs)")
	out := fs.String("out", "", "write the original evaluator's result file (dataset, model, metrics: info and pred) to `FILE`")
	failures := fs.Int("failures", 10, "list this many failing steps (0: none, -1: all)")
	officialOnly := fs.Bool("official-only", false, "print only what the original prints")
	asJSON := fs.Bool("json", false, "print the score with breakdowns and failures as JSON")
	return func(e *env, args []string) error {
		if len(args) != 1 || opts.Split == "" {
			return usageErrorf("want --split NAME PREDICTIONS")
		}
		opts.Branch = odyssey.Branch(*branch)
		st, err := e.openStore()
		if err != nil {
			return err
		}
		defer st.Close()
		score, err := workflow.ScorePredictions(e.context(), st, args[0], opts)
		sc := score.OdysseyScore
		var abort *odyssey.AbortError
		if errors.As(err, &abort) {
			return fmt.Errorf("%v\n  rerun with --mode lenient for non-official numbers", err)
		}
		if err != nil {
			return err
		}
		if *out != "" {
			rec := odyssey.OutputRecord(odyssey.DatasetName(opts.Level, sc.Split), opts.Name, sc.Result)
			if err := atomicfile.Write(*out, rec, 0o644); err != nil {
				return err
			}
		}
		if *asJSON {
			return writeJSON(e.stdout, scoreJSON(sc, *failures))
		}
		w := e.stdout
		for _, line := range sc.PrintedCategories() {
			fmt.Fprintln(w, line)
		}
		fmt.Fprintln(w, sc.Info.PythonJSON())
		if *officialOnly {
			return nil
		}
		printDiagnostics(w, sc, *failures)
		if sc.RunID != 0 {
			fmt.Fprintf(w, "saved as run %d\n", sc.RunID)
		}
		if *out != "" {
			fmt.Fprintf(w, "wrote %s\n", *out)
		}
		return nil
	}
}

func printDiagnostics(w io.Writer, sc *store.OdysseyScore, failures int) {
	fmt.Fprintln(w)
	label := "official"
	if !sc.Official() {
		label = "NOT OFFICIAL (" + sc.Mode + " mode"
		if sc.Abort != nil {
			label += "; the original aborts: " + sc.Abort.Exception
		}
		label += ")"
	}
	fmt.Fprintf(w, "%s %s, %s, %d steps, %d/%d episodes succeeded: AMS %s, SR %s\n", sc.Split, label, sc.Branch.Label(),
		sc.Info.Total, sc.EpisodesSucceeded, sc.EpisodesScored, sc.Info.AMS, sc.Info.SR)
	if sc.UnknownEpisodes+sc.OutsideSplit+sc.GTMismatches+sc.Missing > 0 {
		fmt.Fprintf(w, "checks: %d samples of episodes not in the store, %d outside the split's test part, %d ground truths differ from the store, %d test steps without a prediction\n",
			sc.UnknownEpisodes, sc.OutsideSplit, sc.GTMismatches, sc.Missing)
	}
	for _, dim := range []string{odyssey.ByCategory, odyssey.ByDevice, odyssey.ByAction, odyssey.ByApp} {
		groups := sc.Breakdowns[dim]
		fmt.Fprintf(w, "\nby %s (step accuracy, SR by the official rule; not official numbers)\n", dim)
		tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', tabwriter.AlignRight)
		fmt.Fprintf(tw, "%s\tsteps\tcorrect\tAMS\tepisodes\tSR\taction wrong\tinvalid\t\n", strings.ToUpper(dim))
		for i, g := range groups {
			if dim == odyssey.ByApp && i == 15 {
				fmt.Fprintf(tw, "… %d more apps\t\t\t\t\t\t\t\t\n", len(groups)-15)
				break
			}
			v := g.Value
			if v == "" {
				v = "(unknown)"
			}
			fmt.Fprintf(tw, "%s\t%d\t%d\t%.2f\t%d\t%s\t%d\t%d\t\n", v, g.Steps, g.Correct, g.AMS, g.Episodes, g.SR, g.ActionFail, g.Invalid)
		}
		tw.Flush()
	}
	if failures != 0 && len(sc.Failures) > 0 {
		fmt.Fprintf(w, "\nfailing steps (%d):\n", len(sc.Failures))
		for i, f := range sc.Failures {
			if failures > 0 && i == failures {
				fmt.Fprintf(w, "  … %d more (--failures -1 lists all)\n", len(sc.Failures)-failures)
				break
			}
			fmt.Fprintf(w, "  episode %s step %d: %s: predicted %q, expected %q\n", f.EpisodeID, f.Step, f.Info, f.Pred, f.GT)
		}
	}
}

// scoreJSON is the JSON view of a score for scripts.
func scoreJSON(sc *store.OdysseyScore, failures int) map[string]any {
	fl := sc.Failures
	if failures >= 0 && len(fl) > failures {
		fl = fl[:failures]
	}
	if fl == nil {
		fl = []odyssey.Failure{}
	}
	var abort any
	if sc.Abort != nil {
		abort = sc.Abort
	}
	return map[string]any{
		"split": sc.Split, "mode": sc.Mode, "metric": sc.Branch, "official": sc.Official(), "abort": abort,
		"info": sc.Info, "categories": sc.PrintedCategories(), "run_id": sc.RunID,
		"episodes_scored": sc.EpisodesScored, "episodes_succeeded": sc.EpisodesSucceeded,
		"unknown_episodes": sc.UnknownEpisodes, "outside_split": sc.OutsideSplit,
		"gt_mismatches": sc.GTMismatches, "missing": sc.Missing,
		"breakdowns": sc.Breakdowns, "failures": fl, "failures_total": len(sc.Failures),
	}
}

func odysseyRuns(fs *flag.FlagSet) runFunc {
	split := fs.String("split", "", "only runs of this split")
	return func(e *env, args []string) error {
		st, err := e.openStoreFor(args, 0, "takes no arguments")
		if err != nil {
			return err
		}
		defer st.Close()
		runs, err := st.OdysseyRuns(e.context(), *split)
		if err != nil {
			return err
		}
		if len(runs) == 0 {
			fmt.Fprintln(e.stdout, "no saved runs; score with `agentdesk odyssey score --save`")
			return nil
		}
		tw := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "RUN\tMODEL\tSETTING\tMODE\tSAMPLES\tINFO\tCREATED")
		for _, r := range runs {
			fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%d\t%s\t%s\n", r.ID, r.Name, odyssey.DatasetName(r.Level, r.Split), r.Mode,
				r.Samples, r.Info, r.CreatedAt.Local().Format("2006-01-02 15:04"))
		}
		return tw.Flush()
	}
}

func odysseyGenerate(fs *flag.FlagSet) runFunc {
	var opts odyssey.GenerateOptions
	out := fs.String("out", "", "the folder to write (must not exist or be empty)")
	fs.IntVar(&opts.Episodes, "episodes", 8334, "number of episodes (8,334 in the v2 release)")
	fs.Uint64Var(&opts.Seed, "seed", 1, "random seed")
	fs.StringVar(&opts.Schema, "schema", odyssey.SchemaV2, "v2 (with the per-step semantic fields and sam2_bbox) or v1")
	fs.StringVar(&opts.Screenshots, "screenshots", "zip", "zip (one archive), folder (a PNG per step) or none")
	fs.BoolVar(&opts.AllFile, "all-file", false, "also write the one-file variant")
	fs.BoolVar(&opts.ZipAnnotations, "zip-annotations", false, "write the annotations into annotations.zip, as the v2 release ships them")
	return func(e *env, args []string) error {
		if len(args) > 0 || *out == "" {
			return usageErrorf("want --out DIR")
		}
		ctx, stop := e.interruptible()
		defer stop()
		pl := newProgressLine(e.stderr)
		opts.Progress = func(done, total int) { pl.show(done == total, "generating episode %d/%d", done, total) }
		start := time.Now()
		res, err := odyssey.Generate(ctx, *out, opts)
		pl.done()
		if err != nil {
			return err
		}
		fmt.Fprintf(e.stdout, "wrote %d episodes, %d steps, %d screenshots to %s in %.1f s\n", res.Episodes, res.Steps, res.Screenshots, *out, time.Since(start).Seconds())
		for _, n := range slices.Sorted(maps.Keys(res.Splits)) {
			fmt.Fprintf(e.stdout, "  %s: train %d, test %d\n", n, res.Splits[n][0], res.Splits[n][1])
		}
		return nil
	}
}
