package atomicfile

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func TestWriteReplacesAndLeavesNoTemporaries(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "sub", "out.txt")
	if err := Write(path, []byte("first"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := Write(path, []byte("second"), 0o644); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil || string(b) != "second" {
		t.Fatalf("content %q, %v", b, err)
	}
	if st, _ := os.Stat(path); st.Mode().Perm() != 0o644 {
		t.Fatalf("mode %v", st.Mode())
	}
	entries, _ := os.ReadDir(filepath.Dir(path))
	if len(entries) != 1 {
		t.Fatalf("temporary files left: %v", entries)
	}
}

func TestWriteFailureKeepsTheOldFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "out.txt")
	os.WriteFile(path, []byte("old"), 0o644)
	// A folder in the way of the target: the rename fails, the old content stays readable.
	target := filepath.Join(dir, "blocked")
	os.Mkdir(target, 0o755)
	os.WriteFile(filepath.Join(target, "x"), []byte("x"), 0o644)
	if err := Write(target, []byte("new"), 0o644); err == nil {
		t.Fatal("writing over a non-empty folder succeeded")
	}
	if b, _ := os.ReadFile(path); string(b) != "old" {
		t.Fatal("unrelated file changed")
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 2 {
		t.Fatalf("temporary files left after a failure: %v", entries)
	}
}

// deadPid is the id of a process that has ended.
func deadPid(t *testing.T) int {
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	return cmd.Process.Pid
}

func TestCleanRemovesOnlyLeftoversOfEndedWriters(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "demo.pkl")
	os.WriteFile(path, []byte("the file"), 0o644)
	dead := deadPid(t)
	names := map[string]bool{ // name -> stale
		fmt.Sprintf(".demo.pkl.%d-123456.tmp", dead):      true,
		fmt.Sprintf(".demo.pkl.%d-99.tmp", os.Getpid()):   false, // this process is running
		".demo.pkl.2895412.tmp":                           true,  // an earlier version's name
		".demo.pkl.tmp77":                                 true,  // and the other one
		".demo.pkl.notes.tmp":                             false, // not ours
		fmt.Sprintf(".other.pkl.%d-123456.tmp", dead):     false, // another file's
		fmt.Sprintf(".demo.pkl.%d-123456.tmp.keep", dead): false,
		"demo.pkl.old":                                    false,
	}
	for n := range names {
		os.WriteFile(filepath.Join(dir, n), []byte("x"), 0o644)
	}
	removed, err := Clean(path)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]bool{}
	for _, p := range removed {
		got[filepath.Base(p)] = true
	}
	for n, stale := range names {
		if got[n] != stale {
			t.Errorf("%s: removed %v, want %v", n, got[n], stale)
		}
		_, err := os.Stat(filepath.Join(dir, n))
		if exists := err == nil; exists == stale {
			t.Errorf("%s: still there %v", n, exists)
		}
	}
	if b, _ := os.ReadFile(path); string(b) != "the file" {
		t.Fatal("the file itself changed")
	}
}

func TestAbortAndCommit(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "out.bin")
	f, err := New(path, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(filepath.Base(f.Name()), fmt.Sprintf(".out.bin.%d-", os.Getpid())) {
		t.Fatalf("temporary name %s does not carry the pid", f.Name())
	}
	f.Write([]byte("abc"))
	f.Abort()
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Fatalf("abort left %v", entries)
	}
	f, _ = New(path, 0o644)
	defer f.Abort()
	f.Write([]byte("abc"))
	if err := f.Commit(); err != nil {
		t.Fatal(err)
	}
	f.Abort() // a no-op now
	if b, _ := os.ReadFile(path); string(b) != "abc" {
		t.Fatalf("content %q", b)
	}
	if err := f.Commit(); err == nil {
		t.Fatal("second commit accepted")
	}
}

// TestParseTemp: every temporary name New makes (of any file, a temporary file's too) and the
// names of earlier versions are recognised with their target and pid; other names are not.
func TestParseTemp(t *testing.T) {
	dir := t.TempDir()
	for _, target := range []string{"store.db", ".store.db.open-123-456", "a.tmp", "x.y.z"} {
		f, err := New(filepath.Join(dir, target), 0o644)
		if err != nil {
			t.Fatal(err)
		}
		name := filepath.Base(f.Name())
		f.Abort()
		if got, pid, ok := ParseTemp(name); !ok || got != target || pid != os.Getpid() {
			t.Errorf("ParseTemp(%q) = %q, %d, %v; want %q, %d", name, got, pid, ok, target, os.Getpid())
		}
	}
	for name, want := range map[string]string{
		".store.db.12345.tmp":             "store.db",
		".store.db.tmp98765":              "store.db",
		"..store.db.open-77-88.77-99.tmp": ".store.db.open-77-88",
		"..store.db.open-77-88.1234.tmp":  ".store.db.open-77-88",
	} {
		if got, _, ok := ParseTemp(name); !ok || got != want {
			t.Errorf("ParseTemp(%q) = %q, %v; want %q", name, got, ok, want)
		}
	}
	for _, name := range []string{"store.db", ".store.db", ".store.db.open-77-88", "store.db.1-2.tmp", ".tmp", "..tmp", ".a.b-c.tmp", ".a.tmp"} {
		if got, pid, ok := ParseTemp(name); ok {
			t.Errorf("ParseTemp(%q) = %q, %d: not a temporary name", name, got, pid)
		}
	}
}

// SyncTree syncs a folder's files (or its file system) and names a folder that is not there.
func TestSyncTree(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "images", "a"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "images", "a", "00000.png"), []byte("frame"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := SyncTree(dir); err != nil {
		t.Fatal(err)
	}
	if err := SyncTree(filepath.Join(dir, "gone")); err == nil {
		t.Fatal("a missing folder synced")
	}
}
