package app

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"

	"github.com/agentdesk/agentdesk/engine/evaluation/annotate/annotatetest"
	"github.com/agentdesk/agentdesk/engine/modelclient/fakeserver"
	"github.com/agentdesk/agentdesk/engine/samples"
)

// `eval annotate` against a fake server finishes the sample project's units (after passing
// its screening), running it again finds nothing left, `eval stats --json` lists the model
// beside the people with the agreements between them, and the key is in neither the store nor
// the output.
func TestEvalAnnotateSample(t *testing.T) {
	dir := isolate(t)
	db := filepath.Join(dir, "s.db")
	if r := runCLI(t, "--store", db, "samples", "load"); r.code != 0 {
		t.Fatalf("samples load: %s%s", r.stdout, r.stderr)
	}
	p, err := samples.EvaluationProject()
	if err != nil {
		t.Fatal(err)
	}
	o := annotatetest.Oracle{Project: p}
	const key = "sk-annotate-secret-0123"
	srv := fakeserver.New(fakeserver.Options{Answer: func(r fakeserver.Request) string { return o.Answer(r.Text()) }, Key: key})
	defer srv.Close()
	t.Setenv("AGENTDESK_API_KEY", key)
	project := "Sample chat evaluation"
	r := runCLI(t, "--store", db, "eval", "annotate", "--url", srv.URL, "--model", "fake-1", "--units", "3", project)
	if r.code != 0 || !strings.Contains(r.stdout, "3 units") || !strings.Contains(r.stdout, "screening: passed") {
		t.Fatalf("eval annotate --units 3: %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	t.Log(r.stdout)
	r = runCLI(t, "--store", db, "eval", "annotate", "--url", srv.URL, "--model", "fake-1", "--concurrency", "8", project)
	if r.code != 0 || !strings.Contains(r.stdout, "4 units") || !strings.Contains(r.stdout, "no more work") {
		t.Fatalf("eval annotate again: %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	t.Log(r.stdout)
	n := srv.Count()
	r = runCLI(t, "--store", db, "eval", "annotate", "--url", srv.URL, "--model", "fake-1", project)
	if r.code != 0 || srv.Count() != n || !strings.Contains(r.stdout, "0 units") {
		t.Fatalf("a third run asked again: %d requests\n%s%s", srv.Count()-n, r.stdout, r.stderr)
	}
	parts := runCLI(t, "--store", db, "eval", "participants", project)
	if !strings.Contains(parts.stdout, "model:fake-1 (model fake-1)  7") {
		t.Errorf("participants:\n%s", parts.stdout)
	}
	s := runCLI(t, "--store", db, "eval", "stats", "--json", project)
	if s.code != 0 {
		t.Fatalf("eval stats: %s%s", s.stdout, s.stderr)
	}
	var stats struct {
		Annotators []struct{ Name, Kind, Model string } `json:"annotators"`
		Labels     []struct {
			Label       string `json:"label"`
			AgreementOf string `json:"agreement_of"`
			Items       int    `json:"items"`
			Groups      []struct {
				Between string   `json:"between"`
				Items   int      `json:"items"`
				Alpha   *float64 `json:"alpha"`
			} `json:"groups"`
		} `json:"labels"`
	}
	if err := json.Unmarshal([]byte(s.stdout), &stats); err != nil {
		t.Fatal(err)
	}
	kinds := map[string]string{}
	for _, a := range stats.Annotators {
		kinds[a.Name] = a.Kind + ":" + a.Model
	}
	if kinds["model:fake-1"] != "model:fake-1" || len(kinds) != 3 {
		t.Fatalf("annotators %v", stats.Annotators)
	}
	withAlpha := 0
	for _, l := range stats.Labels {
		if l.AgreementOf != "people" || len(l.Groups) != 1 || l.Groups[0].Between != "models and people" {
			t.Fatalf("label %+v", l)
		}
		// every item of the sample is annotated by the two people and the model
		if g := l.Groups[0]; g.Items != l.Items {
			t.Errorf("%s: %d items between models and people, %d between people", l.Label, g.Items, l.Items)
		}
		if l.Groups[0].Alpha != nil {
			withAlpha++
		}
	}
	if withAlpha == 0 {
		t.Error("no label has an alpha between the model and people")
	}
	text := runCLI(t, "--store", db, "eval", "stats", project).stdout
	if !strings.Contains(text, "Agreement involving models") || !strings.Contains(text, "model:fake-1 (model fake-1)") {
		t.Errorf("eval stats:\n%s", text)
	}
	for _, out := range []string{r.stdout, r.stderr, s.stdout, text} {
		if strings.Contains(out, key) {
			t.Fatal("the API key is in the output")
		}
	}
	for _, f := range []string{db, db + "-wal"} {
		if data, err := os.ReadFile(f); err == nil && bytes.Contains(data, []byte(key)) {
			t.Fatalf("the API key is in %s", f)
		}
	}
	t.Log(r.stdout, text)
}

// TestEvalAnnotateStopsOnSIGTERM: a model run stopped by SIGTERM (or SIGINT) part-way exits 143
// (130) saying what it kept; the same command run again finishes the units without asking again for a page that
// was answered.
func TestEvalAnnotateStopsOnSIGTERM(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGINT} {
		want := 143
		if sig == syscall.SIGINT {
			want = 130
		}
		t.Run(signalName(sig), func(t *testing.T) {
			dir := isolate(t)
			db := filepath.Join(dir, "s.db")
			if r := runCLI(t, "--store", db, "samples", "load"); r.code != 0 {
				t.Fatalf("samples load: %s%s", r.stdout, r.stderr)
			}
			p, err := samples.EvaluationProject()
			if err != nil {
				t.Fatal(err)
			}
			o := annotatetest.Oracle{Project: p}
			const hangAt = 12
			stopNow := make(chan struct{}, 1)
			var answered sync.Map // prompts answered
			srv := fakeserver.New(fakeserver.Options{Answer: func(r fakeserver.Request) string {
				answered.Store(r.Text(), true)
				return o.Answer(r.Text())
			}, Behave: func(c fakeserver.Call) fakeserver.Reply {
				if c.N == hangAt {
					stopNow <- struct{}{}
				}
				if c.N >= hangAt && c.N < 1000 {
					return fakeserver.Reply{Kind: fakeserver.Hang}
				}
				return fakeserver.OK("")
			}})
			defer srv.Close()
			defer srv.Release()
			t.Setenv("AGENTDESK_API_KEY", "")
			project := "Sample chat evaluation"
			args := []string{"--store", db, "eval", "annotate", "--url", srv.URL, "--model", "fake-1", "--concurrency", "1", project}
			exe, _ := os.Executable()
			cmd := exec.Command(exe, args...)
			cmd.Env = append(os.Environ(), "AGENTDESK_TEST_AS_CLI=1")
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			<-stopNow
			cmd.Process.Signal(sig)
			cmd.Wait()
			if code := cmd.ProcessState.ExitCode(); code != want || !regexp.MustCompile(`stopped by `+signalName(sig)+`; \d+ units? and \d+ pages? answered in this run are kept in the store; run it again to continue`).MatchString(stderr.String()) {
				t.Fatalf("exit %d: %s", code, stderr.String())
			}
			before := srv.Count()
			// the requests from now on answer; none may repeat a prompt already answered
			var repeated atomic.Int64
			srv2 := fakeserver.New(fakeserver.Options{Answer: func(r fakeserver.Request) string {
				if _, ok := answered.Load(r.Text()); ok {
					repeated.Add(1)
					t.Logf("asked again: %s", promptKey(r.Text()))
				}
				return o.Answer(r.Text())
			}})
			defer srv2.Close()
			args[5] = srv2.URL
			r := runCLI(t, args...)
			if r.code != 0 || !strings.Contains(r.stdout, "no more work") {
				t.Fatalf("run again: %d\n%s%s", r.code, r.stdout, r.stderr)
			}
			parts := runCLI(t, "--store", db, "eval", "participants", project)
			if !strings.Contains(parts.stdout, "model:fake-1 (model fake-1)  7") {
				t.Errorf("participants after the resumed run:\n%s", parts.stdout)
			}
			if repeated.Load() != 0 {
				t.Errorf("%d pages answered before the stop were asked again", repeated.Load())
			}
			t.Logf("%d requests before the stop, %d after; %s", before, srv2.Count(), strings.TrimSpace(stderr.String()))
		})
	}
}

// promptKey names a page's prompt by its task and the dialogue's second turn.
func promptKey(tx string) string {
	a := tx[strings.Index(tx, "# Task"):]
	b := tx[strings.Index(tx, "[2]"):]
	return a[:strings.Index(a, "\n")] + " " + b[:min(50, len(b))]
}
