// Package fakeserver is a local chat-completions server for tests: it answers POST
// /v1/chat/completions as OpenAI-compatible engines do, deterministically, from a programmable
// answer function, and can be told to be slow, fail (5xx), rate-limit (429 with Retry-After),
// hang, or answer in malformed ways (bad JSON, no choices, empty content, JSON cut short, the
// connection dropped mid-answer). It checks each request's shape the way engines do (400 for a
// request they would refuse) and counts requests in flight, so tests can check the client's
// bound. It is a normal package so that any package's tests (and the app's) can use it.
package fakeserver

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Request is a decoded chat completion request.
type Request struct {
	Model       string    `json:"model"`
	Messages    []Message `json:"messages"`
	Temperature *float64  `json:"temperature,omitempty"`
	MaxTokens   *int      `json:"max_tokens,omitempty"`
	Stream      bool      `json:"stream,omitempty"`
}

// Message is one message of a request; a string content is read as one text part.
type Message struct {
	Role    string
	Content []Part
}

// Part is one content part: Type "text" with Text, or "image_url" with ImageURL.
type Part struct {
	Type     string
	Text     string
	ImageURL string
}

func (m *Message) UnmarshalJSON(data []byte) error {
	var w struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
	}
	if err := json.Unmarshal(data, &w); err != nil {
		return err
	}
	m.Role = w.Role
	if c := bytes.TrimLeft(w.Content, " \t\r\n"); len(c) > 0 && c[0] == '"' {
		var s string
		if err := json.Unmarshal(c, &s); err != nil {
			return err
		}
		m.Content = []Part{{Type: "text", Text: s}}
		return nil
	}
	var parts []struct {
		Type     string `json:"type"`
		Text     string `json:"text"`
		ImageURL *struct {
			URL string `json:"url"`
		} `json:"image_url"`
	}
	if err := json.Unmarshal(w.Content, &parts); err != nil {
		return fmt.Errorf("content is neither a string nor an array of parts: %w", err)
	}
	for i, p := range parts {
		switch p.Type {
		case "text":
			m.Content = append(m.Content, Part{Type: "text", Text: p.Text})
		case "image_url":
			if p.ImageURL == nil || p.ImageURL.URL == "" {
				return fmt.Errorf("part %d: image_url without url", i)
			}
			m.Content = append(m.Content, Part{Type: "image_url", ImageURL: p.ImageURL.URL})
		default:
			return fmt.Errorf("part %d: unknown type %q", i, p.Type)
		}
	}
	return nil
}

// Text is the text of all the request's parts, joined by newlines.
func (r Request) Text() string {
	var b []string
	for _, m := range r.Messages {
		for _, p := range m.Content {
			if p.Type == "text" {
				b = append(b, p.Text)
			}
		}
	}
	return strings.Join(b, "\n")
}

// Images are the image URLs of the request, in order.
func (r Request) Images() []string {
	var out []string
	for _, m := range r.Messages {
		for _, p := range m.Content {
			if p.Type == "image_url" {
				out = append(out, p.ImageURL)
			}
		}
	}
	return out
}

// Kind is what the server does with a request.
type Kind int

const (
	Answer       Kind = iota // 200 with the text
	Fail                     // an error status (500 unless Status says)
	RateLimit                // 429 with Retry-After
	BadJSON                  // 200 with a body that is not JSON
	NoChoices                // 200 with "choices": []
	EmptyContent             // 200 with content ""
	CutJSON                  // 200 with a whole body that is JSON cut in the middle
	Drop                     // 200 whose connection is closed mid-body
	Hang                     // no answer until the client gives up or Release is called
)

// Reply is the server's reaction to one request.
type Reply struct {
	Kind       Kind
	Text       string        // Answer's text
	Status     int           // Fail's status
	RetryAfter string        // RateLimit's (and Fail's, when set) Retry-After header
	Delay      time.Duration // waited before answering (real time)
}

// OK answers text.
func OK(text string) Reply { return Reply{Kind: Answer, Text: text} }

// Error answers an error status.
func Error(status int) Reply { return Reply{Kind: Fail, Status: status} }

// TooMany answers 429 with the Retry-After header given (seconds or an HTTP date; "" for none).
func TooMany(retryAfter string) Reply { return Reply{Kind: RateLimit, RetryAfter: retryAfter} }

// Call is one request as the Behave function sees it.
type Call struct {
	N       int // 1 for the first request the server got
	Seen    int // how many times the same body came before (0 the first time): retries of one request
	Request Request
	Header  http.Header
}

// Options configure a server.
type Options struct {
	// Answer is the model: the request in, the answer text out. Nil: "ok".
	Answer func(Request) string
	// Behave, when set, decides each request's reply (Answer is what OK replies use when it
	// returns Reply{Kind: Answer} with no Text). Nil: every request is answered.
	Behave func(Call) Reply
	// Latency is added before every answer (real time: for slow servers in demos and manual
	// runs; tests that need a held request use Hang).
	Latency time.Duration
	// Key, when set, is the API key the server requires (401 otherwise).
	Key string
	// Record keeps every decoded request (Requests).
	Record bool
	// Skim reads request bodies without decoding them: no checks, Answer and Behave get an empty
	// Request. For benchmarks of the client's own overhead.
	Skim bool
}

var skimPool = sync.Pool{New: func() any { b := make([]byte, 256<<10); return &b }}

// Server is a running fake server.
type Server struct {
	// URL is the base URL clients take ("http://127.0.0.1:PORT/v1").
	URL string

	opt      Options
	ts       *httptest.Server
	n        atomic.Int64
	inFlight atomic.Int64
	maxIn    atomic.Int64
	release  chan struct{}
	relOnce  sync.Once

	mu       sync.Mutex
	seen     map[[16]byte]int
	requests []Request
	auth     []string
	replies  map[Kind]int
}

// New starts a server on a local port; Close stops it.
func New(opt Options) *Server {
	s := &Server{opt: opt, release: make(chan struct{}), seen: map[[16]byte]int{}, replies: map[Kind]int{}}
	s.ts = httptest.NewServer(s)
	s.URL = s.ts.URL + "/v1"
	return s
}

// Listen starts a server on addr ("127.0.0.1:0" for any port), for runs outside tests.
func Listen(addr string, opt Options) (*Server, error) {
	l, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	s := &Server{opt: opt, release: make(chan struct{}), seen: map[[16]byte]int{}, replies: map[Kind]int{}}
	s.ts = &httptest.Server{Listener: l, Config: &http.Server{Handler: s}}
	s.ts.Start()
	s.URL = s.ts.URL + "/v1"
	return s, nil
}

// Close stops the server, releasing hung requests first.
func (s *Server) Close() {
	s.Release()
	s.ts.CloseClientConnections()
	s.ts.Close()
}

// Release lets every hung request (and every later Hang) go: they answer 503.
func (s *Server) Release() { s.relOnce.Do(func() { close(s.release) }) }

// Count is the number of requests received.
func (s *Server) Count() int { return int(s.n.Load()) }

// InFlight is the number of requests being handled now.
func (s *Server) InFlight() int { return int(s.inFlight.Load()) }

// MaxInFlight is the most requests handled at once so far.
func (s *Server) MaxInFlight() int { return int(s.maxIn.Load()) }

// Requests are the decoded requests received (with Options.Record), in arrival order.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.requests...)
}

// Authorizations are the Authorization headers received, in arrival order.
func (s *Server) Authorizations() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.auth...)
}

// Replies counts the replies given of a kind.
func (s *Server) Replies(k Kind) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.replies[k]
}

func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	n := int(s.n.Add(1))
	in := s.inFlight.Add(1)
	defer s.inFlight.Add(-1)
	for {
		m := s.maxIn.Load()
		if in <= m || s.maxIn.CompareAndSwap(m, in) {
			break
		}
	}
	if r.Method == http.MethodGet && strings.HasSuffix(r.URL.Path, "/models") {
		writeJSON(w, http.StatusOK, map[string]any{"object": "list", "data": []map[string]any{{"id": "fake", "object": "model"}}})
		return
	}
	if r.Method != http.MethodPost || r.URL.Path != "/v1/chat/completions" {
		writeError(w, http.StatusNotFound, "no route "+r.Method+" "+r.URL.Path)
		return
	}
	s.mu.Lock()
	s.auth = append(s.auth, r.Header.Get("Authorization"))
	s.mu.Unlock()
	if s.opt.Key != "" && r.Header.Get("Authorization") != "Bearer "+s.opt.Key {
		writeError(w, http.StatusUnauthorized, "invalid API key")
		return
	}
	call := Call{N: n, Header: r.Header}
	if s.opt.Skim {
		bp := skimPool.Get().(*[]byte)
		for {
			_, err := r.Body.Read(*bp)
			if err == io.EOF {
				break
			}
			if err != nil {
				skimPool.Put(bp)
				return
			}
		}
		skimPool.Put(bp)
	} else {
		body, err := io.ReadAll(r.Body)
		if err != nil {
			return
		}
		if ct := r.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
			writeError(w, http.StatusBadRequest, "Content-Type "+ct+" is not application/json")
			return
		}
		if err := json.Unmarshal(body, &call.Request); err != nil {
			writeError(w, http.StatusBadRequest, "request body: "+err.Error())
			return
		}
		if msg := check(call.Request); msg != "" {
			writeError(w, http.StatusBadRequest, msg)
			return
		}
		h := sha256.Sum256(body)
		var k [16]byte
		copy(k[:], h[:16])
		s.mu.Lock()
		call.Seen = s.seen[k]
		s.seen[k]++
		if s.opt.Record {
			s.requests = append(s.requests, call.Request)
		}
		s.mu.Unlock()
	}
	reply := Reply{Kind: Answer}
	if s.opt.Behave != nil {
		reply = s.opt.Behave(call)
	}
	if reply.Kind == Answer && reply.Text == "" {
		reply.Text = "ok"
		if s.opt.Answer != nil {
			reply.Text = s.opt.Answer(call.Request)
		}
	}
	s.mu.Lock()
	s.replies[reply.Kind]++
	s.mu.Unlock()
	if d := s.opt.Latency + reply.Delay; d > 0 {
		t := time.NewTimer(d)
		select {
		case <-t.C:
		case <-r.Context().Done():
			t.Stop()
			return
		}
	}
	s.write(w, r, call, reply)
}

// check refuses what engines refuse: no model, no messages, an unknown role, an image that is
// not a data URL of an image or an http(s) URL, a base64 payload that does not decode.
func check(r Request) string {
	if r.Model == "" {
		return "model is required"
	}
	if len(r.Messages) == 0 {
		return "messages must not be empty"
	}
	if r.Stream {
		return "this fake server does not stream"
	}
	for i, m := range r.Messages {
		switch m.Role {
		case "system", "user", "assistant":
		default:
			return fmt.Sprintf("messages[%d]: unknown role %q", i, m.Role)
		}
		for j, p := range m.Content {
			if p.Type != "image_url" {
				continue
			}
			u := p.ImageURL
			switch {
			case strings.HasPrefix(u, "http://"), strings.HasPrefix(u, "https://"):
			case strings.HasPrefix(u, "data:image/"):
				semi := strings.Index(u, ";base64,")
				if semi < 0 {
					return fmt.Sprintf("messages[%d].content[%d]: data URL is not base64", i, j)
				}
				if !validBase64(u[semi+len(";base64,"):]) {
					return fmt.Sprintf("messages[%d].content[%d]: base64 payload does not decode", i, j)
				}
			default:
				return fmt.Sprintf("messages[%d].content[%d]: image URL %.40q is neither data:image/ nor http(s)", i, j, u)
			}
		}
	}
	return ""
}

var b64ok = func() (t [256]bool) {
	for _, c := range "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/" {
		t[c] = true
	}
	return
}()

func validBase64(s string) bool {
	if len(s) == 0 || len(s)%4 != 0 {
		return false
	}
	body := strings.TrimRight(s, "=")
	if len(s)-len(body) > 2 {
		return false
	}
	for i := 0; i < len(body); i++ {
		if !b64ok[body[i]] {
			return false
		}
	}
	return true
}

// Usage is the token count the server reports: a token per 4 bytes of text (at least one),
// 256 per image, and a token per 4 bytes of the answer (at least one).
func Usage(r Request, answer string) (prompt, completion int) {
	text := r.Text()
	prompt = len(text)/4 + 1 + 256*len(r.Images())
	completion = len(answer)/4 + 1
	return
}

func (s *Server) write(w http.ResponseWriter, r *http.Request, call Call, reply Reply) {
	switch reply.Kind {
	case Fail:
		st := reply.Status
		if st == 0 {
			st = http.StatusInternalServerError
		}
		if reply.RetryAfter != "" {
			w.Header().Set("Retry-After", reply.RetryAfter)
		}
		writeError(w, st, "the fake server was told to fail")
	case RateLimit:
		if reply.RetryAfter != "" {
			w.Header().Set("Retry-After", reply.RetryAfter)
		}
		writeError(w, http.StatusTooManyRequests, "rate limit reached")
	case BadJSON:
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusOK)
		io.WriteString(w, "<html>upstream proxy error</html>")
	case NoChoices:
		writeJSON(w, http.StatusOK, s.answer(call, "", nil))
	case EmptyContent:
		writeJSON(w, http.StatusOK, s.answer(call, "", ptr("")))
	case CutJSON:
		b, _ := json.Marshal(s.answer(call, "", ptr("the answer was cut")))
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusOK)
		w.Write(b[:len(b)/2])
	case Drop:
		b, _ := json.Marshal(s.answer(call, "", ptr("the connection drops")))
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Content-Length", strconv.Itoa(len(b)))
		w.WriteHeader(http.StatusOK)
		w.Write(b[:len(b)/2])
		if f, ok := w.(http.Flusher); ok {
			f.Flush()
		}
		panic(http.ErrAbortHandler) // closes the connection mid-body
	case Hang:
		select {
		case <-r.Context().Done():
		case <-s.release:
			writeError(w, http.StatusServiceUnavailable, "released")
		}
	default:
		writeJSON(w, http.StatusOK, s.answer(call, reply.Text, &reply.Text))
	}
}

func ptr(s string) *string { return &s }

// answer is a chat.completion object; content nil gives "choices": [].
func (s *Server) answer(call Call, text string, content *string) map[string]any {
	model := call.Request.Model
	if model == "" {
		model = "fake"
	}
	p, c := Usage(call.Request, text)
	choices := []map[string]any{}
	if content != nil {
		choices = append(choices, map[string]any{
			"index":         0,
			"message":       map[string]any{"role": "assistant", "content": *content},
			"logprobs":      nil,
			"finish_reason": "stop",
		})
	}
	return map[string]any{
		"id":      fmt.Sprintf("chatcmpl-fake-%d", call.N),
		"object":  "chat.completion",
		"created": 1700000000,
		"model":   model,
		"choices": choices,
		"usage":   map[string]int{"prompt_tokens": p, "completion_tokens": c, "total_tokens": p + c},
	}
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", strconv.Itoa(len(b)))
	w.WriteHeader(status)
	w.Write(b)
}

func writeError(w http.ResponseWriter, status int, msg string) {
	writeJSON(w, status, map[string]any{"object": "error", "message": msg, "type": http.StatusText(status), "code": status})
}
