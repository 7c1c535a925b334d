// Package workflow holds what the command line and the desktop both do with a user's files and
// the store, once: import a GUI Odyssey dataset folder and say what came of it, and score a
// prediction file against a split with the notes people need about samples that do not fit.
// It reads the files (through engine/limits) and composes the sentences; the store stores and
// queries, the engines parse and compute. No fyne and no SQL here: the command line calls these
// functions, and the workspaces reach them through their Store interfaces, which Workflows
// implements over a store.
package workflow

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/agentdesk/agentdesk/engine/limits"
	"github.com/agentdesk/agentdesk/engine/odyssey"
	"github.com/agentdesk/agentdesk/store"
)

// Import is a finished dataset import.
type Import struct {
	store.OdysseyImportResult
}

// Summary says in a few sentences what the import did.
func (im Import) Summary() string {
	res := im.OdysseyImportResult
	var b strings.Builder
	switch {
	case res.Episodes == 0 && res.Unchanged > 0:
		fmt.Fprintf(&b, "Nothing new: the %d annotation files of %s were imported before.", res.Unchanged, res.Root)
	default:
		fmt.Fprintf(&b, "Imported %d episodes (%d steps, %s schema) from %s in %.1f s.", res.Episodes, res.Steps,
			res.Schema, res.Root, res.Duration.Seconds())
		if res.Resumed > 0 {
			fmt.Fprintf(&b, " Resumed an interrupted import: the %d episodes it had stored were kept.", res.Resumed)
		}
		if res.Unchanged > 0 {
			fmt.Fprintf(&b, " %d unchanged files were left alone.", res.Unchanged)
		}
	}
	fmt.Fprintf(&b, " Screenshots: %d found, %d missing.", res.Screenshots, res.MissingScreenshots)
	for _, sp := range res.Splits {
		fmt.Fprintf(&b, " Split %s: %d train / %d test.", sp.Name, sp.PartSizes["train"], sp.PartSizes["test"])
	}
	if res.MissingSplitEpisodes > 0 {
		fmt.Fprintf(&b, " %d split entries name episodes that are not in the store.", res.MissingSplitEpisodes)
	}
	return b.String()
}

// ImportOptions tune ImportDataset.
type ImportOptions struct {
	store.OdysseyImportOptions
	// FillFromAllFile also reads all_annot.json / all_anno.json for the episodes that
	// annotations/ lacks (incomplete downloads).
	FillFromAllFile bool
}

// ImportDataset imports the GUI Odyssey dataset folder dir into st (store.ImportOdyssey: one transaction, or chunks when large)
// (cancelled by ctx without a trace), then refreshes the planner's statistics for the
// Explorer's queries. opts.Progress, when set, hears the phases ("annotations", "splits",
// "commit"); before them the folder is looked at.
func ImportDataset(ctx context.Context, st *store.Store, dir string, opts ImportOptions) (Import, error) {
	if opts.Progress != nil {
		opts.Progress(store.OdysseyProgress{Phase: "reading the folder"})
	}
	ds, err := odyssey.OpenDataset(dir)
	if err != nil {
		return Import{}, err
	}
	ds.FillFromAllFile = opts.FillFromAllFile
	if err := ctx.Err(); err != nil {
		return Import{}, err
	}
	res, err := st.ImportOdyssey(ctx, ds, opts.OdysseyImportOptions)
	if err != nil {
		return Import{OdysseyImportResult: res}, err
	}
	st.OptimizeQueries(ctx)
	return Import{OdysseyImportResult: res}, nil
}

// Score is a scored prediction file.
type Score struct {
	*store.OdysseyScore
}

// Notes are sentences for people about samples that do not fit the split or the store.
func (sc Score) Notes() []string {
	var notes []string
	if sc.UnknownEpisodes > 0 {
		notes = append(notes, fmt.Sprintf("%d samples name episodes that are not in the store.", sc.UnknownEpisodes))
	}
	if sc.OutsideSplit > 0 {
		notes = append(notes, fmt.Sprintf("%d samples are not in the test part of %s.", sc.OutsideSplit, sc.Split))
	}
	if sc.GTMismatches > 0 {
		notes = append(notes, fmt.Sprintf("%d samples carry a ground truth that differs from the stored one (the file's is scored, as the original does).", sc.GTMismatches))
	}
	if sc.Missing > 0 {
		notes = append(notes, fmt.Sprintf("%d test steps of %s have no prediction and count as wrong (strict mode).", sc.Missing, sc.Split))
	}
	return notes
}

// ScorePredictions reads a prediction file in the official evaluator's input format (read
// once: parsed, and summed for the run's record) and scores it against opts.Split in opts.Mode.
// opts.Source is filled in. In official mode an abort of the original evaluation is returned as
// the error (an *odyssey.AbortError) with the verdicts in the score.
func ScorePredictions(ctx context.Context, st *store.Store, path string, opts store.OdysseyScoreOptions) (Score, error) {
	data, err := limits.ReadFile(path, limits.Predictions)
	if err != nil {
		return Score{}, err
	}
	samples, err := odyssey.ReadPredictions(path, data)
	if err != nil {
		return Score{}, err
	}
	if err := ctx.Err(); err != nil {
		return Score{}, err
	}
	opts.Source = odyssey.SumBytes(path, data)
	sc, err := st.ScoreOdyssey(ctx, samples, opts)
	return Score{OdysseyScore: sc}, err
}

// Workflows is a store with the workflows, under the method names the workspaces' Store
// interfaces use: give it to the workspaces where they want a store.
type Workflows struct {
	*store.Store
}

// ImportOdysseyFolder imports a dataset folder (ImportDataset) and returns its summary and
// warnings; progress hears the phase and how far it is.
func (w Workflows) ImportOdysseyFolder(ctx context.Context, dir string, progress func(phase string, done, total int)) (string, []string, error) {
	var opts ImportOptions
	if progress != nil {
		opts.Progress = func(p store.OdysseyProgress) { progress(p.Phase, p.Done, p.Total) }
	}
	im, err := ImportDataset(ctx, w.Store, dir, opts)
	var partial *store.PartialImportError
	if errors.Is(err, context.Canceled) && errors.As(err, &partial) {
		// a chunked import cancelled after some chunks: not nothing, and the same import resumes
		return fmt.Sprintf("Cancelled. The %d episodes stored before stay; importing %s again resumes after them.",
			partial.Episodes, partial.Root), nil, nil
	}
	if err != nil {
		return "", nil, err
	}
	return im.Summary(), im.Warnings, nil
}

// ScorePredictionsFile scores a prediction file (ScorePredictions) and saves the run: the
// result (with the abort, if any), the breakdowns, the failing steps and the notes. level
// ("high", "low" or "") labels the run; metric overrides the split's branch ("" keeps it).
func (w Workflows) ScorePredictionsFile(ctx context.Context, path, split, mode, level string, metric odyssey.Branch) (*odyssey.Result, map[string][]odyssey.Group, []odyssey.Failure, []string, error) {
	name := strings.TrimSuffix(filepath.Base(path), filepath.Ext(path)) // the run is named after its file
	sc, err := ScorePredictions(ctx, w.Store, path, store.OdysseyScoreOptions{Split: split, Mode: mode, Save: true,
		Level: level, Branch: metric, Name: name})
	if sc.OdysseyScore == nil {
		return nil, nil, nil, nil, err
	}
	for i := range sc.Samples { // the Explorer shows no prompt; a large file's take tens of MB
		sc.Samples[i].Question = ""
	}
	return sc.Result, sc.Breakdowns, sc.Failures, sc.Notes(), err
}
