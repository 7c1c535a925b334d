package app

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/agentdesk/agentdesk/engine/gridworld"
	"github.com/agentdesk/agentdesk/engine/render"
)

func TestGridworldBenchJSON(t *testing.T) {
	isolate(t)
	for _, space := range []string{"walking", "flying"} {
		r := runCLI(t, "gridworld", "bench", "--steps", "3000", "--envs", "2", "--action-space", space, "--json")
		if r.code != 0 {
			t.Fatalf("%s: exit %d: %s", space, r.code, r.stderr)
		}
		var got map[string]float64
		if err := json.Unmarshal([]byte(r.stdout), &got); err != nil {
			t.Fatalf("%s: output is not one JSON object: %q", space, r.stdout)
		}
		for _, key := range []string{"steps_per_second", "resets_per_second", "intersection_us"} {
			if v, ok := got[key]; !ok || v <= 0 {
				t.Errorf("%s: %s = %v (present %v)", space, key, v, ok)
			}
		}
		if len(got) != 3 {
			t.Errorf("%s: unexpected keys in %v", space, got)
		}
	}
}

func TestGridworldBenchText(t *testing.T) {
	isolate(t)
	r := runCLI(t, "gridworld", "bench", "--steps", "2000")
	if r.code != 0 || !strings.Contains(r.stdout, "steps/s") || !strings.Contains(r.stdout, "us/call") {
		t.Fatalf("bench: %+v", r)
	}
	for _, args := range [][]string{
		{"gridworld", "bench", "--action-space", "swimming"},
		{"gridworld", "bench", "--envs", "0"},
		{"gridworld", "bench", "--steps", "many"},
		{"gridworld", "bench", "extra"},
	} {
		if r := runCLI(t, args...); r.code != 2 {
			t.Errorf("%v: exit %d, want 2", args, r.code)
		}
	}
}

func TestGridworldRunStoresEpisodes(t *testing.T) {
	dir := isolate(t)
	path := dir + "/s.db"
	r := runCLI(t, "--store", path, "gridworld", "run", "--agent", "random", "--episodes", "2", "--max-steps", "30", "--task", "tower")
	if r.code != 0 || strings.Count(r.stdout, "stored as gridworld/") != 2 {
		t.Fatalf("run random: %+v", r)
	}
	agent := `while IFS= read -r l; do case "$l" in *'"type":"done"'*) ;; *) echo 17 ;; esac; done`
	r = runCLI(t, "--store", path, "gridworld", "run", "--agent", agent, "--episodes", "1", "--max-steps", "10")
	if r.code != 0 {
		t.Fatalf("run process agent: %+v", r)
	}
	r = runCLI(t, "--store", path, "store", "info")
	if !strings.Contains(r.stdout, "gridworld          3") || !strings.Contains(r.stdout, "steps                70") {
		t.Fatalf("store after runs:\n%s", r.stdout)
	}
	for _, args := range [][]string{
		{"gridworld", "run"},
		{"gridworld", "run", "--agent", "random", "--task", "castle"},
		{"gridworld", "run", "--agent", "random", "--episodes", "0"},
	} {
		if r := runCLI(t, append([]string{"--store", path}, args...)...); r.code == 0 {
			t.Errorf("%v succeeded", args)
		}
	}
	if r := runCLI(t, "gridworld", "tasks"); r.code != 0 || !strings.Contains(r.stdout, "small-house") {
		t.Fatalf("tasks: %+v", r)
	}
}

// recordingAgent is a shell agent that appends every message to file and answers action.
func recordingAgent(file string, action int) string {
	return fmt.Sprintf(`while IFS= read -r l; do printf '%%s\n' "$l" >> '%s'; case "$l" in *'"type":"done"'*) ;; *) echo %d ;; esac; done`, file, action)
}

func readAgentMessages(t *testing.T, file string) []gridworld.AgentMessage {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var out []gridworld.AgentMessage
	for i, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		var m gridworld.AgentMessage
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("%s:%d: %v", file, i+1, err)
		}
		out = append(out, m)
	}
	return out
}

// povBytes decodes a pov sent in either format into its shape and RGB bytes.
func povBytes(t *testing.T, v any) (shape [3]int, rgb []byte) {
	t.Helper()
	switch p := v.(type) {
	case map[string]any:
		s := p["shape"].([]any)
		shape = [3]int{int(s[0].(float64)), int(s[1].(float64)), int(s[2].(float64))}
		if p["dtype"] != "uint8" || p["encoding"] != "base64" {
			t.Fatalf("pov %v", p)
		}
		b, err := base64.StdEncoding.DecodeString(p["data"].(string))
		if err != nil {
			t.Fatal(err)
		}
		return shape, b
	case []any:
		shape[0], shape[1], shape[2] = len(p), len(p[0].([]any)), 3
		for _, row := range p {
			for _, px := range row.([]any) {
				for _, c := range px.([]any) {
					rgb = append(rgb, byte(c.(float64)))
				}
			}
		}
		return shape, rgb
	}
	t.Fatalf("pov of type %T", v)
	return
}

func TestGridworldRunOptions(t *testing.T) {
	dir := isolate(t)
	db := filepath.Join(dir, "s.db")
	log := filepath.Join(dir, "agent.jsonl")
	r := runCLI(t, "--store", db, "gridworld", "run", "--agent", recordingAgent(log, 1), "--task", "tower",
		"--set", "max_steps=5", "--target-in-obs", "--vector-state=false", "--right-scale", "3")
	if r.code != 0 || !strings.Contains(r.stdout, "episode 1/1: 5 steps") {
		t.Fatalf("run: %+v", r)
	}
	msgs := readAgentMessages(t, log)
	if len(msgs) != 6 || msgs[5].Type != "done" {
		t.Fatalf("%d messages, last %+v", len(msgs), msgs[len(msgs)-1])
	}
	obs := msgs[0].Observation
	if _, ok := obs["target_grid"]; !ok {
		t.Errorf("--target-in-obs: observation keys %v", keys(obs))
	}
	if _, ok := obs["grid"]; ok {
		t.Errorf("--vector-state=false: observation has a grid")
	}
	if _, ok := obs["pov"]; ok {
		t.Errorf("no rendering, yet a pov")
	}

	// The original's fake pov (noise, no OpenGL) reaches the agent in both formats.
	for _, format := range []string{"base64", "list"} {
		os.Remove(log)
		r = runCLI(t, "--store", db, "gridworld", "run", "--agent", recordingAgent(log, 1), "--set", "max_steps=2",
			"--set", "render=True", "--set", "fake=true", "--render-size", "16x8", "--pov-format", format)
		if r.code != 0 {
			t.Fatalf("%s: %+v", format, r)
		}
		for _, m := range readAgentMessages(t, log) {
			shape, rgb := povBytes(t, m.Observation["pov"])
			if shape != [3]int{8, 16, 3} || len(rgb) != 8*16*3 {
				t.Fatalf("%s: pov shape %v with %d bytes", format, shape, len(rgb))
			}
		}
	}

	// --env takes a registered configuration; its max_steps (250) stands without --max-steps
	os.Remove(log)
	r = runCLI(t, "--store", db, "gridworld", "run", "--agent", "random", "--env", "IGLUGridworldVector-v0", "--task", "tower")
	if r.code != 0 || !strings.Contains(r.stdout, "episode 1/1: 250 steps") {
		t.Fatalf("--env: %+v", r)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--set", "colour=red"}, "env kwarg colour=red: unknown parameter"},
		{[]string{"--set", "max_steps"}, "want key=value"},
		{[]string{"--set", "max_steps=many"}, "env kwarg max_steps=many: want an integer"},
		{[]string{"--render-size", "0x3"}, "--render-size"},
		{[]string{"--env", "Minecraft-v1"}, `unknown environment "Minecraft-v1"`},
		{[]string{"--pov-format", "png"}, "--pov-format must be base64 or list"},
	} {
		r := runCLI(t, append([]string{"--store", db, "gridworld", "run", "--agent", "random"}, c.args...)...)
		if r.code != 2 || !strings.Contains(r.stderr, c.want) {
			t.Errorf("%v: exit %d, stderr %q, want %q", c.args, r.code, r.stderr, c.want)
		}
	}
}

func keys(m map[string]any) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

func TestGridworldBenchOptions(t *testing.T) {
	isolate(t)
	r := runCLI(t, "gridworld", "bench", "--steps", "2000", "--select-and-place", "--set", "target_in_obs=true", "--json")
	if r.code != 0 || !strings.Contains(r.stdout, "steps_per_second") {
		t.Fatalf("bench with options: %+v", r)
	}
	if r := runCLI(t, "gridworld", "bench", "--set", "bogus=1"); r.code != 2 || !strings.Contains(r.stderr, "bogus") {
		t.Fatalf("bad option: %+v", r)
	}
}

// TestGridworldRendersPOV runs the command line as a process (its OpenGL on one thread, as in
// the real binary): the rendered pov reaches the agent, and `bench --pov` without --steps runs
// its short default.
func TestGridworldRendersPOV(t *testing.T) {
	if os.Getenv("DISPLAY") == "" {
		t.Skip("no display: run under xvfb-run (make test does)")
	}
	dir := isolate(t)
	exe, _ := os.Executable()
	log := filepath.Join(dir, "agent.jsonl")
	cmd := exec.Command(exe, "--store", filepath.Join(dir, "s.db"), "gridworld", "run", "--agent", recordingAgent(log, 1),
		"--pov", "--set", "max_steps=3", "--task", "tower")
	cmd.Env = append(os.Environ(), "AGENTDESK_TEST_AS_CLI=1")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("run --pov: %v\n%s", err, out)
	}
	msgs := readAgentMessages(t, log)
	if len(msgs) != 4 {
		t.Fatalf("%d messages", len(msgs))
	}
	for i, m := range msgs {
		shape, rgb := povBytes(t, m.Observation["pov"])
		if shape != [3]int{64, 64, 3} || len(rgb) != 64*64*3 {
			t.Fatalf("message %d: pov shape %v, %d bytes", i, shape, len(rgb))
		}
		// the sky colour at the top, something else (the ground) at the bottom
		sky := gridworld.SkyColor
		if top := rgb[32*3 : 32*3+3]; top[0] != sky[0] || top[1] != sky[1] || top[2] != sky[2] {
			t.Errorf("message %d: top pixel %v, want the sky %v", i, top, sky)
		}
		if bottom := rgb[(63*64+32)*3:]; bottom[0] == sky[0] && bottom[1] == sky[1] && bottom[2] == sky[2] {
			t.Errorf("message %d: the bottom is sky too", i)
		}
	}
	cmd = exec.Command(exe, "gridworld", "bench", "--pov")
	cmd.Env = append(os.Environ(), "AGENTDESK_TEST_AS_CLI=1")
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), fmt.Sprintf("%d steps", render.DefaultPOVBenchSteps)) {
		t.Fatalf("bench --pov: %v\n%s", err, out)
	}
}

// TestReadmeAgentExampleMatches: the README's example of the agent protocol has the keys, in
// the order, of what a default run sends first.
func TestReadmeAgentExampleMatches(t *testing.T) {
	readme, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	text := string(readme)
	k := strings.Index(text, "### The external agent protocol")
	if k < 0 {
		t.Fatal("README: no agent protocol section")
	}
	block := text[k:]
	start := strings.Index(block, "```json\n")
	end := strings.Index(block[start+8:], "```")
	if start < 0 || end < 0 {
		t.Fatal("README: no JSON example in the agent protocol section")
	}
	example := block[start+8 : start+8+end]
	dir := isolate(t)
	log := filepath.Join(dir, "agent.jsonl")
	r := runCLI(t, "--store", filepath.Join(dir, "s.db"), "gridworld", "run", "--agent", recordingAgent(log, 1),
		"--task", "tower", "--max-steps", "1")
	if r.code != 0 {
		t.Fatalf("run: %+v", r)
	}
	data, err := os.ReadFile(log)
	if err != nil {
		t.Fatal(err)
	}
	sent := strings.SplitN(string(data), "\n", 2)[0]
	keyRE := regexp.MustCompile(`"([A-Za-z_]+)":`)
	keysOf := func(s string) (out []string) {
		for _, m := range keyRE.FindAllStringSubmatch(s, -1) {
			out = append(out, m[1])
		}
		return out
	}
	if got, want := keysOf(example), keysOf(sent); strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("README example keys\n%v\nsent\n%v", got, want)
	}
	if !strings.Contains(sent, `"dialog":"<Architect> Build a tower`) {
		t.Errorf("the dialog is not sent as written: %.300s", sent)
	}
}
