package modelclient_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agentdesk/agentdesk/engine/modelclient"
	"github.com/agentdesk/agentdesk/engine/modelclient/fakeserver"
	"github.com/zalando/go-keyring"
)

// fakeClock advances by step on every Now and by d on every Sleep, and records the sleeps; with
// block set, Sleep waits for its context instead.
type fakeClock struct {
	mu     sync.Mutex
	now    time.Time
	step   time.Duration
	sleeps []time.Duration
	block  bool
	slept  chan struct{}
}

func newClock() *fakeClock {
	return &fakeClock{now: time.Date(2026, 12, 7, 1, 0, 0, 0, time.UTC), step: 10 * time.Millisecond, slept: make(chan struct{}, 100)}
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(c.step)
	return c.now
}

func (c *fakeClock) Sleep(ctx context.Context, d time.Duration) error {
	c.mu.Lock()
	c.sleeps = append(c.sleeps, d)
	c.now = c.now.Add(d)
	block := c.block
	c.mu.Unlock()
	c.slept <- struct{}{}
	if block {
		<-ctx.Done()
	}
	return ctx.Err()
}

func (c *fakeClock) Sleeps() []time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]time.Duration(nil), c.sleeps...)
}

func noKey() modelclient.KeySource {
	return modelclient.KeySource{Env: []string{}}
}

func newClient(t *testing.T, srv *fakeserver.Server, clock *fakeClock, mod func(*modelclient.Config)) *modelclient.Client {
	t.Helper()
	cfg := modelclient.Config{BaseURL: srv.URL, Model: "test-model", Clock: clock, Key: noKey(),
		Jitter: func() float64 { return 0.5 }}
	if mod != nil {
		mod(&cfg)
	}
	c, err := modelclient.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestRequestShapeTextAndImages(t *testing.T) {
	srv := fakeserver.New(fakeserver.Options{Record: true, Answer: func(r fakeserver.Request) string {
		return fmt.Sprintf("%d images, text %q", len(r.Images()), r.Text())
	}})
	defer srv.Close()
	c := newClient(t, srv, newClock(), func(cfg *modelclient.Config) { cfg.Temperature = 0.25; cfg.MaxTokens = 77 })
	png := []byte("\x89PNG\r\n\x1a\nnot really a png \x00\xff")
	resp, err := c.Complete(context.Background(), modelclient.Request{Messages: []modelclient.Message{
		modelclient.System("You are \"careful\".\n"),
		modelclient.User(modelclient.Text("What is on <screen>?"), modelclient.Image("image/png", png),
			modelclient.ImageURL("https://example.org/a.jpg")),
	}})
	if err != nil {
		t.Fatal(err)
	}
	if resp.Text != `2 images, text "You are \"careful\".\n\nWhat is on <screen>?"` {
		t.Fatalf("answer %q", resp.Text)
	}
	reqs := srv.Requests()
	if len(reqs) != 1 {
		t.Fatalf("%d requests", len(reqs))
	}
	r := reqs[0]
	if r.Model != "test-model" || r.Temperature == nil || *r.Temperature != 0.25 || r.MaxTokens == nil || *r.MaxTokens != 77 || r.Stream {
		t.Fatalf("request %+v", r)
	}
	if len(r.Messages) != 2 || r.Messages[0].Role != "system" || r.Messages[1].Role != "user" || len(r.Messages[1].Content) != 3 {
		t.Fatalf("messages %+v", r.Messages)
	}
	img := r.Images()
	want := "data:image/png;base64," + base64.StdEncoding.EncodeToString(png)
	if len(img) != 2 || img[0] != want || img[1] != "https://example.org/a.jpg" {
		t.Fatalf("images %q", img)
	}
	if resp.Usage.PromptTokens == 0 || resp.Usage.TotalTokens != resp.Usage.PromptTokens+resp.Usage.CompletionTokens {
		t.Fatalf("usage %+v", resp.Usage)
	}
	// An image encoded beforehand goes out as the same bytes.
	raw := modelclient.Request{Messages: []modelclient.Message{modelclient.User(modelclient.Image("image/png", png))}}
	pre := modelclient.Request{Messages: []modelclient.Message{modelclient.User(modelclient.ImageBase64("image/png", png))}}
	if string(c.Body(raw)) != string(c.Body(pre)) {
		t.Fatalf("ImageBase64 body\n%s\nImage body\n%s", c.Body(pre), c.Body(raw))
	}
	// A request's own temperature and max tokens override the client's.
	zero := 0.0
	if _, err := c.Complete(context.Background(), modelclient.Request{Messages: []modelclient.Message{modelclient.User(modelclient.Text("hi"))}, Temperature: &zero, MaxTokens: 5}); err != nil {
		t.Fatal(err)
	}
	r = srv.Requests()[1]
	if *r.Temperature != 0 || *r.MaxTokens != 5 {
		t.Fatalf("override: %+v", r)
	}
}

func TestRetriesServerErrorsWithBackoff(t *testing.T) {
	srv := fakeserver.New(fakeserver.Options{Behave: func(c fakeserver.Call) fakeserver.Reply {
		if c.Seen < 3 {
			return fakeserver.Error(502 + c.Seen) // 502, 503, 504
		}
		return fakeserver.OK("fine")
	}})
	defer srv.Close()
	clock := newClock()
	var atts []modelclient.Attempt
	c := newClient(t, srv, clock, func(cfg *modelclient.Config) {
		cfg.Backoff = time.Second
		cfg.OnAttempt = func(a modelclient.Attempt) { atts = append(atts, a) }
	})
	var own []int
	resp, err := c.Complete(context.Background(), modelclient.Request{Messages: []modelclient.Message{modelclient.User(modelclient.Text("x"))},
		OnAttempt: func(a modelclient.Attempt) { own = append(own, a.Status) }})
	if fmt.Sprint(own) != "[502 503 504 200]" {
		t.Fatalf("the request's own attempts: %v", own)
	}
	if err != nil || resp.Text != "fine" || resp.Attempts != 4 {
		t.Fatalf("%+v %v", resp, err)
	}
	// Equal jitter at 0.5: 0.75 of 1s, 2s, 4s.
	want := []time.Duration{750 * time.Millisecond, 1500 * time.Millisecond, 3 * time.Second}
	if got := clock.Sleeps(); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("sleeps %v, want %v", got, want)
	}
	if len(atts) != 4 || atts[0].Status != 502 || atts[2].Status != 504 || atts[3].Status != 200 || atts[0].Wait != want[0] || atts[3].Err != nil {
		t.Fatalf("attempts %+v", atts)
	}
	if st := c.Stats(); st.Requests != 4 || st.Retries != 3 || st.Completed != 1 || st.Errors != 0 {
		t.Fatalf("stats %+v", st)
	}
}

func TestBackoffIsCappedAndJittered(t *testing.T) {
	srv := fakeserver.New(fakeserver.Options{Behave: func(c fakeserver.Call) fakeserver.Reply { return fakeserver.Error(500) }})
	defer srv.Close()
	clock := newClock()
	j := 0.0
	c := newClient(t, srv, clock, func(cfg *modelclient.Config) {
		cfg.Backoff = time.Second
		cfg.MaxBackoff = 4 * time.Second
		cfg.MaxRetries = 5
		cfg.Jitter = func() float64 { j += 0.2; return j - 0.2 } // 0, .2, .4, .6, .8
	})
	_, err := c.Complete(context.Background(), modelclient.Request{Messages: []modelclient.Message{modelclient.User(modelclient.Text("x"))}})
	var se *modelclient.StatusError
	if !errors.As(err, &se) || se.Status != 500 || !strings.Contains(err.Error(), "after 6 tries") {
		t.Fatalf("err %v", err)
	}
	want := []time.Duration{500 * time.Millisecond, 1200 * time.Millisecond, 2800 * time.Millisecond, 3200 * time.Millisecond, 3600 * time.Millisecond}
	if got := clock.Sleeps(); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("sleeps %v, want %v", got, want)
	}
	if st := c.Stats(); st.Errors != 1 || st.Requests != 6 {
		t.Fatalf("stats %+v", st)
	}
}

func TestRateLimitHonoursRetryAfter(t *testing.T) {
	clock := newClock()
	date := clock.now.Add(90 * time.Second).UTC().Format(http.TimeFormat)
	srv := fakeserver.New(fakeserver.Options{Behave: func(c fakeserver.Call) fakeserver.Reply {
		switch c.Seen {
		case 0:
			return fakeserver.TooMany("7")
		case 1:
			return fakeserver.TooMany(date)
		case 2:
			return fakeserver.TooMany("") // no header: backoff
		case 3:
			return fakeserver.TooMany("86400") // a day: capped
		}
		return fakeserver.OK("in")
	}})
	defer srv.Close()
	c := newClient(t, srv, clock, func(cfg *modelclient.Config) {
		cfg.Backoff = 400 * time.Millisecond
		cfg.Jitter = func() float64 { return 0 }
		cfg.MaxRetryAfter = 2 * time.Minute
		clock.step = 0
	})
	resp, err := c.Complete(context.Background(), modelclient.Request{Messages: []modelclient.Message{modelclient.User(modelclient.Text("x"))}})
	if err != nil || resp.Text != "in" {
		t.Fatal(resp, err)
	}
	s := clock.Sleeps()
	if len(s) != 4 || s[0] != 7*time.Second || s[2] != 4*400*time.Millisecond/2 || s[3] != 2*time.Minute {
		t.Fatalf("sleeps %v", s)
	}
	// The HTTP date is 90 s after the clock's start; 7 s passed in the first wait.
	if s[1] != 83*time.Second {
		t.Fatalf("wait for the HTTP date %v, want 83s", s[1])
	}
}

func TestParseRetryAfter(t *testing.T) {
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	for _, tc := range []struct {
		h    string
		want time.Duration
	}{
		{"", -1}, {"12", 12 * time.Second}, {" 0 ", 0}, {"1.5", 1500 * time.Millisecond}, {"-3", -1}, {"soon", -1},
		{now.Add(42 * time.Second).Format(http.TimeFormat), 42 * time.Second},
		{now.Add(-time.Hour).Format(http.TimeFormat), 0},
		{now.Add(10 * time.Second).Format(time.RFC850), 10 * time.Second},
	} {
		if got := modelclient.ParseRetryAfter(tc.h, now); got != tc.want {
			t.Errorf("ParseRetryAfter(%q) = %v, want %v", tc.h, got, tc.want)
		}
	}
}

func TestClientErrorsAreNotRetried(t *testing.T) {
	srv := fakeserver.New(fakeserver.Options{Key: "right"})
	defer srv.Close()
	clock := newClock()
	c := newClient(t, srv, clock, func(cfg *modelclient.Config) {
		cfg.Key = modelclient.KeySource{Env: []string{"K"}, Getenv: func(string) string { return "wrong" }}
	})
	_, err := c.Complete(context.Background(), modelclient.Request{Messages: []modelclient.Message{modelclient.User(modelclient.Text("x"))}})
	var se *modelclient.StatusError
	if !errors.As(err, &se) || se.Status != 401 || srv.Count() != 1 || len(clock.Sleeps()) != 0 {
		t.Fatalf("err %v, %d requests", err, srv.Count())
	}
}

func TestMalformedAnswers(t *testing.T) {
	for _, tc := range []struct {
		kind   fakeserver.Kind
		reason string
	}{
		{fakeserver.BadJSON, "not JSON"},
		{fakeserver.NoChoices, "no choices"},
		{fakeserver.EmptyContent, "empty content"},
		{fakeserver.CutJSON, "JSON cut short"},
	} {
		srv := fakeserver.New(fakeserver.Options{Behave: func(fakeserver.Call) fakeserver.Reply { return fakeserver.Reply{Kind: tc.kind} }})
		c := newClient(t, srv, newClock(), nil)
		resp, err := c.Complete(context.Background(), modelclient.Request{Messages: []modelclient.Message{modelclient.User(modelclient.Text("x"))}})
		srv.Close()
		var me *modelclient.MalformedError
		if !errors.As(err, &me) || !errors.Is(err, modelclient.ErrMalformed) || !strings.HasPrefix(me.Reason, tc.reason) {
			t.Fatalf("kind %d: err %v", tc.kind, err)
		}
		if srv.Count() != 1 {
			t.Fatalf("kind %d: a malformed answer was retried (%d requests)", tc.kind, srv.Count())
		}
		if tc.kind == fakeserver.EmptyContent && (resp.Usage.TotalTokens == 0 || resp.Attempts != 1) {
			t.Fatalf("empty content lost its usage: %+v", resp)
		}
	}
}

func TestDroppedConnectionIsRetried(t *testing.T) {
	srv := fakeserver.New(fakeserver.Options{Behave: func(c fakeserver.Call) fakeserver.Reply {
		if c.Seen == 0 {
			return fakeserver.Reply{Kind: fakeserver.Drop}
		}
		return fakeserver.OK("whole")
	}})
	defer srv.Close()
	c := newClient(t, srv, newClock(), nil)
	resp, err := c.Complete(context.Background(), modelclient.Request{Messages: []modelclient.Message{modelclient.User(modelclient.Text("x"))}})
	if err != nil || resp.Text != "whole" || resp.Attempts != 2 {
		t.Fatalf("%+v %v", resp, err)
	}
}

func TestCancelWhileWaitingForTheServer(t *testing.T) {
	arrived := make(chan struct{}, 1)
	srv := fakeserver.New(fakeserver.Options{Behave: func(c fakeserver.Call) fakeserver.Reply {
		arrived <- struct{}{}
		return fakeserver.Reply{Kind: fakeserver.Hang}
	}})
	defer srv.Close()
	c := newClient(t, srv, newClock(), nil)
	ctx, cancel := context.WithCancel(context.Background())
	go func() { <-arrived; cancel() }()
	_, err := c.Complete(ctx, modelclient.Request{Messages: []modelclient.Message{modelclient.User(modelclient.Text("x"))}})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err %v", err)
	}
	if st := c.Stats(); st.InFlight != 0 || st.Errors != 1 {
		t.Fatalf("stats %+v", st)
	}
}

func TestCancelDuringBackoff(t *testing.T) {
	srv := fakeserver.New(fakeserver.Options{Behave: func(fakeserver.Call) fakeserver.Reply { return fakeserver.TooMany("30") }})
	defer srv.Close()
	clock := newClock()
	clock.block = true
	c := newClient(t, srv, clock, nil)
	ctx, cancel := context.WithCancel(context.Background())
	go func() { <-clock.slept; cancel() }()
	_, err := c.Complete(ctx, modelclient.Request{Messages: []modelclient.Message{modelclient.User(modelclient.Text("x"))}})
	if !errors.Is(err, context.Canceled) || srv.Count() != 1 {
		t.Fatalf("err %v after %d requests", err, srv.Count())
	}
}

func TestTimeoutOfOneAttempt(t *testing.T) {
	srv := fakeserver.New(fakeserver.Options{Behave: func(c fakeserver.Call) fakeserver.Reply {
		if c.Seen == 0 {
			return fakeserver.Reply{Kind: fakeserver.Hang}
		}
		return fakeserver.OK("second try")
	}})
	defer srv.Close()
	c := newClient(t, srv, newClock(), func(cfg *modelclient.Config) { cfg.Timeout = 100 * time.Millisecond })
	resp, err := c.Complete(context.Background(), modelclient.Request{Messages: []modelclient.Message{modelclient.User(modelclient.Text("x"))}})
	if err != nil || resp.Text != "second try" || resp.Attempts != 2 {
		t.Fatalf("%+v %v", resp, err)
	}
}

func TestConcurrencyIsBounded(t *testing.T) {
	var held, most atomic.Int64
	gate := make(chan struct{})
	arrived := make(chan struct{}, 100)
	srv := fakeserver.New(fakeserver.Options{Behave: func(c fakeserver.Call) fakeserver.Reply {
		n := held.Add(1)
		for {
			m := most.Load()
			if n <= m || most.CompareAndSwap(m, n) {
				break
			}
		}
		arrived <- struct{}{}
		<-gate
		held.Add(-1)
		return fakeserver.OK("ok")
	}})
	defer srv.Close()
	c := newClient(t, srv, newClock(), func(cfg *modelclient.Config) { cfg.Concurrency = 3 })
	var wg sync.WaitGroup
	for i := 0; i < 20; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			if _, err := c.Complete(context.Background(), modelclient.Request{Messages: []modelclient.Message{modelclient.User(modelclient.Text(fmt.Sprint(i)))}}); err != nil {
				t.Error(err)
			}
		}(i)
	}
	// Let requests through one at a time, each only once three are held.
	released := 0
	for got := 0; got < 20; {
		<-arrived
		got++
		if st := c.Stats(); st.InFlight > 3 {
			t.Fatalf("client has %d in flight", st.InFlight)
		}
		if got-released == 3 {
			gate <- struct{}{}
			released++
		}
	}
	for ; released < 20; released++ {
		gate <- struct{}{}
	}
	wg.Wait()
	if most.Load() != 3 {
		t.Fatalf("server held %d requests at most, want 3", most.Load())
	}
}

func TestUsageAndLatencyPerRequest(t *testing.T) {
	srv := fakeserver.New(fakeserver.Options{Answer: func(r fakeserver.Request) string { return strings.Repeat("a", 40) }})
	defer srv.Close()
	clock := newClock()
	var atts []modelclient.Attempt
	c := newClient(t, srv, clock, func(cfg *modelclient.Config) {
		cfg.OnAttempt = func(a modelclient.Attempt) { atts = append(atts, a) }
	})
	req := modelclient.Request{Messages: []modelclient.Message{modelclient.User(modelclient.Text(strings.Repeat("b", 80)), modelclient.Image("image/jpeg", []byte{1, 2, 3}))}}
	for i := 0; i < 3; i++ {
		resp, err := c.Complete(context.Background(), req)
		if err != nil {
			t.Fatal(err)
		}
		// Text 80 bytes → 21 tokens, one image 256; answer 40 bytes → 11.
		if resp.Usage != (modelclient.Usage{PromptTokens: 277, CompletionTokens: 11, TotalTokens: 288}) {
			t.Fatalf("usage %+v", resp.Usage)
		}
		// The fake clock moves 10 ms per reading: start and end of the attempt.
		if resp.Latency != 10*time.Millisecond {
			t.Fatalf("latency %v", resp.Latency)
		}
	}
	st := c.Stats()
	if st.PromptTokens != 3*277 || st.CompletionTokens != 33 || st.MeanLatency() != 10*time.Millisecond || len(atts) != 3 || atts[2].Usage.TotalTokens != 288 {
		t.Fatalf("stats %+v attempts %+v", st, atts)
	}
}

func TestKeySources(t *testing.T) {
	env := map[string]string{}
	getenv := func(k string) string { return env[k] }
	ring := &modelclient.MemoryKeyring{}
	src := modelclient.KeySource{Keyring: ring, Account: "hosted", Getenv: getenv}
	if k, err := src.Key(); k != "" || err != nil {
		t.Fatalf("no key anywhere: %q %v", k, err)
	}
	src.Required = true
	if _, err := src.Key(); !errors.Is(err, modelclient.ErrNoKey) || !strings.Contains(err.Error(), "$AGENTDESK_API_KEY") || !strings.Contains(err.Error(), "keyring agentdesk/hosted") {
		t.Fatalf("required key: %v", err)
	}
	ring.Set(modelclient.KeyringService, "hosted", "from-ring")
	if k, _ := src.Key(); k != "from-ring" {
		t.Fatalf("keyring: %q", k)
	}
	env["OPENAI_API_KEY"] = "from-openai-env"
	if k, _ := src.Key(); k != "from-openai-env" {
		t.Fatalf("env beats keyring: %q", k)
	}
	env["AGENTDESK_API_KEY"] = "from-our-env"
	if k, _ := src.Key(); k != "from-our-env" {
		t.Fatalf("our env first: %q", k)
	}
	if d := src.Describe(); strings.Contains(d, "from-") {
		t.Fatalf("Describe shows the key: %s", d)
	}
}

// The OS keyring through the library, with the library's in-memory provider (CI has no keyring
// service).
func TestSystemKeyringThroughTheLibrary(t *testing.T) {
	keyring.MockInit()
	var k modelclient.SystemKeyring
	if _, err := k.Get(modelclient.KeyringService, "x"); !errors.Is(err, modelclient.ErrNoKey) {
		t.Fatalf("missing entry: %v", err)
	}
	if err := k.Set(modelclient.KeyringService, "x", "s3cret"); err != nil {
		t.Fatal(err)
	}
	src := modelclient.KeySource{Env: []string{}, Keyring: k, Account: "x"}
	if got, err := src.Key(); got != "s3cret" || err != nil {
		t.Fatalf("%q %v", got, err)
	}
	if err := k.Delete(modelclient.KeyringService, "x"); err != nil {
		t.Fatal(err)
	}
	if err := k.Delete(modelclient.KeyringService, "x"); err != nil {
		t.Fatalf("deleting a missing entry: %v", err)
	}
}

// The key goes in the Authorization header and nowhere else: not in errors (even when a server
// echoes it back), not in the log.
func TestKeyNeverInErrorsOrLogs(t *testing.T) {
	const key = "sk-test-0123456789abcdef"
	var mu sync.Mutex
	var tries int
	echo := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		tries++
		n := tries
		mu.Unlock()
		if n == 1 {
			// A connection cut mid-answer after echoing the key.
			w.Header().Set("Content-Length", "1000")
			w.WriteHeader(200)
			fmt.Fprintf(w, `{"echo":%q`, r.Header.Get("Authorization"))
			w.(http.Flusher).Flush()
			panic(http.ErrAbortHandler)
		}
		w.WriteHeader(500)
		fmt.Fprintf(w, `{"error":"bad header %s"}`, r.Header.Get("Authorization"))
	}))
	defer echo.Close()
	var logs bytes.Buffer
	var attErrs []string
	c, err := modelclient.New(modelclient.Config{BaseURL: echo.URL + "/v1", Model: "m", Clock: newClock(),
		MaxRetries: 2, Logger: slog.New(slog.NewTextHandler(&logs, nil)),
		Key: modelclient.KeySource{Env: []string{"K"}, Getenv: func(string) string { return key }},
		OnAttempt: func(a modelclient.Attempt) {
			if a.Err != nil {
				attErrs = append(attErrs, a.Err.Error())
			}
		}})
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Complete(context.Background(), modelclient.Request{Messages: []modelclient.Message{modelclient.User(modelclient.Text("x"))}})
	if err == nil {
		t.Fatal("no error")
	}
	if tries != 3 || len(attErrs) != 3 || !strings.Contains(err.Error(), "[key]") {
		t.Fatalf("%d tries, errors %q, final %v", tries, attErrs, err)
	}
	for _, s := range append(attErrs, err.Error(), logs.String(), fmt.Sprintf("%+v", c.Config())) {
		if strings.Contains(s, key) || strings.Contains(s, key[3:12]) {
			t.Fatalf("the key leaked: %s", s)
		}
	}
	if !strings.Contains(logs.String(), "model request retried") {
		t.Fatalf("log: %s", logs.String())
	}
}

func TestConfigChecks(t *testing.T) {
	for _, cfg := range []modelclient.Config{
		{Model: "m"},
		{BaseURL: "localhost:8000/v1", Model: "m"},
		{BaseURL: "http://x/v1"},
		{BaseURL: "http://x/v1", Model: "m", Temperature: 3},
		{BaseURL: "http://x/v1", Model: "m", MaxTokens: -1},
	} {
		cfg.Key = noKey()
		if _, err := modelclient.New(cfg); err == nil {
			t.Errorf("%+v accepted", cfg)
		}
	}
	c, err := modelclient.New(modelclient.Config{BaseURL: "http://x:1/v1/", Model: "m", Key: noKey()})
	if err != nil || c.Endpoint() != "http://x:1/v1/chat/completions" {
		t.Fatalf("%v %v", c, err)
	}
}
