package app

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/agentdesk/agentdesk/engine/mobileenv/mobileenvtest"
	"github.com/agentdesk/agentdesk/store"
)

// The test binary doubles as the agentdesk command (the same Main as the real binary, without
// the GUI's main-thread lock) when AGENTDESK_TEST_AS_CLI is set, so that tests can run it as a
// process and kill it.
func TestMain(m *testing.M) {
	if os.Getenv("AGENTDESK_TEST_AS_CLI") == "1" {
		runtime.LockOSThread() // as the real binary's main: OpenGL (--pov) stays on one thread
		if os.Getenv("AGENTDESK_TEST_HOLD_FOR_SIGNAL") == "1" {
			holdForSignal = func(ctx context.Context, stderr io.Writer) {
				fmt.Fprintln(stderr, "ready for a signal")
				<-ctx.Done()
			}
		}
		code := Main(os.Args[1:], func(GUIOptions) int { fmt.Fprintln(os.Stderr, "no GUI in tests"); return 1 })
		if path := os.Getenv("AGENTDESK_TEST_PEAK_RSS"); path != "" {
			writePeakRSS(path)
		}
		os.Exit(code)
	}
	if path := os.Getenv("AGENTDESK_TEST_HOLD_STORE"); path != "" {
		os.Exit(holdStore(path))
	}
	os.Exit(m.Run())
}

// holdStore stands for another process's long import: it opens the store, says what it does,
// and keeps a write transaction open until its standard input closes.
func holdStore(path string) int {
	st, err := store.Open(path)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer st.Close()
	st.SetActivity("agentdesk odyssey import /data/aitw (a test)")
	err = st.Update(context.Background(), func(tx *store.Tx) error {
		st.SetProgress("annotations 5000 of 20000")
		fmt.Println("holding")
		io.Copy(io.Discard, os.Stdin)
		return nil
	})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

// TestCommandsWaitForAnotherProcessesWrite: while another process imports into the store,
// read-only commands answer at once and a writing command waits, saying which process and what
// it is doing, then completes. Before, every command failed after 10 s with "migration 1
// (core): database is locked".
func TestCommandsWaitForAnotherProcessesWrite(t *testing.T) {
	dir := isolate(t)
	db := filepath.Join(dir, "store.db")
	if r := runCLI(t, "--store", db, "store", "info"); r.code != 0 {
		t.Fatalf("create: %+v", r)
	}
	exe, _ := os.Executable()
	holder := exec.Command(exe)
	holder.Env = append(os.Environ(), "AGENTDESK_TEST_HOLD_STORE="+db)
	stdin, _ := holder.StdinPipe()
	out, _ := holder.StdoutPipe()
	holder.Stderr = os.Stderr
	if err := holder.Start(); err != nil {
		t.Fatal(err)
	}
	defer holder.Wait()
	defer stdin.Close()
	line, _ := bufio.NewReader(out).ReadString('\n')
	if line != "holding\n" {
		t.Fatalf("holder: %q", line)
	}
	time.Sleep(600 * time.Millisecond) // its progress is written out at most twice a second
	// reading commands do not wait
	for _, args := range [][]string{{"store", "info"}, {"store", "check"}, {"odyssey", "splits"}, {"eval", "projects"}} {
		r := runCLI(t, append([]string{"--store", db}, args...)...)
		if r.code != 0 || strings.Contains(r.stderr, "waiting") {
			t.Errorf("%v while another process writes: %+v", args, r)
		}
	}
	// a writing command waits and says for whom; it completes once the holder commits
	cmd := cliCommand(t, dir, "--store", db, "eval", "import", "--config", "flags", mustAbs(t, evalExample))
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(2 * time.Second)
	stdin.Close()
	if err := cmd.Wait(); err != nil {
		t.Fatalf("the waiting import failed: %v\n%s", err, stderr.String())
	}
	msg := stderr.String()
	for _, want := range []string{"is writing to this store; waiting", "pid", "odyssey import /data/aitw (a test)", "annotations 5000 of 20000"} {
		if !strings.Contains(msg, want) {
			t.Errorf("the waiting message %q lacks %q", msg, want)
		}
	}
	t.Logf("while waiting: %s", strings.TrimSpace(msg))
}

func mustAbs(t *testing.T, p string) string {
	a, err := filepath.Abs(p)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// cliCommand is the agentdesk command line as a separate process, run in dir.
func cliCommand(t *testing.T, dir string, args ...string) *exec.Cmd {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "AGENTDESK_TEST_AS_CLI=1")
	return cmd
}

// killSettings: kills per command (AGENTDESK_KILLS, 3 by default; `make reliability` runs 20)
// and the size of the data written (AGENTDESK_KILL_MB, 24 MB by default; 100 for `make
// reliability`).
func killSettings(t *testing.T) (kills int, size int64) {
	kills, size = 3, 24
	if n, err := strconv.Atoi(os.Getenv("AGENTDESK_KILLS")); err == nil && n > 0 {
		kills = n
	}
	if n, err := strconv.Atoi(os.Getenv("AGENTDESK_KILL_MB")); err == nil && n > 0 {
		size = int64(n)
	}
	return kills, size << 20
}

// snapshot maps the names of the files in dir to their content.
func snapshot(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		out[e.Name()] = b
	}
	return out
}

func names(m map[string][]byte) string {
	var s []string
	for k := range m {
		s = append(s, k)
	}
	sort.Strings(s)
	return strings.Join(s, " ")
}

// killScenario is one command run in a work folder made by setup; out is the folder whose
// files it writes.
type killScenario struct {
	name  string
	args  []string
	out   string
	setup func(t *testing.T, work string)
	// during checks what a killed run left in out (want: the uninterrupted run's files; before:
	// what was there before). It returns whether the command has already done its work (then
	// running it again is not needed to reach the result).
	during func(t *testing.T, left, before, want map[string][]byte) (done bool)
}

// TestKilledWritesRecover kills the pickle commands that write files (resave, resave --merge,
// resave --compat, edit) at random moments with SIGKILL, then runs them again: every run
// after a kill must leave exactly the files an uninterrupted run leaves, byte for byte, and no
// temporary file. While killed, a file is either as it was or complete, never half-written.
func TestKilledWritesRecover(t *testing.T) {
	kills, size := killSettings(t)
	base := t.TempDir()
	dumps := filepath.Join(base, "dumps")
	pattern, err := mobileenvtest.WriteDumps(dumps, 12, size)
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
	// a file of the first half of the dumps, for the merge
	firstHalf := filepath.Join(base, "first-half")
	os.Mkdir(firstHalf, 0o755)
	if r := runCLI(t, "pickle", "resave", pattern+":0:5", firstHalf, defs); r.code != 0 {
		t.Fatalf("first half: %+v", r)
	}
	copyInto := func(t *testing.T, from, to string) {
		for name, b := range snapshot(t, from) {
			if err := os.WriteFile(filepath.Join(to, name), b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	atomicFiles := func(t *testing.T, left, before, want map[string][]byte) bool {
		done := len(want) > 0
		for name, b := range left {
			switch {
			case bytes.Equal(b, want[name]):
			case bytes.Equal(b, before[name]) && before[name] != nil:
				done = false
			case strings.HasPrefix(name, "."): // a temporary file the kill left
				done = false
			default:
				t.Errorf("after a kill %s holds %d bytes: neither the old nor the new content", name, len(b))
			}
		}
		for name := range want {
			if _, ok := left[name]; !ok {
				done = false
			}
		}
		return done
	}
	scenarios := []killScenario{
		{name: "resave", args: []string{"pickle", "resave", pattern + ":0:11", "out", defs}, out: "out",
			setup: func(t *testing.T, work string) { os.Mkdir(filepath.Join(work, "out"), 0o755) }, during: atomicFiles},
		{name: "resave --merge", args: []string{"pickle", "resave", "--merge", pattern + ":6:11", "out", defs}, out: "out",
			setup: func(t *testing.T, work string) {
				os.Mkdir(filepath.Join(work, "out"), 0o755)
				copyInto(t, firstHalf, filepath.Join(work, "out"))
			}, during: atomicFiles},
		{name: "resave --compat", args: []string{"pickle", "resave", "--compat", pattern + ":0:11", "out", defs}, out: "out",
			setup: func(t *testing.T, work string) { os.Mkdir(filepath.Join(work, "out"), 0o755) },
			during: func(t *testing.T, left, before, want map[string][]byte) bool {
				// the original appends to <definition>.tmp.pkl while reading: those may be
				// partial; the resaved files themselves are written whole
				for name := range left {
					if strings.HasSuffix(name, ".tmp.pkl") {
						delete(left, name)
					}
				}
				atomicFiles(t, left, before, want)
				return false // compat always runs again: it overwrites
			}},
		{name: "edit", args: []string{"pickle", "edit", "large.pkl", "0:delete:1:3,1:rewardize:2:0.5,-1:remove"}, out: ".",
			setup: func(t *testing.T, work string) {
				b, err := os.ReadFile(large)
				if err != nil {
					t.Fatal(err)
				}
				os.WriteFile(filepath.Join(work, "large.pkl"), b, 0o644)
			}, during: atomicFiles},
	}
	total := 0
	for _, sc := range scenarios {
		t.Run(strings.ReplaceAll(sc.name, " ", "_"), func(t *testing.T) {
			// the uninterrupted run, timed
			ref := filepath.Join(t.TempDir(), "ref")
			os.Mkdir(ref, 0o755)
			sc.setup(t, ref)
			before := snapshot(t, filepath.Join(ref, sc.out))
			start := time.Now()
			if out, err := cliCommand(t, ref, sc.args...).CombinedOutput(); err != nil {
				t.Fatalf("uninterrupted run: %v\n%s", err, out)
			}
			took := time.Since(start)
			want := snapshot(t, filepath.Join(ref, sc.out))
			rng := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 1))
			for k := 0; k < kills; k++ {
				work := filepath.Join(t.TempDir(), "work")
				os.Mkdir(work, 0o755)
				sc.setup(t, work)
				cmd := cliCommand(t, work, sc.args...)
				if err := cmd.Start(); err != nil {
					t.Fatal(err)
				}
				at := time.Duration(rng.Int64N(int64(took)))
				time.Sleep(at)
				cmd.Process.Kill() // SIGKILL: nothing runs after it
				cmd.Wait()
				left := snapshot(t, filepath.Join(work, sc.out))
				leftNames := names(left)
				done := sc.during(t, left, before, want)
				if !done {
					out, err := cliCommand(t, work, sc.args...).CombinedOutput()
					if err != nil {
						t.Fatalf("kill %d at %v: the run after it failed: %v\n%s", k, at, err, out)
					}
				}
				got := snapshot(t, filepath.Join(work, sc.out))
				if names(got) != names(want) {
					t.Fatalf("kill %d at %v (left %s): files %s, want %s", k, at, leftNames, names(got), names(want))
				}
				for name, b := range want {
					if !bytes.Equal(got[name], b) {
						t.Fatalf("kill %d at %v: %s differs from the uninterrupted run's", k, at, name)
					}
				}
				t.Logf("kill %d at %v of %v: left [%s]; %s", k, at.Round(time.Millisecond), took.Round(time.Millisecond), leftNames,
					map[bool]string{true: "already complete", false: "the run after it completed it"}[done])
				total++
			}
		})
	}
	t.Logf("%d kills survived (%d per command, %d MB of data)", total, kills, size>>20)
}
