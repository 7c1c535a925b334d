package store

import (
	"errors"
	"fmt"
	"strings"
)

// StoreError is an SQLite error that reached the store's boundary, with the store it came
// from and what to do about it.
type StoreError struct {
	Path string
	Err  error
	Hint string
}

func (e *StoreError) Error() string {
	return fmt.Sprintf("store %s: %v; %s", e.Path, e.Err, e.Hint)
}

func (e *StoreError) Unwrap() error { return e.Err }

// explain names the store, and what to do, in SQLite errors that say neither: a full disk, a
// table or column missing from the schema, a failing disk. Other errors, and errors already
// explained, are returned as they are.
func (s *Store) explain(err error) error {
	if err == nil || errors.Is(err, ErrDamaged) {
		return err
	}
	var se *StoreError
	if errors.As(err, &se) {
		return err
	}
	var c interface{ Code() int }
	if !errors.As(err, &c) {
		return err
	}
	hint := ""
	switch c.Code() & 0xff {
	case 13: // SQLITE_FULL
		hint = "the disk that holds it is full: free some space, then run the command again"
	case 10: // SQLITE_IOERR
		hint = "the disk could not be read or written: check the disk (and that it is still attached), then run the command again"
	case 1: // SQLITE_ERROR: a missing table, column, index or trigger means a damaged schema
		msg := err.Error()
		if !strings.Contains(msg, "no such table") && !strings.Contains(msg, "no such column") &&
			!strings.Contains(msg, "no such index") && !strings.Contains(msg, "no such trigger") {
			return err
		}
		hint = "part of its schema is missing, so the store is damaged: `agentdesk store check` lists what differs; restore it from a backup"
	default:
		return err
	}
	return &StoreError{Path: s.path, Err: err, Hint: hint}
}
