package gridworld

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/agentdesk/agentdesk/engine/conformance"
)

const area = "gridworld"

func readJSON(t *testing.T, path string, v any) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v", err)
	}
	if err := json.Unmarshal(data, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

func TestConformanceIntersection(t *testing.T) {
	count := 0
	for _, path := range conformance.Files(t, area, "intersection*.json") {
		t.Run(filepath.Base(path), func(t *testing.T) {
			var f struct {
				Cases []struct {
					ID        any    `json:"id"`
					Kind      string `json:"kind"`
					Note      string `json:"note"`
					Target    Grid   `json:"target"`
					Grid      Grid   `json:"grid"`
					FullGrid  *Grid  `json:"full_grid"`
					TSize     int    `json:"target_size"`
					FSize     int    `json:"full_size"`
					GSize     int    `json:"grid_size"`
					NAdm      [4]int `json:"n_admissible"`
					MaxInv    int    `json:"max_int_invariant"`
					MaxNonInv int    `json:"max_int_noninvariant"`
					Argmax    [3]int `json:"argmax_invariant"`
				} `json:"cases"`
			}
			readJSON(t, path, &f)
			for _, c := range f.Cases {
				name := fmt.Sprintf("case %v (%s: %s)", c.ID, c.Kind, c.Note)
				inv := NewScorer(&c.Target, c.FullGrid, true)
				non := NewScorer(&c.Target, c.FullGrid, false)
				if inv.TargetSize() != c.TSize || inv.FullSize() != c.FSize || c.Grid.Count() != c.GSize {
					t.Errorf("%s: sizes %d/%d/%d, want %d/%d/%d", name, inv.TargetSize(), inv.FullSize(), c.Grid.Count(), c.TSize, c.FSize, c.GSize)
				}
				if got := inv.Admissible(); got != c.NAdm {
					t.Errorf("%s: admissible %v, want %v", name, got, c.NAdm)
				}
				if got := inv.MaximalIntersection(&c.Grid); got != c.MaxInv {
					t.Errorf("%s: invariant max %d, want %d", name, got, c.MaxInv)
				}
				if got := non.MaximalIntersection(&c.Grid); got != c.MaxNonInv {
					t.Errorf("%s: non-invariant max %d, want %d", name, got, c.MaxNonInv)
				}
				if got := naiveMax(&c.Target, c.FullGrid, &c.Grid); got != c.MaxInv {
					t.Errorf("%s: naive reference max %d, want %d", name, got, c.MaxInv)
				}
				best, dx, dz, k := inv.Argmax(&c.Grid)
				if best != c.MaxInv || [3]int{dx, dz, k} != c.Argmax {
					t.Errorf("%s: argmax %d %v, want %d %v", name, best, [3]int{dx, dz, k}, c.MaxInv, c.Argmax)
				}
				// incremental scorer agrees
				var inc incScorer
				inc.reset(inv)
				gf := c.Grid.flat()
				for i, v := range gf {
					if v != 0 {
						inc.set(i, v)
					}
				}
				if inc.maxInt() != c.MaxInv {
					t.Errorf("%s: incremental max %d, want %d", name, inc.maxInt(), c.MaxInv)
				}
			}
			t.Logf("%s: %d cases", filepath.Base(path), len(f.Cases))
			count += len(f.Cases)
		})
	}
	conformance.Report(t, "intersection", count)
}

// naiveMax is the literal definition of spec §8.2 (reference for tests).
func naiveMax(target, full, g *Grid) int {
	rots := target.Rotations()
	adm := rots
	if full != nil {
		adm = full.Rotations()
	}
	fullSize := adm[0].Count()
	best := 0
	for k := 0; k < 4; k++ {
		for dx := -10; dx <= 10; dx++ {
			for dz := -10; dz <= 10; dz++ {
				n := 0
				for y := 0; y < SizeY; y++ {
					for x := max(dx, 0); x < SizeX+min(dx, 0); x++ {
						for z := max(dz, 0); z < SizeZ+min(dz, 0); z++ {
							if adm[k][y][x][z] != 0 {
								n++
							}
						}
					}
				}
				if n != fullSize {
					continue
				}
				c := 0
				for y := 0; y < SizeY; y++ {
					for x := 0; x < SizeX; x++ {
						for z := 0; z < SizeZ; z++ {
							v := rots[k][y][x][z]
							gx, gz := x-dx, z-dz
							if v != 0 && gx >= 0 && gx < SizeX && gz >= 0 && gz < SizeZ && g[y][gx][gz] == v {
								c++
							}
						}
					}
				}
				best = max(best, c)
			}
		}
	}
	return best
}

func TestConformanceReward(t *testing.T) {
	count := 0
	for _, path := range conformance.Files(t, area, "reward*.json") {
		t.Run(filepath.Base(path), func(t *testing.T) {
			var f struct {
				Scales [][2]float64 `json:"scales"`
				Cases  []struct {
					ID        any                `json:"id"`
					Kind      string             `json:"kind"`
					Note      string             `json:"note"`
					Invariant bool               `json:"invariant"`
					Target    Grid               `json:"target"`
					Prev      Grid               `json:"prev_grid"`
					Grid      Grid               `json:"grid"`
					Full      *Grid              `json:"full_grid"`
					PrevMax   int                `json:"prev_max_int"`
					MaxInt    int                `json:"max_int"`
					TSize     int                `json:"target_size"`
					Right     int                `json:"right_placement"`
					Wrong     int                `json:"wrong_placement"`
					Done      bool               `json:"done"`
					Reward    map[string]float64 `json:"reward"`
				} `json:"cases"`
			}
			readJSON(t, path, &f)
			n := 0
			for _, c := range f.Cases {
				name := fmt.Sprintf("case %v (%s: %s)", c.ID, c.Kind, c.Note)
				task := &Task{Target: c.Target, FullGrid: c.Full, Invariant: c.Invariant}
				run, err := task.NewRun()
				if err != nil {
					t.Fatal(err)
				}
				run.MaxInt = run.Scorer.MaximalIntersection(&c.Prev)
				run.PrevSize = c.Prev.Count()
				if run.MaxInt != c.PrevMax {
					t.Errorf("%s: prev max %d, want %d", name, run.MaxInt, c.PrevMax)
				}
				right, wrong, done := run.Step(&c.Grid)
				if right != c.Right || wrong != c.Wrong || done != c.Done || run.MaxInt != c.MaxInt || run.Scorer.TargetSize() != c.TSize {
					t.Errorf("%s: right %d wrong %d done %v max %d size %d, want %d %d %v %d %d", name, right, wrong, done, run.MaxInt, run.Scorer.TargetSize(), c.Right, c.Wrong, c.Done, c.MaxInt, c.TSize)
				}
				if len(c.Reward) == 0 {
					t.Errorf("%s: no rewards", name)
				}
				for key, want := range c.Reward {
					a, b, _ := strings.Cut(key, "_")
					rs, err1 := strconv.ParseFloat(a, 64)
					ws, err2 := strconv.ParseFloat(b, 64)
					if err1 != nil || err2 != nil {
						t.Fatalf("%s: bad reward key %q", name, key)
					}
					if got := Reward(right, wrong, rs, ws); math.Abs(got-want) > 1e-12 {
						t.Errorf("%s: reward[%s] = %v, want %v", name, key, got, want)
					}
				}
				n++
			}
			t.Logf("%s: %d cases", filepath.Base(path), n)
			count += n
		})
	}
	conformance.Report(t, "reward", count)
}

func TestConformanceDenseSparseRotation(t *testing.T) {
	count := 0
	for _, path := range conformance.Files(t, area, "dense_sparse_rotation*.json") {
		t.Run(filepath.Base(path), func(t *testing.T) {
			var f struct {
				Cases []struct {
					Dense     Grid    `json:"dense"`
					Sparse    []Block `json:"sparse_correct_xyz_id"`
					Bug       []Block `json:"to_sparse_original_output"`
					Rotations []Grid  `json:"rotations"`
				} `json:"cases"`
			}
			readJSON(t, path, &f)
			for i, c := range f.Cases {
				if got := c.Dense.Sparse(); !equalBlocks(got, c.Sparse) {
					t.Errorf("case %d: sparse %v, want %v", i, got, c.Sparse)
				}
				if got := c.Dense.SparseOriginalBug(); !equalBlocks(got, c.Bug) {
					t.Errorf("case %d: buggy sparse differs", i)
				}
				g, err := DenseFromSparse(c.Sparse)
				if err != nil || g != c.Dense {
					t.Errorf("case %d: dense from sparse differs (%v)", i, err)
				}
				rots := c.Dense.Rotations()
				if len(c.Rotations) != 4 {
					t.Errorf("case %d: %d rotations in file", i, len(c.Rotations))
				}
				for k := range c.Rotations {
					if k < 4 && rots[k] != c.Rotations[k] {
						t.Errorf("case %d: rotation %d differs", i, k)
					}
				}
			}
			t.Logf("%s: %d cases", filepath.Base(path), len(f.Cases))
			count += len(f.Cases)
		})
	}
	conformance.Report(t, "dense_sparse_rotation", count)
}

func equalBlocks(a, b []Block) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func near(a, b []float64, tol float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if math.Abs(a[i]-b[i]) > tol {
			return false
		}
	}
	return true
}

func worldFrom(blocks []Block) *State {
	return NewState(blocks, Vec3{}, 0, 0)
}

func TestConformanceWorldUnits(t *testing.T) {
	count := 0
	for _, path := range conformance.Files(t, area, "world_units*.json") {
		t.Run(filepath.Base(path), func(t *testing.T) {
			var f struct {
				HitWorlds     [][]Block `json:"hit_test_worlds"`
				CollideWorlds [][]Block `json:"collide_worlds"`
				PRWorlds      [][]Block `json:"place_remove_worlds"`
				Normalize     []struct {
					In  []float64 `json:"input"`
					Out [3]int    `json:"output"`
				} `json:"normalize"`
				Sight []struct {
					Rot   [2]float64 `json:"rotation"`
					Sight []float64  `json:"sight"`
				} `json:"sight_vector"`
				Motion []struct {
					Flying bool       `json:"flying"`
					Strafe [2]float64 `json:"strafe"`
					Rot    [2]float64 `json:"rotation"`
					Motion []float64  `json:"motion"`
				} `json:"motion_vector"`
				Hit []struct {
					World int        `json:"world"`
					Pos   Vec3       `json:"position"`
					Rot   [2]float64 `json:"rotation"`
					Block *[3]int    `json:"block"`
					Prev  *[3]int    `json:"previous"`
				} `json:"hit_test"`
				Collide []struct {
					World   int       `json:"world"`
					Pos     Vec3      `json:"position"`
					Result  []float64 `json:"result"`
					DyAfter float64   `json:"dy_after"`
				} `json:"collide"`
				PR []struct {
					World   int            `json:"world"`
					Pos     Vec3           `json:"position"`
					Rot     [2]float64     `json:"rotation"`
					Active  int            `json:"active_block"`
					InvB    [NumColors]int `json:"inventory_before"`
					Place   bool           `json:"place"`
					Remove  bool           `json:"remove"`
					Added   []Block        `json:"added"`
					Removed []Block        `json:"removed"`
					InvA    [NumColors]int `json:"inventory_after"`
					Extra   map[string]any `json:"-"`
				} `json:"place_remove"`
			}
			readJSON(t, path, &f)
			total := 0
			for i, c := range f.Normalize {
				x, y, z := BlockOf(c.In[0], c.In[1], c.In[2])
				if [3]int{x, y, z} != c.Out {
					t.Errorf("normalize %d: %v -> %v, want %v", i, c.In, [3]int{x, y, z}, c.Out)
				}
			}
			total += len(f.Normalize)
			for i, c := range f.Sight {
				s := worldFrom(nil)
				s.yaw, s.pitch = c.Rot[0], c.Rot[1]
				got := s.Sight()
				if !near(got[:], c.Sight, 1e-9) {
					t.Errorf("sight %d: %v -> %v, want %v", i, c.Rot, got, c.Sight)
				} else if got[0] != c.Sight[0] || got[1] != c.Sight[1] || got[2] != c.Sight[2] {
					t.Logf("sight %d: within tolerance but not bit-exact: %v vs %v", i, got, c.Sight)
				}
			}
			total += len(f.Sight)
			for i, c := range f.Motion {
				s := worldFrom(nil)
				s.yaw, s.pitch = c.Rot[0], c.Rot[1]
				s.SetStrafe(c.Strafe[0], c.Strafe[1], c.Flying)
				got := s.MotionVector()
				if !near(got[:], c.Motion, 1e-9) {
					t.Errorf("motion %d: %+v -> %v, want %v", i, c, got, c.Motion)
				}
			}
			total += len(f.Motion)
			hitWorlds := make([]*State, len(f.HitWorlds))
			for i, w := range f.HitWorlds {
				hitWorlds[i] = worldFrom(w)
			}
			for i, c := range f.Hit {
				s := hitWorlds[c.World]
				s.yaw, s.pitch = c.Rot[0], c.Rot[1]
				fc := s.HitTest(c.Pos, s.Sight(), HitDistance)
				if !focusEq(fc.Hit, fc.HasHit, c.Block) || !focusEq(fc.Before, fc.HasBefore, c.Prev) {
					t.Errorf("hit_test %d: got %+v, want %v %v", i, fc, c.Block, c.Prev)
				}
			}
			total += len(f.Hit)
			colWorlds := make([]*State, len(f.CollideWorlds))
			for i, w := range f.CollideWorlds {
				colWorlds[i] = worldFrom(w)
			}
			for i, c := range f.Collide {
				s := colWorlds[c.World]
				s.dy = -3
				got := s.Collide(c.Pos)
				if !near(got[:], c.Result, 1e-9) || s.dy != c.DyAfter {
					t.Errorf("collide %d: %v -> %v dy %v, want %v dy %v", i, c.Pos, got, s.dy, c.Result, c.DyAfter)
				}
			}
			total += len(f.Collide)
			for i, c := range f.PR {
				s := worldFrom(f.PRWorlds[c.World])
				before := s.AppendBlocks(nil, false)
				s.SetPose(c.Pos, c.Rot[0], c.Rot[1])
				s.SetInventory(c.InvB, c.Active)
				s.PlaceOrBreak(c.Place, c.Remove)
				after := s.AppendBlocks(nil, false)
				added, removed := diffBlocks(before, after), diffBlocks(after, before)
				if !sameSet(added, c.Added) || !sameSet(removed, c.Removed) || s.Inventory() != c.InvA {
					t.Errorf("place_remove %d: added %v removed %v inv %v, want %v %v %v", i, added, removed, s.Inventory(), c.Added, c.Removed, c.InvA)
				}
			}
			total += len(f.PR)
			t.Logf("%s: %d cases", filepath.Base(path), total)
			count += total
		})
	}
	conformance.Report(t, "world_units", count)
}

func focusEq(p [3]int, ok bool, want *[3]int) bool {
	if want == nil {
		return !ok
	}
	return ok && p == *want
}

// diffBlocks returns the blocks of b not in a.
func diffBlocks(a, b []Block) []Block {
	set := map[Block]bool{}
	for _, x := range a {
		set[x] = true
	}
	var out []Block
	for _, x := range b {
		if !set[x] {
			out = append(out, x)
		}
	}
	return out
}

func sameSet(a, b []Block) bool {
	if len(a) != len(b) {
		return false
	}
	return len(diffBlocks(a, b)) == 0 && len(diffBlocks(b, a)) == 0
}

// ---- episodes ----

type epAgent struct {
	Position []float64 `json:"position"`
	Rotation []float64 `json:"rotation"`
	Dy       float64   `json:"dy"`
	SubSteps int       `json:"time_int_steps"`
	Active   int       `json:"active_block"`
	Inv      []int     `json:"inventory"`
	Flying   bool      `json:"flying"`
}

type epObs struct {
	Inventory  []float64 `json:"inventory"`
	Compass    []float64 `json:"compass"`
	Dialog     *string   `json:"dialog"`
	Grid       *Grid     `json:"grid"`
	AgentPos   []float64 `json:"agentPos"`
	TargetGrid *Grid     `json:"target_grid"`
}

type episodeFile struct {
	Name      string         `json:"name"`
	Kwargs    map[string]any `json:"env_kwargs"`
	CreateEnv bool           `json:"uses_create_env_wrapper"`
	Task      struct {
		Chat      string  `json:"chat"`
		Target    Grid    `json:"target_grid"`
		TargetXYZ []Block `json:"target_blocks_xyz_id"`
		Starting  []Block `json:"starting_grid"`
		Invariant *bool   `json:"invariant"`
	} `json:"task"`
	InitWorld []float64 `json:"initialize_world"`
	Reset     *struct {
		Obs    *epObs   `json:"obs"`
		Agent  *epAgent `json:"agent"`
		MaxInt *int     `json:"max_int"`
	} `json:"reset"`
	CheckedFrom int `json:"checked_from_t"`
	Steps       []struct {
		T      int             `json:"t"`
		Action json.RawMessage `json:"action"`
		Reward *float64        `json:"reward"`
		Done   *bool           `json:"done"`
		Agent  *epAgent        `json:"agent"`
		Obs    *epObs          `json:"obs"`
		Focus  *struct {
			Block *[3]int `json:"block"`
			Prev  *[3]int `json:"previous"`
		} `json:"focused_after"`
		Synthetic *struct {
			MaxInt   int `json:"max_int"`
			PrevSize int `json:"prev_grid_size"`
		} `json:"synthetic"`
	} `json:"steps"`
}

func TestConformanceEpisodes(t *testing.T) {
	files := conformance.Files(t, area, "episodes/*.json")
	steps := 0
	for _, path := range files {
		var ep episodeFile
		readJSON(t, path, &ep)
		inexact = ""
		steps += replayEpisode(t, filepath.Base(path), &ep)
		if inexact != "" {
			t.Logf("%s: within tolerance but not bit-exact, first at %s", filepath.Base(path), inexact)
		}
	}
	conformance.Report(t, "episode files", len(files))
	conformance.Report(t, "episode steps", steps)
}

func replayEpisode(t *testing.T, name string, ep *episodeFile) int {
	cfg := EnvDefaults()
	if ep.CreateEnv {
		cfg = CreateEnvDefaults()
	}
	if err := cfg.ApplyKwargs(ep.Kwargs); err != nil {
		t.Errorf("%s: %v", name, err)
		return 0
	}
	env, err := New(cfg)
	if err != nil {
		t.Errorf("%s: %v", name, err)
		return 0
	}
	task := &Task{Chat: ep.Task.Chat, Target: ep.Task.Target, StartingGrid: ep.Task.Starting, Invariant: true}
	if ep.Task.Invariant != nil {
		task.Invariant = *ep.Task.Invariant
	}
	if ep.Task.TargetXYZ != nil {
		if g, err := DenseFromSparse(ep.Task.TargetXYZ); err != nil || g != task.Target {
			t.Errorf("%s: target blocks disagree with target grid (%v)", name, err)
		}
	}
	env.SetTask(task)
	var obs *Observation
	if ep.InitWorld != nil {
		if len(ep.InitWorld) != 5 {
			t.Errorf("%s: initialize_world has %d numbers", name, len(ep.InitWorld))
			return 0
		}
		w := ep.InitWorld
		obs, err = env.InitializeWorld(nil, Pose{Position: Vec3{w[0], w[1], w[2]}, Yaw: w[3], Pitch: w[4]})
	} else {
		obs, err = env.Reset()
	}
	if err != nil {
		t.Errorf("%s: reset: %v", name, err)
		return 0
	}
	fail := func(ts int, format string, args ...any) bool {
		t.Errorf("%s step %d: first divergence: "+format, append([]any{name, ts}, args...)...)
		return false
	}
	if r := ep.Reset; r != nil {
		if r.MaxInt != nil && env.EnvMaxInt() != *r.MaxInt {
			fail(0, "max_int %d, want %d", env.EnvMaxInt(), *r.MaxInt)
			return 0
		}
		if r.Agent != nil && !checkAgent(env, r.Agent, func(f string, a ...any) { fail(0, f, a...) }) {
			return 0
		}
		if r.Obs != nil && !checkObs(obs, r.Obs, func(f string, a ...any) { fail(0, f, a...) }) {
			return 0
		}
	}
	n := 0
	for _, s := range ep.Steps {
		a, err := DecodeAction(s.Action, cfg.ActionSpace, cfg.Discretize)
		if err != nil {
			fail(s.T, "action %s: %v", s.Action, err)
			return n
		}
		obs, reward, done, err := env.Step(a)
		if err != nil {
			fail(s.T, "step: %v", err)
			return n
		}
		if env.StepCount() != s.T {
			fail(s.T, "step counter %d", env.StepCount())
			return n
		}
		if ep.CheckedFrom > 0 && s.T < ep.CheckedFrom {
			continue
		}
		n++
		ok := true
		f := func(format string, args ...any) { ok = fail(s.T, format, args...) }
		if s.Reward != nil && math.Abs(reward-*s.Reward) > 1e-12 {
			f("reward %v, want %v", reward, *s.Reward)
		}
		if s.Done != nil && done != *s.Done {
			f("done %v, want %v", done, *s.Done)
		}
		if s.Agent != nil && ok {
			checkAgent(env, s.Agent, f)
		}
		if s.Obs != nil && ok {
			checkObs(obs, s.Obs, f)
		}
		if s.Focus != nil && ok {
			fc := env.State().Focus()
			if !focusEq(fc.Hit, fc.HasHit, s.Focus.Block) || !focusEq(fc.Before, fc.HasBefore, s.Focus.Prev) {
				f("focus %+v, want %v %v", fc, s.Focus.Block, s.Focus.Prev)
			}
		}
		if s.Synthetic != nil && ok {
			if env.synMaxInt != s.Synthetic.MaxInt || env.synPrev != s.Synthetic.PrevSize {
				f("synthetic max_int %d prev_size %d, want %d %d", env.synMaxInt, env.synPrev, s.Synthetic.MaxInt, s.Synthetic.PrevSize)
			}
		}
		if !ok {
			return n
		}
		if done {
			break
		}
	}
	return n
}

// inexact records the first position that matched only within tolerance.
var inexact string

func checkAgent(env *Env, a *epAgent, fail func(string, ...any)) bool {
	st := env.State()
	p := st.Position()
	if !near(p[:], a.Position, 1e-9) {
		fail("position %v, want %v", p, a.Position)
		return false
	}
	if !near(p[:], a.Position, 0) && inexact == "" {
		inexact = fmt.Sprintf("position %v vs %v", p, a.Position)
	}
	if !near([]float64{st.Yaw(), st.Pitch()}, a.Rotation, 1e-9) {
		fail("rotation %v %v, want %v", st.Yaw(), st.Pitch(), a.Rotation)
		return false
	}
	if math.Abs(st.VerticalSpeed()-a.Dy) > 1e-9 || st.SubSteps() != a.SubSteps || st.ActiveBlock() != a.Active || st.Flying() != a.Flying {
		fail("dy %v substeps %d active %d flying %v, want %v %d %d %v", st.VerticalSpeed(), st.SubSteps(), st.ActiveBlock(), st.Flying(), a.Dy, a.SubSteps, a.Active, a.Flying)
		return false
	}
	inv := st.Inventory()
	if len(a.Inv) != NumColors || fmt.Sprint(inv[:]) != fmt.Sprint(a.Inv) {
		fail("inventory %v, want %v", inv, a.Inv)
		return false
	}
	return true
}

func checkObs(o *Observation, w *epObs, fail func(string, ...any)) bool {
	for i, v := range w.Inventory {
		if i >= NumColors || float64(o.Inventory[i]) != v {
			fail("obs inventory %v, want %v", o.Inventory, w.Inventory)
			return false
		}
	}
	if len(w.Compass) == 1 && !nearF32(o.Compass, w.Compass[0]) {
		fail("compass %v, want %v", o.Compass, w.Compass)
		return false
	}
	if w.Dialog != nil && o.Dialog != *w.Dialog {
		fail("dialog %q, want %q", o.Dialog, *w.Dialog)
		return false
	}
	if w.Grid != nil && (!o.HasGrid || o.Grid != *w.Grid) {
		fail("grid differs: got %v want %v", o.Grid.Sparse(), w.Grid.Sparse())
		return false
	}
	if w.Grid == nil && o.HasGrid {
		fail("obs has a grid but the reference has none")
		return false
	}
	if w.TargetGrid != nil && (!o.HasTarget || o.TargetGrid != *w.TargetGrid) {
		fail("target grid differs")
		return false
	}
	if w.TargetGrid == nil && o.HasTarget {
		fail("obs has a target grid but the reference has none")
		return false
	}
	if w.AgentPos != nil {
		for i, v := range w.AgentPos {
			if i >= 5 || !nearF32(o.AgentPos[i], v) {
				fail("agentPos %v, want %v", o.AgentPos, w.AgentPos)
				return false
			}
		}
	}
	return true
}

// nearF32 compares a float32 view of float64 state: exact, or (when the float64 state differs
// within tolerance and the float32 rounding flips) within one float32 ulp.
func nearF32(got float32, want float64) bool {
	if float64(got) == want {
		return true
	}
	ulp := math.Abs(float64(math.Nextafter32(float32(want), float32(math.Inf(1)))) - float64(float32(want)))
	return math.Abs(float64(got)-want) <= 1e-9+ulp
}
