package app

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestFileArgumentOpensTheApp: agentdesk FILE.pkl (with or without --store) opens the app on
// the Demonstrations workspace with the file; a missing file, several files or a file the app
// does not open are refused without opening it.
func TestFileArgumentOpensTheApp(t *testing.T) {
	isolate(t)
	dir := t.TempDir()
	pkl := filepath.Join(dir, "anno.pkl")
	if err := os.WriteFile(pkl, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	r := runCLI(t, pkl)
	if !r.guiOpened || r.code != 0 || r.gui != (GUIOptions{Screen: "demonstrations", Open: pkl}) {
		t.Fatalf("FILE.pkl: %+v", r)
	}
	r = runCLI(t, "--store", "/tmp/x.db", pkl)
	if !r.guiOpened || r.gui != (GUIOptions{StorePath: "/tmp/x.db", Screen: "demonstrations", Open: pkl}) {
		t.Fatalf("--store S FILE.pkl: %+v", r)
	}
	// a relative path is made absolute (the app does not depend on the folder it started in)
	t.Chdir(dir)
	if r := runCLI(t, "anno.pkl"); !r.guiOpened || r.gui.Open != pkl {
		t.Fatalf("relative FILE.pkl: %+v", r)
	}
	old := filepath.Join(dir, "anno.pkl.old")
	os.WriteFile(old, []byte("x"), 0o644)
	if r := runCLI(t, old); !r.guiOpened || r.gui.Open != old {
		t.Fatalf("FILE.pkl.old: %+v", r)
	}
	if r := runCLI(t, filepath.Join(dir, "missing.pkl")); r.guiOpened || r.code != 1 || !strings.Contains(r.stderr, "missing.pkl") {
		t.Fatalf("missing file: %+v", r)
	}
	if r := runCLI(t, pkl, old); r.guiOpened || r.code != 2 || !strings.Contains(r.stderr, "one file at a time") {
		t.Fatalf("two files: %+v", r)
	}
	txt := filepath.Join(dir, "notes.txt")
	os.WriteFile(txt, []byte("x"), 0o644)
	if r := runCLI(t, txt); r.guiOpened || r.code != 2 || !strings.Contains(r.stderr, "unknown command") {
		t.Fatalf("a file the app does not open: %+v", r)
	}
	// commands keep their names even when a file of that name ends like a pickle
	if r := runCLI(t, "version"); r.guiOpened || r.code != 0 {
		t.Fatalf("version: %+v", r)
	}
	if r := runCLI(t, "help"); r.guiOpened || !strings.Contains(r.stdout, "FILE.pkl") {
		t.Fatalf("usage does not mention FILE.pkl: %+v", r)
	}
}
