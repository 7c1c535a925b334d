package gridworld

import (
	crand "crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"time"

	"github.com/agentdesk/agentdesk/engine/episode"
)

// Recorder turns a played episode into an episode.Episode for the store, so it shows in the
// Explorer and can be replayed. Start it right after Reset, call Record after every Step.
//
// The stored form: Metadata holds the task (target and starting blocks, chat), the action
// space, the seed and the state after reset; each Step holds the action in the original's JSON
// form (Action.Raw), its reward, the dialog in force, and in Extra the world after the action
// ("blocks", "pose" = [x, y, z, yaw, pitch], "max_int", "target_size", "done"). A pov
// thumbnail (PNG) goes in Step.Observation when the caller has one.
type Recorder struct {
	ep         episode.Episode
	cumulative float64
}

// RecordMeta describes what is being recorded.
type RecordMeta struct {
	ID       string // external id; empty: "play-<time>"
	TaskName string
	Agent    string // "human", "random", the agent command, ...
}

// NewRecorder starts a recording of env's current episode (call after Reset).
func NewRecorder(env *Env, meta RecordMeta) *Recorder {
	id := meta.ID
	if id == "" {
		id = UniqueID("play")
	}
	t := env.Task()
	cfg := env.Config()
	m := map[string]any{
		"task_name":    meta.TaskName,
		"agent":        meta.Agent,
		"action_space": string(cfg.ActionSpace),
		"action_form":  env.ActionKind().String(),
		"seed":         cfg.Seed,
		"max_steps":    cfg.MaxSteps,
		"initial":      stateExtra(env),
	}
	instruction := ""
	if t != nil {
		m["target"] = toAny(t.Target.Sparse())
		m["starting"] = toAny(t.StartingGrid)
		m["chat"] = t.Chat
		instruction = t.LastInstruction
		if instruction == "" {
			instruction = t.Chat
		}
	}
	return &Recorder{ep: episode.Episode{
		Source: episode.SourceGridworld, ExternalID: id, Task: meta.TaskName,
		Instruction: instruction, Metadata: m,
	}}
}

// UniqueID returns prefix-<UTC time to the microsecond>-<random hex>, unique across runs and
// processes, for episode ids.
func UniqueID(prefix string) string {
	var b [3]byte
	crand.Read(b[:])
	return fmt.Sprintf("%s-%s-%s", prefix, time.Now().UTC().Format("20060102-150405.000000"), hex.EncodeToString(b[:]))
}

// Record adds the step just taken. thumbnail is an encoded pov image or nil.
func (r *Recorder) Record(env *Env, a Action, reward float64, thumbnail []byte) error {
	raw, err := json.Marshal(a)
	if err != nil {
		return err
	}
	r.cumulative += reward
	dialog := ""
	if t := env.Task(); t != nil {
		dialog = t.Chat
	}
	r.ep.Steps = append(r.ep.Steps, episode.Step{
		Index:       len(r.ep.Steps),
		Action:      episode.Action{Kind: ActionName(a), Raw: raw},
		Reward:      reward,
		Instruction: dialog,
		Observation: thumbnail,
		Extra:       stateExtra(env),
	})
	return nil
}

// Episode returns the recording so far.
func (r *Recorder) Episode() *episode.Episode { return &r.ep }

// Len is the number of steps recorded.
func (r *Recorder) Len() int { return len(r.ep.Steps) }

func stateExtra(env *Env) map[string]any {
	st := env.State()
	p := st.Position()
	info := env.Info()
	return map[string]any{
		"blocks":      toAny(st.GridRef().Sparse()),
		"pose":        []any{p[0], p[1], p[2], st.Yaw(), st.Pitch()},
		"max_int":     info.MaxInt,
		"target_size": info.TargetSize,
		"done":        info.Done,
	}
}

// toAny round-trips v through JSON so that metadata holds plain JSON values, exactly as it
// reads back from the store.
func toAny(v any) any {
	b, _ := json.Marshal(v)
	var out any
	json.Unmarshal(b, &out)
	return out
}

// ActionName names an action for listings: "forward", "select-3", "place", "fly", ...
func ActionName(a Action) string {
	if a.Kind != KindDiscrete {
		switch {
		case a.Kind == KindFly && a.Placement == PlaceBlock, a.Kind == KindWalkDict && a.Use:
			return "place"
		case a.Kind == KindFly && a.Placement == PlaceBreak, a.Kind == KindWalkDict && a.Attack:
			return "break"
		case a.Select != 0:
			return fmt.Sprintf("select-%d", a.Select)
		case a.Kind == KindFly:
			return "fly"
		}
		return "move"
	}
	names := [NumDiscrete]string{"noop", "forward", "backward", "left", "right", "jump",
		"select-1", "select-2", "select-3", "select-4", "select-5", "select-6",
		"yaw-left", "yaw-right", "pitch-down", "pitch-up", "break", "place"}
	if a.Discrete >= 0 && a.Discrete < NumDiscrete {
		return names[a.Discrete]
	}
	return "noop"
}

// Frame is the world at one moment of a stored episode: frame 0 is the state after reset,
// frame i+1 the state after step i.
type Frame struct {
	Blocks      []Block
	Grid        Grid
	Pose        Pose
	Reward      float64 // of the step that led here (0 for frame 0)
	Cumulative  float64
	MaxInt      int
	TargetSize  int
	Done        bool
	Action      string
	Instruction string
}

// Replay is a stored gridworld episode ready to play back.
type Replay struct {
	Target Grid
	Chat   string
	Frames []Frame
}

// LoadReplay rebuilds the frames of a recorded episode. It reports which step is malformed.
func LoadReplay(e *episode.Episode) (*Replay, error) {
	if e.Source != episode.SourceGridworld {
		return nil, fmt.Errorf("episode %s/%s is not a gridworld episode", e.Source, e.ExternalID)
	}
	rp := &Replay{}
	var target []Block
	if err := fromAny(e.Metadata["target"], &target); err != nil {
		return nil, fmt.Errorf("episode %s: target: %w", e.ExternalID, err)
	}
	g, err := DenseFromSparse(target)
	if err != nil {
		return nil, fmt.Errorf("episode %s: target: %w", e.ExternalID, err)
	}
	rp.Target = g
	rp.Chat, _ = e.Metadata["chat"].(string)
	initial, _ := e.Metadata["initial"].(map[string]any)
	f0, err := frameFrom(initial)
	if err != nil {
		return nil, fmt.Errorf("episode %s: initial state: %w", e.ExternalID, err)
	}
	f0.Instruction = rp.Chat
	rp.Frames = append(rp.Frames, f0)
	cum := 0.0
	for i, s := range e.Steps {
		f, err := frameFrom(s.Extra)
		if err != nil {
			return nil, fmt.Errorf("episode %s: step %d: %w", e.ExternalID, i, err)
		}
		cum += s.Reward
		f.Reward, f.Cumulative, f.Action, f.Instruction = s.Reward, cum, s.Action.Kind, s.Instruction
		rp.Frames = append(rp.Frames, f)
	}
	return rp, nil
}

func frameFrom(m map[string]any) (Frame, error) {
	var f Frame
	if m == nil {
		return f, fmt.Errorf("no recorded state")
	}
	if err := fromAny(m["blocks"], &f.Blocks); err != nil {
		return f, fmt.Errorf("blocks: %w", err)
	}
	g, err := DenseFromSparse(f.Blocks)
	if err != nil {
		return f, err
	}
	f.Grid = g
	var pose []float64
	if err := fromAny(m["pose"], &pose); err != nil || len(pose) != 5 {
		return f, fmt.Errorf("pose: want [x, y, z, yaw, pitch]")
	}
	f.Pose = Pose{Position: Vec3{pose[0], pose[1], pose[2]}, Yaw: pose[3], Pitch: pose[4]}
	fromAny(m["max_int"], &f.MaxInt)
	fromAny(m["target_size"], &f.TargetSize)
	f.Done, _ = m["done"].(bool)
	return f, nil
}

func fromAny(v any, out any) error {
	if v == nil {
		return nil
	}
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return json.Unmarshal(b, out)
}
