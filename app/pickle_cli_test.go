package app

import (
	"bytes"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentdesk/agentdesk/engine/mobileenv"
	"github.com/agentdesk/agentdesk/engine/mobileenv/mobileenvtest"
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
	for _, args := range [][]string{{"pickle", "edit"}, {"pickle", "edit", "a", "b", "c", "d"}, {"pickle", "info"}, {"pickle", "video", "a"}} {
		if r := runCLI(t, args...); r.code != 2 {
			t.Errorf("%v: exit %d", args, r.code)
		}
	}
}

// TestPickleOriginalArgumentOrder: flags after the positional arguments (argparse style), a
// negative modifier index, and edit's optional MODIFIERS and DEFDIR.
func TestPickleOriginalArgumentOrder(t *testing.T) {
	dir := isolate(t)
	vec, _ := filepath.Abs("../testdata/conformance/mobileenv/pickles")
	frames := filepath.Join(dir, "frames")
	if r := runCLI(t, "pickle", "visualize", filepath.Join(vec, "inputs", "synthetic_visual.pkl"), frames, "--no-descp", "--png"); r.code != 0 {
		t.Fatalf("visualize with trailing flags: %+v", r)
	}
	f, err := os.Open(filepath.Join(frames, "demo_task:0%2#5", "1.png"))
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := png.DecodeConfig(f)
	f.Close()
	if err != nil || cfg.Width != 180 || cfg.Height != 320 {
		t.Fatalf("frame %dx%d (%v), want the bare 180x320 screen", cfg.Width, cfg.Height, err)
	}

	in, _ := os.ReadFile(filepath.Join(vec, "inputs", "synthetic_documented.pkl"))
	pkl := filepath.Join(dir, "demo_task.pkl")
	os.WriteFile(pkl, in, 0o644)
	// MODIFIERS missing: the original's empty modifier, refused before the file is touched
	if r := runCLI(t, "pickle", "edit", pkl); r.code != 1 || !strings.Contains(r.stderr, "IndexError") {
		t.Fatalf("edit without modifiers: %+v", r)
	}
	if _, err := os.Stat(pkl + ".old"); err == nil {
		t.Fatal("edit without modifiers touched the file")
	}
	// DEFDIR missing: not needed without instructionize; -1 is an index, not a flag
	if r := runCLI(t, "pickle", "edit", pkl, "-1:remove"); r.code != 0 {
		t.Fatalf("edit -1:remove without DEFDIR: %+v", r)
	}
	want, _ := os.ReadFile(filepath.Join(vec, "edit", "ed11_remove_negative_index", "expected", "expected_output.pkl"))
	if got, _ := os.ReadFile(pkl); len(want) == 0 || !bytes.Equal(got, want) {
		t.Fatal("edit -1:remove output differs from the original tool's")
	}
	if r := runCLI(t, "pickle", "edit", pkl, "0:rewardize:1:1", ".", "--compat"); r.code != 0 {
		t.Fatalf("edit with a trailing flag: %+v", r)
	}
}

// TestExportsThatWriteNothingFail: an export that wrote no frame or video says so and exits
// non-zero; a pickle with an incomplete array is an error naming the byte, not a crash.
func TestExportsThatWriteNothingFail(t *testing.T) {
	dir := t.TempDir()
	meta := mobileenv.NewDict()
	meta.Set("task_definition_id", mobileenv.NewStr("search"))
	root := mobileenv.NewDict()
	root.Set("meta", meta)
	root.Set("trajectories", &mobileenv.List{Items: []any{mobileenvtest.Trajectory("search-1", "Search", 0, 1)}})
	b, err := mobileenv.Encode(root)
	if err != nil {
		t.Fatal(err)
	}
	onlyInitial := filepath.Join(dir, "initial.pkl")
	os.WriteFile(onlyInitial, b, 0o644)
	for _, cmd := range []string{"visualize", "video"} {
		r := runCLI(t, "pickle", cmd, onlyInitial, filepath.Join(dir, cmd))
		if r.code != 1 || !strings.Contains(r.stderr, "wrote no") {
			t.Errorf("%s of initial records only: %+v", cmd, r)
		}
	}
	// a numpy array that BUILD never completes, as a step's observation (103 bytes of it)
	bad := filepath.Join(dir, "bad.pkl")
	os.WriteFile(bad, []byte("\x80\x02cnumpy.core.multiarray\n_reconstruct\ncnumpy\nndarray\nK\x00\x85C\x01b\x87R."), 0o644)
	for _, args := range [][]string{{"info", bad}, {"info", "--json", bad}, {"visualize", bad, filepath.Join(dir, "v2")}, {"video", bad, filepath.Join(dir, "v3")}} {
		r := runCLI(t, append([]string{"pickle"}, args...)...)
		if r.code != 1 || !strings.Contains(r.stderr, "byte 60 (REDUCE)") {
			t.Errorf("%v: %+v", args, r)
		}
	}
}
