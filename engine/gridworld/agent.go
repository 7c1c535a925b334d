package gridworld

import (
	"bufio"
	"cmp"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"image"
	"io"
	"math/rand/v2"
	"os/exec"
	"runtime"
	"strings"
	"time"

	"github.com/agentdesk/agentdesk/engine/episode"
)

// Agent chooses actions. Act is called with the observation after reset and after every step
// until the episode ends; Done tells it the episode ended (with the final observation).
type Agent interface {
	Act(obs *Observation, reward float64, info StepInfo) (Action, error)
	Done(obs *Observation, reward float64, info StepInfo) error
	Close() error
}

// RandomAgent samples uniformly from the action space, like env.action_space.sample().
type RandomAgent struct {
	rng      *rand.Rand
	space    ActionSpace
	discrete bool
}

// NewRandomAgent returns a random agent for env's action space.
func NewRandomAgent(env *Env, seed uint64) *RandomAgent {
	return &RandomAgent{rng: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)),
		space: env.Config().ActionSpace, discrete: env.ActionKind() == KindDiscrete}
}

func (a *RandomAgent) Act(*Observation, float64, StepInfo) (Action, error) {
	return SampleAction(a.rng, a.space, a.discrete), nil
}
func (a *RandomAgent) Done(*Observation, float64, StepInfo) error { return nil }
func (a *RandomAgent) Close() error                               { return nil }

// ProcessAgent runs an external program that speaks JSON lines (see AgentMessage): one message
// to its standard input per observation, one action per line back on its standard output.
type ProcessAgent struct {
	cmd      *exec.Cmd
	in       io.WriteCloser
	out      *bufio.Scanner
	space    ActionSpace
	discrete bool
	timeout  time.Duration
	lines    chan lineOrErr
	episode  int
	step     int
	// POVFormat is how a rendered pov is sent: POVBase64 (the default) or POVList.
	POVFormat POVFormat
	// enc writes one message a line, as is: "<Architect>" stays readable (no \u003c escapes).
	enc *json.Encoder
}

// POVFormat is the JSON form of the pov observation sent to agents.
type POVFormat string

const (
	// POVBase64 sends {"shape": [h, w, 3], "dtype": "uint8", "encoding": "base64", "data": "..."}:
	// the rows top to bottom, each pixel's red, green and blue bytes, base64-encoded.
	POVBase64 POVFormat = "base64"
	// POVList sends nested lists [h][w][3] of integers, as NumPy's tolist() of the original's pov.
	POVList POVFormat = "list"
)

type lineOrErr struct {
	line []byte
	err  error
}

// AgentMessage is what Agentdesk writes to an external agent, one JSON object per line.
// "type" is "observation" (answer with one line: the action) or "done" (the episode ended;
// do not answer). The action is the original's JSON form: an integer 0..17 for walking
// (discrete), or an object ({"forward":1,"camera":[0,5],...} for walking without
// discretisation, {"movement":[...],"camera":[...],"inventory":n,"placement":n} for flying);
// it may also be wrapped as {"action": ...}.
type AgentMessage struct {
	Type        string         `json:"type"`
	Episode     int            `json:"episode"`
	Step        int            `json:"step"`
	ActionSpace string         `json:"action_space"`
	Discrete    bool           `json:"discrete"`
	Observation map[string]any `json:"observation"`
	Reward      float64        `json:"reward"`
	Done        bool           `json:"done"`
	Info        map[string]any `json:"info"`
}

// StartProcessAgent starts command (run by the system shell) as an agent for env.
// Its standard error goes to stderr (nil discards it). A reply slower than timeout is an error.
func StartProcessAgent(command string, env *Env, stderr io.Writer, timeout time.Duration) (*ProcessAgent, error) {
	if strings.TrimSpace(command) == "" {
		return nil, errors.New("no agent command given")
	}
	var cmd *exec.Cmd
	if runtime.GOOS == "windows" {
		cmd = exec.Command("cmd", "/C", command)
	} else {
		cmd = exec.Command("sh", "-c", command)
	}
	cmd.Stderr = stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start agent %q: %w", command, err)
	}
	a := &ProcessAgent{cmd: cmd, in: in, out: bufio.NewScanner(out), space: env.Config().ActionSpace,
		discrete: env.ActionKind() == KindDiscrete, timeout: timeout, lines: make(chan lineOrErr)}
	a.enc = json.NewEncoder(in)
	a.enc.SetEscapeHTML(false)
	a.out.Buffer(make([]byte, 64*1024), 16<<20)
	go func() {
		for a.out.Scan() {
			a.lines <- lineOrErr{line: append([]byte(nil), a.out.Bytes()...)}
		}
		err := a.out.Err()
		if err == nil {
			err = io.EOF
		}
		a.lines <- lineOrErr{err: err}
		close(a.lines)
	}()
	return a, nil
}

func (a *ProcessAgent) send(typ string, obs *Observation, reward float64, info StepInfo) error {
	msg := AgentMessage{Type: typ, Episode: a.episode, Step: info.Step, ActionSpace: string(a.space),
		Discrete: a.discrete, Observation: ObservationJSONWith(obs, cmp.Or(a.POVFormat, POVBase64)), Reward: reward, Done: info.Done,
		Info: map[string]any{"max_int": info.MaxInt, "target_size": info.TargetSize,
			"right": info.Right, "wrong": info.Wrong, "completed": info.Completed}}
	if err := a.enc.Encode(msg); err != nil { // one Write of the whole line
		return fmt.Errorf("agent stopped reading (episode %d step %d): %w", a.episode, info.Step, err)
	}
	return nil
}

func (a *ProcessAgent) Act(obs *Observation, reward float64, info StepInfo) (Action, error) {
	if err := a.send("observation", obs, reward, info); err != nil {
		return Action{}, err
	}
	var r lineOrErr
	select {
	case r = <-a.lines:
	case <-time.After(a.timeout):
		return Action{}, fmt.Errorf("agent did not answer within %v (episode %d step %d)", a.timeout, a.episode, info.Step)
	}
	if r.err != nil {
		return Action{}, fmt.Errorf("agent closed its output (episode %d step %d): %v", a.episode, info.Step, r.err)
	}
	line := r.line
	var wrapped struct {
		Action json.RawMessage `json:"action"`
	}
	if json.Unmarshal(line, &wrapped) == nil && len(wrapped.Action) > 0 {
		line = wrapped.Action
	}
	act, err := DecodeAction(line, a.space, a.discrete)
	if err != nil {
		return Action{}, fmt.Errorf("agent answer at episode %d step %d: %q: %w", a.episode, info.Step, truncate(string(r.line), 80), err)
	}
	return act, nil
}

func (a *ProcessAgent) Done(obs *Observation, reward float64, info StepInfo) error {
	err := a.send("done", obs, reward, info)
	a.episode++
	return err
}

// Close ends the agent: its input is closed, and it is killed if it has not exited in 2 s.
func (a *ProcessAgent) Close() error {
	a.in.Close()
	done := make(chan error, 1)
	go func() { done <- a.cmd.Wait() }()
	select {
	case err := <-done:
		return err
	case <-time.After(2 * time.Second):
		a.cmd.Process.Kill()
		<-done
		return errors.New("agent did not exit after its input closed; killed")
	}
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// ObservationJSON is the observation in the original's dictionary form, without the pov.
func ObservationJSON(o *Observation) map[string]any { return ObservationJSONWith(o, "") }

// ObservationJSONWith is ObservationJSON with the pov, when the observation has one, in the
// given format ("" leaves it out).
func ObservationJSONWith(o *Observation, pov POVFormat) map[string]any {
	m := map[string]any{
		"inventory": o.Inventory[:],
		"compass":   o.Compass,
		"dialog":    o.Dialog,
		"agentPos":  o.AgentPos[:],
	}
	if o.HasGrid {
		m["grid"] = o.Grid
	}
	if o.HasTarget {
		m["target_grid"] = o.TargetGrid
	}
	if o.POV != nil && pov != "" {
		m["pov"] = povJSON(o.POV, pov)
	}
	return m
}

// povJSON packs an RGBA image's pixels as RGB (row 0 = top) in the given format.
func povJSON(img *image.RGBA, format POVFormat) any {
	w, h := img.Rect.Dx(), img.Rect.Dy()
	rgb := make([]byte, 0, w*h*3)
	for y := 0; y < h; y++ {
		row := img.Pix[y*img.Stride : y*img.Stride+4*w]
		for k := 0; k < len(row); k += 4 {
			rgb = append(rgb, row[k], row[k+1], row[k+2])
		}
	}
	if format == POVList {
		rows := make([][][3]uint16, h)
		for y := range rows {
			rows[y] = make([][3]uint16, w)
			for x := range rows[y] {
				p := rgb[(y*w+x)*3:]
				rows[y][x] = [3]uint16{uint16(p[0]), uint16(p[1]), uint16(p[2])}
			}
		}
		return rows
	}
	return map[string]any{"shape": []int{h, w, 3}, "dtype": "uint8", "encoding": "base64",
		"data": base64.StdEncoding.EncodeToString(rgb)}
}

// EpisodeResult sums up one episode an agent played.
type EpisodeResult struct {
	Index     int
	Steps     int
	Reward    float64
	Completed bool
	Episode   *episode.Episode // the recording
}

// RunOptions configure RunEpisodes.
type RunOptions struct {
	Episodes int
	TaskName string
	Agent    string // recorded as the episode's agent
	IDPrefix string // external ids are IDPrefix-<n>
	// OnStep is called after every step with the episode index and cumulative reward.
	OnStep func(ep, step int, reward, cumulative float64)
	// OnEpisode is called at the end of each episode.
	OnEpisode func(r EpisodeResult) error
}

// RunEpisodes lets agent play env for opts.Episodes episodes, recording each. It stops early
// when ctx is cancelled or the agent fails; results so far are returned with the error.
func RunEpisodes(ctx context.Context, env *Env, agent Agent, opts RunOptions) ([]EpisodeResult, error) {
	var results []EpisodeResult
	for ep := 0; ep < opts.Episodes; ep++ {
		obs, err := env.Reset()
		if err != nil {
			return results, err
		}
		id := ""
		if opts.IDPrefix != "" {
			id = fmt.Sprintf("%s-%d", opts.IDPrefix, ep)
		}
		rec := NewRecorder(env, RecordMeta{ID: id, TaskName: opts.TaskName, Agent: opts.Agent})
		res := EpisodeResult{Index: ep}
		reward := 0.0
		info := env.Info()
		for {
			if err := ctx.Err(); err != nil {
				return results, err
			}
			act, err := agent.Act(obs, reward, info)
			if err != nil {
				return results, err
			}
			var done bool
			obs, reward, done, err = env.Step(act)
			if err != nil {
				return results, fmt.Errorf("episode %d step %d: %w", ep, res.Steps, err)
			}
			info = env.Info()
			if err := rec.Record(env, act, reward, nil); err != nil {
				return results, err
			}
			res.Steps++
			res.Reward += reward
			if opts.OnStep != nil {
				opts.OnStep(ep, res.Steps, reward, res.Reward)
			}
			if done {
				res.Completed = info.Completed
				break
			}
		}
		if err := agent.Done(obs, reward, info); err != nil {
			return results, err
		}
		res.Episode = rec.Episode()
		results = append(results, res)
		if opts.OnEpisode != nil {
			if err := opts.OnEpisode(res); err != nil {
				return results, err
			}
		}
	}
	return results, nil
}
