package app

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestPickleCommands(t *testing.T) {
	dir := isolate(t)
	vec, _ := filepath.Abs("../testdata/conformance/mobileenv/pickles")
	in, _ := os.ReadFile(filepath.Join(vec, "inputs", "synthetic_documented.pkl"))
	pkl := filepath.Join(dir, "demo_task.pkl")
	os.WriteFile(pkl, in, 0o644)
	if r := runCLI(t, "pickle", "info", pkl); r.code != 0 || !strings.Contains(r.stdout, "2 trajectories") {
		t.Fatalf("info: %+v", r)
	}
	if r := runCLI(t, "pickle", "info", "--json", pkl); r.code != 0 || !strings.Contains(r.stdout, `"trajectories"`) {
		t.Fatalf("info --json: %+v", r)
	}
	r := runCLI(t, "pickle", "edit", pkl, "0:delete:1:3", filepath.Join(vec, "inputs", "textprotos"))
	if r.code != 0 {
		t.Fatalf("edit: %+v", r)
	}
	want, _ := os.ReadFile(filepath.Join(vec, "edit", "ed01_delete_range", "expected", "expected_output.pkl"))
	if got, _ := os.ReadFile(pkl); !bytes.Equal(got, want) {
		t.Fatal("edit output differs from the original tool's")
	}
	if old, _ := os.ReadFile(pkl + ".old"); !bytes.Equal(old, in) {
		t.Fatal("no .old backup")
	}
	frames := filepath.Join(dir, "frames")
	if r := runCLI(t, "pickle", "visualize", "--png", filepath.Join(vec, "inputs", "synthetic_visual.pkl"), frames); r.code != 0 {
		t.Fatalf("visualize: %+v", r)
	}
	if m, _ := filepath.Glob(filepath.Join(frames, "*", "*.png")); len(m) == 0 {
		t.Fatal("no frames written")
	}
	if r := runCLI(t, "pickle", "edit", pkl, "0:frobnicate", "."); r.code != 1 {
		t.Fatalf("bad modifier: %+v", r)
	}
	for _, args := range [][]string{{"pickle", "edit", "x"}, {"pickle", "info"}, {"pickle", "video", "a"}} {
		if r := runCLI(t, args...); r.code != 2 {
			t.Errorf("%v: exit %d", args, r.code)
		}
	}
}
