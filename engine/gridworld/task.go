package gridworld

import (
	"fmt"
)

// Task is one building task (spec §8.1): a target structure, the chat that describes it and
// optionally the blocks the episode starts with.
type Task struct {
	// Chat is the dialogue shown to the agent (the observation's dialog).
	Chat string
	// Target is the structure to build.
	Target Grid
	// StartingGrid lists the blocks present at the start of an episode. nil means "no starting
	// grid"; the environment treats it as empty (spec §12 quirk 1, fixed).
	StartingGrid []Block
	// FullGrid, when non-nil, decides the admissible shifts (the final structure of a session).
	FullGrid *Grid
	// LastInstruction is the most recent architect turn.
	LastInstruction string
	// Invariant enables rotation/translation invariance of the maximal intersection.
	Invariant bool
}

// NewTask returns an invariant task.
func NewTask(chat string, target Grid, starting []Block) *Task {
	return &Task{Chat: chat, Target: target, StartingGrid: starting, Invariant: true}
}

// NewTaskFromBlocks builds an invariant task from a sparse target list.
func NewTaskFromBlocks(chat string, target []Block, starting []Block) (*Task, error) {
	g, err := DenseFromSparse(target)
	if err != nil {
		return nil, fmt.Errorf("target: %w", err)
	}
	return NewTask(chat, g, starting), nil
}

// Scorer precomputes the task's rotations and admissible shifts.
func (t *Task) Scorer() *Scorer { return NewScorer(&t.Target, t.FullGrid, t.Invariant) }

// TargetSize returns the number of target blocks.
func (t *Task) TargetSize() int { return t.Target.Count() }

// Clone returns a deep copy.
func (t *Task) Clone() *Task {
	c := *t
	if t.StartingGrid != nil {
		c.StartingGrid = append([]Block(nil), t.StartingGrid...)
	}
	if t.FullGrid != nil {
		g := *t.FullGrid
		c.FullGrid = &g
	}
	return &c
}

// DummyTask is the upstream DUMMY_TASK: one blue block at world (5, 7, 5), not invariant,
// no starting grid.
func DummyTask() *Task {
	var g Grid
	g[8][10][10] = Blue
	return &Task{Target: g, Invariant: false}
}

// TaskRun is the stateful scorer of a task (spec §8.3-8.4): it remembers the last maximal
// intersection and grid size and turns each new grid into (right, wrong, done).
type TaskRun struct {
	Scorer *Scorer
	// MaxInt is the stored maximal intersection, PrevSize the stored non-zero count.
	MaxInt, PrevSize int
	// RightPlacement and WrongPlacement are the terms of the last step.
	RightPlacement, WrongPlacement int
}

// NewRun resets a run of the task (spec §8.3). Its starting grid, if any, must lie in the zone.
func (t *Task) NewRun() (*TaskRun, error) {
	r := &TaskRun{Scorer: t.Scorer()}
	if t.StartingGrid != nil {
		g, err := DenseFromSparse(t.StartingGrid)
		if err != nil {
			return nil, fmt.Errorf("starting grid: %w", err)
		}
		r.MaxInt = r.Scorer.MaximalIntersection(&g)
		r.PrevSize = len(t.StartingGrid)
	}
	return r, nil
}

// Step scores a grid (spec §8.4), including the lazy path: when the non-zero count did not
// change the stored maximal intersection is reused.
func (r *TaskRun) Step(g *Grid) (right, wrong int, done bool) {
	size := g.Count()
	wrong = r.PrevSize - size
	mi := r.MaxInt
	if wrong != 0 {
		mi = r.Scorer.MaximalIntersection(g)
	}
	done = mi == r.Scorer.targetSize
	right = mi - r.MaxInt
	r.PrevSize, r.MaxInt = size, mi
	r.RightPlacement, r.WrongPlacement = right, wrong
	return
}

// Reward is the per-step reward formula of spec §7.4.
func Reward(right, wrong int, rightScale, wrongScale float64) float64 {
	if right != 0 {
		return float64(right) * rightScale
	}
	return float64(wrong) * wrongScale
}
