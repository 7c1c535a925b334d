package main

import (
	"fmt"
	"os"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	gw "github.com/agentdesk/agentdesk/engine/gridworld"
)

// Every environment is stepped exactly once per call, whoever takes its chunk, in either of
// the ways run chooses between.
func TestStepPoolCoversEveryEnvOnce(t *testing.T) {
	p := newStepPool(max(1, runtime.GOMAXPROCS(0)-1))
	defer p.close()
	for _, n := range []int{1, 15, 16, 17, 64, 256, 1000} {
		counts := make([]int32, n)
		for call := 0; call < 200; call++ {
			run := p.run
			if call%2 == 1 {
				run = p.runTogether
			}
			run(n, func(lo, hi int) {
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
	p.runTogether(64, func(lo, hi int) { n.Add(int64(hi - lo)) })
	time.Sleep(3 * helperSpin) // the helper parks
	p.runTogether(64, func(lo, hi int) { n.Add(int64(hi - lo)) })
	if n.Load() != 128 {
		t.Fatalf("stepped %d environments, want 128", n.Load())
	}
	p.close()
}

// The calling thread alone, two goroutines each stepping half the environments for the whole
// run (as gridworld bench does), and the pool, with IGLUGridworld-v0's rules and random
// walking actions (AGENTDESK_BENCH_BARE=1: the GridWorld class's defaults, as gridworld bench):
// go test -run '^$' -bench StepPool ./bindings/gridworld
func BenchmarkStepPool(b *testing.B) {
	cfg, err := gw.RegisteredConfig(gw.EnvIGLUGridworld)
	if err != nil {
		b.Fatal(err)
	}
	cfg.Render = false
	if os.Getenv("AGENTDESK_BENCH_BARE") != "" {
		cfg = gw.EnvDefaults()
		cfg.Render, cfg.Discretize = false, true
	}
	for _, n := range []int{2, 64, 256} {
		batch, err := gw.NewBatch(n, cfg, func(i int, e *gw.Env) error { e.SetTaskSource(gw.SampleTaskSource()); return nil })
		if err != nil {
			b.Fatal(err)
		}
		for _, e := range batch.Envs {
			if _, err := e.Reset(); err != nil {
				b.Fatal(err)
			}
		}
		step := func(lo, hi int) {
			for i := lo; i < hi; i++ {
				e := batch.Envs[i]
				if _, _, done, _ := e.Step(e.SampleAction()); done {
					e.Reset()
				}
			}
		}
		b.Run(fmt.Sprintf("n=%d/calling-thread", n), func(b *testing.B) {
			for k := 0; k < b.N; k++ {
				step(0, n)
			}
			b.ReportMetric(float64(n*b.N)/b.Elapsed().Seconds(), "steps/s")
		})
		b.Run(fmt.Sprintf("n=%d/two-free-goroutines", n), func(b *testing.B) {
			done := make(chan struct{})
			go func() {
				for k := 0; k < b.N; k++ {
					step(n/2, n)
				}
				close(done)
			}()
			for k := 0; k < b.N; k++ {
				step(0, n/2)
			}
			<-done
			b.ReportMetric(float64(n*b.N)/b.Elapsed().Seconds(), "steps/s")
		})
		b.Run(fmt.Sprintf("n=%d/pool", n), func(b *testing.B) {
			p := newStepPool(max(1, runtime.GOMAXPROCS(0)-1))
			defer p.close()
			for k := 0; k < b.N; k++ {
				p.runTogether(n, step)
			}
			b.ReportMetric(float64(n*b.N)/b.Elapsed().Seconds(), "steps/s")
		})
	}
}
