package app

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"runtime/pprof"
	"slices"
	"sort"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/agentdesk/agentdesk/engine/mobileenv"
	"github.com/agentdesk/agentdesk/store"
)

// Exit codes of the command line.
const (
	exitOK    = 0
	exitError = 1
	exitUsage = 2
)

// env is what a command runs with.
type env struct {
	stdout, stderr io.Writer
	storePath      string   // from --store; empty means the default store
	gui            GUI      // opens the desktop app (commands such as `gridworld play`)
	command        []string // the command being run, e.g. ["odyssey", "import"]
	lastNotice     time.Time
	// ctx is the command's context: SIGINT and SIGTERM cancel it (signals.go); nil outside a
	// command run by dispatch.
	ctx context.Context
}

// storeFile is the path of the store named by --store or of the default one.
func (e *env) storeFile() (string, error) {
	if e.storePath != "" {
		return e.storePath, nil
	}
	return DefaultStorePath()
}

// openStore opens the store named by --store or the default one. While a write waits for
// another process, the command says so on stderr (the first notice, then every 5 s), and it
// tells other processes which command holds the store.
func (e *env) openStore() (*store.Store, error) {
	path, err := e.storeFile()
	if err != nil {
		return nil, err
	}
	st, err := store.OpenWith(path, store.Options{Notify: e.notice, ReadOnly: e.onlyReads()})
	if err != nil {
		return nil, err
	}
	st.SetActivity(strings.Join(append([]string{"agentdesk"}, e.command...), " "))
	return st, nil
}

// readingCommands only read the store: they open it read-only, so that they work on a store
// that is damaged (Agentdesk refuses to write to one) and never wait for a writer. Exports are
// how what can still be read leaves a damaged store.
var readingCommands = [][]string{{"odyssey", "export"}, {"eval", "export"}, {"eval", "codes"}, {"export"}}

func (e *env) onlyReads() bool {
	for _, c := range readingCommands {
		if len(e.command) >= len(c) && slices.Equal(e.command[:len(c)], c) {
			return true
		}
	}
	return false
}

// notice prints what the store waits for or does before a write.
func (e *env) notice(n store.Notice) {
	if n.Waited > 0 && !e.lastNotice.IsZero() && time.Since(e.lastNotice) < 5*time.Second {
		return
	}
	e.lastNotice = time.Now()
	fmt.Fprintf(e.stderr, "agentdesk %s: %s\n", strings.Join(e.command, " "), n.Text)
}

// openStoreFor checks that a command got its n arguments (usage says which), then opens the
// store; the caller closes it.
func (e *env) openStoreFor(args []string, n int, usage string) (*store.Store, error) {
	if len(args) != n {
		return nil, usageErrorf("%s", usage)
	}
	return e.openStore()
}

// errUsage marks an error caused by the command line's words; it exits 2 with the usage.
var errUsage = errors.New("usage")

func usageErrorf(format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{errUsage}, args...)...)
}

// command is one verb of the command line, or a group of them.
type command struct {
	name    string
	args    string // argument synopsis, e.g. "[--json] FILE"
	summary string
	// setup defines the command's flags on fs and returns the function that runs it with the
	// arguments left after the flags; nil for a group.
	setup func(fs *flag.FlagSet) runFunc
	// sub are a group's commands.
	sub []*command
	// raw commands parse their own arguments (to match an original tool's argument syntax);
	// setup is then called with an empty FlagSet and run gets every argument.
	raw bool
}

type runFunc func(e *env, args []string) error

// noFlags is the setup of a command without flags.
func noFlags(run runFunc) func(*flag.FlagSet) runFunc {
	return func(*flag.FlagSet) runFunc { return run }
}

func (c *command) find(name string) *command {
	for _, s := range c.sub {
		if s.name == name {
			return s
		}
	}
	return nil
}

// root is the command tree: the groups are listed here, each defined in its own file.
var root = &command{name: "agentdesk", sub: []*command{
	{name: "help", args: "[COMMAND ...]", summary: "show help for a command"},
	{name: "version", summary: "print the version", setup: noFlags(runVersion)},
	storeCommands(),
	gridworldCommands(),
	pickleCommands(),
	templateCommands(),
	evalCommands(),
	odysseyCommands(),
	samplesCommands(),
	exportCommand(),
	importCommand(),
}}

// Main runs Agentdesk with the process arguments (without the program name) and returns the
// exit code. With no command it opens the desktop app through gui (the GUI entry, package
// app/desktop: this package imports no fyne, so the command line builds and tests without it).
func Main(args []string, gui GUI) int {
	catchSignals()
	return run(args, os.Stdout, os.Stderr, gui)
}

// GUIOptions say how the desktop app starts.
type GUIOptions struct {
	StorePath string // "" for the default store
	Screen    string // the screen to show first ("gridworld", "demonstrations", ...); "" for the one used last
	Task      string // gridworld task specification for the Gridworld workspace
	Open      string // a file to open once the window is shown (a pickle: Demonstrations)
}

// GUI opens the desktop app and returns its exit code; a parameter so that tests can run the
// command line alone.
type GUI func(opts GUIOptions) int

// The screens the command line opens the app on.
const (
	screenGridworld      = "gridworld"
	screenDemonstrations = "demonstrations"
	screenEvaluation     = "evaluation"
)

func run(args []string, stdout, stderr io.Writer, openGUI GUI) int {
	fs := flag.NewFlagSet("agentdesk", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	storePath := fs.String("store", "", "open the store file `PATH` instead of the default one")
	showVersion := fs.Bool("version", false, "print the version")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			printUsage(stdout, root, nil)
			return exitOK
		}
		fmt.Fprintf(stderr, "agentdesk: %v\n\n", err)
		printUsage(stderr, root, nil)
		return exitUsage
	}
	rest := fs.Args()
	if *showVersion {
		rest = []string{"version"}
	}
	if len(rest) == 0 {
		defaultSignals()
		return openGUI(GUIOptions{StorePath: *storePath})
	}
	if root.find(rest[0]) == nil && rest[0] != "help" && mobileenv.IsPickleFile(rest[0]) {
		// agentdesk FILE.pkl: the app, on the Demonstrations workspace with the file
		if len(rest) > 1 {
			fmt.Fprintf(stderr, "agentdesk: open one file at a time (got %d arguments)\n\n", len(rest))
			printUsage(stderr, root, nil)
			return exitUsage
		}
		path, err := filepath.Abs(rest[0])
		if err == nil {
			_, err = os.Stat(path)
		}
		if err != nil {
			fmt.Fprintf(stderr, "agentdesk: %v\n", err)
			return exitError
		}
		defaultSignals()
		return openGUI(GUIOptions{StorePath: *storePath, Screen: screenDemonstrations, Open: path})
	}
	e := &env{stdout: stdout, stderr: stderr, storePath: *storePath, gui: openGUI}
	// AGENTDESK_CPUPROFILE=FILE writes a CPU profile of the command (for the measurements in
	// BENCHMARKS.md: go tool pprof FILE).
	if path := os.Getenv("AGENTDESK_CPUPROFILE"); path != "" {
		if f, err := os.Create(path); err == nil {
			pprof.StartCPUProfile(f)
			defer func() { pprof.StopCPUProfile(); f.Close() }()
		}
	}
	// AGENTDESK_MEMPROFILE=FILE writes a heap profile when the command ends (what it allocated
	// and what was live at its last collection).
	if path := os.Getenv("AGENTDESK_MEMPROFILE"); path != "" {
		defer func() {
			if f, err := os.Create(path); err == nil {
				pprof.Lookup("heap").WriteTo(f, 0)
				f.Close()
			}
		}()
	}
	return dispatch(e, root, rest, nil)
}

// dispatch walks the command tree along args.
func dispatch(e *env, group *command, args []string, path []string) int {
	name := args[0]
	if name == "help" && group == root {
		return help(e, args[1:])
	}
	if name == "-h" || name == "--help" {
		printUsage(e.stdout, group, path)
		return exitOK
	}
	c := group.find(name)
	if c == nil {
		fmt.Fprintf(e.stderr, "agentdesk: unknown command %q\n\n", strings.Join(append(path, name), " "))
		printUsage(e.stderr, group, path)
		return exitUsage
	}
	path = append(path, name)
	e.command = path
	if c.setup == nil {
		if len(args) == 1 {
			printUsage(e.stderr, c, path)
			return exitUsage
		}
		return dispatch(e, c, args[1:], path)
	}
	fs := flag.NewFlagSet("agentdesk "+strings.Join(path, " "), flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	run := c.setup(fs)
	if c.raw {
		for _, a := range args[1:] {
			if a == "-h" || a == "--help" {
				printCommandUsage(e.stdout, c, path, fs)
				return exitOK
			}
		}
		return e.runCommand(run, args[1:], c, path, fs)
	}
	if err := fs.Parse(args[1:]); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			printCommandUsage(e.stdout, c, path, fs)
			return exitOK
		}
		fmt.Fprintf(e.stderr, "agentdesk %s: %v\n\n", strings.Join(path, " "), err)
		printCommandUsage(e.stderr, c, path, fs)
		return exitUsage
	}
	return e.runCommand(run, fs.Args(), c, path, fs)
}

// runCommand runs a command in a context that SIGINT and SIGTERM cancel; a command stopped by
// a signal says what it kept and exits 130 or 143 (signals.go).
func (e *env) runCommand(run runFunc, args []string, c *command, path []string, fs *flag.FlagSet) int {
	ctx, sigs, stop := listen(e.stderr, path)
	e.ctx = ctx
	if holdForSignal != nil {
		holdForSignal(ctx, e.stderr)
	}
	err := run(e, args)
	stop()
	if sig := sigs.received(); sig != nil && !serving[strings.Join(path, " ")] {
		return finishStopped(err, e.stderr, "agentdesk "+strings.Join(path, " "), strings.Join(path, " "), sig)
	}
	return finish(err, e.stderr, c, path, fs)
}

// finish turns a command's error into a message and an exit code.
// fs, when not nil, prints the command's usage after a usage error.
func finish(err error, stderr io.Writer, c *command, path []string, fs *flag.FlagSet) int {
	if err == nil {
		return exitOK
	}
	name := "agentdesk"
	if len(path) > 0 {
		name += " " + strings.Join(path, " ")
	}
	fmt.Fprintf(stderr, "%s: %s\n", name, strings.TrimPrefix(err.Error(), errUsage.Error()+": "))
	if errors.Is(err, errUsage) {
		if fs != nil {
			fmt.Fprintln(stderr)
			printCommandUsage(stderr, c, path, fs)
		}
		return exitUsage
	}
	return exitError
}

func help(e *env, args []string) int {
	c, path := root, []string(nil)
	for _, a := range args {
		next := c.find(a)
		if next == nil {
			fmt.Fprintf(e.stderr, "agentdesk help: unknown command %q\n\n", strings.Join(append(path, a), " "))
			printUsage(e.stderr, c, path)
			return exitUsage
		}
		c, path = next, append(path, a)
	}
	if c.setup != nil {
		fs := flag.NewFlagSet("", flag.ContinueOnError)
		c.setup(fs)
		printCommandUsage(e.stdout, c, path, fs)
		return exitOK
	}
	printUsage(e.stdout, c, path)
	return exitOK
}

func printUsage(out io.Writer, group *command, path []string) {
	w := &bytes.Buffer{}
	defer func() { io.WriteString(out, wrapHelp(w.String(), helpWidth)) }()
	if group == root {
		fmt.Fprint(w, `Agentdesk: a desktop workbench for making and judging data for AI agents.

Usage:
  agentdesk [--store PATH]                  open the desktop app
  agentdesk [--store PATH] FILE.pkl         open the app on a Mobile-Env pickle
  agentdesk [--store PATH] COMMAND [ARGS]   run a command

`)
	} else {
		fmt.Fprintf(w, "agentdesk %s: %s\n\nUsage:\n  agentdesk %s COMMAND [ARGS]\n\n", strings.Join(path, " "), group.summary, strings.Join(path, " "))
	}
	if len(group.sub) == 0 {
		fmt.Fprintln(w, "This version has no commands in this group yet.")
		return
	}
	fmt.Fprintln(w, "Commands:")
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	subs := append([]*command(nil), group.sub...)
	if group != root {
		sort.Slice(subs, func(i, j int) bool { return subs[i].name < subs[j].name })
	}
	var lists []string // a group's commands, under its line (root only)
	for _, c := range subs {
		fmt.Fprintf(tw, "  %s\t%s\n", c.name, c.summary)
		if c.setup == nil && len(c.sub) > 0 && group == root {
			names := make([]string, len(c.sub))
			for i, s := range c.sub {
				names[i] = s.name
			}
			lists = append(lists, c.name+": "+strings.Join(names, ", "))
		}
	}
	tw.Flush()
	if len(lists) > 0 {
		fmt.Fprintln(w, "\nCommand groups (agentdesk GROUP COMMAND):")
		for _, l := range lists {
			for i, line := range wrapWords(l, helpWidth-4) {
				if i == 0 {
					fmt.Fprintf(w, "  %s\n", line)
				} else {
					fmt.Fprintf(w, "      %s\n", line)
				}
			}
		}
	}
	if group == root {
		fmt.Fprint(w, `
Options:
  --store PATH   use this store file (created when missing), not the default one
  --version      print the version

Run 'agentdesk help COMMAND' for a command's options.
`)
	}
}

// helpWidth is the widest line help prints (a terminal's 80 columns).
const helpWidth = 80

// helpColumn finds where a help line's text column starts: after a command or option name
// and two or more spaces ("  check  run SQLite's…"), or after a flag's tab ("    \tprint…").
var helpColumn = regexp.MustCompile(`^(\s+\S+(?: \S+)?\s{2,}|\s+)`)

// wrapHelp wraps the lines of a help text wider than width at spaces, continuing each under
// its text column.
func wrapHelp(text string, width int) string {
	var b strings.Builder
	for _, line := range strings.SplitAfter(text, "\n") {
		nl := strings.HasSuffix(line, "\n")
		line = strings.TrimSuffix(line, "\n")
		line = strings.ReplaceAll(line, "\t", "  ")
		if len(line) <= width {
			b.WriteString(line)
		} else {
			indent := len(helpColumn.FindString(line))
			if indent > width/2 {
				indent = 4
			}
			words := wrapWords(line[indent:], width-indent)
			for i, wl := range words {
				if i > 0 {
					b.WriteString("\n")
				}
				if i == 0 {
					b.WriteString(line[:indent])
				} else {
					b.WriteString(strings.Repeat(" ", indent))
				}
				b.WriteString(wl)
			}
		}
		if nl {
			b.WriteString("\n")
		}
	}
	return b.String()
}

// wrapWords breaks s into lines of at most width characters at spaces.
func wrapWords(s string, width int) []string {
	var lines []string
	line := ""
	for _, word := range strings.Fields(s) {
		if line != "" && len(line)+1+len(word) > width {
			lines = append(lines, line)
			line = ""
		}
		if line != "" {
			line += " "
		}
		line += word
	}
	if line != "" {
		lines = append(lines, line)
	}
	return lines
}

func printCommandUsage(out io.Writer, c *command, path []string, fs *flag.FlagSet) {
	w := &bytes.Buffer{}
	defer func() { io.WriteString(out, wrapHelp(w.String(), helpWidth)) }()
	fmt.Fprintf(w, "agentdesk %s: %s\n\nUsage:\n  agentdesk %s", strings.Join(path, " "), c.summary, strings.Join(path, " "))
	hasFlags := false
	fs.VisitAll(func(*flag.Flag) { hasFlags = true })
	if hasFlags {
		fmt.Fprint(w, " [OPTIONS]")
	}
	if c.args != "" {
		fmt.Fprint(w, " "+c.args)
	}
	fmt.Fprintln(w)
	if hasFlags {
		fmt.Fprintln(w, "\nOptions:")
		fs.SetOutput(w)
		fs.PrintDefaults()
		fs.SetOutput(io.Discard)
	}
}

func runVersion(e *env, args []string) error {
	if len(args) > 0 {
		return usageErrorf("version takes no arguments")
	}
	fmt.Fprintf(e.stdout, "agentdesk %s (schema %d)\n", Version, store.SchemaVersion)
	return nil
}
