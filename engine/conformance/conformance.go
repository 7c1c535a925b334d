// Package conformance locates the conformance vectors that tests compare against.
//
// The vectors live in testdata/conformance/<area>/ at the repository root, copied from the
// originals' public examples. When the environment variable AGENTDESK_CONFORMANCE names a
// folder (laid out like testdata/conformance, one sub-folder per area), tests read that folder
// instead, so that further cases of the same formats can be dropped in without code changes.
package conformance

import (
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"testing"
)

// EnvVar names the environment variable that overrides the conformance root.
const EnvVar = "AGENTDESK_CONFORMANCE"

// Root returns the conformance root folder: $AGENTDESK_CONFORMANCE when set, otherwise the
// repository's testdata/conformance.
func Root() string {
	if dir := os.Getenv(EnvVar); dir != "" {
		return dir
	}
	return RepoRoot()
}

// RepoRoot returns the repository's own testdata/conformance, whatever $AGENTDESK_CONFORMANCE
// says. Fixture tests that need one particular example (the odyssey sample/, a given pickle)
// read it from here, so that a conformance folder with other cases does not break them.
func RepoRoot() string {
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		return filepath.Join("testdata", "conformance")
	}
	// this file is engine/conformance/conformance.go
	return filepath.Join(filepath.Dir(file), "..", "..", "testdata", "conformance")
}

// RepoDir returns the folder of one area in the repository's own copy (see RepoRoot). It fails
// the test when the folder does not exist.
func RepoDir(t testing.TB, area string) string {
	t.Helper()
	dir := filepath.Join(RepoRoot(), area)
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		t.Fatalf("repository fixture folder %s not found", dir)
	}
	return dir
}

// Dir returns the folder of one area (gridworld, mobileenv, templates, evaluation, odyssey).
// It fails the test when the folder does not exist.
func Dir(t testing.TB, area string) string {
	t.Helper()
	dir := filepath.Join(Root(), area)
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		t.Fatalf("conformance folder %s not found (set %s or copy the vectors into testdata/conformance)", dir, EnvVar)
	}
	return dir
}

// Files returns every file of an area whose path relative to the area folder matches the glob
// pattern (filepath.Match syntax, e.g. "episodes/*.json"), sorted. It fails the test when
// nothing matches: a conformance test that reads no case proves nothing.
func Files(t testing.TB, area, pattern string) []string {
	t.Helper()
	dir := Dir(t, area)
	matches, err := filepath.Glob(filepath.Join(dir, pattern))
	if err != nil {
		t.Fatalf("bad conformance pattern %q: %v", pattern, err)
	}
	sort.Strings(matches)
	if len(matches) == 0 {
		t.Fatalf("no conformance files match %s in %s", pattern, dir)
	}
	return matches
}

// Report logs how many cases a conformance test read and fails it when the count is zero.
func Report(t testing.TB, what string, cases int) {
	t.Helper()
	t.Logf("conformance: read %d %s cases from %s", cases, what, Root())
	if cases == 0 {
		t.Fatalf("conformance: read no %s cases", what)
	}
}

// CopyTree copies the folder src with everything in it to dst (created as needed), so that a
// test can change or import a fixture without touching the repository's copy.
func CopyTree(t testing.TB, src, dst string) {
	t.Helper()
	err := filepath.WalkDir(src, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, p)
		if err != nil {
			return err
		}
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(target, b, 0o644)
	})
	if err != nil {
		t.Fatalf("copy %s to %s: %v", src, dst, err)
	}
}
