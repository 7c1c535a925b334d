package workflow

import (
	"context"
	"fmt"

	"github.com/agentdesk/agentdesk/engine/dataset"
	"github.com/agentdesk/agentdesk/engine/episode"
	"github.com/agentdesk/agentdesk/store"
)

// Dataset formats the Explorer's Export… offers beside the GUI Odyssey ones.
const (
	FormatParquet  = dataset.FormatParquet
	FormatShareGPT = dataset.FormatShareGPT
)

// ExportDatasetFolder writes the episodes f selects to the folder dest as a Hugging Face
// dataset (FormatParquet: Parquet with its dataset card) or as training chats
// (FormatShareGPT), atomically, and says what it wrote; frames says whether the steps' frames
// go too; progress hears the episodes written of those selected.
func (w Workflows) ExportDatasetFolder(ctx context.Context, f episode.Filter, format, dest string, frames bool, progress func(done, total int)) (string, error) {
	total, err := w.CountMatching(ctx, f)
	if err != nil {
		return "", err
	}
	if total == 0 {
		return "", fmt.Errorf("the selection (%s) holds no episode to export", f.Describe())
	}
	x := store.DatasetExport{Filter: f, Episodes: true, Options: dataset.Options{NoImages: !frames}}
	if progress != nil {
		x.Progress = func(eps, _, _ int64) { progress(int(eps), total) }
	}
	switch format {
	case FormatParquet:
		sum, err := w.ExportDataset(ctx, dest, x)
		if err != nil {
			return "", err
		}
		msg := fmt.Sprintf("Exported %d episodes and %d steps to %s as a Hugging Face dataset (%d Parquet files and its card, README.md).",
			sum.Rows[dataset.ConfigEpisodes], sum.Rows[dataset.ConfigSteps], dest,
			len(sum.Files[dataset.ConfigEpisodes])+len(sum.Files[dataset.ConfigSteps]))
		if !frames {
			msg += " The steps' frames were left out."
		}
		if sum.SplicedEpisodes > 0 {
			msg += fmt.Sprintf(" %d of the episodes were copied from the pages the store keeps encoded.", sum.SplicedEpisodes)
		}
		if sum.MissingImages > 0 {
			msg += fmt.Sprintf(" %d steps name a screenshot that is missing: their image is empty.", sum.MissingImages)
		}
		return msg, nil
	case FormatShareGPT:
		files, n, missing, err := w.ExportShareGPT(ctx, dest, x)
		if err != nil {
			return "", err
		}
		msg := fmt.Sprintf("Wrote %d training chats to %s (%d files with dataset_info.json, the frames in images/).", n, dest, len(files))
		if missing > 0 {
			msg += fmt.Sprintf(" %d steps name a screenshot that is missing: their chat has no image.", missing)
		}
		return msg, nil
	}
	return "", fmt.Errorf("unknown export format %q", format)
}

// ImportDatasetFolder reads an exported Parquet dataset folder back in one transaction and
// says what it stored; progress hears the phase and the rows read.
func (w Workflows) ImportDatasetFolder(ctx context.Context, dir string, progress func(phase string, done int)) (string, error) {
	res, err := w.ImportDataset(ctx, dir, progress)
	if err != nil {
		return "", err
	}
	msg := fmt.Sprintf("Imported %d episodes (%d steps, %d with a frame) from %s.", res.Episodes, res.Steps, res.Images, dir)
	if res.Split != "" {
		msg += fmt.Sprintf(" Its splits are the parts of split %s.", res.Split)
	}
	for _, w := range res.Warnings {
		msg += " Warning: " + w + "."
	}
	if res.Annotations > 0 {
		msg += fmt.Sprintf(" Its %d evaluation answers were left out: answers need their study (Evaluation imports studies).", res.Annotations)
	}
	return msg, nil
}
