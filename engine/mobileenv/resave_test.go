package mobileenv

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/agentdesk/agentdesk/engine/conformance"
)

type resaveCmd struct {
	Argv          []string `json:"argv"`
	RC            int      `json:"rc"`
	Textprotos    []string `json:"textprotos"`
	ResavedBefore []string `json:"resaved_before"`
	// Rename is rename_in_web_dumps: {"from": "to", ...} (read in the file's order) or a list
	// of [from, to] pairs; see renames.
	Rename json.RawMessage `json:"rename_in_web_dumps"`
}

// renames returns the renames of rename_in_web_dumps in the order of the file, from an object
// ({"from": "to", ...}; a map would lose the order) or a list of [from, to] pairs.
func (c resaveCmd) renames() ([][2]string, error) {
	raw := bytes.TrimSpace(c.Rename)
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	if raw[0] == '[' {
		var pairs [][]string
		if err := json.Unmarshal(raw, &pairs); err != nil {
			return nil, fmt.Errorf("rename_in_web_dumps: %w", err)
		}
		out := make([][2]string, 0, len(pairs))
		for _, p := range pairs {
			if len(p) != 2 {
				return nil, fmt.Errorf("rename_in_web_dumps: %q is not a [from, to] pair", p)
			}
			out = append(out, [2]string{p[0], p[1]})
		}
		return out, nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, fmt.Errorf("rename_in_web_dumps: want an object or a list of pairs, not %s", raw)
	}
	var out [][2]string
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, fmt.Errorf("rename_in_web_dumps: %w", err)
		}
		var to string
		if err := dec.Decode(&to); err != nil {
			return nil, fmt.Errorf("rename_in_web_dumps: %w", err)
		}
		out = append(out, [2]string{tok.(string), to})
	}
	return out, nil
}

// originalDumpName maps the name of a web-dump file after a case's renames back to the name
// of the file in pickles/inputs/web-dumps it came from.
func originalDumpName(renames [][2]string, name string) string {
	for _, r := range renames {
		if r[1] == name {
			return r[0]
		}
	}
	return name
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
		// taken from the case's setup/resaved/ when it is there, empty otherwise
		b, err := os.ReadFile(filepath.Join(caseDir, "setup/resaved", f))
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(work, "resaved", f), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	renames, err := cmd.renames()
	if err != nil {
		t.Fatal(err)
	}
	// All at once, through temporary names, so that swaps and chains (a→b, b→c) work.
	dumps := filepath.Join(work, "web-dumps")
	for i, r := range renames {
		if err := os.Rename(filepath.Join(dumps, r[0]), filepath.Join(dumps, fmt.Sprintf(".renaming-%d", i))); err != nil {
			t.Fatal(err)
		}
	}
	for i, r := range renames {
		if err := os.Rename(filepath.Join(dumps, fmt.Sprintf(".renaming-%d", i)), filepath.Join(dumps, r[1])); err != nil {
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
				res, err := Resave(context.Background(), args[0], args[1], args[2], ResaveOptions{Stdout: &stdout, Compat: compat})
				// A temporary file in the set-up is what an interrupted run left: the original
				// reads it into its output, this one discards it (issue 12) and says so. The
				// files it would have fed are not compared then.
				staleDefs := map[string]bool{}
				for _, f := range cmd.ResavedBefore {
					if def, ok := strings.CutSuffix(f, ".tmp.pkl"); ok {
						staleDefs[def+".pkl"] = true
						if !slices.Contains(res.Discarded, filepath.Join(args[1], f)) {
							t.Errorf("compat=%v: stale %s not reported as discarded (%v)", compat, f, res.Discarded)
						}
					}
				}
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
				if (compat || rc == 0) && len(staleDefs) == 0 {
					got := listDir(t, filepath.Join(work, "resaved"))
					if strings.Join(got, ",") != strings.Join(want.ResavedAfter, ",") {
						t.Errorf("compat=%v: resaved/ holds %v, want %v", compat, got, want.ResavedAfter)
					}
				}
				expFiles, _ := filepath.Glob(filepath.Join(caseDir, "expected/resaved/*.pkl"))
				for _, ef := range expFiles {
					if staleDefs[filepath.Base(ef)] {
						continue
					}
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
	if _, err := Resave(context.Background(), "web-dumps/anno.%d.pkl:0:0", "resaved", "textprotos", ResaveOptions{}); err != nil {
		t.Fatal(err)
	}
	first, _ := Info("resaved/demo_task.pkl")
	if _, err := Resave(context.Background(), "web-dumps/anno.%d.pkl:2:3", "resaved", "textprotos", ResaveOptions{}); !errors.Is(err, ErrExists) {
		t.Fatalf("overwrite not refused: %v", err)
	}
	if tmps, _ := filepath.Glob("resaved/*.tmp.pkl"); len(tmps) != 0 {
		t.Fatalf("refusal left %v", tmps)
	}
	if _, err := Resave(context.Background(), "web-dumps/anno.%d.pkl:2:3", "resaved", "textprotos", ResaveOptions{Merge: true}); err != nil {
		t.Fatal(err)
	}
	merged, _ := Info("resaved/demo_task.pkl")
	if len(merged.Trajectories) <= len(first.Trajectories) {
		t.Fatalf("merge lost trajectories: %d then %d", len(first.Trajectories), len(merged.Trajectories))
	}
	t.Logf("merged %d + new = %d trajectories", len(first.Trajectories), len(merged.Trajectories))

	// The same merge again (say after an interruption) adds nothing: no duplicates.
	before := mustRead(t, "resaved/demo_task.pkl")
	res, err := Resave(context.Background(), "web-dumps/anno.%d.pkl:2:3", "resaved", "textprotos", ResaveOptions{Merge: true})
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(mustRead(t, "resaved/demo_task.pkl"), before) || !slices.Contains(res.Unchanged, filepath.Join("resaved", "demo_task.pkl")) {
		t.Fatalf("repeating the merge changed the file: %+v", res)
	}
	if res.Duplicates[filepath.Join("resaved", "demo_task.pkl")] == 0 {
		t.Fatalf("duplicates not counted: %+v", res)
	}
	// Without --merge, a target holding exactly what would be written is left as it is (a
	// run repeated after an interruption); other content is refused.
	if _, err := Resave(context.Background(), "web-dumps/anno.%d.pkl:0:0", "fresh", "textprotos", ResaveOptions{}); err == nil {
		t.Fatal("a missing output folder accepted")
	}
	os.Mkdir("fresh", 0o755)
	for range 2 {
		res, err := Resave(context.Background(), "web-dumps/anno.%d.pkl:0:4", "fresh", "textprotos", ResaveOptions{})
		if err != nil {
			t.Fatalf("resave into its own output: %v", err)
		}
		t.Logf("written %v, unchanged %v", res.Written, res.Unchanged)
	}
}

// TestResaveDiscardsStaleTemporaries: an interrupted run leaves <definition>.tmp.pkl (the
// original's names, kept in --compat mode) holding what it had appended. The next run, in
// either mode, reports and discards it instead of reading it into its output (the original
// would, duplicating trajectories).
func TestResaveDiscardsStaleTemporaries(t *testing.T) {
	cmd := resaveCmd{Textprotos: []string{"demo_task.textproto", "other.textproto", "unrelated.textproto"}}
	for _, compat := range []bool{true, false} {
		clean := setupResave(t, "", cmd)
		t.Chdir(clean)
		if _, err := Resave(context.Background(), "web-dumps/anno.%d.pkl:0:4", "resaved", "textprotos", ResaveOptions{Compat: compat}); err != nil {
			t.Fatal(err)
		}
		want := mustRead(t, filepath.Join(clean, "resaved/demo_task.pkl"))

		work := setupResave(t, "", cmd)
		t.Chdir(work)
		// what a run killed while appending leaves (its content does not matter: it is
		// never read)
		if err := os.WriteFile("resaved/demo_task.tmp.pkl", mustRead(t, "web-dumps/anno.0.pkl"), 0o644); err != nil {
			t.Fatal(err)
		}
		res, err := Resave(context.Background(), "web-dumps/anno.%d.pkl:0:4", "resaved", "textprotos", ResaveOptions{Compat: compat})
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Contains(res.Discarded, filepath.Join("resaved", "demo_task.tmp.pkl")) {
			t.Errorf("compat=%v: stale file not reported: %+v", compat, res)
		}
		if got := mustRead(t, "resaved/demo_task.pkl"); !bytes.Equal(got, want) {
			t.Errorf("compat=%v: output differs from a clean run's (%d bytes, want %d)", compat, len(got), len(want))
		}
		if left := listDir(t, "resaved"); strings.Join(left, ",") != "demo_task.pkl,other.pkl" {
			t.Errorf("compat=%v: resaved/ holds %v", compat, left)
		}
	}
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
