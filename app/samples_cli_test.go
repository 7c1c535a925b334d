package app

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestSamplesLoadCommand: `samples load` loads the same samples as Home's button, once: a
// second run says they are loaded and changes nothing; the evaluation sample's answers give
// `eval stats` agreement rows; `samples remove` takes them away.
func TestSamplesLoadCommand(t *testing.T) {
	dir := isolate(t)
	db := filepath.Join(dir, "s.db")
	r := runCLI(t, "--store", db, "samples", "load")
	if r.code != 0 || !strings.Contains(r.stdout, "Sample data loaded") {
		t.Fatalf("samples load: %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	info := runCLI(t, "--store", db, "store", "info").stdout
	r = runCLI(t, "--store", db, "samples", "load")
	if r.code != 0 || !strings.Contains(r.stdout, "already loaded") {
		t.Fatalf("samples load again: %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if again := runCLI(t, "--store", db, "store", "info").stdout; again != info {
		t.Fatalf("the second load changed the store:\n%s\nthen\n%s", info, again)
	}
	stats := runCLI(t, "--store", db, "eval", "stats", "Sample chat evaluation")
	if stats.code != 0 || strings.Contains(stats.stdout, "no submitted answers") || !strings.Contains(stats.stdout, "ALPHA") {
		t.Fatalf("eval stats on the sample: %d\n%s%s", stats.code, stats.stdout, stats.stderr)
	}
	t.Log(stats.stdout)
	r = runCLI(t, "--store", db, "samples", "remove")
	if r.code != 0 || !strings.Contains(r.stdout, "Removed the sample data") {
		t.Fatalf("samples remove: %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if r = runCLI(t, "--store", db, "samples", "remove"); !strings.Contains(r.stdout, "No sample data") {
		t.Fatalf("samples remove twice: %s", r.stdout)
	}
	if r = runCLI(t, "--store", db, "samples", "load", "extra"); r.code != exitUsage {
		t.Fatalf("an argument: exit %d", r.code)
	}
}
