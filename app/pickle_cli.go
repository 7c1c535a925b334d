package app

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"maps"
	"os"
	"slices"
	"strings"

	"github.com/agentdesk/agentdesk/engine/mobileenv"
)

// pickleCommands is the pickle group: Mobile-Env annotation pickles.
func pickleCommands() *command {
	return &command{name: "pickle", summary: "Mobile-Env annotation pickles", sub: []*command{
		&command{name: "info", args: "PKL", summary: "summarise an annotation file: kind, protocol, trajectories, steps, rewards, instructions, observations",
			setup: pickleInfo},
		&command{name: "resave", args: "PKL_NAME:S:T DUMPDIR TASKFOLDER",
			summary: "regroup the web annotation tool's dumps by task definition into DUMPDIR/<definition>.pkl",
			setup:   pickleResave},
		&command{name: "edit", args: "PKL [MODIFIERS] [DEFDIR]",
			summary: "apply modifiers (delete:S:E, instructionize:S:K, rewardize:S:D, remove; IDX:op, comma-separated); the old file is kept as PKL.old",
			setup:   pickleEdit},
		&command{name: "visualize", args: "PKL_PATH VIDEO_PATH",
			summary: "export every trajectory as annotated frames under VIDEO_PATH", setup: pickleVisualize},
		&command{name: "video", args: "PKL_PATH VIDEO_PATH",
			summary: "export every trajectory as a video (ffmpeg when present, else an animated GIF)", setup: pickleVideo},
	}}
}

func pickleInfo(fs *flag.FlagSet) runFunc {
	asJSON := fs.Bool("json", false, "print the summary as JSON")
	return func(e *env, args []string) error {
		args, err := pickleArgs(fs, args)
		if err != nil {
			return err
		}
		if len(args) != 1 {
			return usageErrorf("want one file")
		}
		s, err := mobileenv.Info(args[0])
		if err != nil {
			return namingFile(err, args[0])
		}
		if *asJSON {
			enc := json.NewEncoder(e.stdout)
			enc.SetIndent("", "  ")
			return enc.Encode(s)
		}
		fmt.Fprint(e.stdout, s.Text())
		return nil
	}
}

func pickleResave(fs *flag.FlagSet) runFunc {
	var opts mobileenv.ResaveOptions
	fs.BoolVar(&opts.Merge, "merge", false, "append to an existing DUMPDIR/<definition>.pkl instead of refusing")
	fs.BoolVar(&opts.Compat, "compat", false, "behave exactly like the original (overwrite existing output)")
	return func(e *env, args []string) error {
		args, err := pickleArgs(fs, args)
		if err != nil {
			return err
		}
		if len(args) != 3 {
			return usageErrorf("want PKL_NAME:S:T DUMPDIR TASKFOLDER")
		}
		opts.Stdout = e.stdout
		ctx, stop := e.interruptible()
		defer stop()
		res, err := mobileenv.Resave(ctx, args[0], args[1], args[2], opts)
		for _, p := range res.Discarded {
			fmt.Fprintf(e.stderr, "discarded %s, left by an interrupted run\n", p)
		}
		if err != nil {
			if len(res.Written) == 0 {
				return kept(err, "no output pickle in %s was written or changed", args[1])
			}
			return kept(err, "%d output pickle(s) were written whole before the stop (%s); every other one in %s is as it was; running the same command again completes them",
				len(res.Written), strings.Join(slices.Sorted(maps.Keys(res.Written)), ", "), args[1])
		}
		for _, path := range slices.Sorted(maps.Keys(res.Written)) {
			fmt.Fprintf(e.stderr, "wrote %s (%d trajectories", path, res.Written[path])
			if d := res.Duplicates[path]; d > 0 {
				fmt.Fprintf(e.stderr, "; %d already in it not added again", d)
			}
			fmt.Fprintln(e.stderr, ")")
		}
		for _, path := range res.Unchanged {
			fmt.Fprintf(e.stderr, "%s already holds these trajectories: unchanged\n", path)
		}
		return nil
	}
}

func pickleEdit(fs *flag.FlagSet) runFunc {
	var opts mobileenv.EditOptions
	fs.BoolVar(&opts.Compat, "compat", false, "the original's order of operations (rename to .old first)")
	return func(e *env, args []string) error {
		args, err := pickleArgs(fs, args)
		if err != nil {
			return err
		}
		// As the original: MODIFIERS defaults to "" (which it refuses before touching the file),
		// DEFDIR is read only by instructionize (here relative to the working folder).
		if len(args) < 1 || len(args) > 3 {
			return usageErrorf("want PKL [MODIFIERS] [DEFDIR]")
		}
		args = append(args, "", "")
		ctx, stop := e.interruptible()
		defer stop()
		res, err := mobileenv.EditContext(ctx, args[0], args[1], args[2], opts)
		for _, p := range res.Discarded {
			fmt.Fprintf(e.stderr, "discarded %s, left by an interrupted edit\n", p)
		}
		return kept(namingFile(err, args[0]), "%s was not changed", args[0])
	}
}

func visualizeFlags(fs *flag.FlagSet, o *mobileenv.VisualizeOptions) {
	fs.BoolVar(&o.NoMarks, "no-marks", false, "no touch marks or text box on the screen")
	fs.BoolVar(&o.NoDescp, "no-descp", false, "the bare screen, no description below")
	fs.BoolVar(&o.SafeNames, "safe-names", false, "portable folder names (<tid>_<i>of<n>_len<L>)")
	fs.BoolVar(&o.PNG, "png", false, "lossless PNG frames instead of the original's JPEG")
	fs.BoolVar(&o.NumericLabels, "numeric-labels", false, "action labels as Python 3.11 prints them (1, 2, 4) instead of ActionType.LIFT")
	fs.Var(pythonLabels{&o.NumericLabels}, "python", "label actions as this Python version's str() of the enum does (3.8 to 3.10: ActionType.LIFT; 3.11 and later: 1)")
	fs.BoolVar(&o.Strict, "compat", false, "the original's checks: observations that are not uint8 RGB fail with its error instead of being converted")
}

// pythonLabels is the --python flag: a Python version sets NumericLabels.
type pythonLabels struct{ numeric *bool }

func (p pythonLabels) String() string { return "" }

func (p pythonLabels) Set(v string) error {
	n, err := mobileenv.NumericLabels(v)
	if err == nil {
		*p.numeric = n
	}
	return err
}

func pickleVisualize(fs *flag.FlagSet) runFunc {
	var opts mobileenv.VisualizeOptions
	visualizeFlags(fs, &opts)
	return func(e *env, args []string) error {
		args, err := pickleArgs(fs, args)
		if err != nil {
			return err
		}
		if len(args) != 2 {
			return usageErrorf("want PKL_PATH VIDEO_PATH")
		}
		opts.Stdout, opts.Warn = e.stdout, e.stderr
		total := 0
		opts.Progress = func(_, n int) { total = n }
		ctx, stop := e.interruptible()
		defer stop()
		folders, err := mobileenv.VisualizeContext(ctx, args[0], args[1], opts)
		if err != nil {
			n := framesIn(folders)
			if total == 0 {
				return kept(namingFile(err, args[0]), "%d frames written, in %d complete trajectory folder(s) under %s", n, len(folders), args[1])
			}
			return kept(namingFile(err, args[0]), "%d of %d frames written, in %d complete trajectory folder(s) under %s (folders left incomplete were removed)",
				n, total, len(folders), args[1])
		}
		if opts.Strict { // the original writes empty folders and exits 0
			return nil
		}
		return wroteSomething(folders, framesIn(folders), "frames")
	}
}

// framesIn counts the files in the export's folders.
func framesIn(folders []string) int {
	n := 0
	for _, f := range folders {
		entries, _ := os.ReadDir(f)
		n += len(entries)
	}
	return n
}

// wroteSomething is the error of an export that wrote nothing: its exit status says so, not
// only its (empty) output. The original writes empty folders and exits 0.
func wroteSomething(folders []string, n int, what string) error {
	switch {
	case n > 0:
		return nil
	case len(folders) == 0:
		return fmt.Errorf("wrote no %s: the file holds no trajectories", what)
	}
	return fmt.Errorf("wrote no %s: the %d trajectories hold only their initial record (%d empty folder(s) made)", what, len(folders), len(folders))
}

func pickleVideo(fs *flag.FlagSet) runFunc {
	var opts mobileenv.VideoOptions
	visualizeFlags(fs, &opts.VisualizeOptions)
	fs.IntVar(&opts.FPS, "fps", 2, "frames per second")
	fs.StringVar(&opts.Format, "format", "", "mp4 (ffmpeg) or gif; default: mp4 when ffmpeg is present, else gif")
	return func(e *env, args []string) error {
		args, err := pickleArgs(fs, args)
		if err != nil {
			return err
		}
		if len(args) != 2 {
			return usageErrorf("want PKL_PATH VIDEO_PATH")
		}
		opts.Stdout, opts.Warn = e.stdout, e.stderr
		ctx, stop := e.interruptible()
		defer stop()
		files, err := mobileenv.Video(ctx, args[0], args[1], opts)
		for _, f := range files {
			fmt.Fprintln(e.stderr, "wrote", f)
		}
		if err != nil {
			return kept(namingFile(err, args[0]), "%d video(s) written whole under %s (listed above); none is half-written", len(files), args[1])
		}
		if len(files) == 0 {
			return errors.New("wrote no video: no trajectory of the file has a step to show")
		}
		return nil
	}
}

// namingFile makes sure a pickle command's error names its file: the original's Python errors
// (KeyError: 'meta') and some reading errors do not.
func namingFile(err error, path string) error {
	if err == nil || errors.Is(err, errUsage) || strings.Contains(err.Error(), path) {
		return err
	}
	return fmt.Errorf("%s: %w", path, err)
}

// pickleArgs lets the command's flags stand anywhere among its arguments, as the original
// tools' argparse does (`visualize_pickle.py PKL DIR --no-marks`). Only the command's own flag
// names count as flags, so a modifier such as -1:remove stays an argument; everything after
// "--" is an argument.
func pickleArgs(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for len(args) > 0 {
		a := args[0]
		if a == "--" {
			return append(pos, args[1:]...), nil
		}
		if name, ok := strings.CutPrefix(a, "-"); ok && len(name) > 0 {
			name = strings.TrimPrefix(name, "-")
			name, _, _ = strings.Cut(name, "=")
			if fs.Lookup(name) != nil {
				if err := fs.Parse(args); err != nil {
					return nil, usageErrorf("%v", err)
				}
				args = fs.Args()
				continue
			}
		}
		pos = append(pos, a)
		args = args[1:]
	}
	return pos, nil
}
