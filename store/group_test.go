package store

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"sync"
	"testing"
)

// Writes made at once share transactions; each is applied or not on its own, and every write
// that returned without error is in the store.
func TestUpdateGroupedKeepsEachWriteApart(t *testing.T) {
	st, err := Open(filepath.Join(t.TempDir(), "g.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	ctx := context.Background()
	if err := st.Update(ctx, func(tx *Tx) error {
		_, err := tx.tx.ExecContext(ctx, `CREATE TABLE grouped_test (k INTEGER PRIMARY KEY)`)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	errs := make([]error, 400)
	for i := range errs {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			errs[i] = st.UpdateGrouped(ctx, func(tx *Tx) error {
				if _, err := tx.tx.ExecContext(ctx, `INSERT INTO grouped_test (k) VALUES (?)`, i); err != nil {
					return err
				}
				if i%7 == 0 { // fails after writing: its row must not stay
					return fmt.Errorf("write %d fails", i)
				}
				return nil
			})
		}(i)
	}
	wg.Wait()
	var n, failed int
	st.db.QueryRow(`SELECT count(*) FROM grouped_test`).Scan(&n)
	for i, err := range errs {
		if (err != nil) != (i%7 == 0) {
			t.Fatalf("write %d: %v", i, err)
		}
		if err != nil {
			failed++
		}
	}
	if n != 400-failed {
		t.Fatalf("%d rows, want %d", n, 400-failed)
	}
	st.Close()
	if err := st.UpdateGrouped(ctx, func(*Tx) error { return nil }); err == nil || errors.Is(err, context.Canceled) {
		t.Fatalf("a write after Close: %v", err)
	}
}
