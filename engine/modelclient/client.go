package modelclient

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Defaults of Config's zero fields.
const (
	DefaultConcurrency   = 4
	DefaultMaxRetries    = 5
	DefaultBackoff       = 500 * time.Millisecond
	DefaultMaxBackoff    = 30 * time.Second
	DefaultMaxRetryAfter = 5 * time.Minute
	DefaultTimeout       = 5 * time.Minute
	// MaxResponseBytes bounds the body read from a server's answer.
	MaxResponseBytes = 16 << 20
)

// Clock is the time the client waits on; tests inject one that does not sleep for real.
type Clock interface {
	Now() time.Time
	// Sleep waits d or until ctx is done (then it returns ctx's error).
	Sleep(ctx context.Context, d time.Duration) error
}

// RealClock is the wall clock.
type RealClock struct{}

func (RealClock) Now() time.Time { return time.Now() }

func (RealClock) Sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Config configures a Client. BaseURL is the API's base, as OpenAI clients take it
// ("http://localhost:8000/v1", "http://localhost:11434/v1", "https://api.openai.com/v1"); the
// client posts to BaseURL + "/chat/completions".
type Config struct {
	BaseURL     string
	Model       string
	Temperature float64
	MaxTokens   int           // 0: not sent (the server's default)
	Timeout     time.Duration // one attempt's limit, from sending to the whole answer read; 0: DefaultTimeout
	Concurrency int           // requests in flight at most; 0: DefaultConcurrency
	MaxRetries  int           // retries after the first try; 0: DefaultMaxRetries, <0: none
	Backoff     time.Duration // the first retry's wait, doubled each retry; 0: DefaultBackoff
	MaxBackoff  time.Duration // 0: DefaultMaxBackoff
	// MaxRetryAfter bounds how long a server's Retry-After is honoured; 0: DefaultMaxRetryAfter.
	MaxRetryAfter time.Duration
	Key           KeySource
	HTTP          *http.Client   // nil: a client of its own, sized to Concurrency
	Clock         Clock          // nil: RealClock
	Jitter        func() float64 // in [0,1); nil: math/rand/v2
	Logger        *slog.Logger   // retries and failures (never the key); nil: none
	// OnAttempt, when set, is called after every HTTP attempt (from the calling goroutine).
	OnAttempt func(Attempt)
}

// Attempt is one HTTP request to the server, as OnAttempt reports it.
type Attempt struct {
	Try     int // 1 for the first
	Status  int // HTTP status; 0 when no answer came
	Latency time.Duration
	Usage   Usage
	Err     error         // nil when the attempt gave an answer
	Wait    time.Duration // the wait before the next try; 0 when there is none
}

// Response is a completion's answer.
type Response struct {
	Text         string
	FinishReason string // "stop", "length", ...
	Model        string
	ID           string
	Usage        Usage
	Latency      time.Duration // of the attempt that answered
	Attempts     int
}

// StatusError is an HTTP answer other than 200.
type StatusError struct {
	Status     int
	Body       string        // the start of the body, the key (if echoed) blanked out
	RetryAfter time.Duration // -1 when the server sent no (valid) Retry-After
}

func (e *StatusError) Error() string {
	msg := fmt.Sprintf("server answered %d %s", e.Status, http.StatusText(e.Status))
	if e.Body != "" {
		msg += ": " + e.Body
	}
	return msg
}

// Retryable tells whether a status is worth retrying: 408, 409, 429 and 5xx.
func Retryable(status int) bool {
	return status == http.StatusTooManyRequests || status == http.StatusRequestTimeout ||
		status == http.StatusConflict || status >= 500
}

// ErrMalformed is what every MalformedError is (errors.Is).
var ErrMalformed = errors.New("malformed answer")

// MalformedError is a 200 answer the client cannot use: not JSON, no choices, empty content, or
// cut short.
type MalformedError struct {
	Reason string
	Body   string // the start of the body
}

func (e *MalformedError) Error() string {
	if e.Body == "" {
		return "malformed answer: " + e.Reason
	}
	return "malformed answer: " + e.Reason + ": " + e.Body
}

func (e *MalformedError) Is(target error) bool { return target == ErrMalformed }

// IsEmptyContent tells whether err is an answer whose content was empty: Complete returns it
// with the Response (usage included); callers that take an empty answer as an answer check it.
func IsEmptyContent(err error) bool {
	var me *MalformedError
	return errors.As(err, &me) && me.Reason == reasonEmpty
}

// Stats are a client's running totals.
type Stats struct {
	InFlight         int
	Requests         int64 // HTTP attempts finished
	Retries          int64
	Errors           int64 // Complete calls that failed
	Completed        int64 // Complete calls that answered
	PromptTokens     int64
	CompletionTokens int64
	LatencyTotal     time.Duration // over answered attempts
	LatencyMax       time.Duration
}

// MeanLatency is the mean latency of answered attempts.
func (s Stats) MeanLatency() time.Duration {
	if s.Completed == 0 {
		return 0
	}
	return s.LatencyTotal / time.Duration(s.Completed)
}

// Client sends chat completions. It is safe for concurrent use; at most Config.Concurrency
// requests are in flight whatever the number of callers.
type Client struct {
	cfg      Config
	endpoint string
	key      string
	http     *http.Client
	clock    Clock
	jitter   func() float64
	slots    chan struct{}

	inFlight  atomic.Int64
	requests  atomic.Int64
	retries   atomic.Int64
	errs      atomic.Int64
	completed atomic.Int64
	prompt    atomic.Int64
	complTok  atomic.Int64
	latTotal  atomic.Int64
	latMax    atomic.Int64
}

// Validate checks what New checks before it reads the key: the URL, the model's name, the
// temperature and the token bound. A form checks its fields with it on the UI goroutine and
// leaves the key (a keyring may ask to be unlocked) to New, off it.
func (cfg Config) Validate() error {
	base := strings.TrimRight(strings.TrimSpace(cfg.BaseURL), "/")
	switch {
	case base == "":
		return errors.New("model client: no base URL")
	case !strings.HasPrefix(base, "http://") && !strings.HasPrefix(base, "https://"):
		return fmt.Errorf("model client: base URL %q is not http(s)", cfg.BaseURL)
	case strings.TrimSpace(cfg.Model) == "":
		return errors.New("model client: no model name")
	case cfg.Temperature < 0 || cfg.Temperature > 2:
		return fmt.Errorf("model client: temperature %g is outside 0..2", cfg.Temperature)
	case cfg.MaxTokens < 0:
		return fmt.Errorf("model client: max tokens %d is negative", cfg.MaxTokens)
	}
	return nil
}

// New checks the configuration, reads the key from its source and makes a client.
func New(cfg Config) (*Client, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	base := strings.TrimRight(strings.TrimSpace(cfg.BaseURL), "/")
	if cfg.Concurrency <= 0 {
		cfg.Concurrency = DefaultConcurrency
	}
	if cfg.MaxRetries == 0 {
		cfg.MaxRetries = DefaultMaxRetries
	} else if cfg.MaxRetries < 0 {
		cfg.MaxRetries = 0
	}
	if cfg.Backoff <= 0 {
		cfg.Backoff = DefaultBackoff
	}
	if cfg.MaxBackoff <= 0 {
		cfg.MaxBackoff = DefaultMaxBackoff
	}
	if cfg.MaxRetryAfter <= 0 {
		cfg.MaxRetryAfter = DefaultMaxRetryAfter
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = DefaultTimeout
	}
	key, err := cfg.Key.Key()
	if err != nil {
		return nil, fmt.Errorf("model client: %w", err)
	}
	c := &Client{cfg: cfg, endpoint: base + "/chat/completions", key: key, http: cfg.HTTP,
		clock: cfg.Clock, jitter: cfg.Jitter, slots: make(chan struct{}, cfg.Concurrency)}
	if c.http == nil {
		t := http.DefaultTransport.(*http.Transport).Clone()
		t.MaxIdleConnsPerHost = cfg.Concurrency * 2
		t.MaxIdleConns = cfg.Concurrency * 4
		// Bodies carry screenshots of a few hundred KB: fewer, larger writes and reads.
		t.WriteBufferSize = 64 << 10
		t.ReadBufferSize = 16 << 10
		t.DialContext = (&net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second}).DialContext
		c.http = &http.Client{Transport: t}
	}
	if c.clock == nil {
		c.clock = RealClock{}
	}
	if c.jitter == nil {
		c.jitter = rand.Float64
	}
	return c, nil
}

// Config is the client's configuration with defaults filled in (the key source included, the
// key itself not).
func (c *Client) Config() Config { return c.cfg }

// Endpoint is the URL the client posts to.
func (c *Client) Endpoint() string { return c.endpoint }

// Stats returns the running totals.
func (c *Client) Stats() Stats {
	return Stats{
		InFlight:         int(c.inFlight.Load()),
		Requests:         c.requests.Load(),
		Retries:          c.retries.Load(),
		Errors:           c.errs.Load(),
		Completed:        c.completed.Load(),
		PromptTokens:     c.prompt.Load(),
		CompletionTokens: c.complTok.Load(),
		LatencyTotal:     time.Duration(c.latTotal.Load()),
		LatencyMax:       time.Duration(c.latMax.Load()),
	}
}

var bodyPool = sync.Pool{New: func() any { b := make([]byte, 0, 64<<10); return &b }}

// Body is the JSON body Complete sends for req (for tests and fixtures).
func (c *Client) Body(req Request) []byte {
	return appendBody(nil, c.cfg.Model, req, c.cfg.Temperature, c.cfg.MaxTokens)
}

// Complete sends one chat completion, retrying 429, 5xx and transport failures with backoff,
// and returns the answer. It returns ctx's error as soon as ctx is done. A MalformedError with
// Reason "empty content" comes with the Response (usage included).
func (c *Client) Complete(ctx context.Context, req Request) (Response, error) {
	if len(req.Messages) == 0 {
		return Response{}, errors.New("model client: request without messages")
	}
	bp := bodyPool.Get().(*[]byte)
	body := appendBody((*bp)[:0], c.cfg.Model, req, c.cfg.Temperature, c.cfg.MaxTokens)
	defer func() {
		if cap(body) <= 8<<20 {
			*bp = body[:0]
			bodyPool.Put(bp)
		}
	}()
	for try := 1; ; try++ {
		if err := ctx.Err(); err != nil {
			c.errs.Add(1)
			return Response{}, err
		}
		resp, status, lat, err := c.attempt(ctx, body)
		att := Attempt{Try: try, Status: status, Latency: lat, Usage: resp.Usage, Err: err}
		var me *MalformedError
		if err == nil || errors.As(err, &me) && me.Reason == reasonEmpty {
			c.report(req, att)
			resp.Attempts = try
			resp.Latency = lat
			c.completed.Add(1)
			c.prompt.Add(int64(resp.Usage.PromptTokens))
			c.complTok.Add(int64(resp.Usage.CompletionTokens))
			c.latTotal.Add(int64(lat))
			for {
				m := c.latMax.Load()
				if int64(lat) <= m || c.latMax.CompareAndSwap(m, int64(lat)) {
					break
				}
			}
			return resp, err
		}
		if ctx.Err() != nil {
			c.report(req, att)
			c.errs.Add(1)
			return Response{}, ctx.Err()
		}
		if try > c.cfg.MaxRetries || !retryable(err) {
			c.report(req, att)
			c.errs.Add(1)
			if c.cfg.Logger != nil {
				c.cfg.Logger.Warn("model request failed", "endpoint", c.endpoint, "try", try, "status", status, "err", err.Error())
			}
			if try > 1 {
				return Response{}, fmt.Errorf("after %d tries: %w", try, err)
			}
			return Response{}, err
		}
		retryAfter := time.Duration(-1) // the server's, from its status error
		var se *StatusError
		if errors.As(err, &se) {
			retryAfter = se.RetryAfter
		}
		att.Wait = c.wait(try, retryAfter)
		c.report(req, att)
		c.retries.Add(1)
		if c.cfg.Logger != nil {
			c.cfg.Logger.Info("model request retried", "endpoint", c.endpoint, "try", try, "status", status, "wait", att.Wait, "err", err.Error())
		}
		if err := c.clock.Sleep(ctx, att.Wait); err != nil {
			c.errs.Add(1)
			return Response{}, err
		}
	}
}

func (c *Client) report(req Request, a Attempt) {
	if c.cfg.OnAttempt != nil {
		c.cfg.OnAttempt(a)
	}
	if req.OnAttempt != nil {
		req.OnAttempt(a)
	}
}

// wait is the pause before try+1: the server's Retry-After when it sent one (bounded by
// MaxRetryAfter), else Backoff·2^(try-1) bounded by MaxBackoff, with "equal jitter" (half the
// pause fixed, half random) so that many workers refused at once do not come back at once.
func (c *Client) wait(try int, retryAfter time.Duration) time.Duration {
	if retryAfter >= 0 {
		if retryAfter > c.cfg.MaxRetryAfter {
			retryAfter = c.cfg.MaxRetryAfter
		}
		// A little jitter on top, never below what the server asked.
		return retryAfter + time.Duration(c.jitter()*float64(c.cfg.Backoff)/4)
	}
	d := c.cfg.Backoff
	for i := 1; i < try && d < c.cfg.MaxBackoff; i++ {
		d *= 2
	}
	if d > c.cfg.MaxBackoff {
		d = c.cfg.MaxBackoff
	}
	return d/2 + time.Duration(c.jitter()*float64(d/2))
}

func retryable(err error) bool {
	var se *StatusError
	if errors.As(err, &se) {
		return Retryable(se.Status)
	}
	if errors.Is(err, ErrMalformed) {
		var me *MalformedError
		errors.As(err, &me)
		return me.Reason == reasonCut // the connection dropped mid-answer
	}
	return true // transport errors: refused, reset, timed out
}

const (
	reasonEmpty = "empty content"
	reasonCut   = "answer cut short"
)

// ParseRetryAfter reads a Retry-After header: seconds ("120", "1.5") or an HTTP date, relative
// to now. It returns -1 when the header is absent or invalid, 0 for a date in the past.
func ParseRetryAfter(h string, now time.Time) time.Duration {
	h = strings.TrimSpace(h)
	if h == "" {
		return -1
	}
	if s, err := strconv.ParseFloat(h, 64); err == nil {
		if s < 0 || s != s || s > 1e9 {
			return -1
		}
		return time.Duration(s * float64(time.Second))
	}
	t, err := http.ParseTime(h)
	if err != nil {
		return -1
	}
	d := t.Sub(now)
	if d < 0 {
		return 0
	}
	return d
}

// bodyReader is a request body that says when the transport has closed it, so that its buffer
// can go back to the pool only once the transport is done with it.
type bodyReader struct {
	bytes.Reader
	closed chan struct{}
	once   sync.Once
}

func (b *bodyReader) Close() error {
	b.once.Do(func() { close(b.closed) })
	return nil
}

func (c *Client) attempt(ctx context.Context, body []byte) (resp Response, status int, lat time.Duration, err error) {
	select {
	case c.slots <- struct{}{}:
	case <-ctx.Done():
		return resp, 0, 0, ctx.Err()
	}
	c.inFlight.Add(1)
	defer func() {
		c.inFlight.Add(-1)
		<-c.slots
	}()
	br := &bodyReader{closed: make(chan struct{})}
	br.Reset(body)
	defer func() { <-br.closed }() // after cancel below: the transport gives the body back
	actx, cancel := context.WithTimeout(ctx, c.cfg.Timeout)
	defer cancel()
	hreq, err := http.NewRequestWithContext(actx, http.MethodPost, c.endpoint, br)
	if err != nil {
		br.Close()
		return resp, 0, 0, err
	}
	hreq.ContentLength = int64(len(body))
	hreq.Header.Set("Content-Type", "application/json")
	hreq.Header.Set("Accept", "application/json")
	if c.key != "" {
		hreq.Header.Set("Authorization", "Bearer "+c.key)
	}
	start := c.clock.Now()
	hresp, err := c.http.Do(hreq)
	c.requests.Add(1)
	if err != nil {
		br.Close() // Do closes it too; closing twice is harmless
		if ctx.Err() != nil {
			return resp, 0, c.clock.Now().Sub(start), ctx.Err()
		}
		return resp, 0, c.clock.Now().Sub(start), c.scrub(fmt.Errorf("POST %s: %w", c.endpoint, unwrapURL(err)))
	}
	defer hresp.Body.Close()
	data, rerr := io.ReadAll(io.LimitReader(hresp.Body, MaxResponseBytes+1))
	lat = c.clock.Now().Sub(start)
	status = hresp.StatusCode
	if status != http.StatusOK {
		return resp, status, lat,
			&StatusError{Status: status, Body: c.snippet(data), RetryAfter: ParseRetryAfter(hresp.Header.Get("Retry-After"), c.clock.Now())}
	}
	if rerr != nil {
		if ctx.Err() != nil {
			return resp, status, lat, ctx.Err()
		}
		if actx.Err() != nil {
			return resp, status, lat, fmt.Errorf("POST %s: no whole answer within %s", c.endpoint, c.cfg.Timeout)
		}
		return resp, status, lat, &MalformedError{Reason: reasonCut, Body: c.scrub(rerr).Error()}
	}
	if len(data) > MaxResponseBytes {
		return resp, status, lat, &MalformedError{Reason: fmt.Sprintf("answer larger than %d bytes", MaxResponseBytes)}
	}
	resp, err = c.decode(data)
	return resp, status, lat, err
}

func unwrapURL(err error) error {
	var ue interface{ Unwrap() error }
	if errors.As(err, &ue) {
		if inner := ue.Unwrap(); inner != nil {
			return inner
		}
	}
	return err
}

type wireAnswer struct {
	ID      string `json:"id"`
	Model   string `json:"model"`
	Choices []struct {
		Message *struct {
			Content json.RawMessage `json:"content"`
		} `json:"message"`
		FinishReason *string `json:"finish_reason"`
	} `json:"choices"`
	Usage *Usage `json:"usage"`
}

func (c *Client) decode(data []byte) (Response, error) {
	var w wireAnswer
	if err := json.Unmarshal(data, &w); err != nil {
		reason := "not JSON: " + err.Error()
		if errors.Is(err, io.ErrUnexpectedEOF) || strings.Contains(err.Error(), "unexpected end of JSON") {
			reason = "JSON cut short"
		}
		return Response{}, &MalformedError{Reason: reason, Body: c.snippet(data)}
	}
	r := Response{ID: w.ID, Model: w.Model}
	if w.Usage != nil {
		r.Usage = *w.Usage
		if r.Usage.TotalTokens == 0 {
			r.Usage.TotalTokens = r.Usage.PromptTokens + r.Usage.CompletionTokens
		}
	}
	if len(w.Choices) == 0 {
		return r, &MalformedError{Reason: "no choices", Body: c.snippet(data)}
	}
	ch := w.Choices[0]
	if ch.FinishReason != nil {
		r.FinishReason = *ch.FinishReason
	}
	if ch.Message == nil {
		return r, &MalformedError{Reason: "choice without a message", Body: c.snippet(data)}
	}
	text, ok := contentText(ch.Message.Content)
	if !ok {
		return r, &MalformedError{Reason: "content is neither text nor text parts", Body: c.snippet(data)}
	}
	r.Text = text
	if strings.TrimSpace(text) == "" {
		return r, &MalformedError{Reason: reasonEmpty}
	}
	return r, nil
}

// contentText reads a message's content: a string, null, or an array of {"type":"text"} parts.
func contentText(raw json.RawMessage) (string, bool) {
	if len(raw) == 0 || string(raw) == "null" {
		return "", true
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s, true
	}
	var parts []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if json.Unmarshal(raw, &parts) != nil {
		return "", false
	}
	var b strings.Builder
	for _, p := range parts {
		if p.Type == "text" {
			b.WriteString(p.Text)
		}
	}
	return b.String(), true
}

// snippet is the start of a body for an error message, the key blanked out.
func (c *Client) snippet(data []byte) string {
	s := string(data)
	if len(s) > 300 {
		s = s[:300] + "…"
	}
	s = strings.TrimSpace(s)
	if c.key != "" {
		s = strings.ReplaceAll(s, c.key, "[key]")
	}
	return s
}

// scrub blanks the key out of an error's text.
func (c *Client) scrub(err error) error {
	if err == nil || c.key == "" || !strings.Contains(err.Error(), c.key) {
		return err
	}
	return errors.New(strings.ReplaceAll(err.Error(), c.key, "[key]"))
}
