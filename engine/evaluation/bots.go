package evaluation

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"
	"unicode"
)

// BotMessage is one message of a conversation as a bot sees it.
type BotMessage struct {
	// Role is "user" for the participant (including the opening "Hi!") and "bot" for the bot.
	Role string `json:"role"`
	Text string `json:"text"`
}

// BotRequest is what a bot is asked to answer: the conversation so far (the last message is
// the participant's) and, for bots given one, a persona.
type BotRequest struct {
	// Model is the model key of the bot in the project.
	Model string `json:"model"`
	// Persona is the bot's persona as ParlAI's "your persona: <sentence>" lines (PersonaFor),
	// nil when it gets none.
	Persona []string     `json:"persona,omitempty"`
	History []BotMessage `json:"history"`
}

// Observations is the history as the bot observes it, the way the original's ParlAI agents
// did (spec §13.4 step 4): the persona lines are observed privately before the opening "Hi!"
// and ParlAI's history joins observations with newlines, so the first message's text becomes
//
//	your persona: <sentence 1>
//	your persona: <sentence 2>
//	Hi!
//
// Without a persona the history is returned as it is. Exec and http bots are sent this.
func (r BotRequest) Observations() []BotMessage {
	if len(r.Persona) == 0 {
		return r.History
	}
	persona := strings.Join(r.Persona, "\n")
	out := make([]BotMessage, 0, len(r.History)+1)
	if len(r.History) == 0 || r.History[0].Role != "user" {
		out = append(out, BotMessage{Role: "user", Text: persona})
		return append(out, r.History...)
	}
	out = append(out, BotMessage{Role: "user", Text: persona + "\n" + r.History[0].Text})
	return append(out, r.History[1:]...)
}

// Bot produces the next reply of a conversation. Calls honour ctx (cancel, deadline); a bot
// that fails returns a *BotError. Bots are stateless between calls: the whole history is
// passed each time, so a failed call can simply be retried.
type Bot interface {
	Reply(ctx context.Context, req BotRequest) (string, error)
}

// BotFunc is a function used as a Bot (scripted bots, tests).
type BotFunc func(ctx context.Context, req BotRequest) (string, error)

// Reply implements Bot.
func (f BotFunc) Reply(ctx context.Context, req BotRequest) (string, error) { return f(ctx, req) }

// BotErrorKind classifies a bot failure for the UI.
type BotErrorKind string

// Bot failure kinds.
const (
	// BotTimeout: no reply within the bot's timeout.
	BotTimeout BotErrorKind = "timeout"
	// BotCanceled: the caller cancelled the call.
	BotCanceled BotErrorKind = "canceled"
	// BotUnavailable: the bot could not be started or reached.
	BotUnavailable BotErrorKind = "unavailable"
	// BotBadReply: the bot answered something that is not a reply.
	BotBadReply BotErrorKind = "bad_reply"
)

// BotError is a failed bot call. The conversation is unchanged by it; the call can be retried.
type BotError struct {
	Bot  string
	Kind BotErrorKind
	Err  error
}

// Error is a message for the participant or operator.
func (e *BotError) Error() string {
	switch e.Kind {
	case BotTimeout:
		return fmt.Sprintf("bot %q did not answer in time (%v); you can retry", e.Bot, e.Err)
	case BotCanceled:
		return fmt.Sprintf("bot %q: the request was cancelled", e.Bot)
	case BotUnavailable:
		return fmt.Sprintf("bot %q is not available: %v", e.Bot, e.Err)
	}
	return fmt.Sprintf("bot %q gave no usable reply: %v", e.Bot, e.Err)
}

// Unwrap returns the cause.
func (e *BotError) Unwrap() error { return e.Err }

// ctxError turns a context error into a BotError.
func ctxError(name string, ctx context.Context, timeout time.Duration) *BotError {
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return &BotError{Bot: name, Kind: BotTimeout, Err: fmt.Errorf("no reply within %v", timeout)}
	}
	return &BotError{Bot: name, Kind: BotCanceled, Err: ctx.Err()}
}

// EchoBot is the built-in demonstration bot: it greets on "Hi!" and otherwise repeats the
// participant's last message. It never fails unless the context is done.
type EchoBot struct{}

// Reply implements Bot.
func (EchoBot) Reply(ctx context.Context, req BotRequest) (string, error) {
	if ctx.Err() != nil {
		return "", ctxError("echo", ctx, 0)
	}
	last := ""
	for i := len(req.History) - 1; i >= 0; i-- {
		if req.History[i].Role == "user" {
			last = req.History[i].Text
			break
		}
	}
	if len(req.History) <= 1 {
		return "Hello! I am the echo bot. Tell me something and I will say it back.", nil
	}
	return "You said: " + last, nil
}

func (s BotSpec) timeout() time.Duration {
	if s.TimeoutSeconds > 0 {
		return time.Duration(s.TimeoutSeconds) * time.Second
	}
	return 60 * time.Second
}

// NewBot makes a runnable bot from its definition. name is the model key (for messages).
//
// Exec bots speak JSON lines over the standard streams of a program the app starts once and
// keeps running. For every reply the app writes one line to the program's standard input,
//
//	{"model": "<model key>", "persona": ["your persona: …"], "history": [{"role": "user", "text": "Hi!"}, {"role": "bot", "text": "…"}, …]}
//
// (the last history message is the participant's). A bot given a persona (include_persona,
// a model key containing "blender") gets the "your persona: …" lines in persona, and the first
// history message carries them too, as ParlAI's first observation did: its text is the lines
// and then "Hi!", joined by newlines (BotRequest.Observations); a program that keeps personas
// apart reads persona and drops the lines ahead of "Hi!". The app then reads one line from the
// program's standard output:
//
//	{"text": "<the reply>"}      or      {"error": "<what went wrong>"}
//
// Lines are UTF-8 JSON objects terminated by "\n"; anything the program writes to standard
// error is shown in error messages. A program that does not answer within timeout_seconds
// (default 60) is stopped and started again on the next request; one that exits is restarted.
//
// An exec bot implements io.Closer: close it (CloseBot) when the session ends to stop the
// program.
//
// HTTP bots post to an OpenAI-compatible chat-completions endpoint: {"model", "messages"
// (the system prompt, then the history as user/assistant messages, the persona lines opening
// the first user message as above), "temperature"}, with a
// bearer token from the environment variable api_key_env when set, and take
// choices[0].message.content.
func NewBot(name string, spec BotSpec) (Bot, error) {
	switch spec.Kind {
	case BotEcho:
		return EchoBot{}, nil
	case BotExec:
		if len(spec.Command) == 0 {
			return nil, fmt.Errorf("bot %q: an exec bot needs a command", name)
		}
		return &execBot{name: name, spec: spec}, nil
	case BotHTTP:
		if spec.URL == "" {
			return nil, fmt.Errorf("bot %q: an http bot needs a url", name)
		}
		return &httpBot{name: name, spec: spec, client: &http.Client{}}, nil
	case BotParlAI:
		return nil, fmt.Errorf("bot %q is a ParlAI model (%s) the app cannot run: define it as an exec or http bot", name, spec.Options)
	}
	return nil, fmt.Errorf("bot %q: unknown kind %q (want echo, exec or http)", name, spec.Kind)
}

// CloseBot releases what a bot holds (an exec bot's program); bots holding nothing are left
// alone.
func CloseBot(b Bot) error {
	if c, ok := b.(io.Closer); ok {
		return c.Close()
	}
	return nil
}

// execBot runs a program speaking the JSON-lines protocol of NewBot.
type execBot struct {
	name string
	spec BotSpec

	mu     sync.Mutex
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	lines  chan execLine
	stderr *tailBuffer
}

type execLine struct {
	data []byte
	err  error
}

// tailBuffer keeps the last few KiB written to it.
type tailBuffer struct {
	mu  sync.Mutex
	buf []byte
}

// Write keeps the tail of what the program wrote to standard error.
func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if len(t.buf) > 4096 {
		t.buf = t.buf[len(t.buf)-4096:]
	}
	return len(p), nil
}

// String returns the kept tail.
func (t *tailBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return strings.TrimSpace(string(t.buf))
}

func (b *execBot) start() error {
	cmd := exec.Command(b.spec.Command[0], b.spec.Command[1:]...)
	cmd.Dir = b.spec.Dir
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	b.stderr = &tailBuffer{}
	cmd.Stderr = b.stderr
	cmd.WaitDelay = 2 * time.Second // a grandchild holding stderr open must not hang Wait
	if err := cmd.Start(); err != nil {
		return err
	}
	lines := make(chan execLine)
	go func() {
		r := bufio.NewReaderSize(stdout, 64*1024)
		for {
			line, err := r.ReadBytes('\n')
			if len(line) > 0 || err == nil {
				lines <- execLine{data: line}
			}
			if err != nil {
				lines <- execLine{err: err}
				close(lines)
				return
			}
		}
	}()
	b.cmd, b.stdin, b.lines = cmd, stdin, lines
	return nil
}

// stop kills the program and waits for it, draining its output.
func (b *execBot) stop() {
	if b.cmd == nil {
		return
	}
	b.stdin.Close()
	b.cmd.Process.Kill()
	go func(lines chan execLine) {
		for range lines {
		}
	}(b.lines)
	b.cmd.Wait()
	b.cmd, b.stdin, b.lines = nil, nil, nil
}

// Close stops the program.
func (b *execBot) Close() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.stop()
	return nil
}

func (b *execBot) failure(kind BotErrorKind, err error) *BotError {
	if b.stderr != nil {
		if tail := b.stderr.String(); tail != "" {
			err = fmt.Errorf("%w (standard error: %s)", err, lastLines(tail, 3))
		}
	}
	return &BotError{Bot: b.name, Kind: kind, Err: err}
}

func lastLines(s string, n int) string {
	lines := strings.Split(s, "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, " | ")
}

// Reply implements Bot.
func (b *execBot) Reply(ctx context.Context, req BotRequest) (string, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	timeout := b.spec.timeout()
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	if b.cmd == nil {
		if err := b.start(); err != nil {
			return "", &BotError{Bot: b.name, Kind: BotUnavailable, Err: err}
		}
	}
	sent := req
	sent.History = req.Observations()
	line, err := json.Marshal(sent)
	if err != nil {
		return "", &BotError{Bot: b.name, Kind: BotBadReply, Err: err}
	}
	if _, err := b.stdin.Write(append(line, '\n')); err != nil {
		b.stop() // waits for the program, so its standard error is complete
		return "", b.failure(BotUnavailable, fmt.Errorf("the program stopped: %v", err))
	}
	select {
	case <-ctx.Done():
		e := ctxError(b.name, ctx, timeout)
		b.stop()
		return "", e
	case l := <-b.lines:
		if l.err != nil {
			b.stop()
			return "", b.failure(BotUnavailable, fmt.Errorf("the program closed its output: %v", l.err))
		}
		var out struct {
			Text  *string `json:"text"`
			Error string  `json:"error"`
		}
		if err := json.Unmarshal(bytes.TrimSpace(l.data), &out); err != nil {
			b.stop() // the stream may be out of step now
			return "", b.failure(BotBadReply, fmt.Errorf("the output line %q is not a JSON object: %v", truncate(string(l.data), 120), err))
		}
		if out.Error != "" {
			return "", &BotError{Bot: b.name, Kind: BotBadReply, Err: errors.New(out.Error)}
		}
		if out.Text == nil {
			return "", &BotError{Bot: b.name, Kind: BotBadReply, Err: errors.New(`the reply has no "text"`)}
		}
		return *out.Text, nil
	}
}

func truncate(s string, n int) string {
	s = strings.TrimSpace(s)
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// httpBot talks to an OpenAI-compatible chat-completions endpoint.
type httpBot struct {
	name   string
	spec   BotSpec
	client *http.Client
}

// Reply implements Bot.
func (b *httpBot) Reply(ctx context.Context, req BotRequest) (string, error) {
	timeout := b.spec.timeout()
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	type msg struct {
		Role    string `json:"role"`
		Content string `json:"content"`
	}
	var msgs []msg
	if system := b.spec.SystemPrompt; system != "" {
		msgs = append(msgs, msg{"system", system})
	}
	for _, m := range req.Observations() {
		role := "user"
		if m.Role == "bot" {
			role = "assistant"
		}
		msgs = append(msgs, msg{role, m.Text})
	}
	body := map[string]any{"model": b.spec.Model, "messages": msgs}
	if b.spec.Temperature != 0 {
		body["temperature"] = b.spec.Temperature
	}
	data, _ := json.Marshal(body)
	hreq, err := http.NewRequestWithContext(ctx, http.MethodPost, b.spec.URL, bytes.NewReader(data))
	if err != nil {
		return "", &BotError{Bot: b.name, Kind: BotUnavailable, Err: err}
	}
	hreq.Header.Set("Content-Type", "application/json")
	if b.spec.APIKeyEnv != "" {
		if key := os.Getenv(b.spec.APIKeyEnv); key != "" {
			hreq.Header.Set("Authorization", "Bearer "+key)
		}
	}
	resp, err := b.client.Do(hreq)
	if err != nil {
		if ctx.Err() != nil {
			return "", ctxError(b.name, ctx, timeout)
		}
		return "", &BotError{Bot: b.name, Kind: BotUnavailable, Err: err}
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, 4<<20))
	if err != nil {
		if ctx.Err() != nil {
			return "", ctxError(b.name, ctx, timeout)
		}
		return "", &BotError{Bot: b.name, Kind: BotUnavailable, Err: err}
	}
	if resp.StatusCode != http.StatusOK {
		return "", &BotError{Bot: b.name, Kind: BotUnavailable, Err: fmt.Errorf("HTTP %s: %s", resp.Status, truncate(string(raw), 200))}
	}
	var out struct {
		Choices []struct {
			Message struct {
				Content *string `json:"content"`
			} `json:"message"`
		} `json:"choices"`
	}
	if err := json.Unmarshal(raw, &out); err != nil || len(out.Choices) == 0 || out.Choices[0].Message.Content == nil {
		return "", &BotError{Bot: b.name, Kind: BotBadReply, Err: fmt.Errorf("no choices[0].message.content in %s", truncate(string(raw), 200))}
	}
	return *out.Choices[0].Message.Content, nil
}

// unsafeMarker is the framework's safety marker, removed from replies.
const unsafeMarker = "_potentially_unsafe__"

// NormaliseReply tidies a bot reply the way the original's chat framework presented them: the
// safety marker removed, no space before . , ? !, the first word and the word after a sentence
// end capitalised, and "i" (with i'm, i've, i'll, i'd) capitalised.
func NormaliseReply(text string) string {
	text = strings.ReplaceAll(text, unsafeMarker, "")
	words := strings.Fields(text)
	var out []string
	capNext := true
	for _, w := range words {
		if len(out) > 0 && strings.Trim(w, ".,?!") == "" {
			out[len(out)-1] += w
			capNext = strings.ContainsAny(w, ".?!")
			continue
		}
		lw := strings.ToLower(w)
		switch {
		case lw == "i" || strings.HasPrefix(lw, "i'") && len(lw) <= 4:
			w = upperFirst(w)
		case capNext:
			w = upperFirst(w)
		}
		out = append(out, w)
		last := w[len(w)-1]
		capNext = last == '.' || last == '?' || last == '!'
	}
	return strings.Join(out, " ")
}

func upperFirst(s string) string {
	for i, r := range s {
		return s[:i] + string(unicode.ToUpper(r)) + s[i+len(string(r)):]
	}
	return s
}
