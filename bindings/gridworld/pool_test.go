package main

import (
	"runtime"
	"sync/atomic"
	"testing"
	"time"
)

// Every environment is stepped exactly once per call, whoever takes its chunk.
func TestStepPoolCoversEveryEnvOnce(t *testing.T) {
	p := newStepPool(max(1, runtime.GOMAXPROCS(0)-1))
	defer p.close()
	for _, n := range []int{1, 15, 16, 17, 64, 256, 1000} {
		counts := make([]int32, n)
		for call := 0; call < 200; call++ {
			p.run(n, func(lo, hi int) {
				for i := lo; i < hi; i++ {
					atomic.AddInt32(&counts[i], 1)
				}
			})
		}
		for i, c := range counts {
			if c != 200 {
				t.Fatalf("n=%d: environment %d stepped %d times in 200 calls", n, i, c)
			}
		}
	}
}

// A parked helper is woken by the next call, and a pool that was closed stops its helpers.
func TestStepPoolWakesAfterParking(t *testing.T) {
	p := newStepPool(1)
	var n atomic.Int64
	p.run(64, func(lo, hi int) { n.Add(int64(hi - lo)) })
	time.Sleep(3 * helperSpin) // the helper parks
	p.run(64, func(lo, hi int) { n.Add(int64(hi - lo)) })
	if n.Load() != 128 {
		t.Fatalf("stepped %d environments, want 128", n.Load())
	}
	p.close()
}
