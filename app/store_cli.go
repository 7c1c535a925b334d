package app

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"sort"
	"text/tabwriter"
	"time"

	"github.com/agentdesk/agentdesk/store"
)

// storeCommands is the store group: where the store is, what it holds, whether it is sound.
func storeCommands() *command {
	return &command{name: "store", summary: "the local store: where it is and what it holds", sub: []*command{
		{name: "info", summary: "print the store's path, schema version and contents", setup: noFlags(runStoreInfo)},
		{name: "path", summary: "print the store's path", setup: noFlags(runStorePath)},
		{name: "check", args: "[--quick]", summary: "run SQLite's integrity check on the store and list what it finds (exit 1 when damaged)", setup: storeCheck},
	}}
}

func runStorePath(e *env, args []string) error {
	if len(args) > 0 {
		return usageErrorf("takes no arguments")
	}
	path, err := e.storeFile()
	if err != nil {
		return err
	}
	fmt.Fprintln(e.stdout, path)
	return nil
}

func runStoreInfo(e *env, args []string) error {
	st, err := e.openStoreFor(args, 0, "takes no arguments")
	if err != nil {
		return err
	}
	defer st.Close()
	ctx := e.context()
	o, err := st.Overview(ctx)
	if err != nil {
		return err
	}
	v, err := st.Version(ctx)
	if err != nil {
		return err
	}
	tw := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintf(tw, "store\t%s\n", st.Path())
	fmt.Fprintf(tw, "schema version\t%d\n", v)
	fmt.Fprintf(tw, "episodes\t%d\n", o.Episodes())
	srcs := make([]string, 0, len(o.EpisodesBySource))
	for s := range o.EpisodesBySource {
		srcs = append(srcs, s)
	}
	sort.Strings(srcs)
	for _, s := range srcs {
		fmt.Fprintf(tw, "  %s\t%d\n", s, o.EpisodesBySource[s])
	}
	fmt.Fprintf(tw, "steps\t%d\n", o.Steps)
	fmt.Fprintf(tw, "splits\t%d\n", o.Splits)
	fmt.Fprintf(tw, "template folders\t%d\n", o.TemplateFolders)
	fmt.Fprintf(tw, "evaluation projects\t%d\n", o.EvalProjects)
	fmt.Fprintf(tw, "imported files\t%d\n", o.ImportedFiles)
	return tw.Flush()
}

func storeCheck(fs *flag.FlagSet) runFunc {
	quick := fs.Bool("quick", false, "the faster quick_check (does not compare indexes with their tables)")
	return func(e *env, args []string) error {
		path, err := e.storeFile()
		if err != nil {
			return err
		}
		if len(args) > 0 {
			return usageErrorf("takes no arguments")
		}
		if _, err := os.Stat(path); err != nil {
			return fmt.Errorf("no store at %s: %w", path, err)
		}
		// read-only: checking writes nothing, and must not wait for a writer
		damaged := func(problems []string) error {
			for _, p := range problems {
				fmt.Fprintln(e.stdout, p)
			}
			return fmt.Errorf("%s is damaged: %d problem(s). Restore it from a backup, or export what can still be read (agentdesk odyssey export, "+
				"agentdesk eval export), then move the file away and start a new store", path, len(problems))
		}
		st, err := store.OpenWith(path, store.Options{ReadOnly: true})
		if errors.Is(err, store.ErrDamaged) {
			// damage where even opening reads (the schema, the version): that is the problem found
			return damaged([]string{"the store cannot be opened: " + err.Error()})
		}
		if err != nil {
			return err
		}
		defer st.Close()
		start := time.Now()
		problems, err := st.Check(e.context(), *quick)
		if err != nil {
			return err
		}
		if len(problems) == 0 {
			fmt.Fprintf(e.stdout, "%s: ok (checked in %v)\n", path, time.Since(start).Round(time.Millisecond))
			return nil
		}
		return damaged(problems)
	}
}
