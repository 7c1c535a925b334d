// Command gridworld is the gridworld engine as a shared library with a small C ABI, built with
// `go build -buildmode=c-shared -o libagentdesk_gridworld.so ./bindings/gridworld`, for the
// Python package bindings/python/agentdesk_gridworld (which loads it with ctypes: nothing to
// compile on the user's side).
//
// The ABI works on batches: a handle is n environments stepped together by goroutines. Python
// owns the arrays (NumPy) and binds them once; every reset and step reads the actions from
// and writes observations, rewards and flags into them, with no allocation or copy on either
// side beyond filling them. Errors are returned as codes, their text read with agd_error.
// Nothing here panics across the boundary: a panic becomes an error.
package main

/*
#include <stdint.h>
*/
import "C"

import (
	"encoding/json"
	"errors"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"unsafe"

	gw "github.com/agentdesk/agentdesk/engine/gridworld"
)

func main() {}

// The buffers a handle writes (agd_bind's kind).
const (
	bufActions    = 1  // int64[n]: discrete actions
	bufInventory  = 2  // float32[n][6]
	bufCompass    = 3  // float32[n]
	bufAgentPos   = 4  // float32[n][5]
	bufGrid       = 5  // int32[n][9][11][11] (observation grids are int32, spec §2)
	bufTarget     = 6  // int32[n][9][11][11]
	bufReward     = 7  // float64[n]
	bufTerminated = 8  // uint8[n]
	bufTruncated  = 9  // uint8[n]
	bufFlying     = 10 // float32[n][8]: movement x,y,z, camera pitch,yaw, placement, select (as floats)
	bufPose       = 11 // float64[n][5]: the agent's x, y, z, yaw, pitch (the state, not the observation)
	bufPOV        = 12 // uint8[n][height][width][3]: the pov observation (render_size is width, height)
	bufDialog     = 13 // uint8[n]: 1 when the call changed environment i's dialog (read it with agd_dialog)
	// The step info, written by steps (zeros where a step reset the environment instead):
	bufInfo       = 14 // int64[5][n]: steps since reset, right placements, wrong placements, maximal intersection, target size
	bufTaskReward = 15 // float64[n]: the task's reward before the size-reward wrapper
	bufCompleted  = 16 // uint8[n]: the task is complete
	bufStepped    = 17 // uint8[n]: 1 when the call stepped environment i, 0 when it reset it (next-step autoreset)
	numBufs       = 18
	numInfoInts   = 5
)

// unslotted are the buffers bound with exactly one environment batch's worth: the actions read
// from and the flags and state read right after the call. The others, the outputs a step
// returns, may be bound with room for several slots; each call writes the slot it is given,
// so Python can hand out every step's arrays fresh without copying them.
var unslotted = map[int]bool{bufActions: true, bufFlying: true, bufPose: true, bufDialog: true}

// bufSizes are the element sizes and counts per environment.
var bufSizes = map[int][2]int{
	bufActions: {8, 1}, bufInventory: {4, gw.NumColors}, bufCompass: {4, 1}, bufAgentPos: {4, 5},
	bufGrid: {4, gw.NumCells}, bufTarget: {4, gw.NumCells}, bufReward: {8, 1}, bufTerminated: {1, 1},
	bufTruncated: {1, 1}, bufFlying: {4, 8}, bufPose: {8, 5}, bufDialog: {1, 1},
	bufInfo: {8, numInfoInts}, bufTaskReward: {8, 1}, bufCompleted: {1, 1}, bufStepped: {1, 1},
}

// renderHost runs work on the one thread that owns the OpenGL context and gives pov renderers
// for it. The library built with the agdgl tag sets openRenderHost (gl.go); the engine-only
// library has none, so it needs neither libGL nor X11.
type renderHost interface {
	// Do runs f on the OpenGL thread and waits for it.
	Do(f func() error) error
	POV() gw.POVRenderer
}

var openRenderHost func() (renderHost, error)

type handle struct {
	mu sync.Mutex
	// host is set when the environments render a pov with OpenGL: every call then runs on
	// its thread, one environment after another.
	host   renderHost
	povW   int
	povH   int
	batch  *gw.Batch
	n      int
	flying bool
	bufs   [numBufs]unsafe.Pointer
	// slots and slotBytes are each buffer's slots and the bytes of one; cur points at the
	// slot the current call writes (slot).
	slots     [numBufs]int
	slotBytes [numBufs]int
	cur       [numBufs]unsafe.Pointer
	slot      int
	pool      *stepPool
	// flags are what the call tells its caller besides success (flag*): set from the
	// goroutines stepping the environments.
	flags   atomic.Int32
	err     string
	actions []gw.Action
	obs     []*gw.Observation
	results []gw.StepResult
	steps   []int
	maxStep int
	// pending marks environments whose episode ended at the last step: with next-step
	// autoreset (Gymnasium 1.x's default) the next step resets them instead of stepping.
	pending []bool
	// dialogs are the environments' current dialogs (the task's chat: it changes at resets).
	dialogs []string
	cfg     gw.Config
}

var (
	mu      sync.Mutex
	handles = map[int64]*handle{}
	nextID  int64
	// lastErr is the error of a call that made no handle.
	lastErr string
)

// options are what agd_new takes, as JSON.
type options struct {
	N      int            `json:"n"`
	Env    string         `json:"env"`    // a registered IGLU id ("" : IGLUGridworld-v0's defaults without rendering)
	Kwargs map[string]any `json:"kwargs"` // the original's keyword arguments
	Task   string         `json:"task"`   // a task spec (cmd line's --task); "": the built-in generator
	Seed   uint64         `json:"seed"`
	// Base is the defaults the keyword arguments change: "create_env" (the registered ids'
	// wrapper, the default) or "gridworld" (the original's GridWorld class).
	Base string `json:"base"`
}

func get(h C.int64_t) *handle {
	mu.Lock()
	defer mu.Unlock()
	return handles[int64(h)]
}

// locked runs f on a handle under its lock, as guard does; -3 when there is no such handle.
func locked(h C.int64_t, f func(x *handle) error) C.int {
	x := get(h)
	if x == nil {
		return -3
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	clear(slice[uint8](x.bufs[bufDialog], x.n))
	for k := range x.bufs {
		x.cur[k] = x.bufs[k]
		if x.bufs[k] != nil && x.slot > 0 && !unslotted[k] {
			if x.slot >= x.slots[k] {
				x.err = fmt.Sprintf("slot %d: buffer %d has %d slots", x.slot, k, x.slots[k])
				return -1
			}
			x.cur[k] = unsafe.Add(x.bufs[k], x.slot*x.slotBytes[k])
		}
	}
	x.flags.Store(0)
	var code C.int
	if x.host != nil {
		code = guard(x, func() error { return x.host.Do(func() error { return f(x) }) })
	} else {
		code = guard(x, func() error { return f(x) })
	}
	if code == 0 {
		return C.int(x.flags.Load())
	}
	return code
}

// What a successful call returns (negative codes are errors): bits telling the caller what
// it would otherwise find by scanning the arrays.
const (
	flagDialog = 1 // some environment's dialog changed (read it with agd_dialog)
	flagEnded  = 2 // some environment's episode ended (terminated or truncated)
	flagReset  = 4 // some environment was reset instead of stepped (next-step autoreset)
)

func guard(h *handle, f func() error) (code C.int) {
	defer func() {
		if r := recover(); r != nil {
			h.err = fmt.Sprintf("internal error: %v", r)
			code = -2
		}
	}()
	if err := f(); err != nil {
		h.err = err.Error()
		return -1
	}
	h.err = ""
	return 0
}

//export agd_new
func agd_new(optionsJSON *C.char) (id C.int64_t) {
	defer func() {
		if r := recover(); r != nil {
			mu.Lock()
			lastErr = fmt.Sprintf("internal error: %v", r)
			mu.Unlock()
			id = -1
		}
	}()
	h, err := newHandle(C.GoString(optionsJSON))
	mu.Lock()
	defer mu.Unlock()
	if err != nil {
		lastErr = err.Error()
		return -1
	}
	nextID++
	handles[nextID] = h
	return C.int64_t(nextID)
}

func newHandle(js string) (*handle, error) {
	var o options
	if err := json.Unmarshal([]byte(js), &o); err != nil {
		return nil, fmt.Errorf("options: %w", err)
	}
	if o.N <= 0 || o.N > 1<<16 {
		return nil, fmt.Errorf("n=%d: want 1 to 65536 environments", o.N)
	}
	cfg, err := gw.RegisteredConfig(gw.EnvIGLUGridworld)
	switch {
	case o.Env != "":
		cfg, err = gw.RegisteredConfig(o.Env)
	case o.Base == "gridworld":
		cfg = gw.EnvDefaults()
		cfg.Render = false
	case o.Base == "" || o.Base == "create_env":
		cfg.Render = false
	default:
		err = fmt.Errorf("base %q: want create_env or gridworld", o.Base)
	}
	if err != nil {
		return nil, err
	}
	if err := cfg.ApplyKwargs(o.Kwargs); err != nil {
		return nil, err
	}
	var host renderHost
	if cfg.Render && !cfg.Fake {
		if cfg.RenderSize[0] < 1 || cfg.RenderSize[1] < 1 || cfg.RenderSize[0] > 4096 || cfg.RenderSize[1] > 4096 {
			return nil, fmt.Errorf("render_size %v: want a width and a height from 1 to 4096", cfg.RenderSize)
		}
		if openRenderHost == nil {
			return nil, errors.New("render=True: this is the engine-only library, without the OpenGL renderer " +
				"(libagentdesk_gridworld_gl.so has it; it loads where libX11 is installed and renders with libGL on a display or Xvfb); pass render=False")
		}
		if host, err = openRenderHost(); err != nil {
			return nil, fmt.Errorf("render=True: %w", err)
		}
		cfg.Renderer = host.POV()
	}
	cfg.Seed = o.Seed
	var src gw.TaskSource
	if o.Task != "" {
		if src, _, err = gw.ResolveTaskSpec(o.Task); err != nil {
			return nil, err
		}
	} else {
		src = gw.SampleTaskSource()
	}
	b, err := gw.NewBatch(o.N, cfg, func(i int, e *gw.Env) error { e.SetTaskSource(src); return nil })
	if err != nil {
		return nil, err
	}
	h := &handle{batch: b, n: o.N, flying: b.Envs[0].ActionKind() == gw.KindFly,
		actions: make([]gw.Action, o.N), obs: make([]*gw.Observation, o.N), results: make([]gw.StepResult, o.N),
		steps: make([]int, o.N), maxStep: cfg.MaxSteps, pending: make([]bool, o.N), cfg: cfg, host: host,
		dialogs: make([]string, o.N)}
	if cfg.Render {
		h.povW, h.povH = cfg.RenderSize[0], cfg.RenderSize[1]
	}
	return h, nil
}

//export agd_error
func agd_error(h C.int64_t, buf *C.char, size C.int) C.int {
	msg := lastErr
	if x := get(h); x != nil {
		msg = x.err
	}
	return copyOut(buf, size, msg)
}

// copyOut writes text, cut to fit and NUL-terminated, into a caller's buffer of size bytes
// and returns its full length (a size of 0 asks for the length only).
func copyOut(buf *C.char, size C.int, text string) C.int {
	if size > 0 {
		out := unsafe.Slice((*byte)(unsafe.Pointer(buf)), int(size))
		n := copy(out[:len(out)-1], text)
		out[n] = 0
	}
	return C.int(len(text))
}

//export agd_bind
func agd_bind(h C.int64_t, kind C.int, ptr unsafe.Pointer, nbytes C.int64_t) C.int {
	x := get(h)
	if x == nil {
		return -3
	}
	return guard(x, func() error {
		sz, ok := bufSizes[int(kind)]
		if kind == bufPOV {
			if x.povW == 0 {
				return errors.New("no pov to bind: the environments do not render (render=False)")
			}
			sz, ok = [2]int{1, x.povW * x.povH * 3}, true
		}
		if !ok {
			return fmt.Errorf("unknown buffer kind %d", kind)
		}
		one := int64(sz[0] * sz[1] * x.n)
		if int64(nbytes) != one && (unslotted[int(kind)] || nbytes <= 0 || int64(nbytes)%one != 0) {
			return fmt.Errorf("buffer %d holds %d bytes, want %d (or a multiple for slots)", kind, nbytes, one)
		}
		x.bufs[kind], x.slots[kind], x.slotBytes[kind] = ptr, int(int64(nbytes)/one), int(one)
		return nil
	})
}

func slice[T any](p unsafe.Pointer, n int) []T {
	if p == nil {
		return nil
	}
	return unsafe.Slice((*T)(p), n)
}

// write copies observation i into the bound buffers.
func (x *handle) write(i int, o *gw.Observation) {
	if o.Dialog != x.dialogs[i] {
		x.dialogs[i] = o.Dialog
		set(slice[uint8](x.cur[bufDialog], x.n), i, 1)
		x.flags.Or(flagDialog)
	}
	if inv := slice[float32](x.cur[bufInventory], x.n*gw.NumColors); inv != nil {
		copy(inv[i*gw.NumColors:(i+1)*gw.NumColors], o.Inventory[:])
	}
	if c := slice[float32](x.cur[bufCompass], x.n); c != nil {
		c[i] = o.Compass
	}
	if p := slice[float32](x.cur[bufAgentPos], x.n*5); p != nil {
		copy(p[i*5:(i+1)*5], o.AgentPos[:])
	}
	if g := slice[int32](x.cur[bufGrid], x.n*gw.NumCells); g != nil {
		widen(g[i*gw.NumCells:(i+1)*gw.NumCells], &o.Grid)
	}
	if g := slice[int32](x.cur[bufTarget], x.n*gw.NumCells); g != nil {
		widen(g[i*gw.NumCells:(i+1)*gw.NumCells], &o.TargetGrid)
	}
	if p := slice[float64](x.cur[bufPose], x.n*5); p != nil {
		st := x.batch.Envs[i].State()
		pos := st.Position()
		q := p[i*5 : i*5+5]
		q[0], q[1], q[2], q[3], q[4] = pos[0], pos[1], pos[2], st.Yaw(), st.Pitch()
	}
	if o.POV != nil && x.cur[bufPOV] != nil {
		// The renderers reuse one image for every environment of the handle: it is copied
		// here, right after the step or reset that drew it.
		n := x.povW * x.povH * 3
		rgbFromRGBA(slice[uint8](x.cur[bufPOV], x.n*n)[i*n:(i+1)*n], o.POV.Pix, x.povW, x.povH, o.POV.Stride)
	}
}

// rgbFromRGBA packs an RGBA image's rows (row 0 = top) into RGB triplets.
func rgbFromRGBA(dst, src []uint8, w, h, stride int) {
	for y := 0; y < h; y++ {
		row := src[y*stride : y*stride+4*w]
		out := dst[y*w*3 : (y+1)*w*3]
		for k, j := 0, 0; k < len(row); k, j = k+4, j+3 {
			out[j], out[j+1], out[j+2] = row[k], row[k+1], row[k+2]
		}
	}
}

// agd_reset_some resets the environments whose mask byte is 1 (all of them when mask is NULL),
// environment i seeded with seeds[i] first when seeds is not NULL and seeds[i] >= 0, and
// writes their observations into slot slot (the others' rows are left as they are).
//
//export agd_reset_some
func agd_reset_some(h C.int64_t, slot C.int, mask *C.uint8_t, seeds *C.int64_t) C.int {
	if x := get(h); x != nil {
		x.mu.Lock()
		x.slot = int(slot)
		x.mu.Unlock()
	}
	return locked(h, func(x *handle) error {
		m := slice[uint8](unsafe.Pointer(mask), x.n)
		sd := slice[int64](unsafe.Pointer(seeds), x.n)
		errs := make([]error, x.n)
		one := func(i int) {
			if m != nil && m[i] == 0 {
				return
			}
			e := x.batch.Envs[i]
			if sd != nil && sd[i] >= 0 {
				e.Seed(uint64(sd[i]))
				freshBody(e, x.cfg)
			}
			o, err := e.Reset()
			if err != nil {
				errs[i] = fmt.Errorf("environment %d: %w", i, err)
				return
			}
			x.steps[i], x.pending[i] = 0, false
			x.write(i, o)
		}
		if x.host != nil { // one at a time on the OpenGL thread, each pov copied before the next
			for i := range x.n {
				one(i)
			}
		} else {
			x.parallel(func(lo, hi int) {
				for i := lo; i < hi; i++ {
					one(i)
				}
			})
		}
		return errors.Join(errs...)
	})
}

// freshBody gives a seeded reset's agent the body of a new environment. A reset keeps the
// active colour, vertical speed, physics sub-steps and flying flag (spec quirk 7, kept for
// replaying the original); Gymnasium's reset(seed=...) promises the same episode for the same
// seed, so a seeded reset starts from scratch.
func freshBody(e *gw.Env, cfg gw.Config) {
	st := e.State()
	st.SetVerticalSpeed(0)
	st.SetSubSteps(2)
	st.SetStrafe(0, 0, cfg.ActionSpace == gw.Flying)
	st.SetInventory(st.Inventory(), gw.Blue)
}

// agd_set_slot makes the calls that take no slot (agd_step_json, agd_initialize_world,
// agd_reset, agd_step) write into slot slot until another call sets it.
//
//export agd_set_slot
func agd_set_slot(h C.int64_t, slot C.int) C.int {
	x := get(h)
	if x == nil {
		return -3
	}
	x.mu.Lock()
	x.slot = int(slot)
	x.mu.Unlock()
	return 0
}

//export agd_reset
func agd_reset(h C.int64_t, seed C.int64_t, seeded C.int) C.int {
	return locked(h, func(x *handle) error {
		if seeded != 0 {
			for i, e := range x.batch.Envs {
				e.Seed(uint64(seed) + uint64(i))
				freshBody(e, x.cfg)
			}
		}
		if x.host != nil { // one at a time on the OpenGL thread, each pov copied before the next
			for i, e := range x.batch.Envs {
				o, err := e.Reset()
				if err != nil {
					return fmt.Errorf("environment %d: %w", i, err)
				}
				x.write(i, o)
			}
		} else {
			if err := x.batch.Reset(x.obs); err != nil {
				return err
			}
			for i, o := range x.obs {
				x.write(i, o)
			}
		}
		clear(x.steps)
		clear(x.pending)
		return nil
	})
}

// Autoreset modes of agd_step.
const (
	autoresetOff      = 0
	autoresetNextStep = 1 // Gymnasium 1.x's default: the step after the last one resets
	autoresetSameStep = 2 // reset in the same call; the observation is the new episode's first
)

// agd_step steps every environment with the bound actions and writes observations, rewards
// and flags (see the autoreset modes).
//
//export agd_step
func agd_step(h C.int64_t, autoreset C.int) C.int {
	return step(h, autoreset)
}

// agd_step_slot is agd_step writing its outputs into slot slot of the bound buffers.
//
//export agd_step_slot
func agd_step_slot(h C.int64_t, autoreset C.int, slot C.int) C.int {
	if x := get(h); x != nil {
		x.mu.Lock()
		x.slot = int(slot)
		x.mu.Unlock()
	}
	return step(h, autoreset)
}

func step(h C.int64_t, autoreset C.int) C.int {
	return locked(h, func(x *handle) error {
		if x.flying {
			f := slice[float32](x.bufs[bufFlying], x.n*8)
			if f == nil {
				return errors.New("no flying actions bound")
			}
			for i := range x.actions {
				a := f[i*8 : i*8+8]
				x.actions[i] = gw.Action{Kind: gw.KindFly, Movement: [3]float32{a[0], a[1], a[2]},
					Camera: [2]float32{a[3], a[4]}, Placement: int(a[5]), Select: int(a[6])}
				if err := x.actions[i].Validate(); err != nil {
					return fmt.Errorf("action of environment %d: %w", i, err)
				}
			}
		} else if x.batch.Envs[0].ActionKind() != gw.KindDiscrete {
			return errors.New("walking dictionary actions: step them one environment at a time (agd_step_json), or use discretize=True")
		} else {
			acts := slice[int64](x.bufs[bufActions], x.n)
			if acts == nil {
				return errors.New("no actions bound")
			}
			for i, a := range acts {
				if a < 0 || a >= gw.NumDiscrete {
					return fmt.Errorf("action %d of environment %d: want 0 to %d", a, i, gw.NumDiscrete-1)
				}
				x.actions[i] = gw.DiscreteAction(int(a))
			}
		}
		rew := slice[float64](x.cur[bufReward], x.n)
		term := slice[uint8](x.cur[bufTerminated], x.n)
		trunc := slice[uint8](x.cur[bufTruncated], x.n)
		var errs []error
		x.parallel(func(lo, hi int) {
			for i := lo; i < hi; i++ {
				e := x.batch.Envs[i]
				if x.pending[i] { // next-step autoreset
					x.pending[i] = false
					o, err := e.Reset()
					if err != nil {
						x.results[i].Err = err
						continue
					}
					x.results[i].Err = nil
					x.steps[i] = 0
					x.write(i, o)
					x.writeInfo(i, nil)
					x.flags.Or(flagReset)
					set(rew, i, 0)
					set(term, i, 0)
					set(trunc, i, 0)
					continue
				}
				o, r, done, err := e.Step(x.actions[i])
				x.results[i].Err = err
				if err != nil {
					continue
				}
				x.steps[i]++
				info := e.Info()
				x.writeInfo(i, &info)
				truncated := done && x.maxStep > 0 && x.steps[i] >= x.maxStep && !info.Completed
				set(rew, i, r)
				set(term, i, b2u(done && !truncated))
				set(trunc, i, b2u(truncated))
				if done {
					x.flags.Or(flagEnded)
				}
				if done && autoreset == autoresetSameStep {
					if o, err = e.Reset(); err != nil {
						x.results[i].Err = err
						continue
					}
					x.steps[i] = 0
				} else if done && autoreset == autoresetNextStep {
					x.pending[i] = true
				}
				x.write(i, o)
			}
		})
		for i := range x.results {
			if err := x.results[i].Err; err != nil {
				errs = append(errs, fmt.Errorf("environment %d: %w", i, err))
			}
		}
		if len(errs) > 1 {
			return fmt.Errorf("%w (and %d more environments)", errs[0], len(errs)-1)
		}
		return errors.Join(errs...)
	})
}

// writeInfo writes environment i's step info (zeros and stepped 0 when info is nil: the
// call reset it instead).
func (x *handle) writeInfo(i int, info *gw.StepInfo) {
	var st gw.StepInfo
	if info != nil {
		st = *info
	}
	if p := slice[int64](x.cur[bufInfo], x.n*numInfoInts); p != nil {
		p[i], p[x.n+i], p[2*x.n+i] = int64(st.Step), int64(st.Right), int64(st.Wrong)
		p[3*x.n+i], p[4*x.n+i] = int64(st.MaxInt), int64(st.TargetSize)
	}
	set(slice[float64](x.cur[bufTaskReward], x.n), i, st.TaskReward)
	set(slice[uint8](x.cur[bufCompleted], x.n), i, b2u(st.Completed))
	set(slice[uint8](x.cur[bufStepped], x.n), i, b2u(info != nil))
}

func set[T any](s []T, i int, v T) {
	if s != nil {
		s[i] = v
	}
}

// agd_config writes the environments' configuration as JSON (what the observations hold).
//
//export agd_config
func agd_config(h C.int64_t, buf *C.char, size C.int) C.int {
	x := get(h)
	if x == nil {
		return -3
	}
	b, _ := json.Marshal(struct {
		gw.Config
		ActionKind string `json:"action_kind"`
	}{x.cfg, x.batch.Envs[0].ActionKind().String()})
	return copyOut(buf, size, string(b))
}

func b2u(b bool) uint8 {
	if b {
		return 1
	}
	return 0
}

//export agd_free
func agd_free(h C.int64_t) {
	mu.Lock()
	x := handles[int64(h)]
	delete(handles, int64(h))
	mu.Unlock()
	if x != nil {
		x.mu.Lock()
		if x.pool != nil {
			x.pool.close()
			x.pool = nil
		}
		x.mu.Unlock()
	}
}

// agd_features tells what this build of the library has: bit 0, the OpenGL pov renderer.
//
//export agd_features
func agd_features() C.int {
	if openRenderHost != nil {
		return 1
	}
	return 0
}

//export agd_count
func agd_count() C.int64_t {
	mu.Lock()
	defer mu.Unlock()
	return C.int64_t(len(handles))
}

func widen(dst []int32, g *gw.Grid) {
	src := unsafe.Slice((*int8)(unsafe.Pointer(g)), gw.NumCells)
	for k, v := range src {
		dst[k] = int32(v)
	}
}

// agd_set_task gives every environment a fixed task (used by every reset from then on):
// {"chat": "...", "target_grid": [[[...]]] (9x11x11), "starting_grid": [[x, y, z, id], ...],
// "invariant": true}.
//
//export agd_set_task
func agd_set_task(h C.int64_t, taskJSON *C.char) C.int {
	return locked(h, func(x *handle) error {
		var t struct {
			Chat      string     `json:"chat"`
			Target    *gw.Grid   `json:"target_grid"`
			Starting  []gw.Block `json:"starting_grid"`
			Invariant *bool      `json:"invariant"`
		}
		if err := json.Unmarshal([]byte(C.GoString(taskJSON)), &t); err != nil {
			return fmt.Errorf("task: %w", err)
		}
		task := &gw.Task{Chat: t.Chat, StartingGrid: t.Starting, Invariant: true}
		if t.Target != nil {
			task.Target = *t.Target
		}
		if t.Invariant != nil {
			task.Invariant = *t.Invariant
		}
		for _, e := range x.batch.Envs {
			e.SetTask(task)
		}
		return nil
	})
}

// agd_initialize_world places every agent at a pose and resets (the original's
// initialize_world), writing the observations.
//
//export agd_initialize_world
func agd_initialize_world(h C.int64_t, px, py, pz, yaw, pitch C.double) C.int {
	return locked(h, func(x *handle) error {
		pose := gw.Pose{Position: gw.Vec3{float64(px), float64(py), float64(pz)}, Yaw: float64(yaw), Pitch: float64(pitch)}
		for i, e := range x.batch.Envs {
			o, err := e.InitializeWorld(nil, pose)
			if err != nil {
				return err
			}
			x.steps[i], x.pending[i] = 0, false
			x.write(i, o)
		}
		return nil
	})
}

// agd_step_json steps environment i with an action given as JSON in any of the original's
// forms (an integer, a walking or flying dictionary), writing its outputs like agd_step.
//
//export agd_step_json
func agd_step_json(h C.int64_t, i C.int, actionJSON *C.char) C.int {
	return locked(h, func(x *handle) error {
		k := int(i)
		if k < 0 || k >= x.n {
			return fmt.Errorf("environment %d of %d", k, x.n)
		}
		e := x.batch.Envs[k]
		a, err := gw.DecodeAction([]byte(C.GoString(actionJSON)), x.cfg.ActionSpace, x.cfg.Discretize)
		if err != nil {
			return err
		}
		o, r, done, err := e.Step(a)
		if err != nil {
			return err
		}
		x.steps[k]++
		info := e.Info()
		x.writeInfo(k, &info)
		truncated := done && x.maxStep > 0 && x.steps[k] >= x.maxStep && !info.Completed
		set(slice[float64](x.cur[bufReward], x.n), k, r)
		set(slice[uint8](x.cur[bufTerminated], x.n), k, b2u(done && !truncated))
		set(slice[uint8](x.cur[bufTruncated], x.n), k, b2u(truncated))
		if done {
			x.flags.Or(flagEnded)
		}
		x.write(k, o)
		return nil
	})
}

// minParallel is the fewest environments stepped on more than the calling thread. A step of
// the engine takes about 0.3 us; handing work to a parked goroutine costs tens of microseconds
// (the first version, goroutines started per call: 64 environments 0.89M steps/s on two, 2.87M
// on the calling one), so the helpers of stepPool stay awake between calls and the caller
// takes any chunk a helper has not started.
const minParallel = 2 * chunkEnvs

// parallel runs f over chunks of the environments: the first chunk on the calling goroutine,
// the others on their own, as many as the batch is worth.
func (x *handle) parallel(f func(lo, hi int)) {
	procs := runtime.GOMAXPROCS(0)
	if procs == 1 || x.n < minParallel || x.host != nil { // OpenGL draws on its own thread only
		f(0, x.n)
		return
	}
	if x.pool == nil {
		x.pool = newStepPool(procs - 1)
	}
	x.pool.run(x.n, f)
}

// agd_set_tasks makes every environment's resets draw their tasks from a task spec (the command
// line's --task: samples, random, a sample's name, iglu:DIR with optional pins).
//
//export agd_set_tasks
func agd_set_tasks(h C.int64_t, spec *C.char) C.int {
	return locked(h, func(x *handle) error {
		src, _, err := gw.ResolveTaskSpec(C.GoString(spec))
		if err != nil {
			return err
		}
		for _, e := range x.batch.Envs {
			e.SetTaskSource(src)
		}
		return nil
	})
}

// agd_dialog writes environment i's current dialog (NUL-terminated, cut to size) and returns
// its full length in bytes.
//
//export agd_dialog
func agd_dialog(h C.int64_t, i C.int, buf *C.char, size C.int) C.int {
	x := get(h)
	if x == nil {
		return -3
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	if i < 0 || int(i) >= x.n {
		return -1
	}
	return copyOut(buf, size, x.dialogs[i])
}
