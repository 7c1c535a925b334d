package store

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"testing"
	"time"
)

// TestOpenRemovesStaleTemporaryNames: every kind of temporary file a killed process leaves
// beside a store is removed by the next open, a read-only one too: the atomic writer's
// temporaries of the store and of the markers (the "..<store>.open-<pid>-<n>.<pid>-<n>.tmp" a
// kill -9 of `odyssey import` left, which no run removed), earlier versions' names and the
// folder probe once they are old. Names of running processes (this one), recent names without
// a pid, markers (a writer's open checks the store for them) and other files stay.
func TestOpenRemovesStaleTemporaryNames(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "store.db")
	s, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	dead, me := deadPID(t), os.Getpid()
	old := time.Now().Add(-time.Hour)
	stale := map[string]time.Time{
		fmt.Sprintf("..store.db.open-%d-123.%d-456.tmp", dead, dead): {},  // the marker's temporary (the issue's)
		fmt.Sprintf(".store.db.%d-789.tmp", dead):                    {},  // the store's own
		fmt.Sprintf("..store.db.open-%d-5.31337.tmp", dead):          old, // an earlier version's, old
		".store.db.tmp4242":   old,
		".agentdesk-probe-99": old,
	}
	kept := map[string]time.Time{
		fmt.Sprintf("..store.db.open-%d-1.%d-2.tmp", me, me):     old, // this process writes it
		fmt.Sprintf(".store.db.%d-3.tmp", me):                    old,
		".store.db.555.tmp":                                      {}, // no pid, recent
		".agentdesk-probe-7":                                     {},
		fmt.Sprintf(".store.db.open-%d-9", dead):                 {}, // a marker: left for a writer, which checks the store
		fmt.Sprintf(".other.db.%d-1.tmp", dead):                  {}, // another file's
		fmt.Sprintf("..other.db.open-%d-1.%d-2.tmp", dead, dead): {},
		"store.db.bak":                                           {},
	}
	for _, set := range []map[string]time.Time{stale, kept} {
		for name, mtime := range set {
			p := filepath.Join(dir, name)
			if err := os.WriteFile(p, nil, 0o644); err != nil {
				t.Fatal(err)
			}
			if !mtime.IsZero() {
				os.Chtimes(p, mtime, mtime)
			}
		}
	}
	s, err = OpenWith(path, Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	for name := range stale {
		if _, err := os.Stat(filepath.Join(dir, name)); err == nil {
			t.Errorf("%s was left", name)
		}
	}
	for name := range kept {
		if _, err := os.Stat(filepath.Join(dir, name)); err != nil {
			t.Errorf("%s was removed", name)
		}
	}
	var left []string
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		left = append(left, e.Name())
	}
	sort.Strings(left)
	t.Logf("after a read-only open: %v", left)
}
