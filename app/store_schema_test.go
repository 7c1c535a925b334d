package app

import (
	"bytes"
	"database/sql"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentdesk/agentdesk/engine/conformance"
)

// TestStoreMissingATable: a store whose `splits` table was dropped fails `store check` (exit
// 1, the difference on stdout) and `odyssey import` refuses it before writing, naming the
// store, what is missing and what to do. Before, `store check` said "ok" and the import wrote
// into it.
func TestStoreMissingATable(t *testing.T) {
	dir := isolate(t)
	db := filepath.Join(dir, "store.db")
	sample := filepath.Join(conformance.RepoDir(t, "odyssey"), "sample")
	if r := runCLI(t, "--store", db, "store", "info"); r.code != 0 {
		t.Fatalf("store info: %+v", r)
	}
	if r := runCLI(t, "--store", db, "eval", "import", "--config", "flags", evalExample); r.code != 0 {
		t.Fatalf("eval import: %+v", r)
	}
	conn, err := sql.Open("sqlite", db)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Exec(`DROP TABLE splits`); err != nil {
		t.Fatal(err)
	}
	conn.Exec(`PRAGMA wal_checkpoint(TRUNCATE)`)
	conn.Close()
	r := runCLI(t, "--store", db, "store", "check")
	if r.code != 1 || !strings.Contains(r.stdout, "the table splits is missing") || !strings.Contains(r.stderr, db) {
		t.Fatalf("store check of a store without splits: %+v", r)
	}
	t.Logf("store check: %s%s", r.stdout, r.stderr)
	before, _ := os.ReadFile(db)
	r = runCLI(t, "--store", db, "odyssey", "import", sample)
	if r.code != 1 || !strings.Contains(r.stderr, db) || !strings.Contains(r.stderr, "the table splits is missing") ||
		!strings.Contains(r.stderr, "store check") {
		t.Fatalf("import into a store without splits: %+v", r)
	}
	if after, _ := os.ReadFile(db); !bytes.Equal(before, after) {
		t.Fatal("the import wrote into the damaged store")
	}
	t.Logf("import refused: %s", r.stderr)
	// what can still be read leaves it: exports open the store read-only
	out := filepath.Join(dir, "answers.csv")
	if r := runCLI(t, "--store", db, "eval", "export", "--format", "csv", "--out", out, "demo"); r.code != 0 {
		t.Fatalf("eval export from the damaged store: %+v", r)
	}
	if _, err := os.Stat(out); err != nil {
		t.Fatal(err)
	}
	if after, _ := os.ReadFile(db); !bytes.Equal(before, after) {
		t.Fatal("the export wrote into the damaged store")
	}
}
