// Package store keeps Agentdesk's data in one SQLite file: episodes and their steps, splits,
// imported files, template folders, evaluation projects and recently opened files.
//
// A store is recognised by its SQLite application id and versioned by its user_version. Open
// inspects an existing file read-only before writing anything, so a file that is not an
// Agentdesk store, or one written by a newer Agentdesk, is refused and left exactly as it was.
// Schema changes are embedded migrations, applied in order, one transaction each; released
// migrations are never edited, later features add new ones.
package store

import (
	"bytes"
	"context"
	"database/sql"
	"embed"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"sort"
	"strconv"
	"strings"

	_ "modernc.org/sqlite" // registers the "sqlite" database/sql driver
)

// ApplicationID marks a SQLite file as an Agentdesk store ("AGDS").
const ApplicationID = 0x41474453

//go:embed migrations/*.sql
var migrationFiles embed.FS

// migration is one numbered schema step.
type migration struct {
	version int
	name    string
	sql     string
}

var migrations = mustLoadMigrations(migrationFiles)

// SchemaVersion is the schema version this build creates and understands.
var SchemaVersion = migrations[len(migrations)-1].version

func mustLoadMigrations(fsys fs.FS) []migration {
	ms, err := loadMigrations(fsys)
	if err != nil {
		panic(err)
	}
	return ms
}

// loadMigrations reads migrations/NNNN_name.sql files; versions must run 1, 2, 3, ... with no gap.
func loadMigrations(fsys fs.FS) ([]migration, error) {
	entries, err := fs.ReadDir(fsys, "migrations")
	if err != nil {
		return nil, err
	}
	var ms []migration
	for _, e := range entries {
		num, name, ok := strings.Cut(strings.TrimSuffix(e.Name(), ".sql"), "_")
		v, err := strconv.Atoi(num)
		if !ok || err != nil || v <= 0 {
			return nil, fmt.Errorf("migration file %s: name must be NNNN_name.sql", e.Name())
		}
		body, err := fs.ReadFile(fsys, "migrations/"+e.Name())
		if err != nil {
			return nil, err
		}
		ms = append(ms, migration{version: v, name: name, sql: string(body)})
	}
	sort.Slice(ms, func(i, j int) bool { return ms[i].version < ms[j].version })
	for i, m := range ms {
		if m.version != i+1 {
			return nil, fmt.Errorf("migration %d (%s): expected version %d", m.version, m.name, i+1)
		}
	}
	if len(ms) == 0 {
		return nil, errors.New("no migrations embedded")
	}
	return ms, nil
}

// ErrNotAStore is wrapped by the error Open returns for a file that is not an Agentdesk store.
var ErrNotAStore = errors.New("not an Agentdesk store")

// ErrNewerSchema is wrapped by the error Open returns for a store written by a newer Agentdesk.
var ErrNewerSchema = errors.New("store was written by a newer version of Agentdesk")

// ErrNotFound is returned when a requested record does not exist.
var ErrNotFound = errors.New("not found")

// OpenError explains why a file was refused. The file was not modified.
type OpenError struct {
	Path   string
	Err    error  // ErrNotAStore or ErrNewerSchema
	Detail string // what was found
}

func (e *OpenError) Error() string {
	return fmt.Sprintf("cannot open %s: %v (%s); the file was not modified", e.Path, e.Err, e.Detail)
}

func (e *OpenError) Unwrap() error { return e.Err }

var sqliteMagic = []byte("SQLite format 3\x00")

// inspect refuses, without modifying it, a file that is not an Agentdesk store or that is
// from a newer schema. A missing or empty file, or an empty SQLite database, is accepted.
func inspect(path string) error {
	st, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	if st.IsDir() {
		return &OpenError{Path: path, Err: ErrNotAStore, Detail: "it is a folder"}
	}
	if !st.Mode().IsRegular() {
		return &OpenError{Path: path, Err: ErrNotAStore, Detail: "it is not a regular file"}
	}
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	if st.Size() == 0 {
		return nil
	}
	header := make([]byte, 100)
	n, _ := io.ReadFull(f, header)
	if n < len(sqliteMagic) || !bytes.Equal(header[:len(sqliteMagic)], sqliteMagic) {
		return &OpenError{Path: path, Err: ErrNotAStore, Detail: "it is not an SQLite database"}
	}
	if n < 100 {
		return &OpenError{Path: path, Err: ErrNotAStore, Detail: "its SQLite header is truncated"}
	}
	// Header fields (big endian): user_version at 60, application_id at 68. They are read from
	// SQLite itself below when possible, which also sees changes still in a WAL file.
	appID := int64(binary.BigEndian.Uint32(header[68:72]))
	version := int64(binary.BigEndian.Uint32(header[60:64]))
	objects := int64(-1)
	if db, err := sql.Open("sqlite", dsn(path, modeImmutable)); err == nil {
		row := db.QueryRow(`SELECT (SELECT application_id FROM pragma_application_id),
			(SELECT user_version FROM pragma_user_version), (SELECT count(*) FROM sqlite_schema)`)
		var a, v, o int64
		if row.Scan(&a, &v, &o) == nil {
			appID, version, objects = a, v, o
		}
		db.Close()
	}
	switch {
	case appID == ApplicationID && version > int64(SchemaVersion):
		return &OpenError{Path: path, Err: ErrNewerSchema,
			Detail: fmt.Sprintf("schema version %d, this build understands up to %d", version, SchemaVersion)}
	case appID == ApplicationID:
		return nil
	case appID == 0 && version == 0 && objects == 0:
		return nil // an empty SQLite database: adopt it
	case appID == 0:
		return &OpenError{Path: path, Err: ErrNotAStore, Detail: "it is an SQLite database of another program"}
	default:
		return &OpenError{Path: path, Err: ErrNotAStore, Detail: fmt.Sprintf("it is an SQLite database with application id %#x", appID)}
	}
}

// Version reads the store's schema version.
func (s *Store) Version(ctx context.Context) (int, error) {
	var v int
	err := s.db.QueryRowContext(ctx, `SELECT user_version FROM pragma_user_version`).Scan(&v)
	return v, err
}

// runTx runs fn in the begun transaction sqlTx, committing when fn succeeds and rolling back
// when it fails.
func runTx(sqlTx *sql.Tx, fn func(tx *Tx) error) error {
	tx := &Tx{reader: reader{q: sqlTx}, tx: sqlTx}
	if err := fn(tx); err != nil {
		sqlTx.Rollback()
		return err
	}
	return sqlTx.Commit()
}

// Tx is a write transaction; see Store.Update.
type Tx struct {
	reader
	tx *sql.Tx
}

// SQL exposes the transaction to other packages' repositories added by later migrations.
func (t *Tx) SQL() *sql.Tx { return t.tx }

// querier is what *sql.DB and *sql.Tx have in common.
type querier interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
	PrepareContext(ctx context.Context, query string) (*sql.Stmt, error)
}

// reader holds the read queries, available on a Store and inside a Tx.
type reader struct {
	q querier
}

// scanRows runs query and calls fn on each row (fn scans it); fn's error stops.
func scanRows(ctx context.Context, q querier, query string, fn func(*sql.Rows) error, args ...any) error {
	rows, err := q.QueryContext(ctx, query, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		if err := fn(rows); err != nil {
			return err
		}
	}
	return rows.Err()
}
