package gridworld

import (
	"errors"
	"fmt"
	"image"
	"math"
	"math/rand/v2"
	"sort"
)

// POVRenderer draws the first-person view of a world state (spec §10). Implementations live
// outside this package (engine/render); they must follow the camera conventions documented on
// State. RenderPOV may reuse the returned image between calls.
type POVRenderer interface {
	RenderPOV(s *State, width, height int) (*image.RGBA, error)
}

// ErrNoRenderer is returned when a pov observation is requested without a renderer.
var ErrNoRenderer = errors.New("gridworld: pov observation requested (Config.Render) but no POVRenderer is set; set Config.Renderer, or Config.Fake for noise, or disable Config.Render")

// TaskSource draws a task on every reset (the original's task generators).
type TaskSource interface {
	NextTask(rng *rand.Rand) (*Task, error)
}

// Config holds the environment's construction parameters (spec §7.1). The JSON names are the
// original's keyword arguments.
type Config struct {
	Render              bool        `json:"render"`
	MaxSteps            int         `json:"max_steps"`
	SelectAndPlace      bool        `json:"select_and_place"`
	Discretize          bool        `json:"discretize"`
	RightPlacementScale float64     `json:"right_placement_scale"`
	WrongPlacementScale float64     `json:"wrong_placement_scale"`
	RenderSize          [2]int      `json:"render_size"`
	TargetInObs         bool        `json:"target_in_obs"`
	ActionSpace         ActionSpace `json:"action_space"`
	VectorState         bool        `json:"vector_state"`
	// SizeReward wraps the reward in the size-reward wrapper of the registered environments
	// (spec §7.5): the reward is the starting grid's intersection on the first step, 0 after.
	SizeReward bool `json:"size_reward"`
	// Fake makes the pov observation random noise (testing aid of the original).
	Fake bool `json:"fake"`
	// SparseCompat reproduces the original's wrap-around of out-of-zone starting blocks
	// (spec §2.5) instead of rejecting them.
	SparseCompat bool `json:"sparse_compat,omitempty"`
	// Seed seeds the environment's random source (task draws, fake pov).
	Seed uint64 `json:"seed"`
	// Renderer draws the pov observation when Render is set.
	Renderer POVRenderer `json:"-"`
}

// EnvDefaults returns the defaults of the environment class (spec §7.1, "env default").
func EnvDefaults() Config {
	return Config{Render: true, MaxSteps: 250, RightPlacementScale: 1, WrongPlacementScale: 0.1,
		RenderSize: [2]int{64, 64}, ActionSpace: Walking, VectorState: true}
}

// CreateEnvDefaults returns the defaults of the convenience constructor (create_env): discrete
// walking actions, select-and-place, no vector state, size-reward wrapper.
func CreateEnvDefaults() Config {
	c := EnvDefaults()
	c.SelectAndPlace, c.Discretize, c.VectorState, c.SizeReward = true, true, false, true
	return c
}

// Registered environment names.
const (
	EnvIGLUGridworld       = "IGLUGridworld-v0"
	EnvIGLUGridworldVector = "IGLUGridworldVector-v0"
)

// RegisteredConfig returns the configuration of a registered environment name.
func RegisteredConfig(name string) (Config, error) {
	c := CreateEnvDefaults()
	switch name {
	case EnvIGLUGridworld:
		return c, nil
	case EnvIGLUGridworldVector:
		c.VectorState, c.Render = true, false
		return c, nil
	}
	return c, fmt.Errorf("unknown environment %q (want %s or %s)", name, EnvIGLUGridworld, EnvIGLUGridworldVector)
}

// ApplyKwargs sets fields from the original's keyword arguments (as in the episode files).
func (c *Config) ApplyKwargs(kw map[string]any) error {
	keys := make([]string, 0, len(kw))
	for k := range kw {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		v := kw[k]
		var err error
		switch k {
		case "render":
			c.Render, err = kwBool(v)
		case "max_steps":
			c.MaxSteps, err = kwInt(v)
		case "select_and_place":
			c.SelectAndPlace, err = kwBool(v)
		case "discretize":
			c.Discretize, err = kwBool(v)
		case "right_placement_scale", "right_scale":
			c.RightPlacementScale, err = kwFloat(v)
		case "wrong_placement_scale", "wrong_scale":
			c.WrongPlacementScale, err = kwFloat(v)
		case "target_in_obs":
			c.TargetInObs, err = kwBool(v)
		case "vector_state":
			c.VectorState, err = kwBool(v)
		case "size_reward":
			c.SizeReward, err = kwBool(v)
		case "fake":
			c.Fake, err = kwBool(v)
		case "action_space":
			s, ok := v.(string)
			if !ok || (s != string(Walking) && s != string(Flying)) {
				err = fmt.Errorf("want \"walking\" or \"flying\"")
			}
			c.ActionSpace = ActionSpace(s)
		case "render_size":
			l, ok := v.([]any)
			if !ok || len(l) != 2 {
				err = fmt.Errorf("want [width, height]")
				break
			}
			for i := range 2 {
				if c.RenderSize[i], err = kwInt(l[i]); err != nil {
					break
				}
			}
		default:
			err = fmt.Errorf("unknown parameter")
		}
		if err != nil {
			return fmt.Errorf("env kwarg %s=%v: %w", k, v, err)
		}
	}
	return nil
}

func kwBool(v any) (bool, error) {
	switch b := v.(type) {
	case bool:
		return b, nil
	case float64:
		return b != 0, nil
	}
	return false, fmt.Errorf("want a boolean")
}

func kwInt(v any) (int, error) {
	f, ok := v.(float64)
	if !ok || f != math.Trunc(f) {
		if i, ok := v.(int); ok {
			return i, nil
		}
		return 0, fmt.Errorf("want an integer")
	}
	return int(f), nil
}

func kwFloat(v any) (float64, error) {
	switch f := v.(type) {
	case float64:
		return f, nil
	case int:
		return float64(f), nil
	}
	return 0, fmt.Errorf("want a number")
}

// Observation is one observation (spec §7.2). Grid and TargetGrid are present when HasGrid /
// HasTarget; AgentPos when HasGrid (vector_state); POV when rendering. The Env owns the
// Observation it returns and updates it in place on the next Step or Reset: use Clone to keep
// one.
type Observation struct {
	Inventory [NumColors]float32
	// Compass is yaw-180 after a step, 0 after reset (quirk kept).
	Compass float32
	Dialog  string
	// AgentPos is [x, y, z, pitch, yaw] after a step, zeros after reset (quirk kept).
	AgentPos   [5]float32
	Grid       Grid
	TargetGrid Grid
	POV        *image.RGBA
	HasGrid    bool
	HasTarget  bool
}

// Clone returns a deep copy.
func (o *Observation) Clone() *Observation {
	c := *o
	if o.POV != nil {
		p := *o.POV
		p.Pix = append([]uint8(nil), o.POV.Pix...)
		c.POV = &p
	}
	return &c
}

// Pose is an initial agent pose for InitializeWorld.
type Pose struct {
	Position   Vec3
	Yaw, Pitch float64
}

// StepInfo holds the reward terms of the last step, for display.
type StepInfo struct {
	Step int // steps since reset
	// Right and Wrong are the synthetic task's placement terms (spec §8.4).
	Right, Wrong int
	// MaxInt is the synthetic task's maximal intersection, GridSize its non-zero count.
	MaxInt, GridSize int
	// TargetSize is the synthetic target's size (target minus starting grid).
	TargetSize int
	// Completed is true when the synthetic task is complete; Done adds the step limit.
	Completed, Done bool
	// TaskReward is the reward before the size-reward wrapper; Reward the returned one.
	TaskReward, Reward float64
	// EnvMaxInt is the original task's maximal intersection of the starting grid, computed at
	// reset (read by the size-reward wrapper).
	EnvMaxInt int
	// Invariant is always true for the reward (spec §12 quirk 3).
	Invariant bool
}

// Env is one gridworld environment. It is not safe for concurrent use; step many
// environments in parallel with a Batch.
type Env struct {
	cfg  Config
	kind ActionKind
	st   *State
	rng  *rand.Rand

	task      *Task
	source    TaskSource
	initBlks  []Block
	initOver  bool
	initPose  Pose
	started   bool
	stepCount int

	initGrid  Grid
	synTarget Grid
	synSc     *Scorer
	syn       incScorer
	synMaxInt int
	synPrev   int

	taskSc    *Scorer
	envMaxInt int
	sizeState int

	obs  Observation
	info StepInfo
	pov  *image.RGBA
}

// New creates an environment. It fails when the configuration is inconsistent, including a
// pov request without a renderer.
func New(cfg Config) (*Env, error) {
	switch cfg.ActionSpace {
	case "":
		cfg.ActionSpace = Walking
	case Walking, Flying:
	default:
		return nil, fmt.Errorf("gridworld: unknown action space %q", cfg.ActionSpace)
	}
	if cfg.MaxSteps < 0 {
		return nil, fmt.Errorf("gridworld: max_steps %d < 0", cfg.MaxSteps)
	}
	if cfg.Render {
		if cfg.RenderSize[0] <= 0 || cfg.RenderSize[1] <= 0 {
			return nil, fmt.Errorf("gridworld: bad render size %v", cfg.RenderSize)
		}
		if cfg.Renderer == nil && !cfg.Fake {
			return nil, ErrNoRenderer
		}
	}
	e := &Env{cfg: cfg, st: newStateEmpty()}
	e.st.flying = cfg.ActionSpace == Flying
	switch {
	case cfg.ActionSpace == Flying:
		e.kind = KindFly
	case cfg.Discretize:
		e.kind = KindDiscrete
	default:
		e.kind = KindWalkDict
	}
	e.Seed(cfg.Seed)
	return e, nil
}

// Seed re-seeds the environment's random source.
func (e *Env) Seed(seed uint64) {
	e.rng = rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
}

// Rand returns the environment's random source (e.g. for SampleAction).
func (e *Env) Rand() *rand.Rand { return e.rng }

// Config returns the configuration.
func (e *Env) Config() Config { return e.cfg }

// ActionKind returns the action form Step expects.
func (e *Env) ActionKind() ActionKind { return e.kind }

// State returns the live world state (read-only for callers).
func (e *Env) State() *State { return e.st }

// Task returns the current task (nil before the first reset with a task source).
func (e *Env) Task() *Task { return e.task }

// Info returns the reward terms of the last step (or of the reset).
func (e *Env) Info() StepInfo { return e.info }

// StepCount returns the number of steps since the last reset.
func (e *Env) StepCount() int { return e.stepCount }

// SetTask fixes the task used by every reset (and drops any task source).
func (e *Env) SetTask(t *Task) {
	e.task, e.source = t, nil
}

// SetTaskSource makes every reset draw a new task from src.
func (e *Env) SetTaskSource(src TaskSource) { e.source = src }

// InitializeWorld sets the starting blocks (when blocks is non-nil; nil keeps the task's
// starting grid) and the initial pose, then resets. Call it after the task is set.
func (e *Env) InitializeWorld(blocks []Block, pose Pose) (*Observation, error) {
	if blocks != nil {
		e.initBlks, e.initOver = append([]Block(nil), blocks...), true
	}
	e.initPose = pose
	return e.Reset()
}

// SampleAction draws a random action of this environment's form from its random source.
func (e *Env) SampleAction() Action {
	return SampleAction(e.rng, e.cfg.ActionSpace, e.kind == KindDiscrete)
}

// Reset starts a new episode (spec §7.3) and returns the reset observation.
func (e *Env) Reset() (*Observation, error) {
	if e.source != nil {
		t, err := e.source.NextTask(e.rng)
		if err != nil {
			return nil, fmt.Errorf("gridworld: drawing a task: %w", err)
		}
		if t == nil {
			return nil, errors.New("gridworld: task source returned no task")
		}
		e.task = t
	}
	if e.task == nil {
		return nil, errors.New("gridworld: no task set (use SetTask or SetTaskSource before Reset)")
	}
	start := e.task.StartingGrid
	if e.initOver {
		start = e.initBlks
	}
	for i, b := range start {
		if b.ID < 1 || b.ID > NumColors {
			return nil, fmt.Errorf("gridworld: starting block %d [%d,%d,%d,%d]: id must be 1..6", i, b.X, b.Y, b.Z, b.ID)
		}
	}
	var init Grid
	var err error
	if e.cfg.SparseCompat {
		init, err = DenseFromSparseCompat(start)
	} else {
		init, err = DenseFromSparse(start)
	}
	if err != nil {
		return nil, fmt.Errorf("gridworld: starting grid: %w", err)
	}
	syn := e.task.Target.Sub(&init)
	if e.synSc == nil || syn != e.synTarget {
		e.synTarget = syn
		e.synSc = cachedScorer(&syn, nil, true)
	}
	e.initGrid = init
	e.taskSc = cachedScorer(&e.task.Target, e.task.FullGrid, e.task.Invariant)

	st := e.st
	st.clearPlaced()
	var inv [NumColors]int
	for i := range inv {
		inv[i] = InitialInventory
	}
	for _, b := range start {
		st.addBlock(b.X, b.Y, b.Z, b.ID)
		inv[b.ID-1]--
	}
	st.changed = st.changed[:0]
	st.pos, st.yaw, st.pitch = e.initPose.Position, e.initPose.Yaw, e.initPose.Pitch
	st.inventory = inv
	e.envMaxInt = e.taskSc.MaximalIntersection(&st.grid)

	e.syn.reset(e.synSc)
	gf, inf := st.grid.flat(), init.flat()
	for i := range gf {
		if d := gf[i] - inf[i]; d != 0 {
			e.syn.set(i, d)
		}
	}
	e.synMaxInt, e.synPrev = 0, 0
	e.sizeState = 0
	e.stepCount = 0
	e.started = true

	o := &e.obs
	o.Dialog = e.task.Chat
	o.Compass = 0
	o.AgentPos = [5]float32{}
	o.HasGrid = e.cfg.VectorState
	o.HasTarget = e.cfg.TargetInObs
	if o.HasGrid {
		o.Grid = st.grid
	}
	if o.HasTarget {
		o.TargetGrid = e.task.Target
	}
	e.fillInventory()
	if err := e.render(); err != nil {
		return nil, err
	}
	e.info = StepInfo{MaxInt: 0, GridSize: e.syn.size, TargetSize: e.synSc.targetSize, EnvMaxInt: e.envMaxInt, Invariant: true}
	return o, nil
}

func (e *Env) fillInventory() {
	for i, n := range e.st.inventory {
		e.obs.Inventory[i] = float32(n)
	}
}

func (e *Env) render() error {
	if !e.cfg.Render {
		e.obs.POV = nil
		return nil
	}
	w, h := e.cfg.RenderSize[0], e.cfg.RenderSize[1]
	if e.cfg.Fake {
		if e.pov == nil || e.pov.Rect.Dx() != w || e.pov.Rect.Dy() != h {
			e.pov = image.NewRGBA(image.Rect(0, 0, w, h))
		}
		p := e.pov.Pix
		for i := 0; i < len(p); i += 4 {
			r := e.rng.Uint32()
			p[i], p[i+1], p[i+2], p[i+3] = uint8(r), uint8(r>>8), uint8(r>>16), 255
		}
		e.obs.POV = e.pov
		return nil
	}
	if e.cfg.Renderer == nil {
		return ErrNoRenderer
	}
	img, err := e.cfg.Renderer.RenderPOV(e.st, w, h)
	if err != nil {
		return fmt.Errorf("gridworld: rendering pov: %w", err)
	}
	e.obs.POV = img
	return nil
}

// Step applies one action (spec §6.1, §7.4) and returns the observation, the reward and
// whether the episode is done. Stepping after done continues normally (spec §7.4).
func (e *Env) Step(a Action) (*Observation, float64, bool, error) {
	if !e.started {
		return nil, 0, false, errors.New("gridworld: Step before Reset")
	}
	if a.Kind != e.kind {
		return nil, 0, false, fmt.Errorf("gridworld: action of form %v, environment expects %v", a.Kind, e.kind)
	}
	if a.Kind != KindDiscrete {
		if err := a.Validate(); err != nil {
			return nil, 0, false, fmt.Errorf("gridworld: %w", err)
		}
	}
	d, err := a.decode()
	if err != nil {
		return nil, 0, false, fmt.Errorf("gridworld: %w", err)
	}
	e.stepCount++
	if e.cfg.SelectAndPlace && d.sel != 0 {
		d.place, d.breakIt = true, false
	}
	st := e.st
	st.applyMove(d.s0, d.s1, d.u, d.sel)
	st.applyCamera(d.dyaw, d.dpitch)
	st.placeOrBreak(d.place, d.breakIt)
	st.update()
	st.wrapYaw()

	o := &e.obs
	if len(st.changed) > 0 {
		gf, inf := st.grid.flat(), e.initGrid.flat()
		var of *[NumCells]int8
		if o.HasGrid {
			of = o.Grid.flat()
		}
		for _, i := range st.changed {
			e.syn.set(int(i), gf[i]-inf[i])
			if of != nil {
				of[i] = gf[i]
			}
		}
		st.changed = st.changed[:0]
	}
	// synthetic task step (spec §8.4)
	size := e.syn.size
	wrong := e.synPrev - size
	mi := e.synMaxInt
	if wrong != 0 {
		mi = e.syn.maxInt()
	}
	completed := mi == e.synSc.targetSize
	right := mi - e.synMaxInt
	e.synPrev, e.synMaxInt = size, mi
	done := completed || e.stepCount == e.cfg.MaxSteps
	taskReward := Reward(right, wrong, e.cfg.RightPlacementScale, e.cfg.WrongPlacementScale)
	reward := taskReward
	if e.cfg.SizeReward {
		m := e.envMaxInt
		nm := max(m, e.sizeState)
		reward = float64(nm-e.sizeState) + 0 // + min(0.02·wrong_placement, 0), always 0
		e.sizeState = nm
	}

	e.fillInventory()
	o.Compass = float32(st.yaw - 180)
	if o.HasGrid {
		o.AgentPos = [5]float32{float32(st.pos[0]), float32(st.pos[1]), float32(st.pos[2]), float32(st.pitch), float32(st.yaw)}
	}
	if e.cfg.Render {
		if err := e.render(); err != nil {
			return nil, 0, false, err
		}
	}
	e.info = StepInfo{Step: e.stepCount, Right: right, Wrong: wrong, MaxInt: mi, GridSize: size,
		TargetSize: e.synSc.targetSize, Completed: completed, Done: done, TaskReward: taskReward,
		Reward: reward, EnvMaxInt: e.envMaxInt, Invariant: true}
	return o, reward, done, nil
}

// EnvMaxInt returns the original task's maximal intersection computed at reset.
func (e *Env) EnvMaxInt() int { return e.envMaxInt }
