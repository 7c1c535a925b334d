package app

import (
	"context"
	"flag"
	"fmt"
	"path/filepath"

	"github.com/agentdesk/agentdesk/app/workflow"
	"github.com/agentdesk/agentdesk/store"
)

// samplesCommands is the samples group: the sample data Home's "Load sample data" loads, from
// the command line (a new user's first command, tests, scripts).
func samplesCommands() *command {
	return &command{name: "samples", summary: "sample data made for Agentdesk, to see every workspace at work", sub: []*command{
		{name: "load", args: "[--dir DIR]", summary: "load the sample data into the store (nothing happens when it is loaded already)", setup: samplesLoad},
		{name: "remove", args: "[--dir DIR]", summary: "remove the sample data from the store, with its files", setup: samplesRemove},
	}}
}

// samplesDir defines --dir: where the samples' files go, by default the data folder's
// samples/ (where the desktop app puts them, so both see the same samples).
func samplesDir(fs *flag.FlagSet) func() (string, error) {
	dir := fs.String("dir", "", "the samples' folder (default: samples/ in the data folder, as the desktop app uses)")
	return func() (string, error) {
		if *dir != "" {
			return filepath.Abs(*dir)
		}
		data, err := DataFolder()
		if err != nil {
			return "", err
		}
		return filepath.Join(data, workflow.SamplesFolder), nil
	}
}

// samplesVerb is a samples verb taking no arguments: do runs with the samples' folder and the
// store, until it is done or interrupted.
func samplesVerb(fs *flag.FlagSet, do func(ctx context.Context, e *env, st *store.Store, dir string) error) runFunc {
	folder := samplesDir(fs)
	return func(e *env, args []string) error {
		if len(args) > 0 {
			return usageErrorf("takes no arguments")
		}
		dir, err := folder()
		if err != nil {
			return err
		}
		st, err := e.openStore()
		if err != nil {
			return err
		}
		defer st.Close()
		ctx, stop := e.interruptible()
		defer stop()
		return do(ctx, e, st, dir)
	}
}

func samplesLoad(fs *flag.FlagSet) runFunc {
	return samplesVerb(fs, func(ctx context.Context, e *env, st *store.Store, dir string) error {
		s, loaded, err := workflow.EnsureSamples(ctx, st, dir)
		if err != nil {
			return err
		}
		if !loaded {
			fmt.Fprintln(e.stdout, s.AlreadyLoaded())
			return nil
		}
		fmt.Fprintln(e.stdout, s.Summary())
		return nil
	})
}

func samplesRemove(fs *flag.FlagSet) runFunc {
	return samplesVerb(fs, func(ctx context.Context, e *env, st *store.Store, dir string) error {
		c, err := workflow.RemoveSamples(ctx, st, dir)
		if err != nil {
			return err
		}
		if c.Empty() {
			fmt.Fprintln(e.stdout, "No sample data was loaded in this store.")
			return nil
		}
		fmt.Fprintf(e.stdout, "Removed the sample data: %d episodes, %d splits, %d scoring runs, %d evaluation projects "+
			"(with their answers), %d template folders, and its files in %s.\n", c.Episodes, c.Splits, c.Runs, c.Projects, c.Folders, dir)
		return nil
	})
}
