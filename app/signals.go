package app

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"sync"
	"syscall"
)

// One signal handling for every command. SIGINT (Ctrl-C) and SIGTERM cancel the command's
// context (env.interruptible); the command stops at its next check and returns. The command
// line then says what the command kept and exits 128 + the signal's number: 130 for SIGINT,
// 143 for SIGTERM. What was kept is, in order of preference:
//   - the words of the command's error (kept(err, "312 of 500 frames written")), when it knows
//     how far it got;
//   - the command's entry in stopWords, what an interrupted run of it always keeps.
//
// A second signal stops the command at once, with the same words from stopWords (every
// command's writes are atomic or transactional, so these words hold at any moment); so does
// the first for the commands that open the desktop app (atOnce).
// Commands that serve (eval serve) treat a signal as their normal end.
//
// A new command adds its words to stopWords (TestEveryCommandSaysWhatAStopKeeps fails until
// it does), takes its context from e.interruptible() or e.context(), checks it in its loops,
// and wraps its error with kept(err, …) when it can say how far it got.

// Exit codes of a command stopped by a signal (the shell's 128 + signal number).
const (
	exitSIGINT  = 130
	exitSIGTERM = 143
)

// stopWords says, for every command, what an interrupted run keeps (its path, as typed).
// A command that writes says what stays as it was; one that only reads says that nothing was
// written. TestEveryCommandSaysWhatAStopKeeps checks that every command has its words.
var stopWords = map[string]string{
	"version": "nothing was written",

	"store info":  "the store is unchanged",
	"store path":  "nothing was written",
	"store check": "the store is unchanged (the check only reads)",

	"gridworld bench": "nothing was written",
	"gridworld run":   "the episodes finished before the signal are stored; the one being played is not",
	"gridworld tasks": "nothing was written",
	"gridworld play":  "the app was closed; what it saved before the signal is kept",

	"pickle info":      "nothing was written",
	"pickle resave":    "every output pickle is as it was or complete; none is half-written",
	"pickle edit":      "the pickle was not changed",
	"pickle visualize": "the frames written before the signal are kept",
	"pickle video":     "the videos written before the signal are kept; none is half-written",

	"template init":  "no config was written",
	"template parse": "no task definition was written",

	"eval import":         "the import was rolled back; the store is unchanged",
	"eval create":         "the project was not created; the store is unchanged",
	"eval projects":       "the store is unchanged",
	"eval participants":   "the store is unchanged",
	"eval unblock":        "the store is unchanged",
	"eval return":         "the store is unchanged",
	"eval stats":          "the store is unchanged",
	"eval export":         "each exported file is as it was or complete; none is half-written",
	"eval save":           "the project file is as it was or complete; none is half-written",
	"eval import-results": "the import was rolled back; the store is unchanged",
	"eval bot":            "the store is unchanged",
	"eval links":          "the store is unchanged",
	"eval codes":          "the store is unchanged; a codes file is as it was or complete",
	"eval payouts":        "the store is unchanged; each payout file is as it was or complete",
	"eval bench-serve":    "the load test stopped; it wrote only to its own scratch store",
	"eval delete":         "the store is unchanged",
	"eval open":           "the app was closed (an import before it, not finished, was rolled back); what was saved before the signal is kept",

	"odyssey import":          "the store is unchanged",
	"odyssey splits":          "the store is unchanged",
	"odyssey split":           "the store is unchanged",
	"odyssey export split":    "the split file is as it was or complete; none is half-written",
	"odyssey export episodes": "each exported file is as it was or complete; none is half-written",
	"odyssey records":         "the records file is as it was or complete; none is half-written",
	"odyssey convert":         "each converter file is as it was or complete; none is half-written",
	"odyssey score":           "the store is unchanged",
	"odyssey predict":         "the answers received before the signal are kept in the store (the file is written only when all are in); run it again to resume",
	"odyssey runs":            "the store is unchanged",
	"odyssey generate":        "the episodes written before the signal are kept; none is half-written",
	"samples load":            "the store is unchanged",
	"samples remove":          "the store is unchanged",
	"eval serve":              "every answer given is saved",
	"eval annotate":           "every answer the model gave before the signal is saved; run it again to continue with the units not yet answered",
	"export":                  "the destination is as it was; nothing was written there",
	"import":                  "the import was rolled back; the store is unchanged",
}

// serving are the commands for which a signal is the normal end: they print "Stopped." and
// exit 0.
var serving = map[string]bool{"eval serve": true}

// atOnce are the commands that open the desktop app: its window has no context to watch, so
// the first signal ends them, as it ended the app before the command line handled signals.
var atOnce = map[string]bool{"gridworld play": true, "eval open": true}

// stopped is the error of a command that a signal stopped, with what it kept.
type stopped struct {
	err  error
	kept string
}

func (s *stopped) Error() string { return s.err.Error() }
func (s *stopped) Unwrap() error { return s.err }

// kept wraps the error of a command that may have been stopped by a signal with what it kept
// ("312 of 500 frames written", "a.pkl was not changed"); the words are used only when a
// signal stopped it. err nil stays nil.
func kept(err error, format string, args ...any) error {
	if err == nil {
		return nil
	}
	return &stopped{err: err, kept: fmt.Sprintf(format, args...)}
}

// signals is the signal state of one command run.
type signals struct {
	mu       sync.Mutex
	sig      os.Signal
	cancel   context.CancelFunc
	ch       chan os.Signal
	done     chan struct{}
	announce io.Writer
	name     string // "agentdesk pickle edit"
	path     string // "pickle edit"
}

// early catches the signals from the moment Main starts (before the command is found) to the
// moment the process exits, so that none ends the process unannounced by the default action;
// nil when the command line runs inside another program (tests call run).
var early chan os.Signal

// catchSignals starts catching SIGINT and SIGTERM for the process (Main calls it first).
func catchSignals() {
	early = make(chan os.Signal, 2)
	signal.Notify(early, os.Interrupt, syscall.SIGTERM)
}

// defaultSignals gives SIGINT and SIGTERM back their default action (they end the process), for
// the desktop app opened without a command.
func defaultSignals() {
	if early != nil {
		signal.Reset(os.Interrupt, syscall.SIGTERM)
		select {
		case sig := <-early: // came while the arguments were read: the app is not opened
			os.Exit(signalExit(sig))
		default:
		}
	}
}

// listen makes the context of a command: SIGINT and SIGTERM cancel it (one that came since
// Main started, before the command, cancels it at once). stop hands the signals back once the
// command has returned: one that comes after is ignored, the work being done.
func listen(stderr io.Writer, path []string) (ctx context.Context, s *signals, stop func()) {
	ctx, cancel := context.WithCancel(context.Background())
	s = &signals{cancel: cancel, ch: early, done: make(chan struct{}), announce: stderr,
		name: strings.Join(append([]string{"agentdesk"}, path...), " "), path: strings.Join(path, " ")}
	if s.ch == nil {
		s.ch = make(chan os.Signal, 2)
		signal.Notify(s.ch, os.Interrupt, syscall.SIGTERM)
	}
	go s.loop()
	return ctx, s, func() {
		if s.ch != early {
			signal.Stop(s.ch)
		}
		close(s.done)
		cancel()
	}
}

func (s *signals) loop() {
	for {
		select {
		case <-s.done:
			return
		case sig := <-s.ch:
			s.mu.Lock()
			first := s.sig == nil
			if first {
				s.sig = sig
			}
			s.mu.Unlock()
			if serving[s.path] {
				s.cancel()
				continue
			}
			if first && !atOnce[s.path] {
				fmt.Fprintf(s.announce, "%s: %s: stopping (%s again stops at once)\n", s.name, signalName(sig), signalName(sig))
				s.cancel()
				continue
			}
			how := "at once by a second " + signalName(sig)
			if first {
				how = "by " + signalName(sig)
			}
			fmt.Fprintf(s.announce, "%s: stopped %s; %s\n", s.name, how, stopWords[s.path])
			os.Exit(signalExit(sig))
		}
	}
}

// received is the first signal that arrived, or nil.
func (s *signals) received() os.Signal {
	if s == nil {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.sig
}

func signalName(sig os.Signal) string {
	if sig == syscall.SIGTERM {
		return "SIGTERM"
	}
	return "SIGINT"
}

func signalExit(sig os.Signal) int {
	if sig == syscall.SIGTERM {
		return exitSIGTERM
	}
	return exitSIGINT
}

// finishStopped is finish for a command that a signal stopped: it prints what went wrong
// (unless it was the stop itself) and what was kept, and returns the exit code.
func finishStopped(err error, stderr io.Writer, name, path string, sig os.Signal) int {
	words := stopWords[path]
	var st *stopped
	if errors.As(err, &st) {
		words = st.kept
	}
	if err == nil {
		fmt.Fprintf(stderr, "%s: %s arrived as it finished: its work is complete\n", name, signalName(sig))
		return signalExit(sig)
	}
	if !errors.Is(err, context.Canceled) {
		fmt.Fprintf(stderr, "%s: %v\n", name, err)
	}
	if words == "" {
		words = "see above"
	}
	fmt.Fprintf(stderr, "%s: stopped by %s; %s\n", name, signalName(sig), words)
	return signalExit(sig)
}

// holdForSignal, set only by the tests' stand-in for the binary (AGENTDESK_TEST_HOLD_FOR_SIGNAL),
// runs before the command: it says "ready" and waits for the signal, so that a test knows the
// signal is handled and the command starts with its context cancelled.
var holdForSignal func(ctx context.Context, stderr io.Writer)

// interruptible is the context of the command: SIGINT and SIGTERM cancel it (and so does
// stop).
func (e *env) interruptible() (context.Context, context.CancelFunc) {
	if e.ctx == nil {
		return context.WithCancel(context.Background())
	}
	return context.WithCancel(e.ctx)
}

// context is the command's context (SIGINT and SIGTERM cancel it), for commands that need no
// cancel function of their own.
func (e *env) context() context.Context {
	if e.ctx == nil {
		return context.Background()
	}
	return e.ctx
}
