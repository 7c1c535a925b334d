package web

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	ev "github.com/agentdesk/agentdesk/engine/evaluation"
)

// withClock serves the harness's project again from a server on clock.
func (h *harness) withClock(clock *testClock) {
	h.t.Helper()
	h.clock = clock
	h.start()
}

var firstInputs = regexp.MustCompile(`(?s)<fieldset class="group".*?</fieldset>`)

// finishUnits answers every page the participant is shown (the first choice of each
// question, the clock moved on by step before each answer and before Next) until the page is
// no longer a unit's page (a unit's thank-you is passed).
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
			clock.Advance(step)
			c.do(e)
		}
		clock.Advance(step)
		c.do(vals("do", "next"))
		if strings.Contains(c.page, `name="do" value="continue"`) { // the unit's thank-you
			c.do(vals("do", "continue"))
		}
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

// getFull loads a URL in the client's browser and returns the response's policy and body.
func (c *client) getFull(t *testing.T, u string) (string, string) {
	t.Helper()
	resp, err := c.c.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.Header.Get("Content-Security-Policy"), string(b)
}

func oneUnitEach(p *ev.Project) {
	p.Settings.UseScreening = false
	p.Settings.MaximumUnitsPerWorker = 1
}

// An MTurk worker through the study link: the site's ids are kept; at the end the page shows
// the worker's own completion code and a form posting the assignment to MTurk's sandbox, and
// that page alone may post there. A fragment asks for the whole page.
func TestMTurkWorkerSubmitsTheAssignment(t *testing.T) {
	h := serveExample(t, "flags", oneUnitEach)
	clock := &testClock{now: time.Date(2026, 12, 6, 9, 0, 0, 0, time.UTC)}
	h.withClock(clock)
	ctx := context.Background()
	study, _ := h.srv.StudyLink(ctx)
	c := h.browser(study + "&assignmentId=A-17&hitId=H-3&turkSubmitTo=" + url.QueryEscape("https://workersandbox.mturk.com") + "&workerId=W-9")
	if c.open(); c.lastStatus != 200 {
		t.Fatalf("the link answers %d:\n%s", c.lastStatus, c.page)
	}
	policy, _ := c.getFull(t, c.link)
	if !strings.Contains(policy, "form-action 'self';") {
		t.Fatalf("a work page's policy lets forms post elsewhere: %s", policy)
	}
	c.finishUnits(t, clock, 3*time.Second)
	sv, err := h.st.EvalServing(ctx, h.proj.ID)
	if err != nil {
		t.Fatal(err)
	}
	code := ev.CompletionCode(sv.Secret, h.proj.ID, "W-9")
	for _, want := range []string{`id="completion-code">` + code + `<`, `action="https://workersandbox.mturk.com/mturk/externalSubmit"`,
		`name="assignmentId" value="A-17"`, `name="completion_code" value="` + code + `"`} {
		if !strings.Contains(c.page, want) {
			t.Errorf("the completion page lacks %s:\n%s", want, c.page)
		}
	}
	policy, page := c.getFull(t, c.link)
	if !strings.Contains(policy, "form-action 'self' https://workersandbox.mturk.com;") || !strings.Contains(page, "mturk-submit") {
		t.Errorf("the completion page's policy: %s", policy)
	}
	if _, frag := c.getFull(t, h.ts.URL+"/fragment?"+c.query()); !strings.Contains(frag, `data-reload="1"`) {
		t.Errorf("the completion fragment does not ask for the whole page:\n%s", frag)
	}
	ids, err := h.st.EvalCrowdIDs(ctx, h.proj.ID)
	if err != nil {
		t.Fatal(err)
	}
	var got []ev.CrowdIDs
	for _, l := range ids {
		got = append(got, l...)
	}
	if len(got) != 1 || got[0].Site != ev.SiteMTurk || got[0].HitID != "H-3" || got[0].AssignmentID != "A-17" ||
		got[0].SubmitTo != "https://workersandbox.mturk.com" || got[0].FirstSeen.IsZero() {
		t.Fatalf("stored ids %+v", got)
	}
	if !ev.VerifyCompletionCode(sv.Secret, h.proj.ID, "W-9", strings.ToLower(code)) || ev.VerifyCompletionCode(sv.Secret, h.proj.ID, "W-8", code) {
		t.Error("the code does not verify for its worker only")
	}
}

// A turkSubmitTo that is not MTurk's own is ignored: no form, no other origin in the policy.
func TestForeignTurkSubmitToIsIgnored(t *testing.T) {
	for i, bad := range []string{"https://evil.example", "https://www.mturk.com.evil.example", "http://www.mturk.com",
		"https://www.mturk.com/x", "https://user@www.mturk.com", "javascript:alert(1)"} {
		h := serveExample(t, "flags", oneUnitEach)
		clock := &testClock{now: time.Date(2026, 12, 6, 9, 0, 0, 0, time.UTC)}
		h.withClock(clock)
		study, _ := h.srv.StudyLink(context.Background())
		c := h.browser(study + "&assignmentId=A1&hitId=H1&turkSubmitTo=" + url.QueryEscape(bad) + "&workerId=W" + itoa(i))
		c.open()
		c.finishUnits(t, clock, time.Second)
		policy, page := c.getFull(t, c.link)
		if strings.Contains(page, "mturk-submit") || strings.Contains(page, "evil") || !strings.Contains(policy, "form-action 'self';") {
			t.Errorf("%s: the completion page offers a submit (policy %s):\n%s", bad, policy, page)
		}
		if !strings.Contains(page, `id="completion-code"`) {
			t.Errorf("%s: no completion code:\n%s", bad, page)
		}
	}
}

// A Prolific participant of a project with a static completion code sees that code (the one
// the site reads) and their own code beside it; the site's ids are kept.
func TestProlificParticipantSeesBothCodes(t *testing.T) {
	h := serveExample(t, "flags", func(p *ev.Project) { oneUnitEach(p); p.Settings.CompletionCode = "C1ABCD" })
	clock := &testClock{now: time.Date(2026, 12, 6, 9, 0, 0, 0, time.UTC)}
	h.withClock(clock)
	ctx := context.Background()
	study, _ := h.srv.StudyLink(ctx)
	c := h.browser(study + "&PROLIFIC_PID=5f1a&STUDY_ID=st-1&SESSION_ID=se-2")
	c.open()
	c.finishUnits(t, clock, time.Second)
	sv, _ := h.st.EvalServing(ctx, h.proj.ID)
	own := ev.CompletionCode(sv.Secret, h.proj.ID, "5f1a")
	if !strings.Contains(c.page, `id="completion-code">C1ABCD<`) || !strings.Contains(c.page, `id="participant-code">`+own+`<`) {
		t.Fatalf("the completion page:\n%s", c.page)
	}
	ids, _ := h.st.EvalCrowdIDs(ctx, h.proj.ID)
	var got []ev.CrowdIDs
	for _, l := range ids {
		got = append(got, l...)
	}
	if len(got) != 1 || got[0].Site != ev.SiteProlific || got[0].StudyID != "st-1" || got[0].SessionID != "se-2" {
		t.Fatalf("stored ids %+v", got)
	}
}

// A participant who failed screening (holds the block qualification) sees the project's
// screen-out code and link.
func TestScreenedOutParticipantSeesTheScreenOutCode(t *testing.T) {
	h := serveExample(t, "flags", func(p *ev.Project) {
		p.Settings.ScreenOutCode = "SCREENED-7"
		p.Settings.ScreenOutURL = "https://app.prolific.example/submissions/complete?cc=SCREENED-7"
	})
	ctx := context.Background()
	if page := h.participant("w0").open(); strings.Contains(page, "SCREENED-7") {
		t.Fatalf("the screen-out code shows before screening:\n%s", page)
	}
	sum, err := h.st.EvalSignIn(ctx, h.proj.ID, "w1")
	if err != nil {
		t.Fatal(err)
	}
	if err := h.st.SetEvalQualification(ctx, sum.ID, h.proj.BlockName(), 1); err != nil {
		t.Fatal(err)
	}
	page := h.participant("w1").open()
	if !strings.Contains(page, `id="screen-out-code">SCREENED-7<`) || !strings.Contains(page, `id="screen-out-link" href="https://app.prolific.example/submissions/complete?cc=SCREENED-7"`) {
		t.Fatalf("the blocked participant's page:\n%s", page)
	}
	if strings.Contains(page, "completion-code") {
		t.Fatalf("a blocked participant is shown a completion code:\n%s", page)
	}
}
