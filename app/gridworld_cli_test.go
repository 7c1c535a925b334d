package app

import (
	"encoding/json"
	"strings"
	"testing"
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
