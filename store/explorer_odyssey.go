package store

import (
	"context"
	"fmt"

	"github.com/agentdesk/agentdesk/engine/episode"
	"github.com/agentdesk/agentdesk/engine/odyssey"
)

// GUI Odyssey exports and saved runs in engine terms (engine types and plain values):
// thin adapters over the Odyssey importer, exporter and split writer (store/odyssey.go,
// engine/odyssey).

// ExportEpisodes writes the GUI Odyssey episodes f selects with the Odyssey exporter:
// format odyssey.FormatJSONL (one file, dest) or odyssey.FormatJSON (the original per-episode
// files, dest/annotations/<id>.json). Episodes of other sources have no such form and are
// counted in skipped. The selection is read a page of ids at a time; progress is called after
// each page with the episodes written and the number to write.
func (s *Store) ExportEpisodes(ctx context.Context, f episode.Filter, format, dest string, progress func(done, total int)) (written, skipped int, err error) {
	all, err := s.CountMatching(ctx, f)
	if err != nil {
		return 0, 0, err
	}
	of := f
	if of.Source == "" {
		of.Source = episode.SourceOdyssey
	}
	total := 0
	if of.Source == episode.SourceOdyssey {
		if total, err = s.CountMatching(ctx, of); err != nil {
			return 0, 0, err
		}
	}
	skipped = all - total
	if total == 0 {
		return 0, skipped, fmt.Errorf("the selection (%s) holds no GUI Odyssey episode to export", f.Describe())
	}
	_, written, err = odyssey.ExportEpisodes(ctx, format, dest, func(add func(odyssey.Record) error) error {
		done := 0
		return s.ForEachMatchingID(ctx, of, func(ids []int64) error {
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

// OpenSavedRun shows a saved scoring run again: its result, breakdowns and failing steps
// (OpenOdysseyRun), and the run's description.
func (s *Store) OpenSavedRun(ctx context.Context, runID int64) (*odyssey.Result, map[string][]odyssey.Group, []odyssey.Failure, odyssey.SavedRun, error) {
	sc, run, err := s.OpenOdysseyRun(ctx, runID)
	if err != nil {
		return nil, nil, nil, run, err
	}
	return sc.Result, sc.Breakdowns, sc.Failures, run, nil
}
