package app

import (
	"context"
	"flag"
	"fmt"
	"os"
	"runtime/debug"
	"strings"

	"github.com/agentdesk/agentdesk/engine/dataset"
	"github.com/agentdesk/agentdesk/engine/episode"
	"github.com/agentdesk/agentdesk/store"
)

// export and import: every source's episodes out to the formats training tools read (Parquet
// in the Hugging Face layout) and back. --format names the layout so others can join.

const (
	formatParquet  = dataset.FormatParquet
	formatShareGPT = dataset.FormatShareGPT
)

// datasetSources maps the names --source takes to the store's sources ("evaluation" is the
// study answers, not episodes).
var datasetSources = map[string]string{
	"odyssey":        episode.SourceOdyssey,
	"demonstrations": episode.SourceMobileEnv,
	"gridworld":      episode.SourceGridworld,
	"evaluation":     "",
}

func exportCommand() *command {
	return &command{name: "export", args: "--format parquet|sharegpt [--source S] [--split NAME] DEST",
		summary: "write every source's episodes as a Hugging Face dataset (Parquet) or training chats (ShareGPT)", setup: runExport}
}

func importCommand() *command {
	return &command{name: "import", args: "--format parquet SRC",
		summary: "read an exported dataset folder back into the store (one transaction)", setup: runImport}
}

func runExport(fs *flag.FlagSet) runFunc {
	format := fs.String("format", "", "parquet (the Hugging Face datasets layout: DEST/README.md and DEST/<config>/<split>-NNNNN-of-MMMMM.parquet) or sharegpt (LLaMA-Factory's multimodal ShareGPT: DEST/<split>.json, DEST/images/, DEST/dataset_info.json)")
	source := fs.String("source", "", "only this source: odyssey, demonstrations, gridworld or evaluation (default every source)")
	split := fs.String("split", "", "only the episodes of this store split; its parts (train, test) become the dataset's splits")
	shardMB := fs.Float64("shard-mb", dataset.DefaultShardBytes>>20, "start a new file when one reaches this many megabytes")
	noImages := fs.Bool("no-images", false, "leave the image column empty (no frame is read)")
	names := fs.Bool("participant-names", false, "evaluation: write participants' names instead of pseudonyms")
	return func(e *env, args []string) error {
		if len(args) != 1 {
			return usageErrorf("want DEST")
		}
		if *format != formatParquet && *format != formatShareGPT {
			return usageErrorf("--format: want parquet or sharegpt, got %q", *format)
		}
		if *format == formatShareGPT && *source == "evaluation" {
			return usageErrorf("--format sharegpt: evaluation answers are not training chats (export them with --format parquet)")
		}
		if _, ok := datasetSources[*source]; *source != "" && !ok {
			return usageErrorf("--source: want odyssey, demonstrations, gridworld or evaluation, got %q", *source)
		}
		if *shardMB <= 0 {
			return usageErrorf("--shard-mb: want a positive size")
		}
		st, err := e.openStore()
		if err != nil {
			return err
		}
		defer st.Close()
		defer boundMemory()()
		ctx, stop := e.interruptible()
		defer stop()
		opts := dataset.Options{ShardBytes: int64(*shardMB * (1 << 20)), NoImages: *noImages}
		pl := newProgressLine(e.stderr)
		if *format == formatShareGPT {
			x, err := datasetSelection(ctx, st, *source, *split, false, opts)
			if err != nil {
				return err
			}
			x.Progress = func(eps, steps, _ int64) { pl.show(false, "exported %d episodes, %d steps", eps, steps) }
			files, n, missing, err := st.ExportShareGPT(ctx, args[0], x)
			pl.done()
			if err != nil {
				return kept(err, "%s is as it was; nothing was written there", args[0])
			}
			fmt.Fprintf(e.stdout, "wrote %d training chats (%s) to %s\n", n, strings.Join(files, ", "), args[0])
			if missing > 0 {
				fmt.Fprintf(e.stdout, "%d steps name a frame file that is missing: their chat has no image\n", missing)
			}
			return nil
		}
		sum, err := exportParquet(ctx, st, args[0], *source, *split, *names, opts, func(eps, steps, notes int64) {
			pl.show(false, "exported %d episodes, %d steps, %d answers", eps, steps, notes)
		})
		pl.done()
		if err != nil {
			return kept(err, "%s is as it was; nothing was written there", args[0])
		}
		var parts []string
		for _, c := range dataset.Configs {
			if fs := sum.Files[c]; len(fs) > 0 {
				parts = append(parts, fmt.Sprintf("%d %s rows in %d files", sum.Rows[c], c, len(fs)))
			}
		}
		fmt.Fprintf(e.stdout, "wrote %s to %s\n", strings.Join(parts, ", "), sum.Dest)
		if sum.SplicedEpisodes > 0 {
			fmt.Fprintf(e.stdout, "%d of the episodes were copied from the pages the store keeps encoded\n", sum.SplicedEpisodes)
		}
		if sum.MissingImages > 0 {
			fmt.Fprintf(e.stdout, "%d steps name a frame file that is missing: their image is empty\n", sum.MissingImages)
		}
		return nil
	}
}

// exportParquet writes the selection to dest; progress is called after each row with the
// rows written so far.
func exportParquet(ctx context.Context, st *store.Store, dest, source, split string, names bool,
	opts dataset.Options, progress func(eps, steps, notes int64)) (dataset.Summary, error) {
	x, err := datasetSelection(ctx, st, source, split, names, opts)
	if err != nil {
		return dataset.Summary{}, err
	}
	x.Progress = progress
	return st.ExportDataset(ctx, dest, x)
}

// datasetSelection is what --source and --split select: with a split, its parts become the
// dataset's splits (and the evaluation answers, which belong to no split, stay out).
func datasetSelection(ctx context.Context, st *store.Store, source, split string, names bool, opts dataset.Options) (store.DatasetExport, error) {
	x := store.DatasetExport{
		Filter:      episode.Filter{Source: datasetSources[source]},
		Episodes:    source != "evaluation",
		Annotations: source == "evaluation" || (source == "" && split == ""),
		Names:       names, Options: opts,
	}
	if split != "" {
		name, err := st.ResolveSplitName(ctx, split)
		if err != nil {
			return x, err
		}
		sums, err := st.SplitSummaries(ctx)
		if err != nil {
			return x, err
		}
		for _, s := range sums {
			if s.Name == name {
				for _, p := range s.Parts {
					x.Parts = append(x.Parts, p.Value)
				}
			}
		}
		if len(x.Parts) == 0 {
			return x, fmt.Errorf("split %s has no episodes", name)
		}
		x.Filter.Split = name
	}
	return x, nil
}

// datasetMemory is the soft memory limit of an export or import: what they hold is bounded
// (a row group, a page of episodes), but every frame passes through the heap once, and the
// garbage collector's default pace let a 256 MB export of frames peak at 370 MB RSS; with this
// limit it peaks near 210 MB (BENCHMARKS.md). GOMEMLIMIT, when set, wins.
const datasetMemory = 160 << 20

// boundMemory sets datasetMemory as the soft memory limit and returns what restores the old one.
func boundMemory() func() {
	if os.Getenv("GOMEMLIMIT") != "" {
		return func() {}
	}
	old := debug.SetMemoryLimit(datasetMemory)
	return func() { debug.SetMemoryLimit(old) }
}

func runImport(fs *flag.FlagSet) runFunc {
	format := fs.String("format", "", "parquet (a folder written by export --format parquet)")
	return func(e *env, args []string) error {
		if len(args) != 1 {
			return usageErrorf("want SRC")
		}
		if *format != formatParquet {
			return usageErrorf("--format: want parquet, got %q", *format)
		}
		st, err := e.openStore()
		if err != nil {
			return err
		}
		defer st.Close()
		defer boundMemory()()
		ctx, stop := e.interruptible()
		defer stop()
		pl := newProgressLine(e.stderr)
		res, err := st.ImportDataset(ctx, args[0], func(phase string, done int) {
			if phase == store.PhaseEncodingForExports { // blocks of episodes, after the rows
				pl.show(false, "%s: %d blocks", phase, done)
				return
			}
			pl.show(false, "importing %s: %d", phase, done)
		})
		pl.done()
		if err != nil {
			return err
		}
		fmt.Fprintf(e.stdout, "imported %d episodes, %d steps (%d with an image) from %s into %s\n",
			res.Episodes, res.Steps, res.Images, args[0], st.Path())
		if res.Split != "" {
			fmt.Fprintf(e.stdout, "split %s holds them in the dataset's splits as its parts\n", res.Split)
		}
		for _, w := range res.Warnings {
			fmt.Fprintln(e.stderr, "warning:", w)
		}
		if res.Annotations > 0 {
			fmt.Fprintf(e.stdout, "%d evaluation answers left out: an answer needs its study (import the study with eval import)\n", res.Annotations)
		}
		return nil
	}
}
