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
		if res.zipped > 0 {
			fmt.Fprintf(w, "  %d images are inside zip archives: their paths are zip references (extract the archives and give --screenshots DIR)\n", res.zipped)
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
	written                                           []string
	chats, tests, images, indexFiles, missing, zipped int
}

func convertSplit(ctx context.Context, st *store.Store, out string, o convertOptions) (convertResult, error) {
	var res convertResult
	parts, err := st.OdysseyParts(ctx, o.split, "train", "test")
	if err != nil {
		return res, err
	}
	train, test := parts[0], parts[1]
	name := train.Split
	if strings.ContainsAny(name, `/\`) || name == ".." {
		return res, fmt.Errorf("split %q cannot name a file in train_anno/ (the original names its files after the split)", name)
	}
	imageTrain, imageTest := train.ImagePath, test.ImagePath
	if o.screenshots != "" {
		imageTrain = func(f string) string { return filepath.Join(o.screenshots, f) }
		imageTest = imageTrain
	} else {
		res.missing = train.Missing() + test.Missing()
		res.zipped = train.Zipped() + test.Zipped()
	}
	chats, err := odyssey.NewChats(train.Episodes, odyssey.ChatOptions{Split: name, Level: o.level, HisLen: o.hisLen,
		Kind: o.kind, Seed: o.seed}, imageTrain)
	if err != nil {
		return res, err
	}
	recs, err := odyssey.TestRecords(name, o.level, test.Episodes, imageTest)
	if err != nil {
		return res, err
	}
	res.chats, res.tests = chats.Len(), len(recs)
	trainPath := filepath.Join(out, "train_anno", odyssey.ChatFileName(o.kind, o.level, name))
	testPath := filepath.Join(out, "test_anno", odyssey.TestFileName(o.level, name))
	indexPath := filepath.Join(out, "his_index.json")
	// write writes one file atomically, naming it in its errors
	write := func(path string, fn func(f *atomicfile.File) error) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		f, err := atomicfile.New(path, 0o644)
		if err != nil {
			return err
		}
		defer f.Abort()
		if err := fn(f); err != nil {
			if ctx.Err() != nil {
				return err
			}
			return fmt.Errorf("write %s: %w", path, err)
		}
		if err := f.Commit(); err != nil {
			return fmt.Errorf("write %s: %w", path, err)
		}
		res.written = append(res.written, path)
		return nil
	}
	if err := write(trainPath, func(f *atomicfile.File) error { return chats.WritePy(f, ctx.Err) }); err != nil {
		return res, err
	}
	if err := write(testPath, func(f *atomicfile.File) error { return odyssey.WriteTestRecordsPy(f, recs, ctx.Err) }); err != nil {
		return res, err
	}
	// make_his_idx reads every file of both folders, those of earlier runs too; the two just
	// written are taken from memory.
	idx := odyssey.NewHistoryIndex()
	for _, d := range []struct{ dir, field string }{{filepath.Dir(trainPath), odyssey.HistoryFieldTrain}, {filepath.Dir(testPath), odyssey.HistoryFieldTest}} {
		files, err := converterFiles(d.dir)
		if err != nil {
			return res, err
		}
		for _, f := range files {
			if err := ctx.Err(); err != nil {
				return res, err
			}
			switch f {
			case trainPath:
				for i := range chats.Len() {
					img, hist := chats.Image(i)
					if err := idx.Add(img, hist, f); err != nil {
						return res, fmt.Errorf("%s: %w", f, err)
					}
				}
			case testPath:
				for _, a := range test.Episodes {
					imgs := make([]string, len(a.Steps))
					for i := range a.Steps {
						imgs[i] = imageTest(a.Steps[i].Screenshot)
						if err := idx.Add(imgs[i], imgs[:i], f); err != nil {
							return res, fmt.Errorf("%s: %w", f, err)
						}
					}
				}
			default:
				r, _, err := limits.Open(f, limits.ConverterFile)
				if err != nil {
					return res, err
				}
				err = idx.AddReader(f, r, d.field)
				r.Close()
				if err != nil {
					return res, err
				}
			}
			res.indexFiles++
		}
	}
	if err := write(indexPath, func(f *atomicfile.File) error { return idx.WritePy(f) }); err != nil {
		return res, err
	}
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
