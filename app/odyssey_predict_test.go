package app

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"

	"github.com/agentdesk/agentdesk/engine/modelclient/fakeserver"
	"github.com/agentdesk/agentdesk/engine/odyssey"
	"github.com/agentdesk/agentdesk/store"
)

// fakeModel answers like an agent model, deterministically from the question: a click, a
// typed text, a scroll or a button, so that the predictions score to something between 0 and
// 100.
func fakeModel(r fakeserver.Request) string {
	h := fnv.New32a()
	h.Write([]byte(r.Text()))
	for _, img := range r.Images() {
		h.Write([]byte(img[:min(len(img), 200)]))
	}
	v := h.Sum32()
	switch v % 5 {
	case 0:
		return fmt.Sprintf("CLICK: (%d, %d)", v%1000, (v/1000)%1000)
	case 1:
		return "TYPE: hello"
	case 2:
		return "SCROLL: UP"
	case 3:
		return " PRESS_BACK<|im_end|>"
	}
	return "COMPLETE"
}

// predictDataset generates and imports a dataset; it returns the store, the split with the
// most test records and their number.
func predictDataset(t *testing.T, dir string, episodes int) (db, split string, records int) {
	t.Helper()
	if _, err := odyssey.Generate(context.Background(), filepath.Join(dir, "ody"), odyssey.GenerateOptions{Episodes: episodes, Seed: 7}); err != nil {
		t.Fatal(err)
	}
	db = filepath.Join(dir, "s.db")
	if r := runCLI(t, "--store", db, "odyssey", "import", filepath.Join(dir, "ody")); r.code != 0 {
		t.Fatalf("import: %+v", r)
	}
	st, err := store.Open(db)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	for _, name := range []string{"random_split", "app_split", "device_split", "task_split"} {
		recs, err := st.OdysseyTestRecords(context.Background(), name, odyssey.LevelHigh)
		if err != nil {
			t.Fatal(err)
		}
		if len(recs) > records {
			split, records = name, len(recs)
		}
	}
	return db, split, records
}

// TestOdysseyPredictResumesAfterAKill: a model run over a split is stopped by SIGTERM, then by
// SIGINT, then killed (SIGKILL) part-way, then run to the end: the predictions file is complete, has each
// record once, is the very file one uninterrupted run writes, and scores the same; no record
// answered before a stop is asked again; the API key is nowhere in the store or the output.
// `make test` runs it on ~190 records (40 episodes), `make reliability` on 2,012
// (AGENTDESK_PREDICT_EPISODES=520), 32 requests in flight.
func TestOdysseyPredictResumesAfterAKill(t *testing.T) {
	dir := isolate(t)
	episodes := 40
	if n, err := strconv.Atoi(os.Getenv("AGENTDESK_PREDICT_EPISODES")); err == nil && n > 0 {
		episodes = n
	}
	db, split, total := predictDataset(t, dir, episodes)
	t.Logf("split %s: %d test records", split, total)
	const key = "sk-agentdesk-test-5f2c9a71e0"
	t.Setenv("AGENTDESK_API_KEY", key)

	var stopAt atomic.Int64 // hold requests past this count (0: none) until the process is stopped
	stopNow := make(chan struct{}, 1)
	// asked counts the requests of each record (by its prompt's text) while counting is on
	var (
		askedMu  sync.Mutex
		asked    map[string]int
		counting atomic.Bool
	)
	srv := fakeserver.New(fakeserver.Options{Key: key, Answer: fakeModel, Behave: func(c fakeserver.Call) fakeserver.Reply {
		if counting.Load() {
			askedMu.Lock()
			asked[c.Request.Text()]++
			askedMu.Unlock()
		}
		if at := stopAt.Load(); at > 0 && int64(c.N) >= at {
			if int64(c.N) == at {
				stopNow <- struct{}{}
			}
			return fakeserver.Reply{Kind: fakeserver.Hang}
		}
		return fakeserver.OK("")
	}})
	defer srv.Close()
	predictArgs := func(out string) []string {
		return []string{"--store", db, "odyssey", "predict", "--split", split, "--url", srv.URL, "--model", "fake-agent",
			"--concurrency", "32", "--retries", "0", out}
	}

	// One uninterrupted run.
	whole := filepath.Join(dir, "whole.json")
	asked = map[string]int{}
	counting.Store(true)
	r := runCLI(t, predictArgs(whole)...)
	counting.Store(false)
	if r.code != 0 || !strings.Contains(r.stdout, fmt.Sprintf("wrote %d predictions", total)) {
		t.Fatalf("uninterrupted run: %+v", r)
	}
	if srv.Count() != total {
		t.Fatalf("%d requests for %d records", srv.Count(), total)
	}
	if len(asked) != total {
		t.Fatalf("%d different prompts for %d records: the prompt's text cannot name a record here", len(asked), total)
	}

	// The same into another file, stopped twice.
	exe, _ := os.Executable()
	resumed := filepath.Join(dir, "resumed.json")
	stopped := func(sig syscall.Signal, after int) string {
		base := srv.Count()
		stopAt.Store(int64(base + after))
		cmd := exec.Command(exe, predictArgs(resumed)...)
		cmd.Env = append(os.Environ(), "AGENTDESK_TEST_AS_CLI=1")
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		<-stopNow
		cmd.Process.Signal(sig)
		err := cmd.Wait()
		stopAt.Store(0)
		code := cmd.ProcessState.ExitCode()
		if sig == syscall.SIGTERM && code != 143 || sig == syscall.SIGINT && code != 130 || sig == syscall.SIGKILL && err == nil {
			t.Fatalf("%v: exit %d (%v)\n%s", sig, code, err, stderr.String())
		}
		return stderr.String()
	}
	quarter := total / 4
	var msgs string
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGINT} {
		msg := stopped(sig, quarter)
		msgs += msg
		if !regexp.MustCompile(`stopped by ` + signalName(sig) + `; \d+ of \d+ records kept; run again to resume`).MatchString(msg) {
			t.Fatalf("%v words: %s", sig, msg)
		}
	}
	stopped(syscall.SIGKILL, quarter)
	if _, err := os.Stat(resumed); err == nil {
		t.Fatal("a stopped run wrote the predictions file")
	}
	st, err := store.OpenWith(db, store.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	runs, err := st.PredictRuns(context.Background())
	st.Close()
	if err != nil || len(runs) != 2 {
		t.Fatalf("runs %+v %v", runs, err)
	}
	before := runs[0].Answered
	if before == 0 || before >= total {
		t.Fatalf("%d of %d answered before the last run", before, total)
	}
	askedMu.Lock()
	asked = map[string]int{}
	askedMu.Unlock()
	counting.Store(true)
	r = runCLI(t, predictArgs(resumed)...)
	counting.Store(false)
	if r.code != 0 || !strings.Contains(r.stderr, fmt.Sprintf("resuming: %d of %d", before, total)) {
		t.Fatalf("resumed run: %+v", r)
	}
	// The last run asks exactly the records without an answer. A request the killed process
	// had sent may still reach the server now (it is in the socket's queue): it is for a record
	// without an answer too, which the last run then asks again; at most one per request that
	// was in flight (32).
	askedMu.Lock()
	late := 0
	for _, n := range asked {
		if n > 2 {
			t.Errorf("a record was asked %d times in the last run", n)
		}
		late += n - 1
	}
	if len(asked) != total-before || late > 32 {
		t.Fatalf("the last run asked %d different records (%d twice: requests of the killed process); %d had no answer", len(asked), late, total-before)
	}
	askedMu.Unlock()

	// The file: every record once, as the uninterrupted run wrote it.
	a, _ := os.ReadFile(whole)
	b, _ := os.ReadFile(resumed)
	var samples []map[string]any
	if err := json.Unmarshal(b, &samples); err != nil || len(samples) != total {
		t.Fatalf("%d samples, %v", len(samples), err)
	}
	seen := map[string]bool{}
	for _, s := range samples {
		q := s["question"].(string)
		if seen[q] {
			t.Fatalf("a record twice: %.80s", q)
		}
		seen[q] = true
		if len(s) != 4 || s["more_info"] == nil {
			t.Fatalf("fields %v", s)
		}
	}
	if !bytes.Equal(a, b) {
		t.Fatal("the resumed file differs from the uninterrupted one")
	}
	sa := runCLI(t, "--store", db, "odyssey", "score", "--split", split, "--mode", "lenient", "--json", whole)
	sb := runCLI(t, "--store", db, "odyssey", "score", "--split", split, "--mode", "lenient", "--json", resumed)
	if sa.code != 0 || sa.stdout != sb.stdout || !strings.Contains(sa.stdout, "AMS") {
		t.Fatalf("scores differ:\n%s\n%s\n%s", sa.stdout, sb.stdout, sb.stderr)
	}

	// The key: sent to the server, stored nowhere.
	if auth := srv.Authorizations(); len(auth) == 0 || auth[0] != "Bearer "+key {
		t.Fatalf("authorization %q", auth[:min(1, len(auth))])
	}
	files, _ := filepath.Glob(db + "*")
	for _, f := range append(files, whole) {
		data, _ := os.ReadFile(f)
		if bytes.Contains(data, []byte(key)) {
			t.Fatalf("the API key is in %s", f)
		}
	}
	for _, s := range []string{r.stdout, r.stderr, msgs} {
		if strings.Contains(s, key) {
			t.Fatalf("the API key is in the output: %s", s)
		}
	}
}
