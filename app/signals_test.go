//go:build !windows

package app

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/agentdesk/agentdesk/engine/conformance"
	"github.com/agentdesk/agentdesk/engine/mobileenv/mobileenvtest"
)

// TestEveryCommandSaysWhatAStopKeeps: every command of the tree has its words for what a
// signal's stop keeps, and stopWords names no command that does not exist.
func TestEveryCommandSaysWhatAStopKeeps(t *testing.T) {
	leaves := map[string]bool{}
	var walk func(c *command, path []string)
	walk = func(c *command, path []string) {
		for _, s := range c.sub {
			p := append(append([]string(nil), path...), s.name)
			if s.setup != nil {
				leaves[strings.Join(p, " ")] = true
			}
			walk(s, p)
		}
	}
	walk(root, nil)
	for path := range leaves {
		if stopWords[path] == "" {
			t.Errorf("agentdesk %s does not say what a stop by a signal keeps (stopWords)", path)
		}
	}
	for path := range stopWords {
		if !leaves[path] {
			t.Errorf("stopWords names %q, which is not a command", path)
		}
	}
}

// signalRun runs the command as a separate process, waits until it is ready for a signal
// (hold: the command starts with its context cancelled; or until wait sees its output), sends
// sig and returns its exit code and standard error.
func signalRun(t *testing.T, dir string, sig syscall.Signal, env []string, args ...string) (int, string) {
	t.Helper()
	cmd := cliCommand(t, dir, args...)
	cmd.Env = append(append(cmd.Env, "AGENTDESK_TEST_HOLD_FOR_SIGNAL=1"), env...)
	return signalAfter(t, cmd, sig, "ready for a signal")
}

// signalAfter starts cmd, sends sig once its standard error or output shows a line holding
// after, and returns its exit code and standard error.
func signalAfter(t *testing.T, cmd *exec.Cmd, sig syscall.Signal, after string) (int, string) {
	t.Helper()
	pr, pw := io.Pipe()
	cmd.Stderr, cmd.Stdout = pw, pw
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var all bytes.Buffer
	seen := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		sc := bufio.NewScanner(pr)
		sc.Buffer(nil, 1<<20)
		signalled := false
		for sc.Scan() {
			all.WriteString(sc.Text() + "\n")
			if !signalled && strings.Contains(sc.Text(), after) {
				signalled = true
				close(seen)
			}
		}
		if !signalled {
			close(seen)
		}
	}()
	<-seen
	cmd.Process.Signal(sig)
	err := cmd.Wait()
	pw.Close()
	<-done
	code := 0
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			code = 128 + int(ws.Signal()) // killed by the default action: said nothing
		}
	} else if err != nil {
		t.Fatal(err)
	}
	return code, all.String()
}

func wantStop(t *testing.T, what string, sig syscall.Signal, code int, out, kept string) {
	t.Helper()
	wantCode, name := exitSIGINT, "SIGINT"
	if sig == syscall.SIGTERM {
		wantCode, name = exitSIGTERM, "SIGTERM"
	}
	if code != wantCode {
		t.Errorf("%s, %s: exit %d, want %d\n%s", what, name, code, wantCode, out)
	}
	if want := "stopped by " + name + "; " + kept; !strings.Contains(out, want) {
		t.Errorf("%s, %s: the output lacks %q:\n%s", what, name, want, out)
	}
}

// TestSignalsStopEveryLongCommand sends SIGINT and SIGTERM to each long command once it runs
// (its context is cancelled as it starts): each exits 130 or 143 saying what it kept, and the
// files and the store are as they were. Before, SIGTERM killed every command silently (143)
// and SIGINT killed pickle edit and eval import silently (130).
func TestSignalsStopEveryLongCommand(t *testing.T) {
	dir := isolate(t)
	defs := filepath.Join(dir, "defs")
	if err := mobileenvtest.WriteDefinitions(defs); err != nil {
		t.Fatal(err)
	}
	dumps := filepath.Join(dir, "dumps")
	pattern, err := mobileenvtest.WriteDumps(dumps, 3, 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	pkl := filepath.Join(dir, "a.pkl")
	if err := mobileenvtest.WriteResaved(pkl, 2, 1<<20); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	os.Mkdir(out, 0o755)
	db := filepath.Join(dir, "store.db")
	if r := runCLI(t, "--store", db, "store", "info"); r.code != 0 {
		t.Fatal(r)
	}
	storeInfo := func() string { return runCLI(t, "--store", db, "store", "info").stdout }
	if r := runCLI(t, "--store", db, "eval", "import", "--config", "flags", "--name", "P", mustAbs(t, evalExample)); r.code != 0 {
		t.Fatal(r)
	}
	examples := mustAbs(t, "../engine/template/examples")
	ody := filepath.Join(conformance.RepoDir(t, "odyssey"), "sample")
	exported := filepath.Join(dir, "exported")
	if r := runCLI(t, "--store", db, "export", "--format", "parquet", exported); r.code != 0 {
		t.Fatal(r)
	}
	cases := []struct {
		args []string
		kept string
	}{
		{[]string{"pickle", "edit", pkl, "0:rewardize:1:0.5"}, pkl + " was not changed"},
		{[]string{"pickle", "resave", pattern + ":0:2", out, defs}, "no output pickle in " + out + " was written or changed"},
		{[]string{"pickle", "visualize", pkl, filepath.Join(out, "frames")}, "0 frames written"},
		{[]string{"pickle", "video", "--format", "gif", pkl, filepath.Join(out, "video")}, "0 video(s) written"},
		{[]string{"--store", db, "eval", "import", "--config", "flags", mustAbs(t, evalExample)}, "the import was rolled back; the store is unchanged"},
		{[]string{"--store", db, "odyssey", "import", ody}, "the import was rolled back; the store is unchanged"},
		{[]string{"--store", db, "odyssey", "convert", "--split", "random", filepath.Join(out, "conv")}, "no file was written"},
		{[]string{"--store", db, "gridworld", "run", "--agent", "random", "--episodes", "2"}, "the episodes finished before the signal are stored"},
		{[]string{"--store", db, "samples", "load", "--dir", filepath.Join(dir, "samples")}, "the store is unchanged"},
		{[]string{"gridworld", "bench", "--steps", "100000"}, "nothing was written"},
		{[]string{"--store", db, "eval", "export", "P", "--format", "csv", "--out", filepath.Join(out, "x.csv")}, "each exported file is as it was or complete; none is half-written"},
		{[]string{"--store", db, "eval", "stats", "P"}, "the store is unchanged"},
		{[]string{"--store", db, "export", "--format", "parquet", filepath.Join(out, "ds")}, filepath.Join(out, "ds") + " is as it was; nothing was written there"},
		{[]string{"--store", db, "import", "--format", "parquet", exported}, "the import was rolled back; the store is unchanged"},
		{[]string{"--store", db, "gridworld", "play"}, "the app was closed; what it saved before the signal is kept"},
		{[]string{"template", "parse", "--task", filepath.Join(examples, "tasks", "buy_headphones.task"), "-p", filepath.Join(examples, "templates"),
			"-o", filepath.Join(out, "t.textproto")}, "no task definition was written"},
	}
	tree := func() map[string][]byte {
		m := map[string][]byte{}
		filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
			if err == nil && !d.IsDir() && !strings.HasPrefix(d.Name(), "store.db") {
				b, _ := os.ReadFile(p)
				m[p] = b
			}
			return nil
		})
		return m
	}
	before := tree()
	info := storeInfo()
	for _, c := range cases {
		for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
			code, msg := signalRun(t, dir, sig, nil, c.args...)
			wantStop(t, strings.Join(c.args, " "), sig, code, msg, c.kept)
			if got := storeInfo(); got != info {
				t.Errorf("%v: the store changed:\n%s\nwas\n%s", c.args, got, info)
			}
			after := tree()
			for name, b := range before {
				if !bytes.Equal(after[name], b) {
					t.Errorf("%v: %s changed", c.args, name)
				}
			}
			for name := range after {
				if _, ok := before[name]; !ok {
					t.Errorf("%v: left %s", c.args, name)
				}
			}
			before = after // one failure reported once
			if entries, _ := os.ReadDir(out); len(entries) > 0 {
				t.Errorf("%v: left %d entries in %s", c.args, len(entries), out)
				os.RemoveAll(out)
				os.Mkdir(out, 0o755)
			}
		}
	}
}

// TestSignalsStopMidRun stops commands in the middle of their work: a frame export once its
// first folder is printed (what it kept: complete trajectory folders only, counted in the
// message), and an Odyssey import while it waits for another process's write to the store.
func TestSignalsStopMidRun(t *testing.T) {
	dir := isolate(t)
	pkl := filepath.Join(dir, "large.pkl")
	if err := mobileenvtest.WriteResaved(pkl, 6, 8<<20); err != nil {
		t.Fatal(err)
	}
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		frames := filepath.Join(dir, "frames-"+sig.String())
		// the second folder is printed once the first trajectory is written whole
		code, msg := signalAfter(t, cliCommand(t, dir, "pickle", "visualize", "--png", pkl, frames), sig, "search:1%6")
		m := regexp.MustCompile(`(\d+) of (\d+) frames written, in (\d+) complete trajectory folder`).FindStringSubmatch(msg)
		if m == nil {
			t.Errorf("visualize, %v: no count of the frames written:\n%s", sig, msg)
			continue
		}
		wantStop(t, "visualize", sig, code, msg, m[0])
		written, _ := strconv.Atoi(m[1])
		total, _ := strconv.Atoi(m[2])
		entries, _ := os.ReadDir(frames)
		n := 0
		for _, e := range entries {
			files, _ := os.ReadDir(filepath.Join(frames, e.Name()))
			n += len(files)
			if len(files) != total/6 { // 6 trajectories of equal length
				t.Errorf("visualize, %v: %s kept with %d of its %d frames", sig, e.Name(), len(files), total/6)
			}
		}
		if n != written || written >= total || written < total/6 || strconv.Itoa(len(entries)) != m[3] {
			t.Errorf("visualize, %v: %d frames in %d folders on disk, the message says %s", sig, n, len(entries), m[0])
		}
		t.Logf("visualize, %v: %s", sig, m[0])
	}

	// an Odyssey import waiting for another process's write
	db := filepath.Join(dir, "store.db")
	if r := runCLI(t, "--store", db, "store", "info"); r.code != 0 {
		t.Fatal(r)
	}
	info := runCLI(t, "--store", db, "store", "info").stdout
	ody := filepath.Join(conformance.RepoDir(t, "odyssey"), "sample")
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		exe, _ := os.Executable()
		holder := exec.Command(exe)
		holder.Env = append(os.Environ(), "AGENTDESK_TEST_HOLD_STORE="+db)
		stdin, _ := holder.StdinPipe()
		hout, _ := holder.StdoutPipe()
		holder.Stderr = os.Stderr
		if err := holder.Start(); err != nil {
			t.Fatal(err)
		}
		if line, _ := bufio.NewReader(hout).ReadString('\n'); line != "holding\n" {
			t.Fatalf("holder: %q", line)
		}
		code, msg := signalAfter(t, cliCommand(t, dir, "--store", db, "odyssey", "import", ody), sig, "waiting")
		stdin.Close()
		holder.Wait()
		wantStop(t, "odyssey import while waiting", sig, code, msg, "the import was rolled back; the store is unchanged")
		if got := runCLI(t, "--store", db, "store", "info").stdout; got != info {
			t.Errorf("odyssey import, %v: the store changed:\n%s", sig, got)
		}
	}
}

// TestServeStopsCleanlyOnBothSignals: eval serve keeps its clean stop ("Stopped.", status 0)
// for SIGTERM too (before, SIGTERM ended it silently with 143).
func TestServeStopsCleanlyOnBothSignals(t *testing.T) {
	dir := isolate(t)
	db := filepath.Join(dir, "store.db")
	if r := runCLI(t, "--store", db, "eval", "import", "--config", "flags", "--name", "P", mustAbs(t, evalExample)); r.code != 0 {
		t.Fatal(r)
	}
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		code, msg := signalAfter(t, cliCommand(t, dir, "--store", db, "eval", "serve", "P", "--addr", "127.0.0.1:0"), sig, "Press Ctrl-C")
		if code != 0 || !strings.Contains(msg, "Stopped.") || strings.Contains(msg, "stopped by") {
			t.Errorf("eval serve, %v: exit %d:\n%s", sig, code, msg)
		}
	}
}

// TestSignalsAtRandomMoments (make reliability: AGENTDESK_SIGNALS per command and signal)
// sends SIGINT or SIGTERM at random moments of pickle resave, resave --merge, edit and
// visualize on AGENTDESK_KILL_MB of data: each run ends with 130 or 143 and says what it kept
// (or had finished: 0), every file is as before or as an uninterrupted run leaves it, no
// temporary file stays, and an export keeps only complete trajectory folders.
func TestSignalsAtRandomMoments(t *testing.T) {
	n, err := strconv.Atoi(os.Getenv("AGENTDESK_SIGNALS"))
	if err != nil || n < 1 {
		t.Skip("AGENTDESK_SIGNALS not set (make reliability)")
	}
	_, size := killSettings(t)
	base := t.TempDir()
	pattern, err := mobileenvtest.WriteDumps(filepath.Join(base, "dumps"), 12, size)
	if err != nil {
		t.Fatal(err)
	}
	defs := filepath.Join(base, "defs")
	if err := mobileenvtest.WriteDefinitions(defs); err != nil {
		t.Fatal(err)
	}
	large := filepath.Join(base, "large.pkl")
	if err := mobileenvtest.WriteResaved(large, 6, size); err != nil {
		t.Fatal(err)
	}
	firstHalf := filepath.Join(base, "first-half")
	os.Mkdir(firstHalf, 0o755)
	if r := runCLI(t, "pickle", "resave", pattern+":0:5", firstHalf, defs); r.code != 0 {
		t.Fatalf("first half: %+v", r)
	}
	copyFiles := func(from, to string) {
		for name, b := range snapshot(t, from) {
			os.WriteFile(filepath.Join(to, name), b, 0o644)
		}
	}
	type scenario struct {
		name  string
		args  []string
		setup func(work string)
	}
	scenarios := []scenario{
		{"resave", []string{"pickle", "resave", pattern + ":0:11", "out", defs}, func(w string) { os.Mkdir(filepath.Join(w, "out"), 0o755) }},
		{"resave --merge", []string{"pickle", "resave", "--merge", pattern + ":6:11", "out", defs}, func(w string) {
			os.Mkdir(filepath.Join(w, "out"), 0o755)
			copyFiles(firstHalf, filepath.Join(w, "out"))
		}},
		{"edit", []string{"pickle", "edit", "out/large.pkl", "0:delete:1:3,1:rewardize:2:0.5,-1:remove"}, func(w string) {
			os.Mkdir(filepath.Join(w, "out"), 0o755)
			b, _ := os.ReadFile(large)
			os.WriteFile(filepath.Join(w, "out", "large.pkl"), b, 0o644)
		}},
	}
	rng := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 2))
	for _, sc := range scenarios {
		t.Run(strings.ReplaceAll(sc.name, " ", "_"), func(t *testing.T) {
			ref := t.TempDir()
			sc.setup(ref)
			before := snapshot(t, filepath.Join(ref, "out"))
			start := time.Now()
			if out, err := cliCommand(t, ref, sc.args...).CombinedOutput(); err != nil {
				t.Fatalf("uninterrupted run: %v\n%s", err, out)
			}
			took := time.Since(start)
			want := snapshot(t, filepath.Join(ref, "out"))
			early := 0 // the deterministic tests above show that a started command handles them
			defer func() { t.Logf("%d of %d signals came before the program started", early, 2*n) }()
			for k := 0; k < 2*n; k++ {
				sig := []syscall.Signal{syscall.SIGINT, syscall.SIGTERM}[k%2]
				work := t.TempDir()
				sc.setup(work)
				cmd := cliCommand(t, work, sc.args...)
				var stderr bytes.Buffer
				cmd.Stderr = &stderr
				if err := cmd.Start(); err != nil {
					t.Fatal(err)
				}
				at := time.Duration(rng.Int64N(int64(took)))
				time.Sleep(at) // a random moment: fault injection, not timing
				cmd.Process.Signal(sig)
				err := cmd.Wait()
				code := 0
				var ee *exec.ExitError
				if errors.As(err, &ee) {
					code = ee.ExitCode()
				}
				msg := stderr.String()
				wantCode := map[syscall.Signal]int{syscall.SIGINT: exitSIGINT, syscall.SIGTERM: exitSIGTERM}[sig]
				if code == -1 && msg == "" {
					// the signal came before the program's main ran (the Go runtime's start):
					// its default action; nothing was written (checked below)
					early++
				} else if code != 0 && (code != wantCode || !strings.Contains(msg, "stopped by ") && !strings.Contains(msg, "arrived as it finished")) {
					t.Errorf("%v at %v: exit %d, want %d with what was kept:\n%s", sig, at, code, wantCode, msg)
				}
				left := snapshot(t, filepath.Join(work, "out"))
				for name, b := range left {
					switch {
					case strings.HasPrefix(name, "."):
						t.Errorf("%v at %v: left the temporary file %s", sig, at, name)
					case bytes.Equal(b, want[name]), before[name] != nil && bytes.Equal(b, before[name]):
					default:
						t.Errorf("%v at %v: %s is neither as before nor as an uninterrupted run leaves it", sig, at, name)
					}
				}
				t.Logf("%v at %v of %v: exit %d, %s", sig, at.Round(time.Millisecond), took.Round(time.Millisecond), code, lastLine(msg))
			}
		})
	}
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return lines[len(lines)-1]
}
