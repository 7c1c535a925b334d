package main

import (
	"runtime"
	"sync/atomic"
	"time"
)

// stepPool steps a handle's environments on the calling thread and on helper goroutines that
// stay awake between calls. A Python training loop calls step every few tens of microseconds;
// waking a parked goroutine for each call costs about as much as the work (the first version
// measured ~60 us per handoff), so the helpers spin for a while after each job and only then
// park. The work is cut into chunks that any thread claims: when a helper is not running (the
// machine is busy, or it parked), the calling thread takes its chunks itself and never waits
// for a helper that has not started.
type stepPool struct {
	cur      atomic.Pointer[poolJob]
	sleeping atomic.Int32 // helpers parked on wake
	wake     chan struct{}
	stop     atomic.Bool
	helpers  int
	// When the helpers keep the caller waiting (a busy machine preempts a helper in the
	// middle of its chunk, and the caller then waits for the scheduler to bring it back),
	// the next backoff calls run on the calling thread alone. Only the calling thread (under
	// the handle's lock) touches these.
	slow, backoff int
}

// slowWait is a wait for helpers that counts as slow; slowCalls of them in a row, with no
// quick call between, make the pool step alone for backoffCalls calls.
const (
	slowWait     = 100 * time.Microsecond
	slowCalls    = 3
	backoffCalls = 2000
)

type poolJob struct {
	f      func(lo, hi int)
	n      int
	chunks int64
	next   atomic.Int64
	done   atomic.Int64
}

// chunkEnvs is the environments per chunk: a few microseconds of work, so a helper that is
// descheduled in the middle of one holds the caller back little, and claiming (one atomic add)
// costs nothing beside it.
const chunkEnvs = 16

// helperSpin is how long a helper spins waiting for the next job before it parks.
const helperSpin = 2 * time.Millisecond

func newStepPool(helpers int) *stepPool {
	p := &stepPool{wake: make(chan struct{}, helpers), helpers: helpers}
	for k := 0; k < helpers; k++ {
		go p.helper()
	}
	return p
}

func (j *poolJob) work() {
	for {
		c := j.next.Add(1) - 1
		if c >= j.chunks {
			return
		}
		lo, hi := int(c)*j.n/int(j.chunks), int(c+1)*j.n/int(j.chunks)
		j.f(lo, hi)
		j.done.Add(1)
	}
}

// run calls f over chunks of [0, n) on this thread and the helpers, and returns when all are done.
func (p *stepPool) run(n int, f func(lo, hi int)) {
	if p.backoff > 0 {
		p.backoff--
		f(0, n)
		return
	}
	chunks := int64((n + chunkEnvs - 1) / chunkEnvs)
	j := &poolJob{f: f, n: n, chunks: chunks}
	p.cur.Store(j)
	for s := p.sleeping.Load(); s > 0; s-- {
		select {
		case p.wake <- struct{}{}:
		default:
		}
	}
	j.work()
	if j.done.Load() == chunks {
		p.slow = 0
		return
	}
	start := time.Now()
	for spins := 0; j.done.Load() < chunks; spins++ {
		if spins&63 == 63 {
			runtime.Gosched()
		}
	}
	if time.Since(start) < slowWait {
		p.slow = 0
	} else if p.slow++; p.slow >= slowCalls {
		p.slow, p.backoff = 0, backoffCalls
	}
}

func (p *stepPool) helper() {
	var last *poolJob
	idleSince := time.Now()
	for spins := 0; ; spins++ {
		if j := p.cur.Load(); j != last {
			last = j
			j.work()
			idleSince, spins = time.Now(), 0
			continue
		}
		if p.stop.Load() {
			return
		}
		if spins&255 != 255 || time.Since(idleSince) < helperSpin {
			continue
		}
		p.sleeping.Add(1)
		if j := p.cur.Load(); j != last || p.stop.Load() {
			p.sleeping.Add(-1)
			continue
		}
		<-p.wake
		p.sleeping.Add(-1)
		idleSince = time.Now()
	}
}

// close stops the helpers (they return at their next look).
func (p *stepPool) close() {
	p.stop.Store(true)
	for k := 0; k < p.helpers; k++ {
		select {
		case p.wake <- struct{}{}:
		default:
		}
	}
}
