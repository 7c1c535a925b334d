package app

import (
	"bytes"
	"context"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
)

// cancelWriter collects a command's output and cancels its context once a line shows up.
type cancelWriter struct {
	mu     sync.Mutex
	buf    bytes.Buffer
	when   string
	cancel context.CancelFunc
}

func (w *cancelWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	n, err := w.buf.Write(p)
	if strings.Contains(w.buf.String(), w.when) {
		w.cancel()
	}
	return n, err
}

func (w *cancelWriter) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.buf.String()
}

// eval serve names the project it serves by its name, also when given its id, and keeps the
// study link line and one ID<TAB>URL line per personal link.
func TestEvalServeNamesTheProject(t *testing.T) {
	dir := isolate(t)
	db := filepath.Join(dir, "eval.db")
	if r := runCLI(t, "--store", db, "eval", "import", "--config", "flags", evalExample); r.code != 0 {
		t.Fatalf("import: %+v", r)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	prev := serveContext
	serveContext = func(*env) (context.Context, context.CancelFunc) { return ctx, cancel }
	defer func() { serveContext = prev }()
	out := &cancelWriter{when: "Press Ctrl-C", cancel: cancel}
	var errb bytes.Buffer
	if code := run([]string{"--store", db, "eval", "serve", "1", "--addr", "127.0.0.1:0", "--participants", "w1,w2"}, out, &errb, nil); code != 0 {
		t.Fatalf("serve: %d\n%s\n%s", code, out, errb.String())
	}
	text := out.String()
	if !strings.Contains(text, `Serving "demo" at http://127.0.0.1:`) || strings.Contains(text, `Serving "1"`) {
		t.Errorf("the serve line does not name the project:\n%s", text)
	}
	if !regexp.MustCompile(`(?m)^Study link.*: http://127\.0\.0\.1:\d+/\?token=\S+$`).MatchString(text) {
		t.Errorf("no study link line:\n%s", text)
	}
	for _, id := range []string{"w1", "w2"} {
		if !regexp.MustCompile(`(?m)^` + id + `\thttp://127\.0\.0\.1:\d+/\?worker_id=` + id + `&\S*token=\S+$`).MatchString(text) {
			t.Errorf("no ID<TAB>URL line for %s:\n%s", id, text)
		}
	}
}
