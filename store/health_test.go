package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentdesk/agentdesk/engine/episode"
)

// fill saves n small episodes.
func fill(t *testing.T, s *Store, n int, source string) {
	t.Helper()
	err := s.Update(context.Background(), func(tx *Tx) error {
		for i := 0; i < n; i++ {
			e := &episode.Episode{Source: source, ExternalID: fmt.Sprintf("%s-%d", source, i), Task: strings.Repeat("task text ", 20),
				Steps: []episode.Step{{Index: 0}, {Index: 1, Reward: 1, Instruction: strings.Repeat("x", 100)}}}
			if err := tx.SaveEpisode(context.Background(), e); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestOpenAndReadWhileAnotherWrites: a long write transaction in one connection (another
// process's import) must not stop the store from being opened and read; a second writer waits,
// says that it waits, and goes on once the first commits. Before, Open itself took the write
// lock for its migration check and every command failed after 10 s with "migration 1 (core):
// database is locked".
func TestOpenAndReadWhileAnotherWrites(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "busy.db")
	a, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	fill(t, a, 3, "before")
	holding, release := make(chan struct{}), make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		err := a.Update(ctx, func(tx *Tx) error {
			if err := tx.SaveEpisode(ctx, &episode.Episode{Source: "long", ExternalID: "1"}); err != nil {
				return err
			}
			close(holding)
			<-release
			return nil
		})
		if err != nil {
			t.Error(err)
		}
	}()
	<-holding
	var notices []Notice
	var mu sync.Mutex
	b, err := OpenWith(path, Options{Notify: func(n Notice) { mu.Lock(); notices = append(notices, n); mu.Unlock() }})
	if err != nil {
		t.Fatalf("open while another connection writes: %v", err)
	}
	defer b.Close()
	o, err := b.Overview(ctx)
	if err != nil || o.EpisodesBySource["before"] != 3 || o.EpisodesBySource["long"] != 0 {
		t.Fatalf("read while another connection writes: %+v, %v", o, err)
	}
	// a write waits, with notices, until the other commits
	done := make(chan error, 1)
	go func() {
		done <- b.Update(ctx, func(tx *Tx) error { return tx.SaveEpisode(ctx, &episode.Episode{Source: "second", ExternalID: "1"}) })
	}()
	time.Sleep(2500 * time.Millisecond)
	select {
	case err := <-done:
		t.Fatalf("the second write did not wait: %v", err)
	default:
	}
	close(release)
	wg.Wait()
	if err := <-done; err != nil {
		t.Fatalf("the waiting write failed: %v", err)
	}
	mu.Lock()
	got := notices
	mu.Unlock()
	if len(got) == 0 || !strings.Contains(got[len(got)-1].Text, "is writing to this store; waiting") {
		t.Fatalf("no waiting notice: %+v", got)
	}
	t.Logf("%d notices, the last: %s", len(got), got[len(got)-1].Text)
	// a waiting write ends with its context
	hold2, holding2 := make(chan struct{}), make(chan struct{})
	go a.Update(ctx, func(tx *Tx) error { close(holding2); <-hold2; return nil })
	defer close(hold2)
	<-holding2 // the other connection holds the write lock (a sleep here lost the race on a busy machine)
	cctx, cancel := context.WithTimeout(ctx, 700*time.Millisecond)
	defer cancel()
	if err := b.Update(cctx, func(tx *Tx) error { return nil }); !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "gave up waiting") {
		t.Fatalf("cancelled wait: %v", err)
	}
}

// damagePages overwrites a page in the middle of the file with garbage.
func damagePages(t *testing.T, path string) {
	t.Helper()
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	const page = 4096
	pages := st.Size() / page
	if pages < 8 {
		t.Fatalf("only %d pages", pages)
	}
	junk := make([]byte, 2*page)
	for i := range junk {
		junk[i] = byte(i*7 + 3)
	}
	if _, err := f.WriteAt(junk, (pages/2)*page); err != nil {
		t.Fatal(err)
	}
}

// deadPID is the id of a process that has ended.
func deadPID(t *testing.T) int {
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	return cmd.Process.Pid
}

// TestDamagedStoreIsNotWrittenAfterAnUncleanShutdown: after a process ended without closing
// the store, the first write runs SQLite's quick check; a damaged store is refused with how to
// recover, and Check lists the problems. A cleanly closed store is not checked on open (stores
// reach many GB).
func TestDamagedStoreIsNotWrittenAfterAnUncleanShutdown(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	path := filepath.Join(dir, "damaged.db")
	s, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	fill(t, s, 400, "odyssey")
	s.Close()
	if entries, _ := filepath.Glob(filepath.Join(dir, ".damaged.db.open-*")); len(entries) != 0 {
		t.Fatalf("a clean close left markers: %v", entries)
	}
	damagePages(t, path)
	// what a killed process leaves
	os.WriteFile(filepath.Join(dir, fmt.Sprintf(".damaged.db.open-%d-1", deadPID(t))), []byte(`{}`), 0o644)

	var notices []string
	s, err = OpenWith(path, Options{Notify: func(n Notice) { notices = append(notices, n.Text) }})
	if err != nil {
		t.Fatalf("a damaged store can still be opened for reading: %v", err)
	}
	defer s.Close()
	err = s.Update(ctx, func(tx *Tx) error { return tx.SaveEpisode(ctx, &episode.Episode{Source: "x", ExternalID: "new"}) })
	if !errors.Is(err, ErrDamaged) || !strings.Contains(err.Error(), "Export what can still be read") || !strings.Contains(err.Error(), "store check") {
		t.Fatalf("write into a damaged store: %v", err)
	}
	if len(notices) == 0 || !strings.Contains(notices[0], "not closed cleanly") {
		t.Errorf("no notice of the check: %v", notices)
	}
	problems, cerr := s.Check(ctx, false)
	if cerr != nil || len(problems) == 0 {
		t.Fatalf("integrity check: %v, %v", problems, cerr)
	}
	t.Logf("refused: %v; integrity check: %d problems, the first: %s", err, len(problems), problems[0])
	if s.Damaged() == "" {
		t.Fatal("Damaged() is empty")
	}
}

// TestCleanStoreChecksOnlyAfterUncleanShutdown: a sound store passes the check after an
// unclean shutdown and is written; the check runs once.
func TestCleanStoreChecksOnlyAfterUncleanShutdown(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	path := filepath.Join(dir, "sound.db")
	s, _ := Open(path)
	fill(t, s, 50, "a")
	s.Close()
	var checks int
	notify := func(n Notice) {
		if strings.Contains(n.Text, "checking") {
			checks++
		}
	}
	s, _ = OpenWith(path, Options{Notify: notify})
	fill(t, s, 1, "b")
	s.Close()
	if checks != 0 {
		t.Fatalf("a cleanly closed store was checked %d times", checks)
	}
	os.WriteFile(filepath.Join(dir, fmt.Sprintf(".sound.db.open-%d-7", deadPID(t))), []byte(`{}`), 0o644)
	s, _ = OpenWith(path, Options{Notify: notify})
	defer s.Close()
	fill(t, s, 1, "c")
	fill(t, s, 1, "d")
	if checks != 1 {
		t.Fatalf("checks after an unclean shutdown: %d, want 1", checks)
	}
	if problems, err := s.Check(ctx, false); err != nil || len(problems) != 0 {
		t.Fatalf("a sound store has problems: %v %v", problems, err)
	}
}

// TestReadOnlyStores: a store whose file or folder cannot be written can be opened and read
// (immutable when SQLite cannot make its -shm file), writes are refused with a message that
// says why, and nothing is created beside it. Root may write anywhere, so as root the checks
// run in a child process as nobody.
func TestReadOnlyStores(t *testing.T) {
	if dir := os.Getenv("AGENTDESK_TEST_READONLY_DIR"); dir != "" {
		readOnlyChecks(t, dir)
		return
	}
	top := t.TempDir()
	os.Chmod(filepath.Dir(top), 0o755)
	os.Chmod(top, 0o755)
	for _, name := range []string{"rofile", "rodir"} {
		d := filepath.Join(top, name)
		os.Mkdir(d, 0o755)
		s, err := Open(filepath.Join(d, "store.db"))
		if err != nil {
			t.Fatal(err)
		}
		fill(t, s, 5, "kept")
		s.Close()
	}
	os.Chmod(filepath.Join(top, "rofile", "store.db"), 0o444)
	os.Chmod(filepath.Join(top, "rodir"), 0o555)
	defer os.Chmod(filepath.Join(top, "rodir"), 0o755)
	if os.Geteuid() != 0 {
		readOnlyChecks(t, top)
		return
	}
	setpriv, err := exec.LookPath("setpriv")
	if err != nil {
		t.Skip("running as root without setpriv to drop to nobody")
	}
	exe, _ := os.Executable()
	bin := filepath.Join(top, "store.test")
	data, err := os.ReadFile(exe)
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(bin, data, 0o755)
	cmd := exec.Command(setpriv, "--reuid=65534", "--regid=65534", "--clear-groups", bin, "-test.run=^TestReadOnlyStores$", "-test.v")
	cmd.Env = append(os.Environ(), "AGENTDESK_TEST_READONLY_DIR="+top, "HOME="+top)
	out, err := cmd.CombinedOutput()
	t.Logf("as nobody:\n%s", out)
	if err != nil {
		t.Fatalf("as nobody: %v", err)
	}
}

func readOnlyChecks(t *testing.T, top string) {
	ctx := context.Background()
	for _, name := range []string{"rofile", "rodir"} {
		dir := filepath.Join(top, name)
		path := filepath.Join(dir, "store.db")
		before, _ := os.ReadDir(dir)
		s, err := Open(path)
		if err != nil {
			t.Fatalf("%s: open: %v", name, err)
		}
		if !s.ReadOnly() {
			t.Errorf("%s: not opened read-only", name)
		}
		o, err := s.Overview(ctx)
		if err != nil || o.EpisodesBySource["kept"] != 5 {
			t.Errorf("%s: read: %+v %v", name, o, err)
		}
		err = s.Update(ctx, func(tx *Tx) error { return nil })
		if !errors.Is(err, ErrReadOnly) || !strings.Contains(err.Error(), "can still be read") {
			t.Errorf("%s: write: %v", name, err)
		}
		s.Close()
		after, _ := os.ReadDir(dir)
		if name == "rodir" && len(after) != len(before) {
			t.Errorf("%s: files appeared: %v -> %v", name, before, after)
		}
		t.Logf("%s: read %d episodes; write refused: %v", name, o.Episodes(), err)
	}
	// a store that does not exist in a folder that cannot be written
	if _, err := Open(filepath.Join(top, "rodir", "new.db")); err == nil || !strings.Contains(err.Error(), "cannot create the store") {
		t.Errorf("new store in a read-only folder: %v", err)
	}
}

// TestReadOnlyOpenUpgradesAnOlderWritableStore: a reading command (an export) on a store an
// older build made, which lacks this build's last migration, upgrades it as any other command
// would, then reads it read-only. Before, it failed with "needs an upgrade … which cannot be
// written" until some writing command had opened the store once.
func TestReadOnlyOpenUpgradesAnOlderWritableStore(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "older.db")
	db, err := sql.Open("sqlite", dsn(path, modeReadWrite))
	if err != nil {
		t.Fatal(err)
	}
	old := &Store{reader: reader{q: db}, db: db, path: path}
	for _, m := range migrations[:len(migrations)-1] {
		if err := old.applyMigration(ctx, m); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := db.Exec(`INSERT INTO episodes (id, source, external_id, task) VALUES (1, 'gridworld', 'g1', 'kept')`); err != nil {
		t.Fatal(err)
	}
	db.Close()
	s, err := OpenWith(path, Options{ReadOnly: true})
	if err != nil {
		t.Fatalf("read-only open of an older store: %v", err)
	}
	defer s.Close()
	if v, err := s.Version(ctx); err != nil || v != SchemaVersion {
		t.Fatalf("version %d, %v; want %d", v, err, SchemaVersion)
	}
	if !s.ReadOnly() {
		t.Fatal("not read-only after the upgrade")
	}
	if o, err := s.Overview(ctx); err != nil || o.EpisodesBySource["gridworld"] != 1 {
		t.Fatalf("read: %+v %v", o, err)
	}
	if err := s.Update(ctx, func(tx *Tx) error { return nil }); !errors.Is(err, ErrReadOnly) {
		t.Fatalf("write: %v", err)
	}
}
