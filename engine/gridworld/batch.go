package gridworld

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"runtime"
	"sync"
	"time"
)

// StepResult is the outcome of one environment step in a Batch.
type StepResult struct {
	Obs    *Observation
	Reward float64
	Done   bool
	Err    error
}

// Batch steps many environments in parallel, one goroutine per worker, each worker owning a
// contiguous slice of environments (no shared mutable state, so scaling is near-linear).
type Batch struct {
	Envs    []*Env
	Workers int
}

// NewBatch creates n environments with cfg; environment i is seeded with cfg.Seed + i. setup,
// when non-nil, is called for every environment (e.g. to set its task).
func NewBatch(n int, cfg Config, setup func(i int, e *Env) error) (*Batch, error) {
	if n <= 0 {
		return nil, fmt.Errorf("gridworld: batch of %d environments", n)
	}
	b := &Batch{Envs: make([]*Env, n), Workers: min(n, runtime.GOMAXPROCS(0))}
	for i := range b.Envs {
		c := cfg
		c.Seed = cfg.Seed + uint64(i)
		e, err := New(c)
		if err != nil {
			return nil, err
		}
		if setup != nil {
			if err := setup(i, e); err != nil {
				return nil, fmt.Errorf("gridworld: batch env %d: %w", i, err)
			}
		}
		b.Envs[i] = e
	}
	return b, nil
}

// parallel runs f(lo, hi) over worker chunks of the environments.
func (b *Batch) parallel(f func(lo, hi int)) {
	w := max(1, min(b.Workers, len(b.Envs)))
	if w == 1 {
		f(0, len(b.Envs))
		return
	}
	var wg sync.WaitGroup
	n := len(b.Envs)
	for k := 0; k < w; k++ {
		lo, hi := k*n/w, (k+1)*n/w
		wg.Add(1)
		go func() {
			defer wg.Done()
			f(lo, hi)
		}()
	}
	wg.Wait()
}

// Reset resets every environment; obs[i] receives environment i's observation.
func (b *Batch) Reset(obs []*Observation) error {
	if len(obs) < len(b.Envs) {
		return errors.New("gridworld: Batch.Reset: obs slice too short")
	}
	errs := make([]error, len(b.Envs))
	b.parallel(func(lo, hi int) {
		for i := lo; i < hi; i++ {
			obs[i], errs[i] = b.Envs[i].Reset()
		}
	})
	return errors.Join(errs...)
}

// Step applies actions[i] to environment i in parallel and writes out[i]. Environments whose
// step returned done are reset automatically when autoReset is set (out[i].Obs is then the
// reset observation, Reward and Done those of the final step).
func (b *Batch) Step(actions []Action, out []StepResult, autoReset bool) error {
	if len(actions) < len(b.Envs) || len(out) < len(b.Envs) {
		return errors.New("gridworld: Batch.Step: actions or out slice too short")
	}
	b.parallel(func(lo, hi int) {
		for i := lo; i < hi; i++ {
			r := &out[i]
			r.Obs, r.Reward, r.Done, r.Err = b.Envs[i].Step(actions[i])
			if r.Err == nil && r.Done && autoReset {
				r.Obs, r.Err = b.Envs[i].Reset()
			}
		}
	})
	var errs []error
	for i := range b.Envs {
		if out[i].Err != nil {
			errs = append(errs, fmt.Errorf("env %d: %w", i, out[i].Err))
		}
	}
	return errors.Join(errs...)
}

// RunStats summarises a Batch.Run.
type RunStats struct {
	Steps, Resets, Episodes int
	Elapsed                 time.Duration
}

// Run steps every environment `steps` times without synchronising between steps (each worker
// loops over its own environments), resetting environments whose episode ended. policy picks
// the action for environment i; nil means random actions of the environment's form drawn from
// its own random source.
func (b *Batch) Run(steps int, policy func(i int, e *Env) Action) (RunStats, error) {
	type acc struct {
		steps, resets int
		err           error
	}
	accs := make([]acc, len(b.Envs))
	start := time.Now()
	b.parallel(func(lo, hi int) {
		for i := lo; i < hi; i++ {
			e := b.Envs[i]
			var a acc // local: no false sharing between workers
			if !e.started {
				if _, err := e.Reset(); err != nil {
					a.err = err
					accs[i] = a
					continue
				}
				a.resets++
			}
			for s := 0; s < steps; s++ {
				var act Action
				if policy != nil {
					act = policy(i, e)
				} else {
					act = e.SampleAction()
				}
				_, _, done, err := e.Step(act)
				if err != nil {
					a.err = fmt.Errorf("env %d step %d: %w", i, s, err)
					break
				}
				a.steps++
				if done {
					if _, err := e.Reset(); err != nil {
						a.err = err
						break
					}
					a.resets++
				}
			}
			accs[i] = a
		}
	})
	st := RunStats{Elapsed: time.Since(start)}
	var errs []error
	for _, a := range accs {
		st.Steps += a.steps
		st.Resets += a.resets
		if a.err != nil {
			errs = append(errs, a.err)
		}
	}
	st.Episodes = st.Resets
	return st, errors.Join(errs...)
}

// BenchConfig configures RunBench.
type BenchConfig struct {
	Envs        int
	Steps       int
	ActionSpace string /* "walking" | "flying" */
	Seed        uint64
	// Kwargs are the original's keyword arguments applied to the benchmarked environment
	// (select_and_place, vector_state, target_in_obs, right_scale, ...).
	Kwargs map[string]any
}

// BenchResult is what RunBench measured.
type BenchResult struct {
	StepsPerSecond  float64 `json:"steps_per_second"`
	ResetsPerSecond float64 `json:"resets_per_second"`
	IntersectionUS  float64 `json:"intersection_us"`
}

// RunBench measures the environment without pov: Envs environments (default 1) stepped in
// parallel with random actions (discrete walking, or flying) for Steps steps in total
// (default 200000; repeated until at least minBenchTime has passed when that is too few to
// time) including reward and automatic resets (episodes of 250 steps, random
// sample tasks of 10-60 blocks); the reset rate of one environment drawing a new task every
// reset; and the mean time of one full maximal-intersection computation on 10-60-block
// targets.
func RunBench(cfg BenchConfig) (BenchResult, error) {
	var res BenchResult
	if cfg.Envs <= 0 {
		cfg.Envs = 1
	}
	if cfg.Steps <= 0 {
		cfg.Steps = 200000
	}
	ec, err := BenchEnvConfig(cfg)
	if err != nil {
		return res, err
	}
	if ec.Render && !ec.Fake {
		return res, errors.New("gridworld: bench: render=true needs the OpenGL renderer: use gridworld bench --pov")
	}
	tasks := BenchTasks(cfg.Seed)
	b, err := NewBatch(cfg.Envs, ec, func(i int, e *Env) error {
		e.SetTask(tasks[i%len(tasks)].Task)
		_, err := e.Reset()
		return err
	})
	if err != nil {
		return res, err
	}
	per := (cfg.Steps + cfg.Envs - 1) / cfg.Envs
	if res.StepsPerSecond, err = measureRate(func() (int, error) {
		st, err := b.Run(per, nil)
		return st.Steps, err
	}); err != nil {
		return res, err
	}

	// resets: one env, a new task each time
	e, err := New(ec)
	if err != nil {
		return res, err
	}
	src := &CustomTasks{}
	for _, t := range tasks {
		src.Tasks = append(src.Tasks, t.Task)
	}
	e.SetTaskSource(&cycleTasks{tasks: src.Tasks})
	if res.ResetsPerSecond, err = measureRate(func() (int, error) {
		const nReset = 2000
		for i := 0; i < nReset; i++ {
			if _, err := e.Reset(); err != nil {
				return i, err
			}
		}
		return nReset, nil
	}); err != nil {
		return res, err
	}

	res.IntersectionUS = BenchIntersectionUS(cfg.Seed)
	return res, nil
}

// minBenchTime is the least time a rate is measured over: Windows' clock (under wine, and on
// some machines) advances in steps of milliseconds, and 20,000 steps take 2 to 3 ms, so a
// shorter run could read zero time (an infinite rate, which JSON cannot carry).
const minBenchTime = 50 * time.Millisecond

// measureRate runs work (which reports how many units it did) until at least minBenchTime has
// passed, and returns the units per second over the whole time.
func measureRate(work func() (int, error)) (float64, error) {
	start := time.Now()
	total := 0
	for {
		n, err := work()
		if err != nil {
			return 0, err
		}
		total += n
		if d := time.Since(start); d >= minBenchTime {
			return float64(total) / d.Seconds(), nil
		}
	}
}

// BenchEnvConfig is the environment the benchmarks step: the defaults without rendering,
// random actions of cfg's action space (walking in the discrete form).
func BenchEnvConfig(cfg BenchConfig) (Config, error) {
	ec := EnvDefaults()
	ec.Render = false
	ec.Seed = cfg.Seed
	switch cfg.ActionSpace {
	case "", string(Walking):
		ec.ActionSpace, ec.Discretize = Walking, true
	case string(Flying):
		ec.ActionSpace = Flying
	default:
		return ec, fmt.Errorf("gridworld: bench: unknown action space %q", cfg.ActionSpace)
	}
	if err := ec.ApplyKwargs(cfg.Kwargs); err != nil {
		return ec, err
	}
	return ec, nil
}

// BenchIntersectionUS times full maximal-intersection computations on 10-60-block targets
// for 200 ms and returns the mean microseconds per call.
func BenchIntersectionUS(seed uint64) float64 {
	cases := BenchIntersectionCases(seed)
	nCall, sink := 0, 0
	start := time.Now()
	for time.Since(start) < 200*time.Millisecond {
		for _, c := range cases {
			sink += c.Scorer.MaximalIntersection(&c.Grid)
		}
		nCall += len(cases)
	}
	_ = sink
	return time.Since(start).Seconds() * 1e6 / float64(nCall)
}

type cycleTasks struct {
	tasks []*Task
	i     int
}

func (c *cycleTasks) NextTask(*rand.Rand) (*Task, error) {
	t := c.tasks[c.i%len(c.tasks)]
	c.i++
	return t, nil
}

// IntersectionCase is one benchmark input for the maximal intersection.
type IntersectionCase struct {
	Scorer *Scorer
	Grid   Grid
}

// BenchTasks returns deterministic random structures of 10 to 60 blocks (several layers,
// two to four colours, compact footprints like IGLU structures).
func BenchTasks(seed uint64) []NamedTask {
	rng := rand.New(rand.NewPCG(seed, 0xb1e55ed))
	var out []NamedTask
	for i := 0; i < 16; i++ {
		n := 10 + i*50/15
		var g Grid
		colours := 2 + rng.IntN(3)
		w := 3 + rng.IntN(4)
		x0, z0 := rng.IntN(SizeX-w+1), rng.IntN(SizeZ-w+1)
		placed := 0
		for placed < n {
			y := min(rng.IntN(1+n/8), SizeY-1)
			x, z := x0+rng.IntN(w), z0+rng.IntN(w)
			if g[y][x][z] == 0 {
				g[y][x][z] = int8(1 + rng.IntN(colours))
				placed++
			}
		}
		out = append(out, NamedTask{Name: fmt.Sprintf("bench-%d", n), Task: NewTask("", g, []Block{})})
	}
	return out
}

// BenchIntersectionCases pairs every bench task with a partially built grid: a rotated and
// shifted subset of the target plus some wrong blocks.
func BenchIntersectionCases(seed uint64) []IntersectionCase {
	rng := rand.New(rand.NewPCG(seed, 0xfeed))
	var out []IntersectionCase
	for _, nt := range BenchTasks(seed) {
		t := nt.Task
		rot := t.Target.Rotations()[rng.IntN(4)]
		var g Grid
		for y := range rot {
			for x := range rot[y] {
				for z, v := range rot[y][x] {
					if v != 0 && rng.IntN(3) != 0 {
						g[y][x][z] = v
					}
				}
			}
		}
		for k := 0; k < 5; k++ {
			g[rng.IntN(2)][rng.IntN(SizeX)][rng.IntN(SizeZ)] = int8(1 + rng.IntN(NumColors))
		}
		out = append(out, IntersectionCase{Scorer: t.Scorer(), Grid: g})
	}
	return out
}
