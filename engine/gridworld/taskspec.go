package gridworld

import (
	"fmt"
	"math/rand/v2"
	"sort"
	"strconv"
	"strings"
)

// TaskSpecHelp describes the task specifications ResolveTaskSpec accepts.
const TaskSpecHelp = `samples (a random built-in sample per episode), a sample's name (` +
	`e.g. tower), random (random structures), or iglu:DIR (an IGLU multi-turn dataset folder ` +
	`with dialogs.csv and builder-data/), optionally pinned: iglu:DIR#structure=c118,session=9-c118,turn=2 ` +
	`(session by id or by index within the structure; turn as the original's create_task: the task ` +
	`starting after that turn, -1 = the empty world)`

// ResolveTaskSpec turns a task specification into a task source and a display name.
func ResolveTaskSpec(spec string) (TaskSource, string, error) {
	switch {
	case spec == "" || spec == "samples":
		return SampleTaskSource(), "samples", nil
	case spec == "random":
		return DefaultRandomTasks(), "random", nil
	case strings.HasPrefix(spec, "iglu:"):
		dir := strings.TrimPrefix(spec, "iglu:")
		pin, hasPin, err := parsePin(dir)
		if err != nil {
			return nil, "", fmt.Errorf("task spec %q: %w", spec, err)
		}
		if hasPin {
			dir = dir[:strings.LastIndexByte(dir, '#')]
		}
		ds, err := LoadIGLUDatasetDir(dir, LoadOptions{})
		if err != nil {
			return nil, "", fmt.Errorf("%s: %w", dir, err)
		}
		if ds.NumSessions() == 0 {
			return nil, "", fmt.Errorf("%s: the dataset has no sessions", dir)
		}
		if !hasPin {
			return ds, spec, nil
		}
		src, err := ds.Pinned(pin)
		if err != nil {
			return nil, "", fmt.Errorf("%s: %w", dir, err)
		}
		return src, spec, nil
	}
	var names []string
	for _, nt := range SampleTasks() {
		if nt.Name == spec {
			return FixedTask{Task: nt.Task}, nt.Name, nil
		}
		names = append(names, nt.Name)
	}
	sort.Strings(names)
	return nil, "", fmt.Errorf("unknown task %q: use %s; samples are %s", spec, "samples, random or iglu:DIR", strings.Join(names, ", "))
}

// DatasetPin selects part of an IGLU dataset: a structure, a session of it and a turn. Empty
// fields (and a nil Turn) are not pinned.
type DatasetPin struct {
	Structure string
	// Session is a session id (the dataset's PartitionKey, e.g. "9-c118") or, with a Structure,
	// the index of a session among the structure's (the original's my_session).
	Session string
	// Turn is the start turn of the task (the original's Subtasks.create_task): the task begins
	// from the structure after that turn (-1 = the empty world) and has the next turn as goal.
	Turn *int
}

// parsePin reads the "#key=value,..." suffix of an iglu: spec. A suffix that is not made of
// known keys is part of the folder's name (hasPin false).
func parsePin(dir string) (pin DatasetPin, hasPin bool, err error) {
	k := strings.LastIndexByte(dir, '#')
	if k < 0 {
		return pin, false, nil
	}
	frag := dir[k+1:]
	for _, kv := range strings.Split(frag, ",") {
		key, val, ok := strings.Cut(kv, "=")
		if !ok || (key != "structure" && key != "session" && key != "turn") {
			if strings.Contains(frag, "=") {
				return pin, false, fmt.Errorf("bad pin %q: want structure=ID, session=ID or N, turn=N, separated by commas", kv)
			}
			return pin, false, nil
		}
		val = strings.TrimSpace(val)
		if val == "" {
			return pin, false, fmt.Errorf("pin %q has no value", key)
		}
		switch key {
		case "structure":
			pin.Structure = val
		case "session":
			pin.Session = val
		case "turn":
			t, err := strconv.Atoi(val)
			if err != nil || t < -1 {
				return pin, false, fmt.Errorf("turn=%s: want -1 (the empty world) or a turn number from 0", val)
			}
			pin.Turn = &t
		}
	}
	return pin, true, nil
}

// Pinned is the task source of the sessions a pin selects: a random one of them per episode,
// and in it the pinned turn or, without one, a random turn (as the dataset itself draws).
func (d *Dataset) Pinned(pin DatasetPin) (TaskSource, error) {
	var sessions []*Session
	if pin.Structure != "" {
		ss := d.Sessions[pin.Structure]
		if len(ss) == 0 {
			ids := d.StructureIDs()
			return nil, fmt.Errorf("no structure %q in the dataset (it has %d: %s)", pin.Structure, len(ids), listSome(ids, 8))
		}
		sessions = ss
	} else {
		for _, id := range d.StructureIDs() {
			sessions = append(sessions, d.Sessions[id]...)
		}
	}
	if pin.Session != "" {
		var keep []*Session
		if n, err := strconv.Atoi(pin.Session); err == nil && pin.Structure != "" {
			if n < 0 || n >= len(sessions) {
				return nil, fmt.Errorf("session %d: structure %s has sessions 0 to %d", n, pin.Structure, len(sessions)-1)
			}
			keep = sessions[n : n+1]
		} else {
			var ids []string
			for _, s := range sessions {
				if s.SessionID == pin.Session {
					keep = append(keep, s)
				}
				ids = append(ids, s.SessionID)
			}
			if len(keep) == 0 {
				return nil, fmt.Errorf("no session %q (sessions: %s)", pin.Session, listSome(ids, 8))
			}
		}
		sessions = keep
	}
	if pin.Turn == nil {
		return &pinnedTasks{sessions: sessions}, nil
	}
	// A pinned turn is one task per session: built once, not at every reset (the same *Task
	// also keeps the environment's scorer cached).
	tasks := make([]*Task, len(sessions))
	for i, s := range sessions {
		if *pin.Turn >= s.Len() {
			return nil, fmt.Errorf("turn %d: session %s has turns -1 to %d", *pin.Turn, s.SessionID, s.Len()-1)
		}
		t, err := s.TaskAt(*pin.Turn)
		if err != nil {
			return nil, err
		}
		tasks[i] = t
	}
	if len(tasks) == 1 {
		return FixedTask{Task: tasks[0]}, nil
	}
	return &CustomTasks{Tasks: tasks}, nil
}

// pinnedTasks draws a random session of a pinned selection and a random turn of it.
type pinnedTasks struct{ sessions []*Session }

func (p *pinnedTasks) NextTask(rng *rand.Rand) (*Task, error) {
	s := p.sessions[0]
	if len(p.sessions) > 1 {
		s = p.sessions[rng.IntN(len(p.sessions))]
	}
	return s.NextTask(rng)
}

func listSome(ids []string, n int) string {
	if len(ids) <= n {
		return strings.Join(ids, ", ")
	}
	return strings.Join(ids[:n], ", ") + fmt.Sprintf(", … (%d more)", len(ids)-n)
}
