package store

import (
	"context"
	"fmt"
	"sync"
)

// Group commit: many small writes that arrive together (answers of many participants of a
// served study) share one transaction and one sync to disk. Each write still runs on its own
// (inside a savepoint: a write that fails leaves no trace and does not fail the others), and
// its caller returns only once the shared transaction is committed, so a write that returned
// is as durable as one made with Update.

// maxGroup bounds how many writes share a transaction.
const maxGroup = 256

type groupReq struct {
	ctx  context.Context
	fn   func(tx *Tx) error
	done chan error
}

type grouper struct {
	once sync.Once
	reqs chan *groupReq
	quit chan struct{}
	// exited is closed when the writer has stopped and answered every write it took.
	exited chan struct{}
	stop   sync.Once
}

// UpdateGrouped runs fn in a write transaction shared with the writes that arrive meanwhile.
// Like Update, everything fn does is stored or nothing is; it returns when it is committed.
// Use it for small writes made by many goroutines at once.
func (s *Store) UpdateGrouped(ctx context.Context, fn func(tx *Tx) error) error {
	if s.readOnly {
		return s.Update(ctx, fn) // the read-only error, as Update words it
	}
	g := &s.group
	g.once.Do(func() {
		g.reqs = make(chan *groupReq, maxGroup)
		g.quit = make(chan struct{})
		g.exited = make(chan struct{})
		go s.groupWriter()
	})
	closed := fmt.Errorf("the store %s is closed", s.path)
	if g.quit == nil { // closed before any grouped write
		return closed
	}
	r := &groupReq{ctx: ctx, fn: fn, done: make(chan error, 1)}
	select {
	case g.reqs <- r:
	case <-g.quit:
		return closed
	case <-ctx.Done():
		return ctx.Err()
	}
	select {
	case err := <-r.done:
		return err
	case <-g.exited:
		select {
		case err := <-r.done:
			return err
		default:
			return closed // taken after the writer stopped: not run
		}
	}
}

// groupWriter takes the writes waiting, runs them in one transaction and commits.
func (s *Store) groupWriter() {
	g := &s.group
	defer close(g.exited)
	for {
		var first *groupReq
		select {
		case first = <-g.reqs:
		case <-g.quit:
			for { // answer what is still queued
				select {
				case r := <-g.reqs:
					r.done <- fmt.Errorf("the store %s is closed", s.path)
				default:
					return
				}
			}
		}
		batch := []*groupReq{first}
	drain:
		for len(batch) < maxGroup {
			select {
			case r := <-g.reqs:
				batch = append(batch, r)
			default:
				break drain
			}
		}
		s.runGroup(batch)
	}
}

func (s *Store) runGroup(batch []*groupReq) {
	results := make([]error, len(batch))
	err := s.Update(context.Background(), func(tx *Tx) error {
		for i, r := range batch {
			if err := r.ctx.Err(); err != nil {
				results[i] = err
				continue
			}
			if _, err := tx.tx.ExecContext(r.ctx, "SAVEPOINT grouped"); err != nil {
				return err
			}
			if err := r.fn(tx); err != nil {
				results[i] = err
				if _, err := tx.tx.ExecContext(context.Background(), "ROLLBACK TO grouped"); err != nil {
					return err
				}
			}
			if _, err := tx.tx.ExecContext(context.Background(), "RELEASE grouped"); err != nil {
				return err
			}
		}
		return nil
	})
	for i, r := range batch {
		if err != nil {
			r.done <- err
		} else {
			r.done <- s.explain(results[i])
		}
	}
}

// stopGroup ends the group writer (Close).
func (s *Store) stopGroup() {
	g := &s.group
	g.once.Do(func() {}) // no writer is started after Close
	g.stop.Do(func() {
		if g.quit != nil {
			close(g.quit)
			<-g.exited
		}
	})
}
