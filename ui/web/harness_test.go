package web

import (
	"context"
	"encoding/json"
	"html"
	"io"
	"net"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	ev "github.com/agentdesk/agentdesk/engine/evaluation"
	"github.com/agentdesk/agentdesk/engine/evaluation/session"
	"github.com/agentdesk/agentdesk/store"
)

const example = "../../testdata/conformance/evaluation/example-project"

// harness is a project served over loopback from a fresh store.
type harness struct {
	t    *testing.T
	st   *store.Store
	proj *session.Project
	srv  *Server
	ts   *httptest.Server
	// clock, when set, is the server's clock (sessions, rate limits, reclaiming)
	clock *testClock
}

// testClock is a clock a test moves.
type testClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *testClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *testClock) Advance(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

// serveExampleClocked is serveExample on a clock the test moves.
func serveExampleClocked(t *testing.T, config string, edit func(*ev.Project)) (*harness, *testClock) {
	t.Helper()
	clock := &testClock{now: time.Now()}
	h := newHarness(t, config, edit)
	h.clock = clock
	h.start()
	return h, clock
}

// serveExample imports the example project with a configuration, lets edit change it, and
// serves it.
func serveExample(t *testing.T, config string, edit func(*ev.Project)) *harness {
	t.Helper()
	h := newHarness(t, config, edit)
	h.start()
	return h
}

func newHarness(t *testing.T, config string, edit func(*ev.Project)) *harness {
	t.Helper()
	p, _, err := ev.ImportOriginal(example, ev.ImportOptions{Config: config})
	if err != nil {
		t.Fatal(err)
	}
	if edit != nil {
		edit(p)
	}
	st, err := store.Open(filepath.Join(t.TempDir(), "study.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	ctx := context.Background()
	id, err := st.SaveEvalProject(ctx, "demo", "imported", example, p, "")
	if err != nil {
		t.Fatal(err)
	}
	saved, err := st.EvalProject(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	return &harness{t: t, st: st, proj: session.NewProject(id, "demo", saved)}
}

// start (re)starts the server on the harness's store, as a restart of the app would.
func (h *harness) start() {
	h.t.Helper()
	prev := ""
	if h.ts != nil {
		prev = h.ts.Listener.Addr().String()
		h.ts.Close()
		h.srv.Close()
	}
	h.ts = httptest.NewUnstartedServer(nil)
	if prev != "" { // the same address, so that links keep working
		ln, err := net.Listen("tcp", prev)
		if err != nil {
			h.t.Fatal(err)
		}
		h.ts.Listener.Close()
		h.ts.Listener = ln
	}
	opts := Options{Store: h.st, Project: h.proj, BaseURL: "http://" + h.ts.Listener.Addr().String(), Logf: h.t.Logf}
	if h.clock != nil {
		opts.Now, opts.ReclaimEvery = h.clock.Now, -1 // the test reclaims
	}
	srv, err := New(context.Background(), opts)
	if err != nil {
		h.t.Fatal(err)
	}
	h.srv = srv
	h.ts.Config.Handler = srv.Handler()
	h.ts.Start()
	h.t.Cleanup(func() { h.ts.Close(); srv.Close() })
}

// client is one participant's browser.
type client struct {
	h          *harness
	c          *http.Client
	link       string
	form, at   string
	page       string
	lastStatus int
}

func (h *harness) browser(link string) *client {
	jar, _ := cookiejar.New(nil)
	return &client{h: h, c: &http.Client{Jar: jar}, link: link}
}

// browserAt is a browser on another machine: its requests come from the loopback address ip
// (127.0.0.2, …).
func (h *harness) browserAt(link, ip string) *client {
	c := h.browser(link)
	d := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(ip)}}
	c.c.Transport = &http.Transport{DialContext: d.DialContext}
	return c
}

func (h *harness) participant(worker string) *client {
	h.t.Helper()
	link, err := h.srv.Link(context.Background(), worker, "")
	if err != nil {
		h.t.Fatal(err)
	}
	return h.browser(link)
}

var (
	formRe = regexp.MustCompile(`data-form="([^"]*)"`)
	atRe   = regexp.MustCompile(`data-at="([^"]*)"`)
)

// open loads the page (the link itself) and remembers its form token and stamp. On the start
// page of an id not yet bound to a browser it presses Start, as a participant would (see
// openOnly for the page as it comes).
func (c *client) open() string {
	c.h.t.Helper()
	c.openOnly()
	if strings.Contains(c.page, startButton) {
		if status, msg := c.post(vals("do", "start")); status != http.StatusOK {
			c.h.t.Fatalf("Start: %d %s", status, msg)
		}
		c.openOnly()
	}
	return c.page
}

// startButton is the start page's button.
const startButton = `<input type="hidden" name="do" value="start">`

// openOnly loads the page as it comes.
func (c *client) openOnly() string {
	c.h.t.Helper()
	resp, err := c.c.Get(c.link)
	if err != nil {
		c.h.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	c.lastStatus = resp.StatusCode
	c.page = string(b)
	if m := formRe.FindStringSubmatch(c.page); m != nil {
		c.form = m[1]
	}
	if m := atRe.FindStringSubmatch(c.page); m != nil {
		c.at = m[1]
	}
	return c.page
}

func (c *client) query() string { return c.link[strings.Index(c.link, "?")+1:] }

// post sends an action as the page's script does; it returns the status and the error text.
func (c *client) post(fields url.Values, headers ...string) (int, string) {
	c.h.t.Helper()
	if fields.Get("form") == "" {
		fields.Set("form", c.form)
	}
	if fields.Get("at") == "" {
		fields.Set("at", c.at)
	}
	req, _ := http.NewRequest("POST", c.h.ts.URL+"/act?"+c.query(), strings.NewReader(fields.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Accept", "application/json")
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	resp, err := c.c.Do(req)
	if err != nil {
		c.h.t.Fatal(err)
	}
	defer resp.Body.Close()
	var out struct {
		Error string `json:"error"`
	}
	json.NewDecoder(resp.Body).Decode(&out)
	return resp.StatusCode, out.Error
}

// do posts an action that must be taken, and reloads the page.
func (c *client) do(fields url.Values) {
	c.h.t.Helper()
	if status, msg := c.post(fields); status != http.StatusOK {
		c.h.t.Fatalf("%s: %d %s\npage: %s", fields.Encode(), status, msg, c.page)
	}
	c.open()
}

func vals(kv ...string) url.Values {
	v := url.Values{}
	for i := 0; i+1 < len(kv); i += 2 {
		v.Set(kv[i], kv[i+1])
	}
	return v
}

// answerRows lists a project's stored answers as comparable lines (no times, no ids).
func answerRows(t *testing.T, st *store.Store, projectID int64) []string {
	t.Helper()
	ctx := context.Background()
	units, err := st.EvalUnits(ctx, projectID)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, u := range units {
		as, err := st.EvalAnswers(ctx, u.ID)
		if err != nil {
			t.Fatal(err)
		}
		for _, a := range as {
			v, _ := json.Marshal(a.Value)
			out = append(out, strings.Join([]string{u.Kind, u.Participant, a.TypeName, itoa(a.DialoguePos), itoa(a.TypePos), itoa(a.Turn), a.Question, string(v)}, "|"))
		}
	}
	return out
}

func itoa(i int) string { b, _ := json.Marshal(i); return string(b) }

var inputRe = regexp.MustCompile(`<fieldset class="group" data-slot="[^"]*" data-turn="(-?\d+)">(?s:.*?)<input type="(\w+)" name="[^"]*" data-kind="([^"]*)" data-key="([^"]*)" data-value="([^"]*)" data-click="([^"]*)"`)

// firstChoice is the edit that ticks or chooses the page's first choice, as the page's script
// would send it.
func (c *client) firstChoice() url.Values {
	c.h.t.Helper()
	m := inputRe.FindStringSubmatch(c.page)
	if m == nil {
		c.h.t.Fatalf("no choice on the page:\n%s", c.page)
	}
	e := vals("do", "edit", "turn", m[1], "kind", m[3], "key", html.UnescapeString(m[4]), "value", html.UnescapeString(m[5]))
	switch {
	case m[3] == "flow" && m[2] == "checkbox":
		e.Set("click", "check")
	case m[3] == "flow":
		e.Set("click", "radio")
	}
	return e
}
