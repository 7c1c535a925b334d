package store

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/agentdesk/agentdesk/engine/episode"
	"github.com/agentdesk/agentdesk/engine/limits"
	"github.com/agentdesk/agentdesk/engine/odyssey"
)

// The Explorer's GUI Odyssey actions, in terms the UI can name (engine types and plain values):
// thin adapters over the Odyssey importer, exporter and split writer (store/odyssey.go,
// engine/odyssey).

// ImportOdysseyFolder imports the GUI Odyssey dataset folder dir (see ImportOdyssey: one
// transaction, cancelled by ctx without a trace). progress is called from the importing
// goroutine with the phase ("reading the folder", "annotations", "splits", "commit") and how
// far it is. It returns a summary for people and the importer's warnings, and refreshes the
// planner's statistics for the Explorer's queries.
func (s *Store) ImportOdysseyFolder(ctx context.Context, dir string, progress func(phase string, done, total int)) (string, []string, error) {
	if progress == nil {
		progress = func(string, int, int) {}
	}
	progress("reading the folder", 0, 0)
	ds, err := odyssey.OpenDataset(dir)
	if err != nil {
		return "", nil, err
	}
	if err := ctx.Err(); err != nil {
		return "", nil, err
	}
	res, err := s.ImportOdyssey(ctx, ds, OdysseyImportOptions{
		Progress: func(p OdysseyProgress) { progress(p.Phase, p.Done, p.Total) },
	})
	if err != nil {
		return "", nil, err
	}
	s.OptimizeQueries(ctx)
	var b strings.Builder
	switch {
	case res.Episodes == 0 && res.Unchanged > 0:
		fmt.Fprintf(&b, "Nothing new: the %d annotation files of %s were imported before.", res.Unchanged, res.Root)
	default:
		fmt.Fprintf(&b, "Imported %d episodes (%d steps, %s schema) from %s in %.1f s.", res.Episodes, res.Steps,
			res.Schema, res.Root, res.Duration.Seconds())
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
	return b.String(), res.Warnings, nil
}

// ExportSelection writes the GUI Odyssey episodes f selects with the Odyssey exporter:
// format odyssey.FormatJSONL (one file, dest) or odyssey.FormatJSON (the original per-episode
// files, dest/annotations/<id>.json). Episodes of other sources have no such form and are
// counted in skipped. The selection is read a page of ids at a time; progress is called after
// each page with the episodes written and the number to write.
func (s *Store) ExportSelection(ctx context.Context, f episode.Filter, format, dest string, progress func(done, total int)) (written, skipped int, err error) {
	all, err := s.ExplorerCount(ctx, f)
	if err != nil {
		return 0, 0, err
	}
	of := f
	if of.Source == "" {
		of.Source = episode.SourceOdyssey
	}
	total := 0
	if of.Source == episode.SourceOdyssey {
		if total, err = s.ExplorerCount(ctx, of); err != nil {
			return 0, 0, err
		}
	}
	skipped = all - total
	if total == 0 {
		return 0, skipped, fmt.Errorf("the selection (%s) holds no GUI Odyssey episode to export", f.Describe())
	}
	_, written, err = odyssey.ExportEpisodes(ctx, format, dest, func(add func(odyssey.Record) error) error {
		done := 0
		return s.ExplorerIDs(ctx, of, func(ids []int64) error {
			keys := make([]any, len(ids))
			for i, id := range ids {
				keys[i] = id
			}
			if err := s.odysseyRecords(ctx, "id", keys, add); err != nil {
				return err
			}
			done += len(ids)
			if progress != nil {
				progress(done, total)
			}
			return nil
		})
	})
	return written, skipped, err
}

// ExportSplitFile writes a split in the official split-file format ({"train": [...], "test":
// [...]} of "<id>.json" entries) to path, atomically.
func (s *Store) ExportSplitFile(ctx context.Context, name, path string) error {
	parts, err := s.OdysseySplitParts(ctx, name)
	if err != nil {
		return err
	}
	return odyssey.WriteSplitFile(path, parts)
}

// ScorePredictionsFile reads a prediction file in the official evaluator's input format and
// scores it against a split (ScoreOdyssey) in mode ScoreOfficial, ScoreLenient or ScoreStrict,
// saving the run. It returns the evaluator's result (with the abort, if any), the breakdowns by
// category, app, device and action, the failing steps, and notes for people about samples that
// do not fit the split. In official mode an abort of the original evaluation is returned as the
// error (an *odyssey.AbortError) with the verdicts in the result.
//
// level ("high", "low" or "") labels the run; metric overrides the split's branch (for user
// splits; "" keeps it).
func (s *Store) ScorePredictionsFile(ctx context.Context, path, split, mode, level string, metric odyssey.Branch) (*odyssey.Result, map[string][]odyssey.Group, []odyssey.Failure, []string, error) {
	data, err := limits.ReadFile(path, limits.Predictions) // read once: parsed, and summed for the run's record
	if err != nil {
		return nil, nil, nil, nil, err
	}
	samples, err := odyssey.ReadPredictions(path, data)
	if err != nil {
		return nil, nil, nil, nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, nil, nil, nil, err
	}
	sum, err := SumReader(bytes.NewReader(data))
	if err != nil {
		return nil, nil, nil, nil, err
	}
	name := strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
	sc, err := s.ScoreOdyssey(ctx, samples, OdysseyScoreOptions{Split: split, Mode: mode, Name: name, Save: true,
		Level: level, Branch: metric, Source: odyssey.SourceFile{Path: path, SHA256: sum.SHA256, Size: sum.Size}})
	if sc == nil {
		return nil, nil, nil, nil, err
	}
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
	for i := range sc.Samples { // the Explorer shows no prompt; a large file's take tens of MB
		sc.Samples[i].Question = ""
	}
	return sc.Result, sc.Breakdowns, sc.Failures, notes, err
}

// OpenSavedRun shows a saved scoring run again: its result, breakdowns and failing steps
// (OpenOdysseyRun), and the run's description.
func (s *Store) OpenSavedRun(ctx context.Context, runID int64) (*odyssey.Result, map[string][]odyssey.Group, []odyssey.Failure, odyssey.SavedRun, error) {
	sc, run, err := s.OpenOdysseyRun(ctx, runID)
	if err != nil {
		return nil, nil, nil, run, err
	}
	return sc.Result, sc.Breakdowns, sc.Failures, run, nil
}
