package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// Store is an open Agentdesk store. It is safe for concurrent use.
//
// Readers never wait: the store runs in SQLite's WAL mode, where reads see the last commit
// while another process writes. Only writes wait for each other; a write that waits for
// another process says so through Options.Notify, with what that process is doing (see
// Activity), for as long as it waits (its context ends the wait).
type Store struct {
	reader
	db       *sql.DB
	path     string
	readOnly bool
	opts     Options
	marker   *marker // nil when read-only

	// group shares transactions among small writes made at once (UpdateGrouped).
	group grouper

	// explorer is the Explorer's memory index (explorer_index.go).
	explorer explorerIndexer

	health struct {
		sync.Mutex
		checkDue bool     // the store was not closed cleanly: quick check before the first write
		damaged  string   // what the check (or a write) found; writes are refused
		schema   []string // how the schema differs from what the migrations make (schema.go)
	}
}

// Options tunes Open.
type Options struct {
	// Notify receives what a write waits for before it can start: another process's write
	// ("another Agentdesk process (…) is writing to this store; waiting… 12 s", about every
	// second) and the check of a store that was not closed cleanly. It is called on the
	// goroutine that writes. nil: nothing is reported, the write still waits.
	Notify func(Notice)
	// ReadOnly opens the store for reading only, even when it could be written. A store that
	// can be written and lacks this build's migrations is upgraded first, as any other open
	// would upgrade it.
	ReadOnly bool
}

// Notice is what Options.Notify receives.
type Notice struct {
	// Waited is how long the write has waited so far (0 for a check).
	Waited time.Duration
	// Text says it in a sentence.
	Text string
}

// ErrReadOnly is wrapped by the error of a write to a store opened read-only.
var ErrReadOnly = errors.New("the store is read-only")

// ErrDamaged is wrapped by the error of a write to a store found damaged.
var ErrDamaged = errors.New("the store is damaged")

// Path is the store's file.
func (s *Store) Path() string { return s.path }

// ReadOnly reports whether the store was opened for reading only (a read-only file or folder,
// or Options.ReadOnly).
func (s *Store) ReadOnly() bool { return s.readOnly }

// DB exposes the connection pool to other packages' repositories added by later migrations.
func (s *Store) DB() *sql.DB { return s.db }

// Close closes the store; a clean close is what tells the next Open that no check is due.
func (s *Store) Close() error {
	s.stopGroup()
	s.explorer.close()
	err := s.db.Close()
	if s.marker != nil {
		s.marker.remove()
	}
	return err
}

// Open opens the store at path with default options; see OpenWith.
func Open(path string) (*Store, error) { return OpenWith(path, Options{}) }

// OpenWith opens the store at path, creating it (and its folder) when it does not exist, and
// migrating it to SchemaVersion. Files that are not Agentdesk stores, and stores from a newer
// schema, are refused with an *OpenError and never written to. A store whose file or folder
// cannot be written is opened read-only: it can be inspected and exported. Opening takes no
// write lock unless a migration is due, so it never waits for another process's write.
func OpenWith(path string, opts Options) (*Store, error) { return openWith(path, opts, false) }

// openWith is OpenWith; upgraded says the store was just upgraded for this read-only open.
func openWith(path string, opts Options, upgraded bool) (*Store, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, err
	}
	if err := inspect(abs); err != nil {
		return nil, err
	}
	// what killed processes left beside the store; removed by every open, reading ones too
	cleanTemps(abs, time.Now())
	_, statErr := os.Stat(abs)
	exists := statErr == nil
	readOnly := opts.ReadOnly || exists && !writable(abs)
	if !exists {
		if err := os.MkdirAll(filepath.Dir(abs), 0o755); err != nil {
			return nil, fmt.Errorf("cannot create the store %s: %w", abs, err)
		}
		if !dirWritable(filepath.Dir(abs)) {
			return nil, fmt.Errorf("cannot create the store %s: its folder cannot be written", abs)
		}
	}
	s := &Store{path: abs, readOnly: readOnly, opts: opts}
	if readOnly {
		if err := s.openReadOnly(); err != nil {
			return nil, s.damagedAtOpen(err)
		}
	} else {
		if s.db, err = sql.Open("sqlite", dsn(abs, modeReadWrite)); err != nil {
			return nil, err
		}
		// A bounded pool of connections kept open: many requests at once (a served study)
		// reuse them with their caches instead of opening and closing one each.
		s.db.SetMaxOpenConns(maxConns)
		s.db.SetMaxIdleConns(maxConns)
		s.reader = reader{q: s.db}
		s.marker, s.health.checkDue = openMarker(abs)
	}
	if err := s.upgrade(context.Background()); err != nil {
		s.Close()
		if opts.ReadOnly && !upgraded && errors.Is(err, ErrReadOnly) && writable(abs) {
			// A reading command on a store an older build made: the store can be written, so
			// it is upgraded as any other command would upgrade it, then read as asked.
			w, werr := OpenWith(path, Options{Notify: opts.Notify})
			if werr != nil {
				return nil, werr
			}
			if werr := w.Close(); werr != nil {
				return nil, werr
			}
			return openWith(path, opts, true)
		}
		return nil, s.damagedAtOpen(err)
	}
	if err := s.checkSchema(context.Background()); err != nil {
		s.Close()
		return nil, s.damagedAtOpen(err)
	}
	return s, nil
}

// damagedAtOpen explains an open that failed on damage where opening reads (the schema, the
// version) as the damaged store it is (ErrDamaged, with what to do), like damage found later.
func (s *Store) damagedAtOpen(err error) error {
	if errors.Is(err, ErrDamaged) || !isCorrupt(err) {
		return err
	}
	s.health.damaged = err.Error()
	if s.health.checkDue {
		s.health.damaged += "; it was not closed cleanly last time"
	}
	return s.damagedError()
}

// writable reports whether the store file can be written and its folder can hold the -wal and
// -shm files SQLite needs beside it.
func writable(path string) bool {
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		return false
	}
	f.Close()
	if _, err := os.Stat(path + "-shm"); err == nil {
		return true
	}
	return dirWritable(filepath.Dir(path))
}

// openReadOnly opens a store that cannot be written: read-only when SQLite can share it with
// writers (its -shm file exists or can be made), else immutable (then changes still in a
// -wal file are not seen, and the notice says so).
func (s *Store) openReadOnly() error {
	db, err := sql.Open("sqlite", dsn(s.path, modeReadOnly))
	if err == nil {
		if err = db.QueryRow(`SELECT count(*) FROM sqlite_schema`).Scan(new(int)); err == nil {
			s.db, s.reader = db, reader{q: db}
			return nil
		}
		db.Close()
	}
	if db, err = sql.Open("sqlite", dsn(s.path, modeImmutable)); err != nil {
		return err
	}
	if err := db.QueryRow(`SELECT count(*) FROM sqlite_schema`).Scan(new(int)); err != nil {
		db.Close()
		return fmt.Errorf("cannot read the store %s: %w", s.path, err)
	}
	if st, err := os.Stat(s.path + "-wal"); err == nil && st.Size() > 0 && s.opts.Notify != nil {
		s.opts.Notify(Notice{Text: fmt.Sprintf("the store's folder cannot be written: the last %d bytes of changes (in %s-wal) are not shown",
			st.Size(), filepath.Base(s.path))})
	}
	s.db, s.reader = db, reader{q: db}
	return nil
}

type openMode int

const (
	modeReadWrite openMode = iota
	modeReadOnly
	modeImmutable // no locks and no side files: for files nothing else may change
)

// dsn builds a modernc SQLite URI for path. Read-only connections set no pragma that writes.
func dsn(path string, mode openMode) string {
	u := url.URL{Scheme: "file", Path: filepath.ToSlash(path)}
	if !strings.HasPrefix(u.Path, "/") { // Windows drive letters
		u.Path = "/" + u.Path
	}
	q := url.Values{}
	switch mode {
	case modeImmutable:
		// no locks and no -wal/-shm side files, so inspecting a file leaves the folder exactly
		// as it was
		q.Set("mode", "ro")
		q.Set("immutable", "1")
		q.Add("_pragma", "query_only(1)")
	case modeReadOnly:
		q.Set("mode", "ro")
		q.Add("_pragma", "query_only(1)")
	default:
		q.Add("_pragma", "journal_mode(WAL)")
		q.Add("_pragma", "foreign_keys(1)")
		q.Add("_pragma", "synchronous(FULL)")
		q.Set("_txlock", "immediate")
	}
	// Writes wait for each other in beginWrite, which reports the wait; SQLite's own wait is
	// only the short one for the moments a reader needs a lock (WAL recovery, checkpoints).
	q.Add("_pragma", fmt.Sprintf("busy_timeout(%d)", busyTimeout.Milliseconds()))
	return u.String() + "?" + q.Encode()
}

// busyTimeout is how long SQLite itself retries a lock before beginWrite takes over.
const busyTimeout = 250 * time.Millisecond

// maxConns bounds the connections a store keeps (readers run at once; writes take turns).
const maxConns = 16

// upgrade reads the schema version, without a write lock, and migrates only when the store
// lacks migrations.
func (s *Store) upgrade(ctx context.Context) error {
	v, err := s.Version(ctx)
	if err != nil {
		return fmt.Errorf("cannot read the store %s: %w", s.path, err)
	}
	switch {
	case v > SchemaVersion:
		return &OpenError{Path: s.path, Err: ErrNewerSchema, Detail: fmt.Sprintf("schema version %d, this build understands up to %d", v, SchemaVersion)}
	case v == SchemaVersion:
		return nil
	case s.readOnly:
		if v == 0 {
			return fmt.Errorf("cannot create the store %s: %w", s.path, ErrReadOnly)
		}
		return fmt.Errorf("the store %s has schema version %d and needs an upgrade to %d, which cannot be written: %w", s.path, v, SchemaVersion, ErrReadOnly)
	}
	for _, m := range migrations {
		if m.version <= v {
			continue
		}
		if err := s.applyMigration(ctx, m); err != nil {
			var oe *OpenError
			if errors.As(err, &oe) {
				return err
			}
			if v == 0 {
				return fmt.Errorf("cannot create the store %s: %w", s.path, err)
			}
			return fmt.Errorf("cannot upgrade the store %s to schema version %d (%s): %w", s.path, m.version, m.name, err)
		}
	}
	return nil
}

// applyMigration applies m in one transaction. It re-reads the version under the write lock,
// so two processes opening the same new store do not apply a migration twice.
func (s *Store) applyMigration(ctx context.Context, m migration) error {
	tx, err := s.beginWrite(ctx, s.db.BeginTx)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	var version, appID int
	if err := tx.QueryRowContext(ctx, `SELECT (SELECT user_version FROM pragma_user_version), (SELECT application_id FROM pragma_application_id)`).Scan(&version, &appID); err != nil {
		return err
	}
	if version > SchemaVersion {
		return &OpenError{Path: s.path, Err: ErrNewerSchema, Detail: fmt.Sprintf("schema version %d", version)}
	}
	if version >= m.version {
		return nil
	}
	if version == 0 && appID != ApplicationID {
		var objects int
		if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM sqlite_schema`).Scan(&objects); err != nil {
			return err
		}
		if objects > 0 || appID != 0 {
			return &OpenError{Path: s.path, Err: ErrNotAStore, Detail: "it is an SQLite database of another program"}
		}
	}
	if appID != ApplicationID {
		if _, err := tx.ExecContext(ctx, fmt.Sprintf("PRAGMA application_id = %d", ApplicationID)); err != nil {
			return err
		}
	}
	if _, err := tx.ExecContext(ctx, m.sql); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, fmt.Sprintf("PRAGMA user_version = %d", m.version)); err != nil {
		return err
	}
	return tx.Commit()
}

// Update runs fn in one write transaction: everything fn does is stored, or nothing is.
func (s *Store) Update(ctx context.Context, fn func(tx *Tx) error) error {
	sqlTx, err := s.beginWrite(ctx, s.db.BeginTx)
	if err != nil {
		return s.explain(err)
	}
	return s.explain(s.damage(runTx(sqlTx, fn)))
}

// exec runs one writing statement in its own transaction.
func (s *Store) exec(ctx context.Context, query string, args ...any) (sql.Result, error) {
	var res sql.Result
	err := s.Update(ctx, func(tx *Tx) error {
		var err error
		res, err = tx.tx.ExecContext(ctx, query, args...)
		return err
	})
	return res, err
}

// beginWrite starts a write transaction (BEGIN IMMEDIATE) with begin, first checking the store
// when it was not closed cleanly, and waiting, with notices, while another process writes.
func (s *Store) beginWrite(ctx context.Context, begin func(context.Context, *sql.TxOptions) (*sql.Tx, error)) (*sql.Tx, error) {
	if s.readOnly {
		return nil, fmt.Errorf("cannot write to %s: %w (its file or folder cannot be written); it can still be read and exported", s.path, ErrReadOnly)
	}
	if err := s.checkBeforeWrite(ctx); err != nil {
		return nil, err
	}
	start := time.Now()
	lastNotice := time.Time{}
	for {
		tx, err := begin(ctx, nil)
		if err == nil || !isBusy(err) {
			return tx, err
		}
		if s.opts.Notify != nil && time.Since(start) >= time.Second && time.Since(lastNotice) >= time.Second {
			lastNotice = time.Now()
			s.opts.Notify(Notice{Waited: time.Since(start), Text: waitingText(s.path, time.Since(start))})
		}
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("gave up waiting for another process's write to %s after %v: %w", s.path, time.Since(start).Round(time.Second), ctx.Err())
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// isBusy reports SQLite's "database is locked" (SQLITE_BUSY, and its extended codes).
func isBusy(err error) bool {
	var c interface{ Code() int }
	if errors.As(err, &c) {
		return c.Code()&0xff == 5
	}
	return strings.Contains(err.Error(), "database is locked")
}

// isCorrupt reports SQLITE_CORRUPT and SQLITE_NOTADB.
func isCorrupt(err error) bool {
	var c interface{ Code() int }
	if errors.As(err, &c) {
		return c.Code()&0xff == 11 || c.Code()&0xff == 26
	}
	return false
}

// waitingText says who holds the store, as far as the other process's marker tells.
func waitingText(path string, waited time.Duration) string {
	who := "another Agentdesk process"
	if acts := othersActivity(path); len(acts) > 0 {
		who += " (" + strings.Join(acts, "; ") + ")"
	}
	return fmt.Sprintf("%s is writing to this store; waiting… %d s (Ctrl-C to give up)", who, int(waited.Seconds()))
}

// Check compares the store's schema with what its migrations make, then runs SQLite's
// integrity check (quick: the faster quick_check, which skips comparing indexes with their
// tables) and returns the problems they list, none for a sound store.
func (s *Store) Check(ctx context.Context, quick bool) ([]string, error) {
	schema, err := s.schemaProblems(ctx)
	if err != nil {
		if isCorrupt(err) {
			return []string{err.Error()}, nil
		}
		return nil, s.explain(err)
	}
	problems, err := s.integrityCheck(ctx, quick)
	return append(schema, problems...), err
}

func (s *Store) integrityCheck(ctx context.Context, quick bool) ([]string, error) {
	pragma := "integrity_check"
	if quick {
		pragma = "quick_check"
	}
	rows, err := s.db.QueryContext(ctx, fmt.Sprintf("PRAGMA %s(1000)", pragma))
	if err != nil {
		if isCorrupt(err) {
			return []string{err.Error()}, nil
		}
		return nil, err
	}
	defer rows.Close()
	var problems []string
	for rows.Next() {
		var line string
		if err := rows.Scan(&line); err != nil {
			return nil, err
		}
		for _, l := range strings.Split(line, "\n") {
			if l = strings.TrimSpace(l); l != "ok" && l != "" && !strings.HasPrefix(l, "*** in database") {
				problems = append(problems, l)
			}
		}
	}
	if err := rows.Err(); err != nil {
		if isCorrupt(err) {
			return append(problems, err.Error()), nil
		}
		return nil, err
	}
	return problems, nil
}

// checkBeforeWrite runs the quick check once, before the first write, when the store was not
// closed cleanly last time (a crash, a kill, a power cut); a damaged store is not written to.
func (s *Store) checkBeforeWrite(ctx context.Context) error {
	s.health.Lock()
	defer s.health.Unlock()
	if s.health.checkDue {
		if s.opts.Notify != nil {
			s.opts.Notify(Notice{Text: "the store was not closed cleanly last time: checking it before writing…"})
		}
		problems, err := s.integrityCheck(ctx, true)
		if err != nil {
			return err
		}
		s.health.checkDue = false
		if len(problems) > 0 {
			s.health.damaged = fmt.Sprintf("SQLite's quick check found %d problem(s), the first: %s", len(problems), problems[0])
		}
	}
	if s.health.damaged != "" {
		return s.damagedError()
	}
	return nil
}

// damage notes a write that failed because the file is damaged, and explains it.
func (s *Store) damage(err error) error {
	if err == nil || !isCorrupt(err) {
		return err
	}
	s.health.Lock()
	s.health.damaged = err.Error()
	s.health.Unlock()
	return s.damagedError()
}

func (s *Store) damagedError() error {
	if len(s.health.schema) > 0 {
		return fmt.Errorf("%w: %s (%s). Agentdesk will not write to it. Restore it from a backup, or export what can still be "+
			"read (agentdesk odyssey export, agentdesk eval export open it read-only), then move the file away and start a new "+
			"store; `agentdesk store check` lists what differs", ErrDamaged, s.path, s.health.damaged)
	}
	return fmt.Errorf("%w: %s (%s). Agentdesk will not write to it. Export what can still be read "+
		"(agentdesk odyssey export, agentdesk eval export), then move the file away and start a new store; "+
		"`agentdesk store check` lists the problems", ErrDamaged, s.path, s.health.damaged)
}

// Damaged returns what was found wrong with the store ("" while nothing was).
func (s *Store) Damaged() string {
	s.health.Lock()
	defer s.health.Unlock()
	return s.health.damaged
}
