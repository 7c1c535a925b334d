package web

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	ev "github.com/agentdesk/agentdesk/engine/evaluation"
)

// testClock is an injected clock the test moves by hand.
type testClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *testClock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.now }
func (c *testClock) add(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

// withClock serves the harness's project again from a server whose sessions use clock.
func (h *harness) withClock(clock *testClock) {
	h.t.Helper()
	h.ts.Close()
	h.srv.Close()
	h.ts = httptest.NewUnstartedServer(nil)
	srv, err := New(context.Background(), Options{Store: h.st, Project: h.proj, BaseURL: "http://" + h.ts.Listener.Addr().String(),
		Now: clock.Now, Logf: h.t.Logf})
	if err != nil {
		h.t.Fatal(err)
	}
	h.srv = srv
	h.ts.Config.Handler = srv.Handler()
	h.ts.Start()
	h.t.Cleanup(func() { h.ts.Close(); srv.Close() })
}

var firstInputs = regexp.MustCompile(`(?s)<fieldset class="group".*?</fieldset>`)

// finishUnits answers every page the participant is shown (the first choice of each
// question, the clock moved on by step before each answer and before Next) until the page is
// no longer a unit's page.
func (c *client) finishUnits(t *testing.T, clock *testClock, step time.Duration) {
	t.Helper()
	for guard := 0; guard < 60 && strings.Contains(c.page, `data-screen="page"`); guard++ {
		for _, fs := range firstInputs.FindAllString(c.page, -1) {
			if strings.Contains(fs, " checked") {
				continue
			}
			m := inputRe.FindStringSubmatch(fs)
			if m == nil {
				continue
			}
			saved := c.page
			c.page = fs
			e := c.firstChoice()
			c.page = saved
			clock.add(step)
			c.do(e)
		}
		clock.add(step)
		c.do(vals("do", "next"))
	}
	if strings.Contains(c.page, `data-screen="page"`) {
		t.Fatalf("the unit did not end:\n%s", c.page)
	}
}

// A participant id made to be a spreadsheet formula goes through the study link, answers and
// the CSV export: the export neutralises it (and keeps the rest); answers carry when they were
// given, when their page was left and how long it was on show, by the sessions' clock.
func TestExportsAreSafeForSpreadsheetsAndTimed(t *testing.T) {
	h := serveExample(t, "flags", func(p *ev.Project) { p.Settings.UseScreening = false; p.Settings.MaximumUnitsPerWorker = 1 })
	clock := &testClock{now: time.Date(2026, 12, 6, 9, 0, 0, 0, time.UTC)}
	h.withClock(clock)
	ctx := context.Background()
	study, err := h.srv.StudyLink(ctx)
	if err != nil {
		t.Fatal(err)
	}
	evil := `=HYPERLINK("http://evil.example/x")`
	c := h.browser(study + "&PROLIFIC_PID=" + url.QueryEscape(evil))
	if c.open(); c.lastStatus != 200 || !strings.Contains(c.page, `data-screen="page"`) {
		t.Fatalf("the study link answers %d:\n%s", c.lastStatus, c.page)
	}
	c.finishUnits(t, clock, 7*time.Second)

	p, results, err := h.st.EvalResults(ctx, h.proj.ID)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if _, err := ev.ExportResults(p, results, "csv", filepath.Join(dir, "a.csv"), false); err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	rows := ev.AnswerRows(flatten(results), nil)
	if err := ev.WriteCSV(&buf, rows); err != nil {
		t.Fatal(err)
	}
	if written, err := os.ReadFile(filepath.Join(dir, "a.csv")); err != nil || !bytes.Equal(written, buf.Bytes()) {
		t.Fatalf("eval export's file differs from WriteCSV's rows (%v):\n%s", err, written)
	}
	recs, err := csv.NewReader(&buf).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) < 2 {
		t.Fatalf("no answer rows: %v", recs)
	}
	header := strings.Join(recs[0], ",")
	if want := "participant,attempt,kind,dialogue,dialogue_id,section,turn,agent_idx,key,value,answered_at,page_submitted_at,seconds_on_page,submitted_at"; header != want {
		t.Fatalf("header %s, want %s", header, want)
	}
	for _, r := range recs[1:] {
		if r[0] != "'"+evil {
			t.Fatalf("participant cell %q, want %q", r[0], "'"+evil)
		}
		answered, err := time.Parse(time.RFC3339, r[10])
		if err != nil || answered.Location() != time.UTC || answered.Before(clock.now.Add(-time.Hour)) || answered.After(clock.now) {
			t.Errorf("answered_at %q is not an RFC 3339 UTC time of the session's clock (%v)", r[10], err)
		}
		left, err := time.Parse(time.RFC3339, r[11])
		if err != nil || left.Before(answered) {
			t.Errorf("page_submitted_at %q is not after the answer %q", r[11], r[10])
		}
		// Every page: an answer per question 7 s apart, then Next 7 s later; a page is on show
		// for a multiple of 7 s (at least 14 s).
		var secs float64
		if err := json.Unmarshal([]byte(r[12]), &secs); err != nil || secs < 14 || int(secs*1000)%7000 != 0 {
			t.Errorf("seconds_on_page %q", r[12])
		}
		if _, err := time.Parse(time.RFC3339, r[13]); err != nil {
			t.Errorf("submitted_at %q: %v", r[13], err)
		}
	}
	// JSON lines carry the same keys.
	var jl bytes.Buffer
	if err := ev.WriteJSONL(&jl, rows); err != nil {
		t.Fatal(err)
	}
	var first map[string]any
	json.Unmarshal(bytes.SplitN(jl.Bytes(), []byte("\n"), 2)[0], &first)
	for _, k := range []string{"answered_at", "page_submitted_at", "seconds_on_page", "submitted_at"} {
		if _, ok := first[k]; !ok {
			t.Errorf("JSON line lacks %s: %v", k, first)
		}
	}
	if first["participant"] != evil {
		t.Errorf("JSON lines keep the id as it is: %v", first["participant"])
	}
}

func flatten(results []ev.AssignmentResult) []ev.AttemptResult {
	var out []ev.AttemptResult
	for _, a := range results {
		out = append(out, a.Attempts...)
	}
	return out
}
