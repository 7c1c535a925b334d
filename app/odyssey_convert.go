package app

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/agentdesk/agentdesk/engine/atomicfile"
	"github.com/agentdesk/agentdesk/engine/limits"
	"github.com/agentdesk/agentdesk/engine/odyssey"
	"github.com/agentdesk/agentdesk/store"
)

// odysseyConvert is GUI Odyssey's data/format_converter.py for one split of the store: the
// training chats of its train part, the test records of its test part and the history index of
// every file in OUT_DIR's train_anno/ and test_anno/.
func odysseyConvert(fs *flag.FlagSet) runFunc {
	split := fs.String("split", "", "the split to convert (required; e.g. random_split, or random)")
	hisLen := fs.Int("his_len", odyssey.DefaultHisLen, "previous actions listed in each prompt (0: none)")
	level := fs.String("level", odyssey.LevelHigh, "high (the episode's instruction) or low (each step's instruction)")
	kind := fs.String("type", odyssey.ChatStandard, "standard (one chat a step) or semantic (four a step: description, action, intention, context; shuffled by --seed)")
	seed := fs.Uint64("seed", 1, "order of the semantic chats: the original shuffles them with Python's unseeded random, so its order cannot be matched; the records are the same")
	shots := fs.String("screenshots", "", "write every image path as `DIR`/<screenshot file>, as the original writes its DATA_DIR/screenshots (default: where the import found each screenshot)")
	return func(e *env, args []string) error {
		if len(args) != 1 || *split == "" {
			return usageErrorf("want --split NAME OUT_DIR")
		}
		if *level != odyssey.LevelHigh && *level != odyssey.LevelLow {
			return usageErrorf("--level must be high or low, not %q", *level)
		}
		if *kind != odyssey.ChatStandard && *kind != odyssey.ChatSemantic {
			return usageErrorf("--type must be standard or semantic, not %q", *kind)
		}
		shotDir := *shots
		if shotDir != "" {
			abs, err := filepath.Abs(shotDir)
			if err != nil {
				return err
			}
			shotDir = abs
		}
		st, err := e.openStore()
		if err != nil {
			return err
		}
		defer st.Close()
		ctx, stop := e.interruptible()
		defer stop()
		res, err := convertSplit(ctx, st, args[0], convertOptions{split: *split, hisLen: *hisLen, level: *level,
			kind: *kind, seed: *seed, screenshots: shotDir})
		if err != nil {
			if len(res.written) == 0 {
				return kept(err, "no file was written")
			}
			return kept(err, "%s written; every file is as it was or complete", strings.Join(res.written, ", "))
		}
		w := e.stdout
		fmt.Fprintf(w, "wrote %d %s training chats to %s\n", res.chats, *kind, res.written[0])
		fmt.Fprintf(w, "wrote %d test records to %s\n", res.tests, res.written[1])
		fmt.Fprintf(w, "wrote the history index of %d images (from %d files) to %s\n", res.images, res.indexFiles, res.written[2])
		if res.missing > 0 {
			fmt.Fprintf(w, "  %d steps have no screenshot in the store: their image is the bare file name (--screenshots DIR names a folder for all)\n", res.missing)
		}
		return nil
	}
}

type convertOptions struct {
	split, level, kind string
	hisLen             int
	seed               uint64
	screenshots        string
}

type convertResult struct {
	written                                   []string
	chats, tests, images, indexFiles, missing int
}

func convertSplit(ctx context.Context, st *store.Store, out string, o convertOptions) (convertResult, error) {
	var res convertResult
	train, err := st.OdysseySplitPart(ctx, o.split, "train")
	if err != nil {
		return res, err
	}
	test, err := st.OdysseySplitPart(ctx, o.split, "test")
	if err != nil {
		return res, err
	}
	name := train.Split
	imageTrain, imageTest := train.ImagePath, test.ImagePath
	if o.screenshots != "" {
		imageTrain = func(f string) string { return filepath.Join(o.screenshots, f) }
		imageTest = imageTrain
	} else {
		res.missing = train.Missing() + test.Missing()
	}
	chats, err := odyssey.TrainChats(train.Episodes, odyssey.ChatOptions{Split: name, Level: o.level, HisLen: o.hisLen,
		Kind: o.kind, Seed: o.seed}, imageTrain)
	if err != nil {
		return res, err
	}
	if chats == nil {
		chats = []odyssey.ChatRecord{}
	}
	recs, err := odyssey.TestRecords(name, o.level, test.Episodes, imageTest)
	if err != nil {
		return res, err
	}
	if recs == nil {
		recs = []odyssey.TestRecord{}
	}
	res.chats, res.tests = len(chats), len(recs)
	trainDir, testDir := filepath.Join(out, "train_anno"), filepath.Join(out, "test_anno")
	write := func(path string, v any) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		data, err := odyssey.MarshalPy(v)
		if err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return err
		}
		if err := atomicfile.Write(path, data, 0o644); err != nil {
			return err
		}
		res.written = append(res.written, path)
		return nil
	}
	if err := write(filepath.Join(trainDir, odyssey.ChatFileName(o.kind, o.level, name)), chats); err != nil {
		return res, err
	}
	if err := write(filepath.Join(testDir, odyssey.TestFileName(o.level, name)), recs); err != nil {
		return res, err
	}
	// make_his_idx reads every file of both folders, those of earlier runs too.
	idx := odyssey.NewHistoryIndex()
	for _, d := range []struct{ dir, field string }{{trainDir, odyssey.HistoryFieldTrain}, {testDir, odyssey.HistoryFieldTest}} {
		files, err := converterFiles(d.dir)
		if err != nil {
			return res, err
		}
		for _, f := range files {
			if err := ctx.Err(); err != nil {
				return res, err
			}
			data, err := limits.ReadFile(f, limits.ConverterFile)
			if err != nil {
				return res, err
			}
			if err := idx.AddFile(f, data, d.field); err != nil {
				return res, err
			}
			res.indexFiles++
		}
	}
	if err := ctx.Err(); err != nil {
		return res, err
	}
	path := filepath.Join(out, "his_index.json")
	if err := atomicfile.Write(path, idx.JSON(), 0o644); err != nil {
		return res, err
	}
	res.written = append(res.written, path)
	res.images = idx.Len()
	return res, nil
}

// converterFiles lists the files of a converter folder in name order (os.ReadDir sorts), leaving out hidden ones
// (an atomic write's temporary file).
func converterFiles(dir string) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, en := range entries {
		if en.IsDir() || strings.HasPrefix(en.Name(), ".") {
			continue
		}
		out = append(out, filepath.Join(dir, en.Name()))
	}
	return out, nil
}
