package main

import (
	"os"
	"runtime"
	"slices"
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
	// Whether the helpers pay is measured, not assumed. On a busy machine a helper is often
	// preempted in the middle of its chunk, the caller then waits for the scheduler to bring
	// it back, and a spinning helper takes CPU time from the caller's own work between calls
	// (Python's). So the pool times whole cycles, from one call's start to the next's (the
	// caller's work included), trialCalls each way after warmCalls (a switch moves half the
	// environments to the other core's cache, and a parked helper takes a while to run
	// again), compares the medians, keeps the faster way for keepCalls calls, and measures
	// again. Only the calling thread (under the handle's lock) touches
	// these.
	phase, calls    int
	alone, together [warmCalls + trialCalls]time.Duration
	useHelpers      bool
	lastStart       time.Time
	lastTogether    bool
	// fixed is AGENTDESK_GRIDWORLD_THREADS: "1" steps on the calling thread only, "all" with
	// the helpers always; anything else measures (above).
	fixed string
}

const (
	warmCalls  = 8
	trialCalls = 48
	keepCalls  = 2048
	// a gap longer than this between calls is the caller doing something else (training,
	// say): it does not count for either way
	maxCycle = 5 * time.Millisecond
)

type poolJob struct {
	f      func(lo, hi int)
	n      int
	chunks int64
	// ends packs the next chunk from the front (high 32 bits) and one past the next from the
	// back (low 32 bits): the caller takes chunks from the front and the helpers from the
	// back, so that in steady state each thread steps the same environments every call and
	// finds them in its own cache, while either can still take all of them.
	ends atomic.Uint64
	done atomic.Int64
}

// chunkEnvs is the environments per chunk: a few microseconds of work, so a helper that is
// descheduled in the middle of one holds the caller back little, and claiming (one atomic add)
// costs nothing beside it.
const chunkEnvs = 16

// helperSpin is how long a helper spins waiting for the next job before it parks.
const helperSpin = 2 * time.Millisecond

func newStepPool(helpers int) *stepPool {
	p := &stepPool{wake: make(chan struct{}, helpers), helpers: helpers, fixed: os.Getenv("AGENTDESK_GRIDWORLD_THREADS")}
	for k := 0; k < helpers; k++ {
		go p.helper()
	}
	return p
}

func (j *poolJob) work(fromBack bool) {
	for {
		v := j.ends.Load()
		front, back := int64(v>>32), int64(v&0xffffffff)
		if front >= back {
			return
		}
		c, next := front, uint64(front+1)<<32|uint64(back)
		if fromBack {
			c, next = back-1, uint64(front)<<32|uint64(back-1)
		}
		if !j.ends.CompareAndSwap(v, next) {
			continue
		}
		lo, hi := int(c)*j.n/int(j.chunks), int(c+1)*j.n/int(j.chunks)
		j.f(lo, hi)
		j.done.Add(1)
	}
}

// run calls f over chunks of [0, n), with the helpers when they pay (see phase).
func (p *stepPool) run(n int, f func(lo, hi int)) {
	switch p.fixed {
	case "1":
		f(0, n)
		return
	case "all":
		p.runTogether(n, f)
		return
	}
	now := time.Now()
	if !p.lastStart.IsZero() && p.phase < 2 {
		if cycle := now.Sub(p.lastStart); cycle < maxCycle {
			if p.lastTogether {
				p.together[p.calls] = cycle
			} else {
				p.alone[p.calls] = cycle
			}
			p.calls++
		}
		switch {
		case p.phase == 0 && p.calls >= warmCalls+trialCalls:
			p.phase, p.calls = 1, 0
		case p.phase == 1 && p.calls >= warmCalls+trialCalls:
			// medians: a cycle or two in which the machine took the thread away would tip sums
			p.phase, p.calls = 2, 0
			p.useHelpers = median(p.together[warmCalls:]) < median(p.alone[warmCalls:])
		}
	} else if p.phase == 2 {
		if p.calls++; p.calls >= keepCalls {
			p.phase, p.calls = 0, 0
		}
	}
	p.lastStart = now
	p.lastTogether = p.phase == 1 || (p.phase == 2 && p.useHelpers)
	if p.lastTogether {
		p.runTogether(n, f)
	} else {
		f(0, n)
	}
}

func median(d []time.Duration) time.Duration {
	s := slices.Clone(d)
	slices.Sort(s)
	return s[len(s)/2]
}

// runTogether calls f over chunks of [0, n) on this thread and the helpers and returns when
// all are done.
func (p *stepPool) runTogether(n int, f func(lo, hi int)) {
	chunks := int64((n + chunkEnvs - 1) / chunkEnvs)
	j := &poolJob{f: f, n: n, chunks: chunks}
	j.ends.Store(uint64(chunks))
	p.cur.Store(j)
	for s := p.sleeping.Load(); s > 0; s-- {
		select {
		case p.wake <- struct{}{}:
		default:
		}
	}
	j.work(false)
	// Spin, yielding only now and then: the caller is a C thread inside a cgo callback, its
	// goroutine locked to it, and every runtime.Gosched there hands the thread off through
	// the scheduler (a futex sleep and wake, tens of microseconds), while the wait is for
	// chunks a helper has started (microseconds). It must yield sometimes all the same: a
	// garbage collection stopping the world waits for this goroutine, and the helper for it.
	for spins := 1; j.done.Load() < chunks; spins++ {
		if spins&(1<<12-1) == 0 {
			runtime.Gosched()
		}
	}
}

func (p *stepPool) helper() {
	var last *poolJob
	idleSince := time.Now()
	for spins := 0; ; spins++ {
		if j := p.cur.Load(); j != last {
			last = j
			j.work(true)
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
