package gridworld

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"sort"
	"strings"
)

// Session is one multi-turn collaboration session (the original's Subtasks, spec §8.5): the
// utterances of each turn and the cumulative structure after each turn.
type Session struct {
	// SessionID is the dataset's PartitionKey (e.g. "9-c118"), StructureID its structure
	// ("c118").
	SessionID, StructureID string
	// Turns[i] lists the utterances of turn i ("<Architect> ...", "<Builder> ...").
	Turns [][]string
	// Structures[i] is the full structure after turn i, in world coordinates.
	Structures [][]Block
	// Invariant and Progressive are stored like the original but never passed to tasks.
	Invariant, Progressive bool
	// Compat builds grids with the original's wrap-around instead of rejecting out-of-zone
	// blocks (spec §2.5).
	Compat bool
}

// Len returns the number of turns with a structure.
func (s *Session) Len() int { return len(s.Structures) }

func (s *Session) dense(blocks []Block) (Grid, error) {
	if s.Compat {
		return DenseFromSparseCompat(blocks)
	}
	return DenseFromSparse(blocks)
}

// TaskAt returns the task that starts from structure start (-1 = empty world) and has turn
// start+1 as goal.
func (s *Session) TaskAt(start int) (*Task, error) {
	n := len(s.Structures)
	if n == 0 {
		return nil, fmt.Errorf("session %s: no structures", s.SessionID)
	}
	if start < -1 || start >= n {
		return nil, fmt.Errorf("session %s: start turn %d out of range [-1, %d]", s.SessionID, start, n-1)
	}
	goal := start + 1
	var chat []string
	for i := 0; i <= goal && i < len(s.Turns); i++ {
		chat = append(chat, strings.Join(s.Turns[i], "\n"))
	}
	t := &Task{Chat: strings.Join(chat, "\n"), Invariant: true}
	if goal < len(s.Turns) {
		t.LastInstruction = strings.Join(s.Turns[goal], "\n")
	}
	if start >= 0 {
		t.StartingGrid = append([]Block{}, s.Structures[start]...)
	} else {
		t.StartingGrid = []Block{}
	}
	var err error
	if t.Target, err = s.dense(s.Structures[min(goal, n-1)]); err != nil {
		return nil, fmt.Errorf("session %s turn %d: %w", s.SessionID, min(goal, n-1), err)
	}
	full, err := s.dense(s.Structures[n-1])
	if err != nil {
		return nil, fmt.Errorf("session %s turn %d: %w", s.SessionID, n-1, err)
	}
	t.FullGrid = &full
	return t, nil
}

// NextTask draws a random turn t in [-1, len-2] (-1 when there is one turn) and returns
// TaskAt(t) (the original's Subtasks.reset).
func (s *Session) NextTask(rng *rand.Rand) (*Task, error) {
	n := len(s.Structures)
	if n == 0 {
		return nil, fmt.Errorf("session %s: no structures", s.SessionID)
	}
	t := -1
	if n > 1 {
		t = rng.IntN(n) - 1
	}
	return s.TaskAt(t)
}

// Tasks enumerates the session's tasks: for every turn i, start i-1 and goal i.
func (s *Session) Tasks() ([]*Task, error) {
	out := make([]*Task, 0, len(s.Structures))
	for i := range s.Structures {
		t, err := s.TaskAt(i - 1)
		if err != nil {
			return nil, err
		}
		out = append(out, t)
	}
	return out, nil
}

// Dataset groups sessions by structure id (the original's IGLUDataset.tasks).
type Dataset struct {
	Sessions map[string][]*Session
}

// StructureIDs returns the structure ids in sorted order.
func (d *Dataset) StructureIDs() []string {
	ids := make([]string, 0, len(d.Sessions))
	for id, s := range d.Sessions {
		if len(s) > 0 {
			ids = append(ids, id)
		}
	}
	sort.Strings(ids)
	return ids
}

// NumSessions returns the number of sessions.
func (d *Dataset) NumSessions() int {
	n := 0
	for _, s := range d.Sessions {
		n += len(s)
	}
	return n
}

// NextTask draws a random structure id, a random session of it and a random turn (the
// original's dataset reset).
func (d *Dataset) NextTask(rng *rand.Rand) (*Task, error) {
	ids := d.StructureIDs()
	if len(ids) == 0 {
		return nil, errors.New("dataset has no sessions")
	}
	ss := d.Sessions[ids[rng.IntN(len(ids))]]
	return ss[rng.IntN(len(ss))].NextTask(rng)
}

// AllTasks enumerates every task of every session, structures in sorted order.
func (d *Dataset) AllTasks() ([]*Task, error) {
	var out []*Task
	for _, id := range d.StructureIDs() {
		for _, s := range d.Sessions[id] {
			ts, err := s.Tasks()
			if err != nil {
				return nil, err
			}
			out = append(out, ts...)
		}
	}
	return out, nil
}

// FixedTask is a TaskSource that always returns the same task.
type FixedTask struct{ Task *Task }

// NextTask returns the task.
func (f FixedTask) NextTask(*rand.Rand) (*Task, error) {
	if f.Task == nil {
		return nil, errors.New("no task")
	}
	return f.Task, nil
}

// CustomTasks draws one of a list of tasks at random on every reset (the original's custom
// task set). Tasks without a starting grid start empty.
type CustomTasks struct {
	Tasks []*Task
}

// NewCustomTasks builds invariant tasks from (chat, target) pairs.
func NewCustomTasks(chats []string, targets []Grid) (*CustomTasks, error) {
	if len(chats) != len(targets) {
		return nil, fmt.Errorf("%d chats for %d targets", len(chats), len(targets))
	}
	c := &CustomTasks{}
	for i := range chats {
		c.Tasks = append(c.Tasks, NewTask(chats[i], targets[i], nil))
	}
	return c, nil
}

// NextTask draws a task uniformly.
func (c *CustomTasks) NextTask(rng *rand.Rand) (*Task, error) {
	if len(c.Tasks) == 0 {
		return nil, errors.New("custom task set is empty")
	}
	return c.Tasks[rng.IntN(len(c.Tasks))], nil
}

// RandomTasks generates random structures (spec §8.5): on each of HeightLevels layers from the
// bottom, one random block plus MaxBlocks-1 blocks at Chebyshev distance at most MaxDist from
// it, colours uniform in 1..NumColors. Tasks have no starting grid.
type RandomTasks struct {
	MaxBlocks, HeightLevels, MaxDist, NumColors int
}

// DefaultRandomTasks returns the original's defaults (4 blocks, 1 level, distance 2, 6 colours).
func DefaultRandomTasks() RandomTasks {
	return RandomTasks{MaxBlocks: 4, HeightLevels: 1, MaxDist: 2, NumColors: NumColors}
}

// NextTask generates a random task.
func (r RandomTasks) NextTask(rng *rand.Rand) (*Task, error) {
	if r.MaxBlocks < 1 || r.HeightLevels < 1 || r.HeightLevels > SizeY || r.MaxDist < 0 || r.NumColors < 1 || r.NumColors > NumColors {
		return nil, fmt.Errorf("bad random task parameters %+v", r)
	}
	var g Grid
	for y := 0; y < r.HeightLevels; y++ {
		x0, z0 := rng.IntN(SizeX), rng.IntN(SizeZ)
		g[y][x0][z0] = int8(1 + rng.IntN(r.NumColors))
		for i := 1; i < r.MaxBlocks; i++ {
			x := min(max(x0+rng.IntN(2*r.MaxDist+1)-r.MaxDist, 0), SizeX-1)
			z := min(max(z0+rng.IntN(2*r.MaxDist+1)-r.MaxDist, 0), SizeZ-1)
			g[y][x][z] = int8(1 + rng.IntN(r.NumColors))
		}
	}
	return &Task{Chat: "", Target: g, Invariant: true}, nil
}

// NamedTask is a built-in sample task for the UI.
type NamedTask struct {
	Name, Description string
	Task              *Task
}

// SampleTasks returns a few hand-designed structures (our own, not from the IGLU data).
func SampleTasks() []NamedTask {
	var out []NamedTask
	add := func(name, desc, chat string, blocks []Block) {
		t, err := NewTaskFromBlocks(chat, blocks, nil)
		if err != nil {
			panic(fmt.Sprintf("sample task %s: %v", name, err))
		}
		t.LastInstruction = chat
		out = append(out, NamedTask{Name: name, Description: desc, Task: t})
	}
	var b []Block
	// tower: a 5-high yellow column with a red cap
	b = nil
	for y := -1; y <= 3; y++ {
		b = append(b, Block{0, y, 0, Yellow})
	}
	b = append(b, Block{0, 4, 0, Red})
	add("tower", "a 6-block column: five yellow, red on top",
		"<Architect> Build a tower of five yellow blocks in the middle and put one red block on top.", b)
	// arch: two blue pillars three high joined by a green lintel
	b = nil
	for y := -1; y <= 1; y++ {
		b = append(b, Block{-2, y, 0, Blue}, Block{2, y, 0, Blue})
	}
	for x := -2; x <= 2; x++ {
		b = append(b, Block{x, 2, 0, Green})
	}
	add("arch", "two blue pillars joined by a green lintel (11 blocks)",
		"<Architect> Make two blue pillars, three blocks tall and five apart, then bridge them with a row of green blocks on top.", b)
	// L-wall: an orange wall two high, 5 long along x and 4 more along z
	b = nil
	for y := -1; y <= 0; y++ {
		for x := -2; x <= 2; x++ {
			b = append(b, Block{x, y, -2, Orange})
		}
		for z := -1; z <= 2; z++ {
			b = append(b, Block{-2, y, z, Orange})
		}
	}
	add("l-wall", "an L-shaped orange wall, two high (18 blocks)",
		"<Architect> Build an L-shaped orange wall two blocks high: five blocks along one side and four more turning at the corner.", b)
	// small house: 3x3 purple walls two high with a door, red roof
	b = nil
	for y := -1; y <= 0; y++ {
		for x := -1; x <= 1; x++ {
			for z := -1; z <= 1; z++ {
				if x == 0 && z == 0 {
					continue
				}
				if x == 0 && z == 1 { // door
					continue
				}
				b = append(b, Block{x, y, z, Purple})
			}
		}
	}
	for x := -1; x <= 1; x++ {
		for z := -1; z <= 1; z++ {
			b = append(b, Block{x, 1, z, Red})
		}
	}
	add("small-house", "purple walls around a 1x1 room with a doorway and a 3x3 red roof (23 blocks)",
		"<Architect> Build a small house: purple walls two high around a single free cell, leave a doorway on one side, and cover it with a red roof.", b)
	// pyramid: 3x3 green base and one yellow block on top
	b = nil
	for x := -1; x <= 1; x++ {
		for z := -1; z <= 1; z++ {
			b = append(b, Block{x, -1, z, Green})
		}
	}
	b = append(b, Block{0, 0, 0, Yellow})
	add("pyramid", "a 3x3 green base with one yellow block on top (10 blocks)",
		"<Architect> Lay a three by three square of green blocks and put a yellow block on its centre.", b)
	// stairs: blue steps rising along x
	b = nil
	for i := 0; i < 4; i++ {
		for y := -1; y <= -1+i; y++ {
			b = append(b, Block{i - 2, y, 0, Blue})
		}
	}
	add("stairs", "a blue staircase of four steps (10 blocks)",
		"<Architect> Build a blue staircase with four steps, each one block higher than the last.", b)
	return out
}

// SampleTaskSource draws one of the sample tasks per reset.
func SampleTaskSource() *CustomTasks {
	c := &CustomTasks{}
	for _, nt := range SampleTasks() {
		c.Tasks = append(c.Tasks, nt.Task)
	}
	return c
}
