package gridworld

import (
	"encoding/json"
	"errors"
	"image"
	"math"
	"math/big"
	"math/rand/v2"
	"strings"
	"testing"
)

// bigSinCos evaluates sin and cos of a float64 with 300-bit arithmetic.
func bigSinCos(x float64) (float64, float64) {
	const prec = 300
	pi, _, _ := big.ParseFloat(piDigits, 10, prec, big.ToNearestEven)
	bx := new(big.Float).SetPrec(prec).SetFloat64(x)
	halfPi := new(big.Float).SetPrec(prec).Quo(pi, big.NewFloat(2))
	q := new(big.Float).SetPrec(prec).Quo(bx, halfPi)
	qf, _ := q.Float64()
	k := math.RoundToEven(qf)
	r := new(big.Float).SetPrec(prec).Sub(bx, new(big.Float).SetPrec(prec).Mul(halfPi, big.NewFloat(k)))
	r2 := new(big.Float).SetPrec(prec).Mul(r, r)
	series := func(term *big.Float, start int) *big.Float {
		sum := new(big.Float).SetPrec(prec)
		t := new(big.Float).SetPrec(prec).Set(term)
		for n := start; n < 80; n += 2 {
			sum.Add(sum, t)
			t.Mul(t, r2)
			t.Quo(t, big.NewFloat(float64((n+1)*(n+2))))
			t.Neg(t)
		}
		return sum
	}
	s, _ := series(r, 1).Float64()
	c, _ := series(big.NewFloat(1).SetPrec(prec), 0).Float64()
	switch int64(k) & 3 {
	case 0:
		return s, c
	case 1:
		return c, -s
	case 2:
		return -s, -c
	}
	return -c, s
}

func TestTrigCorrectlyRounded(t *testing.T) {
	if float64(math.Pi)/180 != degToRad || 180/float64(math.Pi) != radToDeg {
		t.Fatalf("radian constants differ from the original's double arithmetic")
	}
	check := func(deg float64) {
		s, c := sinCosDeg(deg)
		ws, wc := bigSinCos(float64(deg * degToRad))
		if s != ws || c != wc {
			t.Errorf("sinCosDeg(%v) = %v, %v; correctly rounded %v, %v", deg, s, c, ws, wc)
		}
	}
	for d := -720; d <= 720; d += 5 {
		check(float64(d))
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 300; i++ {
		check(rng.Float64()*900 - 450)
		check(float64(float32(rng.Float64()*10 - 5)))
	}
	if _, c := sinCosDeg(-90); c != 6.123233995736766e-17 {
		t.Errorf("cos(rad(-90)) = %v", c)
	}
}

func TestStrafeAngles(t *testing.T) {
	for s0 := -1; s0 <= 1; s0++ {
		for s1 := -1; s1 <= 1; s1++ {
			if s0 == 0 && s1 == 0 {
				continue
			}
			want := math.Atan2(float64(s0), float64(s1)) * radToDeg
			if got := strafeAngle(float64(s0), float64(s1)); math.Abs(got-want) > 1e-12 {
				t.Errorf("strafe (%d,%d) = %v, want %v", s0, s1, got, want)
			}
		}
	}
	if got := strafeAngle(math.Copysign(0, -1), -1); got != -180 {
		t.Errorf("atan2(-0,-1) = %v", got)
	}
}

func newTestEnv(t testing.TB, cfg Config, task *Task) *Env {
	t.Helper()
	e, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	e.SetTask(task)
	if _, err := e.Reset(); err != nil {
		t.Fatal(err)
	}
	return e
}

func vectorConfig(space ActionSpace) Config {
	c := EnvDefaults()
	c.Render = false
	c.ActionSpace = space
	c.Discretize = true
	c.TargetInObs = true
	return c
}

func TestPhysicsFacts(t *testing.T) {
	e := newTestEnv(t, vectorConfig(Walking), DummyTask())
	want := []float64{-0.0375, -0.125, -0.25}
	for i, w := range want {
		e.Step(DiscreteAction(ActNoop))
		if y := e.State().Position()[1]; math.Abs(y-w) > 1e-12 {
			t.Fatalf("settle step %d: y = %v, want %v", i+1, y, w)
		}
	}
	// jump lasts 14 steps and rises 1.112 above rest
	e.Step(DiscreteAction(ActJump))
	top := e.State().Position()[1]
	steps := 1
	for e.State().Position()[1] != RestEyeY || e.State().VerticalSpeed() != 0 {
		e.Step(DiscreteAction(ActNoop))
		top = math.Max(top, e.State().Position()[1])
		steps++
		if steps > 40 {
			t.Fatal("jump never lands")
		}
	}
	if steps != 14 || math.Abs(top-RestEyeY-1.112) > 1e-3 {
		t.Errorf("jump: %d steps, height %v", steps, top-RestEyeY)
	}
	// walking forward moves 0.25 along -z at yaw 0
	z0 := e.State().Position()[2]
	e.Step(DiscreteAction(ActForward))
	if dz := e.State().Position()[2] - z0; math.Abs(dz+0.25) > 1e-12 {
		t.Errorf("forward step moved %v", dz)
	}
}

func TestFallFromNine(t *testing.T) {
	e := newTestEnv(t, vectorConfig(Walking), DummyTask())
	if _, err := e.InitializeWorld(nil, Pose{Position: Vec3{0, 9, 0}}); err != nil {
		t.Fatal(err)
	}
	seen := map[int]bool{}
	for i := 1; i <= 30; i++ {
		seen[e.State().SubSteps()] = true
		e.Step(DiscreteAction(ActNoop))
		if e.State().Position()[1] == RestEyeY {
			if i != 20 {
				t.Errorf("landed after %d steps, want 20", i)
			}
			break
		}
	}
	for _, n := range []int{2, 4, 8, 12} {
		if !seen[n] {
			t.Errorf("sub-step count %d never used", n)
		}
	}
}

func TestTaskWithoutStartingGrid(t *testing.T) {
	var g Grid
	g[0][5][5] = Blue
	task := &Task{Target: g, Invariant: true} // StartingGrid nil
	e := newTestEnv(t, vectorConfig(Walking), task)
	for i := 0; i < 3; i++ {
		if _, _, _, err := e.Step(DiscreteAction(ActNoop)); err != nil {
			t.Fatal(err)
		}
	}
	// look down and place: reward +1 and done (placed at the target cell shifted anywhere)
	for i := 0; i < 11; i++ {
		e.Step(DiscreteAction(ActPitchDown))
	}
	_, r, done, err := e.Step(DiscreteAction(ActPlace))
	if err != nil || r != 1 || !done {
		t.Fatalf("place: reward %v done %v err %v", r, done, err)
	}
}

func TestDeterministicSeeding(t *testing.T) {
	run := func(seed uint64, space ActionSpace) []float64 {
		cfg := vectorConfig(space)
		cfg.Seed = seed
		e, err := New(cfg)
		if err != nil {
			t.Fatal(err)
		}
		e.SetTaskSource(SampleTaskSource())
		if _, err := e.Reset(); err != nil {
			t.Fatal(err)
		}
		var trace []float64
		for i := 0; i < 600; i++ {
			_, r, done, err := e.Step(e.SampleAction())
			if err != nil {
				t.Fatal(err)
			}
			p := e.State().Position()
			trace = append(trace, r, p[0], p[1], p[2], float64(e.State().GridRef().Count()))
			if done {
				e.Reset()
			}
		}
		return trace
	}
	for _, sp := range []ActionSpace{Walking, Flying} {
		a, b, c := run(5, sp), run(5, sp), run(6, sp)
		if len(a) != len(b) {
			t.Fatal("length differs")
		}
		for i := range a {
			if a[i] != b[i] {
				t.Fatalf("%s: same seed diverges at %d", sp, i)
			}
		}
		same := true
		for i := range a {
			same = same && a[i] == c[i]
		}
		if same {
			t.Errorf("%s: different seeds give the same trajectory", sp)
		}
	}
}

// TestIncrementalScorerMatchesReference replays random episodes (with starting grids, so that
// the synthetic target has negative cells and the lazy path occurs) and checks every reward
// against a from-scratch TaskRun of the synthetic task.
func TestIncrementalScorerMatchesReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	for ep := 0; ep < 30; ep++ {
		space := Walking
		if ep%3 == 2 {
			space = Flying
		}
		cfg := vectorConfig(space)
		cfg.Seed = uint64(ep)
		cfg.MaxSteps = 400
		target, _ := RandomTasks{MaxBlocks: 8, HeightLevels: 3, MaxDist: 3, NumColors: 3}.NextTask(rng)
		var start []Block
		for i := 0; i < rng.IntN(8); i++ {
			start = append(start, Block{rng.IntN(5) - 2, rng.IntN(2) - 1, rng.IntN(5) - 2, 1 + rng.IntN(3)})
		}
		target.StartingGrid = start
		e := newTestEnv(t, cfg, target)
		init, _ := DenseFromSparse(start)
		syn := target.Target.Sub(&init)
		ref, _ := (&Task{Target: syn, Invariant: true}).NewRun()
		for i := 0; i < 400; i++ {
			a := e.SampleAction()
			if space == Walking && rng.IntN(2) == 0 { // more placing and breaking
				a = DiscreteAction([]int{ActPlace, ActBreak, ActPitchDown, ActPitchUp, ActYawLeft}[rng.IntN(5)])
			}
			_, r, done, err := e.Step(a)
			if err != nil {
				t.Fatal(err)
			}
			g := e.State().Grid()
			gs := g.Sub(&init)
			right, wrong, rdone := ref.Step(&gs)
			want := Reward(right, wrong, cfg.RightPlacementScale, cfg.WrongPlacementScale)
			if r != want || done != (rdone || i+1 == cfg.MaxSteps) {
				t.Fatalf("episode %d step %d: reward %v done %v, reference %v %v", ep, i+1, r, done, want, rdone)
			}
			if done {
				break
			}
		}
	}
}

func TestIncrementalLazyPath(t *testing.T) {
	// Starting block red at (0,-1,-2); target wants blue there. Removing the red block and
	// placing a blue one changes the synthetic grid from -3 to -2 at that cell without changing
	// its size: the scorer must keep the stored maximum (lazy path).
	var tg Grid
	tg.Set(0, -1, -2, Blue)
	task := &Task{Target: tg, StartingGrid: []Block{{0, -1, -2, Red}}, Invariant: true}
	sc := NewScorer(func() *Grid { g := tg; g.Set(0, -1, -2, Blue-Red); return &g }(), nil, true)
	var inc incScorer
	inc.reset(sc)
	i := int(gridFlatIndex(0, -1, -2))
	inc.set(i, -Red)
	if inc.maxInt() != 0 || inc.size != 1 {
		t.Fatalf("max %d size %d", inc.maxInt(), inc.size)
	}
	inc.set(i, Blue-Red)
	if inc.maxInt() != 1 || inc.size != 1 {
		t.Fatalf("max %d size %d", inc.maxInt(), inc.size)
	}
	_ = task
}

func TestSizeRewardWrapper(t *testing.T) {
	cfg, err := RegisteredConfig(EnvIGLUGridworldVector)
	if err != nil {
		t.Fatal(err)
	}
	var tg Grid
	tg.Set(0, -1, 0, Blue)
	tg.Set(1, -1, 0, Blue)
	task := &Task{Target: tg, StartingGrid: []Block{{0, -1, 0, Blue}}, Invariant: true}
	e := newTestEnv(t, cfg, task)
	_, r1, _, _ := e.Step(DiscreteAction(ActNoop))
	_, r2, _, _ := e.Step(DiscreteAction(ActNoop))
	if r1 != 1 || r2 != 0 {
		t.Errorf("size reward %v then %v, want 1 then 0", r1, r2)
	}
	if _, err := RegisteredConfig("nope"); err == nil {
		t.Error("unknown name accepted")
	}
}

type fakeRenderer struct{ calls int }

func (f *fakeRenderer) RenderPOV(s *State, w, h int) (*image.RGBA, error) {
	f.calls++
	return image.NewRGBA(image.Rect(0, 0, w, h)), nil
}

func TestPOVSeam(t *testing.T) {
	cfg := EnvDefaults() // render = true
	if _, err := New(cfg); !errors.Is(err, ErrNoRenderer) {
		t.Fatalf("want ErrNoRenderer, got %v", err)
	}
	fr := &fakeRenderer{}
	cfg.Renderer = fr
	e := newTestEnv(t, cfg, DummyTask())
	o, _, _, err := e.Step(Action{Kind: KindWalkDict, Forward: true})
	if err != nil || o.POV == nil || o.POV.Rect.Dx() != 64 || fr.calls != 2 {
		t.Fatalf("pov %v err %v calls %d", o.POV, err, fr.calls)
	}
	cfg.Renderer, cfg.Fake = nil, true
	e = newTestEnv(t, cfg, DummyTask())
	if e.obs.POV == nil {
		t.Fatal("fake pov missing")
	}
}

func TestActionJSONRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	for _, f := range []struct {
		sp   ActionSpace
		disc bool
	}{{Walking, true}, {Walking, false}, {Flying, false}} {
		for i := 0; i < 50; i++ {
			a := SampleAction(rng, f.sp, f.disc)
			data, err := json.Marshal(a)
			if err != nil {
				t.Fatal(err)
			}
			b, err := DecodeAction(data, f.sp, f.disc)
			if err != nil || a != b {
				t.Fatalf("%s: %+v -> %s -> %+v (%v)", f.sp, a, data, b, err)
			}
		}
	}
	for _, bad := range []string{`{"movement":[2,0,0],"camera":[0,0],"inventory":0,"placement":0}`, `{"camera":[9,0]}`, `{"placement":3}`, `[1,2]`, `{"movement":[0,0]}`} {
		if _, err := DecodeAction([]byte(bad), Flying, false); err == nil {
			t.Errorf("accepted %s", bad)
		}
	}
	if _, err := DecodeAction([]byte(`1.5`), Walking, true); err == nil {
		t.Error("accepted 1.5")
	}
	if _, err := DecodeAction([]byte(`{"hotbar":7}`), Walking, false); err == nil || !strings.Contains(err.Error(), "hotbar") {
		t.Errorf("hotbar 7: %v", err)
	}
}

func TestSampleTasks(t *testing.T) {
	ts := SampleTasks()
	names := map[string]bool{}
	for _, nt := range ts {
		names[nt.Name] = true
		if n := nt.Task.TargetSize(); n < 5 || nt.Task.Chat == "" {
			t.Errorf("%s: %d blocks", nt.Name, n)
		}
		for _, b := range nt.Task.Target.Sparse() {
			if b.Y > -1 {
				// every block above the floor must rest on another block (buildable)
				if nt.Task.Target.At(b.X, b.Y-1, b.Z) == 0 && nt.Name != "arch" && nt.Name != "small-house" {
					t.Errorf("%s: floating block %v", nt.Name, b)
				}
			}
		}
	}
	for _, n := range []string{"tower", "arch", "l-wall", "small-house"} {
		if !names[n] {
			t.Errorf("missing sample task %s", n)
		}
	}
}

func TestDenseSparseErrors(t *testing.T) {
	if _, err := DenseFromSparse([]Block{{0, -2, 0, 1}}); err == nil {
		t.Error("out-of-zone block accepted")
	}
	g, err := DenseFromSparseCompat([]Block{{0, -2, 0, 1}})
	if err != nil || g[8][5][5] != 1 {
		t.Errorf("compat wrap: %v", err)
	}
	if _, err := DenseFromSparseCompat([]Block{{0, 8, 0, 1}}); err == nil {
		t.Error("too large index accepted in compat mode")
	}
}

func TestSessionTasks(t *testing.T) {
	s := &Session{SessionID: "1-c1", StructureID: "c1",
		Turns:      [][]string{{"<Architect> a"}, {"<Architect> b", "<Builder> q?", "<Architect> yes"}},
		Structures: [][]Block{{{0, -1, 0, 1}}, {{0, -1, 0, 1}, {0, 0, 0, 2}}}}
	ts, err := s.Tasks()
	if err != nil || len(ts) != 2 {
		t.Fatal(err)
	}
	if ts[0].StartingGrid == nil || len(ts[0].StartingGrid) != 0 || ts[0].Target.Count() != 1 || ts[0].Chat != "<Architect> a" {
		t.Errorf("task 0: %+v", ts[0])
	}
	if len(ts[1].StartingGrid) != 1 || ts[1].Target.Count() != 2 || ts[1].LastInstruction != "<Architect> b\n<Builder> q?\n<Architect> yes" ||
		ts[1].Chat != "<Architect> a\n<Architect> b\n<Builder> q?\n<Architect> yes" || ts[1].FullGrid == nil {
		t.Errorf("task 1: %+v", ts[1])
	}
	rng := rand.New(rand.NewPCG(1, 1))
	ds := &Dataset{Sessions: map[string][]*Session{"c1": {s}}}
	for i := 0; i < 20; i++ {
		task, err := ds.NextTask(rng)
		if err != nil || task == nil {
			t.Fatal(err)
		}
	}
	// an environment can use the dataset directly
	e, _ := New(vectorConfig(Walking))
	e.SetTaskSource(ds)
	if _, err := e.Reset(); err != nil {
		t.Fatal(err)
	}
}

func TestBatchAndRunBench(t *testing.T) {
	cfg := vectorConfig(Walking)
	tasks := SampleTasks()
	b, err := NewBatch(3, cfg, func(i int, e *Env) error {
		e.SetTask(tasks[i].Task)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	obs := make([]*Observation, 3)
	if err := b.Reset(obs); err != nil {
		t.Fatal(err)
	}
	acts := []Action{DiscreteAction(1), DiscreteAction(2), DiscreteAction(17)}
	out := make([]StepResult, 3)
	for i := 0; i < 300; i++ {
		if err := b.Step(acts, out, true); err != nil {
			t.Fatal(err)
		}
	}
	st, err := b.Run(500, nil)
	if err != nil || st.Steps != 1500 {
		t.Fatalf("run: %+v %v", st, err)
	}
	for _, sp := range []string{"walking", "flying"} {
		r, err := RunBench(BenchConfig{Envs: 2, Steps: 4000, ActionSpace: sp, Seed: 1})
		if err != nil || r.StepsPerSecond <= 0 || r.ResetsPerSecond <= 0 || r.IntersectionUS <= 0 {
			t.Fatalf("%s: %+v %v", sp, r, err)
		}
	}
	if _, err := RunBench(BenchConfig{ActionSpace: "swimming"}); err == nil {
		t.Error("bad action space accepted")
	}
}

func TestAtan2CorrectlyRounded(t *testing.T) {
	// glibc (correctly rounded) value; Go's math.Atan2 is one ulp lower here (fly_random t=14).
	if got := atan2CR(0.6855611801147461, -0.09752897918224335); got != 1.7121096276002885 {
		t.Errorf("atan2CR = %v, want 1.7121096276002885", got)
	}
	rng := rand.New(rand.NewPCG(9, 9))
	for i := 0; i < 2000; i++ {
		y, x := rng.Float64()*2-1, rng.Float64()*2-1
		got, ref := atan2CR(y, x), math.Atan2(y, x)
		if got != ref && math.Nextafter(ref, got) != got {
			t.Fatalf("atan2CR(%v, %v) = %v, more than an ulp from %v", y, x, got, ref)
		}
	}
}
