package gridworld

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"
)

func testEnv(t *testing.T, space ActionSpace, maxSteps int) *Env {
	return testEnvDiscrete(t, space, maxSteps, false)
}

func testEnvDiscrete(t *testing.T, space ActionSpace, maxSteps int, discrete bool) *Env {
	t.Helper()
	cfg := EnvDefaults()
	cfg.Discretize = discrete
	cfg.Render = false
	cfg.MaxSteps = maxSteps
	cfg.ActionSpace = space
	cfg.Seed = 7
	env, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	env.SetTask(SampleTasks()[0].Task)
	return env
}

// roundTripJSON makes the episode look exactly as it does after the store read it back.
func roundTripJSON(t *testing.T, v any, out any) {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, out); err != nil {
		t.Fatal(err)
	}
}

func TestRecordingReplaysAndResimulates(t *testing.T) {
	for _, space := range []ActionSpace{Walking, Flying} {
		env := testEnvDiscrete(t, space, 60, space == Walking)
		res, err := RunEpisodes(context.Background(), env, NewRandomAgent(env, 3), RunOptions{Episodes: 1, TaskName: "tower", Agent: "random"})
		if err != nil {
			t.Fatal(err)
		}
		ep := res[0].Episode
		if len(ep.Steps) != res[0].Steps || res[0].Steps != 60 {
			t.Fatalf("%s: %d steps recorded, %d played", space, len(ep.Steps), res[0].Steps)
		}
		// What the store gives back: metadata and extras as plain JSON values.
		ep.Metadata = roundTripMap(t, ep.Metadata)
		for i := range ep.Steps {
			ep.Steps[i].Extra = roundTripMap(t, ep.Steps[i].Extra)
		}
		rp, err := LoadReplay(ep)
		if err != nil {
			t.Fatal(err)
		}
		if len(rp.Frames) != len(ep.Steps)+1 {
			t.Fatalf("%d frames for %d steps", len(rp.Frames), len(ep.Steps))
		}
		if rp.Target != SampleTasks()[0].Task.Target {
			t.Fatal("replay target differs from the task's")
		}
		last := rp.Frames[len(rp.Frames)-1]
		if last.Grid != env.State().Grid() || last.Cumulative != res[0].Reward {
			t.Fatalf("last frame: cumulative %v vs %v", last.Cumulative, res[0].Reward)
		}
		// Re-simulate from the recorded actions: the same seed and actions give the same states.
		env2 := testEnvDiscrete(t, space, 60, space == Walking)
		if _, err := env2.Reset(); err != nil {
			t.Fatal(err)
		}
		for i, s := range ep.Steps {
			a, err := DecodeAction(s.Action.Raw, space, env2.ActionKind() == KindDiscrete)
			if err != nil {
				t.Fatalf("step %d: recorded action %s does not decode: %v", i, s.Action.Raw, err)
			}
			if _, r, _, err := env2.Step(a); err != nil || r != s.Reward {
				t.Fatalf("step %d: reward %v, recorded %v (%v)", i, r, s.Reward, err)
			}
			f := rp.Frames[i+1]
			if env2.State().Grid() != f.Grid || env2.State().Position() != f.Pose.Position || env2.State().Yaw() != f.Pose.Yaw {
				t.Fatalf("%s step %d: re-simulated state differs from the recording", space, i)
			}
		}
	}
}

func roundTripMap(t *testing.T, m map[string]any) map[string]any {
	var out map[string]any
	roundTripJSON(t, m, &out)
	return out
}

func TestActionNames(t *testing.T) {
	for n, want := range map[int]string{ActForward: "forward", ActSelect1 + 2: "select-3", ActPlace: "place", ActBreak: "break", 99: "noop"} {
		if got := ActionName(DiscreteAction(n)); got != want {
			t.Errorf("ActionName(%d) = %q, want %q", n, got, want)
		}
	}
	if got := ActionName(Action{Kind: KindFly, Placement: PlaceBreak}); got != "break" {
		t.Errorf("flying break named %q", got)
	}
}

func TestLoadReplayReportsBadSteps(t *testing.T) {
	env := testEnv(t, Walking, 5)
	res, err := RunEpisodes(context.Background(), env, NewRandomAgent(env, 1), RunOptions{Episodes: 1})
	if err != nil {
		t.Fatal(err)
	}
	ep := res[0].Episode
	ep.Steps[3].Extra["pose"] = "nowhere"
	if _, err := LoadReplay(ep); err == nil || !strings.Contains(err.Error(), "step 3") {
		t.Fatalf("bad pose: %v", err)
	}
}

const forwardAgent = `while IFS= read -r line; do
  case "$line" in *'"type":"done"'*) ;; *) echo '{"action": 1}' ;; esac
done`

func TestProcessAgentProtocol(t *testing.T) {
	env := testEnvDiscrete(t, Walking, 8, true)
	var stderr bytes.Buffer
	agent, err := StartProcessAgent(forwardAgent, env, &stderr, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	var curve []float64
	res, err := RunEpisodes(context.Background(), env, agent, RunOptions{Episodes: 2, Agent: "sh",
		OnStep: func(ep, step int, r, cum float64) { curve = append(curve, cum) }})
	if err != nil {
		t.Fatal(err)
	}
	if err := agent.Close(); err != nil {
		t.Fatalf("agent exit: %v (%s)", err, stderr.String())
	}
	if len(res) != 2 || len(curve) != 16 {
		t.Fatalf("results %d, curve %d", len(res), len(curve))
	}
	for _, r := range res {
		for _, s := range r.Episode.Steps {
			if s.Action.Kind != "forward" {
				t.Fatalf("agent answered forward, recorded %q", s.Action.Kind)
			}
		}
	}
}

func TestProcessAgentFailures(t *testing.T) {
	env := testEnvDiscrete(t, Walking, 8, true)
	for _, c := range []struct{ cmd, want string }{
		{`read line; echo '"jump please"'`, "agent answer at episode 0 step 0"},
		{`read line; sleep 5`, "did not answer within"},
		{`exit 0`, "agent"},
	} {
		agent, err := StartProcessAgent(c.cmd, env, nil, 300*time.Millisecond)
		if err != nil {
			t.Fatal(err)
		}
		_, err = RunEpisodes(context.Background(), env, agent, RunOptions{Episodes: 1})
		agent.Close()
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: error %v, want %q", c.cmd, err, c.want)
		}
	}
	if _, err := StartProcessAgent("  ", env, nil, time.Second); err == nil {
		t.Error("empty agent command accepted")
	}
}

func TestResolveTaskSpec(t *testing.T) {
	for _, spec := range []string{"", "samples", "random", SampleTasks()[1].Name} {
		src, name, err := ResolveTaskSpec(spec)
		if err != nil || src == nil || name == "" {
			t.Fatalf("%q: %v", spec, err)
		}
	}
	if _, _, err := ResolveTaskSpec("castle-in-the-sky"); err == nil || !strings.Contains(err.Error(), "tower") {
		t.Fatalf("unknown sample: %v", err)
	}
	if _, _, err := ResolveTaskSpec("iglu:/nonexistent"); err == nil || !strings.Contains(err.Error(), "dialogs.csv") {
		t.Fatalf("missing dataset: %v", err)
	}
}
