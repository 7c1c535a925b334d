package mobileenv

import (
	"bytes"
	"encoding/json"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentdesk/agentdesk/engine/conformance"
)

type editCmd struct {
	Argv  []string `json:"argv"`
	Input string   `json:"input"`
	RC    int      `json:"rc"`
}

type fileState struct {
	RC        int    `json:"rc"`
	PklExists bool   `json:"demo_task.pkl exists"`
	OldExists bool   `json:"demo_task.pkl.old exists"`
	OldEqIn   bool   `json:"old equals input"`
	PklEqIn   bool   `json:"pkl equals input"`
	Error     string `json:"error"`
}

// setupEditCase builds the working folder of an edit case and returns it with the input bytes.
func setupEditCase(t *testing.T, caseDir string, cmd editCmd, name string) (string, []byte) {
	area := areaDir(t)
	work := t.TempDir()
	in := filepath.Join(area, cmd.Input)
	if _, err := os.Stat(filepath.Join(caseDir, "input.pkl")); err == nil {
		in = filepath.Join(caseDir, "input.pkl")
	}
	input := mustRead(t, in)
	if err := os.MkdirAll(filepath.Dir(filepath.Join(work, name)), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(work, name), input, 0o644); err != nil {
		t.Fatal(err)
	}
	copyTree(t, filepath.Join(area, "pickles/inputs/textprotos"), filepath.Join(work, "textprotos"))
	return work, input
}

// TestConformanceEdit runs every edit case in compatibility mode (the original's failure
// states) and checks the output bytes, canonical JSON and files left behind; then runs the
// successful cases in the default (validating, safe) mode and checks the same output.
func TestConformanceEdit(t *testing.T) {
	cmds := conformance.Files(t, "mobileenv", "pickles/edit/*/cmd.json")
	n := 0
	for _, cmdPath := range cmds {
		caseDir := filepath.Dir(cmdPath)
		t.Run(filepath.Base(caseDir), func(t *testing.T) {
			var cmd editCmd
			if err := json.Unmarshal(mustRead(t, cmdPath), &cmd); err != nil {
				t.Fatal(err)
			}
			var want fileState
			if err := json.Unmarshal(mustRead(t, filepath.Join(caseDir, "expected/file_state.json")), &want); err != nil {
				t.Fatal(err)
			}
			mods, defs := "", ""
			if len(cmd.Argv) > 1 {
				mods = cmd.Argv[1]
			}
			if len(cmd.Argv) > 2 {
				defs = cmd.Argv[2]
			}
			name := "demo_task.pkl"
			if len(cmd.Argv) > 0 {
				name = cmd.Argv[0]
			}
			for _, compat := range []bool{true, false} {
				work, input := setupEditCase(t, caseDir, cmd, name)
				// As the original was run: from the folder, with the arguments as given.
				t.Chdir(work)
				pkl := filepath.Join(work, name)
				_, err := Edit(name, mods, defs, EditOptions{Compat: compat})
				rc := 0
				if err != nil {
					rc = 1
				}
				if rc != want.RC {
					t.Fatalf("compat=%v: rc %d (err %v), want %d", compat, rc, err, want.RC)
				}
				if err != nil && want.Error != "" && PyErrorLine(err) != want.Error {
					t.Errorf("compat=%v: error line %q, want %q (%v)", compat, PyErrorLine(err), want.Error, err)
				}
				cur, errCur := os.ReadFile(pkl)
				old, errOld := os.ReadFile(pkl + ".old")
				if compat {
					if (errCur == nil) != want.PklExists || (errOld == nil) != want.OldExists {
						t.Fatalf("compat: pkl exists %v old exists %v, want %v %v", errCur == nil, errOld == nil, want.PklExists, want.OldExists)
					}
					if want.OldEqIn && !bytes.Equal(old, input) {
						t.Errorf("compat: .old differs from the input")
					}
					if want.OldExists && !want.OldEqIn && bytes.Equal(old, input) {
						t.Errorf("compat: .old equals the input, want it to differ")
					}
					if want.PklEqIn && !bytes.Equal(cur, input) {
						t.Errorf("compat: %s differs from the input, want it unchanged", name)
					}
				} else if rc != 0 {
					// the default mode validates first: nothing is touched on failure
					if !bytes.Equal(cur, input) || errOld == nil {
						t.Errorf("safe mode touched files on failure")
					}
				}
				if rc == 0 {
					exp := mustRead(t, filepath.Join(caseDir, "expected/expected_output.pkl"))
					if !bytes.Equal(cur, exp) {
						t.Errorf("compat=%v: output bytes differ: %s", compat, firstByteDiff(cur, exp))
						v, err := Decode(cur)
						if err != nil {
							t.Fatal(err)
						}
						j, _ := CanonicalJSON(v)
						g, w := normJSON(t, j), normJSON(t, mustRead(t, filepath.Join(caseDir, "expected/expected_output.json")))
						if g != w {
							t.Errorf("canonical JSON differs %s", firstDiff(g, w))
						}
					}
					if !bytes.Equal(old, input) {
						t.Errorf("compat=%v: .old is not the input", compat)
					}
				}
			}
		})
		n++
	}
	conformance.Report(t, "edit", n)
}

func TestEditKeepsExistingBackup(t *testing.T) {
	area := areaDir(t)
	work := t.TempDir()
	input := mustRead(t, filepath.Join(area, "pickles/inputs/synthetic_documented.pkl"))
	pkl := filepath.Join(work, "demo_task.pkl")
	os.WriteFile(pkl, input, 0o644)
	os.WriteFile(pkl+".old", []byte("precious"), 0o644)
	if _, err := Edit(pkl, "0:delete:1:2", "", EditOptions{}); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(pkl + ".old.1"); string(b) != "precious" {
		t.Fatalf(".old.1 = %q", b)
	}
	if b, _ := os.ReadFile(pkl + ".old"); !bytes.Equal(b, input) {
		t.Fatal(".old is not the previous content")
	}
	if _, err := Edit(pkl, "0:delete:x:2", "", EditOptions{}); err == nil || !strings.Contains(err.Error(), "ValueError") {
		t.Fatalf("bad int accepted: %v", err)
	}
	if _, err := Edit(pkl, "0:explode", "", EditOptions{}); err == nil || !strings.Contains(err.Error(), "KeyError") {
		t.Fatalf("unknown modifier accepted: %v", err)
	}
	if _, err := Edit(pkl, "0:delete:1", "", EditOptions{}); err == nil || !strings.Contains(err.Error(), "TypeError") {
		t.Fatalf("wrong arity accepted: %v", err)
	}
}

func TestPyNumbers(t *testing.T) {
	ints := map[string]int{" 3 ": 3, "+4": 4, "-1": -1, "1_0": 10, "007": 7}
	for s, want := range ints {
		if got, err := PyInt(s); err != nil || got != want {
			t.Errorf("PyInt(%q) = %d, %v", s, got, err)
		}
	}
	for _, s := range []string{"", "1__0", "_1", "1_", "0x10", "1.0", "- 1"} {
		if _, err := PyInt(s); err == nil {
			t.Errorf("PyInt(%q) accepted", s)
		}
	}
	floats := map[string]float64{"1e-3": 0.001, " 2 ": 2, "1_0": 10, ".5": 0.5, "5.": 5, "-0.25": -0.25}
	for s, want := range floats {
		if got, err := PyFloat(s); err != nil || got != want {
			t.Errorf("PyFloat(%q) = %v, %v", s, got, err)
		}
	}
	for _, s := range []string{"inf", "-Infinity", "nan", "NaN"} {
		if _, err := PyFloat(s); err != nil {
			t.Errorf("PyFloat(%q): %v", s, err)
		}
	}
	for _, s := range []string{"", ".", "e5", "1e", "0x1p3", "1_.0", "abc"} {
		if _, err := PyFloat(s); err == nil {
			t.Errorf("PyFloat(%q) accepted", s)
		}
	}
}

func TestModifierRoundTrip(t *testing.T) {
	for _, s := range []string{"0:delete:1:3", "1:rewardize:2:0.5", "-1:remove", "0:instructionize:2:-1,0:auto_instructionize"} {
		mods, err := ParseModifiers(s)
		if err != nil {
			t.Fatal(err)
		}
		if got := FormatModifiers(mods); got != s {
			t.Errorf("%q formats back as %q", s, got)
		}
	}
	if _, err := ParseModifiers(""); err == nil || !strings.Contains(err.Error(), "IndexError") {
		t.Errorf("empty modifier string: %v", err)
	}
}

// TestModifiersForMatchesDirectEdits: random pending edits in original coordinates, applied
// directly to a model, equal the result of applying the generated modifier string.
func TestModifiersForMatchesDirectEdits(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	for iter := 0; iter < 300; iter++ {
		nt := 1 + rng.Intn(4)
		lens := make([]int, nt)
		trajs := &List{}
		model := make([][]*Dict, nt) // by original index; nil entries deleted
		aliveT := make([]bool, nt)
		for t0 := range lens {
			lens[t0] = 1 + rng.Intn(6)
			l := &List{}
			for j := 0; j < lens[t0]; j++ {
				d := &Dict{}
				d.Set("id", int64(t0*100+j))
				l.Items = append(l.Items, d)
				model[t0] = append(model[t0], d)
			}
			trajs.Items = append(trajs.Items, l)
			aliveT[t0] = true
		}
		var pending []PendingEdit
		counts := map[*Dict]int{}
		for k := 0; k < 1+rng.Intn(5); k++ {
			tt := rng.Intn(nt)
			if !aliveT[tt] {
				continue
			}
			switch rng.Intn(3) {
			case 0:
				s := rng.Intn(lens[tt])
				e := s + rng.Intn(3)
				pending = append(pending, PendingEdit{Op: "delete", Traj: tt, Start: s, End: e})
				for j := s; j < e && j < lens[tt]; j++ {
					model[tt][j] = nil
				}
			case 1:
				j := rng.Intn(lens[tt])
				if model[tt][j] == nil {
					continue
				}
				pending = append(pending, PendingEdit{Op: "rewardize", Traj: tt, Start: j, Delta: 0.5})
				counts[model[tt][j]]++
			case 2:
				pending = append(pending, PendingEdit{Op: "remove", Traj: tt})
				aliveT[tt] = false
			}
		}
		s, err := ModifiersFor(pending, lens)
		if err != nil {
			t.Fatal(err)
		}
		if s != "" {
			mods, err := ParseModifiers(s)
			if err != nil {
				t.Fatalf("%q: %v", s, err)
			}
			if err := ApplyModifiers(trajs, mods, nil); err != nil {
				t.Fatalf("%q: %v", s, err)
			}
		}
		var want [][]int64
		for t0 := 0; t0 < nt; t0++ {
			if !aliveT[t0] {
				continue
			}
			var ids []int64
			for _, d := range model[t0] {
				if d != nil {
					id, _ := d.Get("id")
					ids = append(ids, id.(int64))
				}
			}
			want = append(want, ids)
		}
		if len(want) != len(trajs.Items) {
			t.Fatalf("%q: %d trajectories, want %d", s, len(trajs.Items), len(want))
		}
		for i, tv := range trajs.Items {
			l := tv.(*List)
			if len(l.Items) != len(want[i]) {
				t.Fatalf("%q: trajectory %d has %d records, want %d", s, i, len(l.Items), len(want[i]))
			}
			for j, it := range l.Items {
				id, _ := it.(*Dict).Get("id")
				if id.(int64) != want[i][j] {
					t.Fatalf("%q: trajectory %d record %d is %d, want %d", s, i, j, id, want[i][j])
				}
				if c := counts[it.(*Dict)]; c > 0 {
					r, _ := it.(*Dict).Get("reward")
					if r != 0.5*float64(c) {
						t.Fatalf("%q: reward %v want %v", s, r, 0.5*float64(c))
					}
				}
			}
		}
	}
}

// TestEditErrorLinesAsPython: the last line the original prints for each kind of bad modifier,
// byte for byte (the functions' real signatures: partial(f, *params)(local_dict, trajectory)),
// in the original's order of evaluation, the same in compatibility and default mode.
func TestEditErrorLinesAsPython(t *testing.T) {
	area := areaDir(t)
	input := mustRead(t, filepath.Join(area, "pickles/inputs/synthetic_documented.pkl")) // 2 trajectories
	cases := map[string]string{
		"0:delete":                "TypeError: delete() missing 2 required positional arguments: 'local_dict' and 'trajectory'",
		"0:delete:1":              "TypeError: delete() missing 1 required positional argument: 'trajectory'",
		"0:delete:1:2:3":          "TypeError: delete() takes 4 positional arguments but 5 were given",
		"1:rewardize:1":           "TypeError: rewardize() missing 1 required positional argument: 'trajectory'",
		"0:instructionize:1:2:3":  "TypeError: instructionize() takes 4 positional arguments but 5 were given",
		"0:auto_instructionize:1": "TypeError: auto_instructionize() takes 2 positional arguments but 3 were given",
		"5:remove":                "IndexError: list assignment index out of range",
		"-3:remove":               "IndexError: list assignment index out of range",
		"5:delete":                "IndexError: list index out of range", // the trajectory is looked up before the call
		"x:delete:1:2":            "ValueError: invalid literal for int() with base 10: 'x'",
		"0:delete:a:2":            "ValueError: invalid literal for int() with base 10: 'a'",
		"0:explode:1":             "KeyError: 'explode'",
		"7:explode":               "KeyError: 'explode'", // the name is looked up first
	}
	for mods, want := range cases {
		for _, compat := range []bool{true, false} {
			work := t.TempDir()
			pkl := filepath.Join(work, "demo_task.pkl")
			os.WriteFile(pkl, input, 0o644)
			_, err := Edit(pkl, mods, filepath.Join(area, "pickles/inputs/textprotos"), EditOptions{Compat: compat})
			if err == nil {
				t.Errorf("%s (compat %v): no error", mods, compat)
				continue
			}
			if got := PyErrorLine(err); got != want {
				t.Errorf("%s (compat %v): %q, want %q", mods, compat, got, want)
			}
		}
	}
}

// TestVisualizeScreenArrays: observations the original's Image.fromarray refuses fail in
// --compat with its error line, and are converted, with one warning, otherwise.
func TestVisualizeScreenArrays(t *testing.T) {
	area := areaDir(t)
	pkl := filepath.Join(area, "pickles/inputs/synthetic_documented.pkl") // float32 observations
	t.Chdir(t.TempDir())
	_, err := Visualize(pkl, "strict", VisualizeOptions{FrameOptions: FrameOptions{Strict: true}})
	if got := PyErrorLine(err); got != "TypeError: Cannot handle this data type: (1, 1, 3), <f4" {
		t.Fatalf("compat: %q (%v)", got, err)
	}
	var warn bytes.Buffer
	folders, err := Visualize(pkl, "lenient", VisualizeOptions{Warn: &warn})
	if err != nil || len(folders) == 0 {
		t.Fatalf("lenient: %v %v", folders, err)
	}
	if n := strings.Count(warn.String(), "warning:"); n != 1 || !strings.Contains(warn.String(), "<f4") {
		t.Fatalf("warnings: %q", warn.String())
	}
	for obs, want := range map[any]string{
		&NDArray{DType: &DType{Kind: 'f', Size: 8, Endian: '<'}, Shape: []int{4, 4, 3}}: "TypeError: Cannot handle this data type: (1, 1, 3), <f8",
		&NDArray{DType: &DType{Kind: 'u', Size: 1}, Shape: []int{4, 4, 5}}:              "TypeError: Cannot handle this data type: (1, 1, 5), |u1",
		&NDArray{DType: &DType{Kind: 'u', Size: 1}, Shape: []int{4, 4}}:                 "ValueError: not enough values to unpack (expected 3, got 2)",
		&List{}: "AttributeError: 'list' object has no attribute 'shape'",
	} {
		if got := PyErrorLine(PillowObservationError(obs)); got != want {
			t.Errorf("%v: %q, want %q", obs, got, want)
		}
	}
	if err := PillowObservationError(&NDArray{DType: &DType{Kind: 'u', Size: 1}, Shape: []int{4, 4, 3}}); err != nil {
		t.Errorf("uint8 RGB refused: %v", err)
	}
}
