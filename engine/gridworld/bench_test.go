package gridworld

import (
	"math/rand/v2"
	"runtime"
	"testing"
)

func BenchmarkIntersection(b *testing.B) {
	cases := BenchIntersectionCases(1)
	b.ReportAllocs()
	sink := 0
	i := 0
	for b.Loop() {
		c := &cases[i%len(cases)]
		sink += c.Scorer.MaximalIntersection(&c.Grid)
		i++
	}
	_ = sink
}

// BenchmarkIntersectionBySize reports the smallest and largest bench targets separately.
func BenchmarkIntersectionBySize(b *testing.B) {
	cases := BenchIntersectionCases(1)
	for _, idx := range []int{0, len(cases) - 1} {
		c := &cases[idx]
		b.Run(BenchTasks(1)[idx].Name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				c.Scorer.MaximalIntersection(&c.Grid)
			}
		})
	}
}

func benchEnv(b *testing.B, space ActionSpace) *Env {
	cfg := EnvDefaults()
	cfg.Render = false
	cfg.ActionSpace = space
	cfg.Discretize = true
	cfg.Seed = 7
	e, err := New(cfg)
	if err != nil {
		b.Fatal(err)
	}
	e.SetTask(BenchTasks(1)[8].Task)
	if _, err := e.Reset(); err != nil {
		b.Fatal(err)
	}
	return e
}

func benchStep(b *testing.B, space ActionSpace) {
	e := benchEnv(b, space)
	rng := rand.New(rand.NewPCG(3, 4))
	acts := make([]Action, 4096)
	for i := range acts {
		acts[i] = SampleAction(rng, space, true)
	}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		_, _, done, err := e.Step(acts[i&4095])
		if err != nil {
			b.Fatal(err)
		}
		if done {
			if _, err := e.Reset(); err != nil {
				b.Fatal(err)
			}
		}
		i++
	}
}

func BenchmarkStepWalking(b *testing.B) { benchStep(b, Walking) }
func BenchmarkStepFlying(b *testing.B)  { benchStep(b, Flying) }

func BenchmarkReset(b *testing.B) {
	e := benchEnv(b, Walking)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := e.Reset(); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkResetNewTask draws a different task on every reset (scorers rebuilt).
func BenchmarkResetNewTask(b *testing.B) {
	e := benchEnv(b, Walking)
	var ts []*Task
	for _, nt := range BenchTasks(1) {
		ts = append(ts, nt.Task)
	}
	e.SetTaskSource(&cycleTasks{tasks: ts})
	b.ReportAllocs()
	for b.Loop() {
		if _, err := e.Reset(); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkBatch steps GOMAXPROCS environments in parallel; ns/op is per batch step of
// 1000 steps per environment.
func BenchmarkBatch(b *testing.B) {
	n := runtime.GOMAXPROCS(0)
	cfg := EnvDefaults()
	cfg.Render = false
	cfg.Discretize = true
	tasks := BenchTasks(1)
	bt, err := NewBatch(n, cfg, func(i int, e *Env) error {
		e.SetTask(tasks[i%len(tasks)].Task)
		_, err := e.Reset()
		return err
	})
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	total := 0
	for b.Loop() {
		st, err := bt.Run(1000, nil)
		if err != nil {
			b.Fatal(err)
		}
		total += st.Steps
	}
	b.ReportMetric(float64(total)/b.Elapsed().Seconds(), "steps/s")
}
