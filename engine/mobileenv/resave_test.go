package mobileenv

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/agentdesk/agentdesk/engine/conformance"
)

type resaveCmd struct {
	Argv          []string          `json:"argv"`
	RC            int               `json:"rc"`
	Textprotos    []string          `json:"textprotos"`
	ResavedBefore []string          `json:"resaved_before"`
	Rename        map[string]string `json:"rename_in_web_dumps"`
}

type resaveState struct {
	RC           int      `json:"rc"`
	Error        string   `json:"error"`
	ResavedAfter []string `json:"resaved_after"`
}

func setupResave(t *testing.T, caseDir string, cmd resaveCmd) string {
	area := areaDir(t)
	work := t.TempDir()
	copyTree(t, filepath.Join(area, "pickles/inputs/web-dumps"), filepath.Join(work, "web-dumps"))
	os.MkdirAll(filepath.Join(work, "textprotos"), 0o755)
	for _, tp := range cmd.Textprotos {
		b := mustRead(t, filepath.Join(area, "pickles/inputs/textprotos", tp))
		os.WriteFile(filepath.Join(work, "textprotos", tp), b, 0o644)
	}
	os.MkdirAll(filepath.Join(work, "resaved"), 0o755)
	for _, f := range cmd.ResavedBefore {
		b := mustRead(t, filepath.Join(caseDir, "setup/resaved", f))
		os.WriteFile(filepath.Join(work, "resaved", f), b, 0o644)
	}
	for from, to := range cmd.Rename {
		if err := os.Rename(filepath.Join(work, "web-dumps", from), filepath.Join(work, "web-dumps", to)); err != nil {
			t.Fatal(err)
		}
	}
	return work
}

func listDir(t *testing.T, dir string) []string {
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range es {
		out = append(out, e.Name())
	}
	sort.Strings(out)
	return out
}

// TestConformanceResave runs every resave case in compatibility and default mode.
func TestConformanceResave(t *testing.T) {
	cmds := conformance.Files(t, "mobileenv", "pickles/resave/*/cmd.json")
	n := 0
	for _, cmdPath := range cmds {
		caseDir := filepath.Dir(cmdPath)
		t.Run(filepath.Base(caseDir), func(t *testing.T) {
			var cmd resaveCmd
			if err := json.Unmarshal(mustRead(t, cmdPath), &cmd); err != nil {
				t.Fatal(err)
			}
			var want resaveState
			if err := json.Unmarshal(mustRead(t, filepath.Join(caseDir, "expected/state.json")), &want); err != nil {
				t.Fatal(err)
			}
			args := append([]string{}, cmd.Argv...)
			for len(args) < 3 {
				args = append(args, []string{"", "pkl_resaved", "textprotos"}[len(args)])
			}
			for _, compat := range []bool{true, false} {
				work := setupResave(t, caseDir, cmd)
				t.Chdir(work)
				var stdout bytes.Buffer
				_, err := Resave(args[0], args[1], args[2], ResaveOptions{Stdout: &stdout, Compat: compat})
				rc := 0
				if err != nil {
					rc = 1
				}
				if !compat && len(cmd.ResavedBefore) > 0 && errors.Is(err, ErrExists) {
					t.Logf("default mode refuses to overwrite: %v", err)
					continue
				}
				if rc != want.RC {
					t.Fatalf("compat=%v: rc %d (%v), want %d", compat, rc, err, want.RC)
				}
				if err != nil && want.Error != "" {
					last := strings.TrimSpace(want.Error[strings.LastIndex(strings.TrimSpace(want.Error), "\n")+1:])
					if PyErrorLine(err) != last {
						t.Errorf("error line %q, want %q (%v)", PyErrorLine(err), last, err)
					}
				}
				if exp, err := os.ReadFile(filepath.Join(caseDir, "expected/stdout.txt")); err == nil && stdout.String() != string(exp) {
					t.Errorf("stdout %q, want %q", stdout.String(), exp)
				}
				if compat || rc == 0 {
					got := listDir(t, filepath.Join(work, "resaved"))
					if strings.Join(got, ",") != strings.Join(want.ResavedAfter, ",") {
						t.Errorf("compat=%v: resaved/ holds %v, want %v", compat, got, want.ResavedAfter)
					}
				}
				expFiles, _ := filepath.Glob(filepath.Join(caseDir, "expected/resaved/*.pkl"))
				for _, ef := range expFiles {
					got, err := os.ReadFile(filepath.Join(work, "resaved", filepath.Base(ef)))
					if err != nil {
						t.Errorf("compat=%v: %v", compat, err)
						continue
					}
					exp := mustRead(t, ef)
					if !bytes.Equal(got, exp) {
						t.Errorf("compat=%v: %s differs: %s", compat, filepath.Base(ef), firstByteDiff(got, exp))
					}
				}
			}
		})
		n++
	}
	conformance.Report(t, "resave", n)
}

func TestResaveRefusesAndMerges(t *testing.T) {
	cmd := resaveCmd{Textprotos: []string{"demo_task.textproto", "other.textproto", "unrelated.textproto"}}
	work := setupResave(t, "", cmd)
	t.Chdir(work)
	if _, err := Resave("web-dumps/anno.%d.pkl:0:0", "resaved", "textprotos", ResaveOptions{}); err != nil {
		t.Fatal(err)
	}
	first, _ := Info("resaved/demo_task.pkl")
	if _, err := Resave("web-dumps/anno.%d.pkl:2:3", "resaved", "textprotos", ResaveOptions{}); !errors.Is(err, ErrExists) {
		t.Fatalf("overwrite not refused: %v", err)
	}
	if tmps, _ := filepath.Glob("resaved/*.tmp.pkl"); len(tmps) != 0 {
		t.Fatalf("refusal left %v", tmps)
	}
	if _, err := Resave("web-dumps/anno.%d.pkl:2:3", "resaved", "textprotos", ResaveOptions{Merge: true}); err != nil {
		t.Fatal(err)
	}
	merged, _ := Info("resaved/demo_task.pkl")
	if len(merged.Trajectories) <= len(first.Trajectories) {
		t.Fatalf("merge lost trajectories: %d then %d", len(first.Trajectories), len(merged.Trajectories))
	}
	t.Logf("merged %d + new = %d trajectories", len(first.Trajectories), len(merged.Trajectories))
}

func TestPyFormatInt(t *testing.T) {
	cases := map[string]string{"a.%d.pkl": "a.7.pkl", "%03d": "007", "x%%%d": "x%7", "%-3d|": "7  |", "%+d": "+7", "%s": "7", "%x": "7", "%.2d": "07"}
	for p, want := range cases {
		if got, err := PyFormatInt(p, 7); err != nil || got != want {
			t.Errorf("%q %% 7 = %q, %v; want %q", p, got, err, want)
		}
	}
	for _, p := range []string{"none", "%d%d", "%", "%q"} {
		if _, err := PyFormatInt(p, 1); err == nil {
			t.Errorf("%q accepted", p)
		}
	}
	if s, err := ParseResaveSpec("c:/dumps/a.%d.pkl:0:4"); err != nil || s.Pattern != "c:/dumps/a.%d.pkl" || s.Start != 0 || s.End != 4 {
		t.Errorf("ParseResaveSpec: %+v %v", s, err)
	}
}
