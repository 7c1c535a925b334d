package odyssey

import (
	"context"
	"sync/atomic"
	"testing"
	"time"
)

// TestInOrderReadsAhead: while deliver is busy with the first result, the workers go on with
// the next ones up to the window; results still arrive in order.
func TestInOrderReadsAhead(t *testing.T) {
	for _, ahead := range []int{0, 40} {
		var worked atomic.Int64
		window := ahead
		if window == 0 {
			window = 2 * 4 // the default for two workers
		}
		var got []int
		err := inOrder(context.Background(), 200, 2, ahead, func(_ context.Context, i int) (int, error) {
			worked.Add(1)
			return i, nil
		}, func(i int) error {
			if i == 0 { // busy: the workers should fill the window meanwhile
				deadline := time.Now().Add(5 * time.Second)
				for worked.Load() < int64(window) && time.Now().Before(deadline) {
					time.Sleep(time.Millisecond)
				}
				if n := worked.Load(); n < int64(window) {
					t.Errorf("window %d: %d results made while the first was delivered", window, n)
				}
			}
			got = append(got, i)
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		for i, v := range got {
			if v != i {
				t.Fatalf("window %d: result %d delivered as %d", window, v, i)
			}
		}
		if len(got) != 200 {
			t.Fatalf("window %d: %d results delivered", window, len(got))
		}
	}
}
