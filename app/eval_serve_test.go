package app

import (
	"encoding/csv"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// eval links prints one link per participant in the original's form with a token, the
// assignment each would get next, the study link and revocations; eval serve refuses an
// address other machines can reach unless told.
func TestEvalLinksAndServeRefusals(t *testing.T) {
	dir := isolate(t)
	db := filepath.Join(dir, "eval.db")
	r := runCLI(t, "--store", db, "eval", "import", "--config", "flags", evalExample)
	if r.code != 0 || !strings.Contains(r.stdout, "mephisto.architect") || !strings.Contains(r.stdout, "port 3101") ||
		!strings.Contains(r.stdout, "eval serve --addr") {
		t.Fatalf("the import does not report the original's address as ignored: %+v", r)
	}
	r = runCLI(t, "--store", db, "eval", "links", "demo", "--participants", "w1, w2,w1")
	lines := strings.Fields(r.stdout)
	if r.code != 0 || len(lines) != 2 {
		t.Fatalf("links: %+v", r)
	}
	tokens := map[string]string{}
	for i, l := range lines {
		u, err := url.Parse(l)
		if err != nil || u.Host != "127.0.0.1:3008" || u.Path != "/" {
			t.Fatalf("link %q", l)
		}
		q := u.Query()
		if want := []string{"w1", "w2"}[i]; q.Get("worker_id") != want || q.Get("assignment_id") != "screening" || len(q.Get("token")) < 30 {
			t.Fatalf("link %q", l)
		}
		tokens[q.Get("worker_id")] = q.Get("token")
	}
	if tokens["w1"] == tokens["w2"] {
		t.Fatal("two participants share a token")
	}
	// The same links again (the secret is kept in the store), then w1's revoked: a new token.
	if again := runCLI(t, "--store", db, "eval", "links", "demo", "--participants", "w1"); strings.TrimSpace(again.stdout) != lines[0] {
		t.Fatalf("w1's link changed: %q, was %q", again.stdout, lines[0])
	}
	r = runCLI(t, "--store", db, "eval", "links", "demo", "--revoke", "w1")
	if r.code != 0 || !strings.Contains(r.stdout, "worker_id=w1") || strings.Contains(r.stdout, tokens["w1"]) {
		t.Fatalf("revoke: %+v", r)
	}
	r = runCLI(t, "--store", db, "eval", "links", "demo", "--participants", "w2", "--study", "--csv", "--url", "https://study.example.org/")
	recs, err := csv.NewReader(strings.NewReader(r.stdout)).ReadAll()
	if r.code != 0 || err != nil || len(recs) != 3 || recs[0][0] != "participant" || recs[1][0] != "(study)" ||
		!strings.HasPrefix(recs[1][2], "https://study.example.org/?token=") || !strings.HasPrefix(recs[2][2], "https://study.example.org/?worker_id=w2") {
		t.Fatalf("csv: %+v %v", r, recs)
	}
	// Recruitment through the study link closes and opens again; evicting says what it did.
	if r := runCLI(t, "--store", db, "eval", "links", "demo", "--study", "--close"); r.code != 0 || !strings.Contains(r.stderr, "Recruitment is closed") {
		t.Fatalf("--close: %+v", r)
	}
	if r := runCLI(t, "--store", db, "eval", "links", "demo", "--study", "--open"); r.code != 0 || !strings.Contains(r.stderr, "Recruitment is open") {
		t.Fatalf("--open: %+v", r)
	}
	r = runCLI(t, "--store", db, "eval", "links", "demo", "--study", "--evict")
	if r.code != 0 || !strings.Contains(r.stderr, "Evicted 0 study-link participants; 0 units") || recs[1][2] == "" ||
		strings.Contains(r.stdout, strings.TrimPrefix(recs[1][2], "https://study.example.org/")) {
		t.Fatalf("--evict: %+v (the study link must change)", r)
	}
	if r := runCLI(t, "--store", db, "eval", "links", "demo", "--close"); r.code != 2 {
		t.Fatalf("--close without --study: %+v", r)
	}
	for _, args := range [][]string{
		{"eval", "serve", "demo", "--addr", "0.0.0.0:0"},
		{"eval", "links", "demo", "--participants", "w1", "--addr", "0.0.0.0:3008"},
	} {
		r := runCLI(t, append([]string{"--store", db}, args...)...)
		if r.code == 0 || !strings.Contains(r.stderr, "--public") {
			t.Errorf("%v: %+v", args, r)
		}
	}
	if r := runCLI(t, "--store", db, "eval", "serve", "demo", "--tls-cert", "x.pem"); r.code != 2 {
		t.Errorf("--tls-cert without --tls-key: %+v", r)
	}
	// The completion code and link are kept in the project (a bad link is refused).
	if r := runCLI(t, "--store", db, "eval", "serve", "demo", "--completion-url", "javascript:alert(1)"); r.code == 0 || !strings.Contains(r.stderr, "completion_url") {
		t.Errorf("a bad completion link: %+v", r)
	}
	runCLI(t, "--store", db, "eval", "serve", "demo", "--completion-code", "AGD-42", "--completion-url", "https://example.org/done", "--addr", "0.0.0.0:0")
	saved := filepath.Join(dir, "saved.toml")
	if r := runCLI(t, "--store", db, "eval", "save", "demo", saved); r.code != 0 {
		t.Fatalf("save: %+v", r)
	}
	if b, _ := os.ReadFile(saved); !strings.Contains(string(b), `completion_code = 'AGD-42'`) || !strings.Contains(string(b), `completion_url = 'https://example.org/done'`) {
		t.Errorf("the completion settings were not kept:\n%s", b)
	}
	if r := runCLI(t, "--store", db, "eval", "links", "demo"); r.code != 2 {
		t.Errorf("links without participants: %+v", r)
	}
}
