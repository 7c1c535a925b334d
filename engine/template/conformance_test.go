package template

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/agentdesk/agentdesk/engine/conformance"
)

const area = "templates"

func readJSONFile(t *testing.T, path string, v any) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

// checkErrorCategory compares an error with the last line of the original's error.
func checkErrorCategory(t *testing.T, name string, err error, pyLine string) {
	t.Helper()
	want := PythonErrorCategories(pyLine)
	got := CategoryOf(err)
	if len(want) == 0 {
		t.Errorf("%s: cannot map the original's error %q to a category", name, pyLine)
		return
	}
	if !slices.Contains(want, got) {
		t.Errorf("%s: error category %q (%v), want one of %v (original: %s)", name, got, err, want, pyLine)
		return
	}
	var e *Error
	if asError(err, &e) && e.Python != "" && e.Python != strings.TrimSpace(pyLine) {
		t.Logf("%s: same category, different wording: %q vs original %q", name, e.Python, pyLine)
	}
}

func asError(err error, target **Error) bool {
	for err != nil {
		if e, ok := err.(*Error); ok {
			*target = e
			return true
		}
		u, ok := err.(interface{ Unwrap() error })
		if !ok {
			return false
		}
		err = u.Unwrap()
	}
	return false
}

func TestConformanceSlotVectors(t *testing.T) {
	var n int
	for _, file := range conformance.Files(t, area, "*.json") {
		var f struct {
			Conf  map[string]string `json:"conf"`
			Slots []struct {
				Line   string  `json:"line"`
				Output *string `json:"output"`
				Error  *string `json:"error"`
			} `json:"slot_vectors"`
			Mods []struct {
				Modifier string `json:"modifier"`
				Input    string `json:"input"`
				Output   string `json:"output"`
			} `json:"modifier_vectors"`
		}
		readJSONFile(t, file, &f)
		for _, c := range f.Slots {
			n++
			got, err := Render(c.Line, f.Conf)
			switch {
			case c.Error != nil:
				if err == nil {
					t.Errorf("%s: slot line %q: got %q, want error %s", filepath.Base(file), c.Line, got, *c.Error)
					continue
				}
				checkErrorCategory(t, c.Line, err, *c.Error)
			case err != nil:
				t.Errorf("%s: slot line %q: %v", filepath.Base(file), c.Line, err)
			case c.Output != nil && got != *c.Output:
				t.Errorf("%s: slot line %q:\n got %q\nwant %q", filepath.Base(file), c.Line, got, *c.Output)
			}
		}
		for _, c := range f.Mods {
			n++
			got, err := ApplyModifier(c.Modifier, c.Input)
			if err != nil || got != c.Output {
				t.Errorf("%s: %s(%q) = %q, %v; want %q", filepath.Base(file), c.Modifier, c.Input, got, err, c.Output)
			}
		}
		t.Logf("%s: %d slot vectors, %d modifier vectors", filepath.Base(file), len(f.Slots), len(f.Mods))
	}
	conformance.Report(t, "slot/modifier", n)
}

// splitVocabulary removes the vocabulary lines of a textproto and returns their values.
func splitVocabulary(t *testing.T, text string) (string, []string) {
	t.Helper()
	var rest strings.Builder
	var voc []string
	for _, line := range strings.SplitAfter(text, "\n") {
		if strings.HasPrefix(line, "vocabulary: ") {
			m, err := parseTask(line)
			if err != nil {
				t.Fatalf("vocabulary line %q: %v", line, err)
			}
			voc = append(voc, m.strs(taskVocabulary)...)
			continue
		}
		rest.WriteString(line)
	}
	return rest.String(), voc
}

func TestConformanceCases(t *testing.T) {
	dirs := conformance.Files(t, area, "cases/*/args.json")
	n := 0
	for _, argsFile := range dirs {
		dir := filepath.Dir(argsFile)
		name := filepath.Base(dir)
		t.Run(name, func(t *testing.T) {
			var args struct {
				Argv []string `json:"argv"`
			}
			readJSONFile(t, argsFile, &args)
			exp := func(f string) ([]byte, bool) {
				data, err := os.ReadFile(filepath.Join(dir, "expected", f))
				return data, err == nil
			}
			rcText, ok := exp("rc")
			if !ok {
				t.Fatal("expected/rc missing")
			}
			wantRC := strings.TrimSpace(string(rcText))
			// The expander runs in a copy of the case folder, as the original ran in the case
			// folder: every path of argv is taken as written; only OUTFILE is replaced (by a file
			// outside the copy, so the expected output is not overwritten).
			work := t.TempDir()
			conformance.CopyTree(t, dir, work)
			t.Chdir(work)
			outFile := filepath.Join(t.TempDir(), "output.textproto")
			argv := make([]string, len(args.Argv))
			for i, a := range args.Argv {
				if a == "OUTFILE" {
					a = outFile
				}
				argv[i] = a
			}
			pa, err := ParseCommandLine(argv)
			if err != nil {
				t.Fatal(err)
			}
			var stdout bytes.Buffer
			err = RunParse(pa, &stdout, nil)
			if wantRC != "0" {
				pyErr, _ := exp("error.txt")
				if err == nil {
					t.Fatalf("succeeded, want failure %s", pyErr)
				}
				checkErrorCategory(t, name, err, string(pyErr))
				if stdout.Len() != 0 {
					t.Errorf("failed but printed %q", stdout.String())
				}
				if pa.Output != "" {
					if _, err := os.Stat(pa.Output); err == nil {
						t.Errorf("failed but wrote the output file %s", pa.Output)
					}
				}
				t.Logf("fails as expected: %v", err)
				return
			}
			if err != nil {
				t.Fatalf("failed: %v", err)
			}
			got := stdout.String()
			want, _ := exp("stdout.txt")
			if pa.Output != "" {
				data, err := os.ReadFile(pa.Output)
				if err != nil {
					t.Fatal(err)
				}
				got = string(data)
				if w, ok := exp("output.textproto"); ok {
					want = w
				}
				if stdout.Len() != 0 {
					t.Errorf("stdout not empty with -o")
				}
			}
			gotRest, gotVoc := splitVocabulary(t, got)
			wantRest, wantVoc := splitVocabulary(t, string(want))
			if gotRest != wantRest {
				t.Errorf("output differs (vocabulary lines removed):\n%s", lineDiff(gotRest, wantRest))
			}
			var sorted []string
			if _, ok := exp("vocabulary.sorted.json"); ok {
				readJSONFile(t, filepath.Join(dir, "expected", "vocabulary.sorted.json"), &sorted)
			} else {
				sorted = wantVoc
			}
			sort.Strings(sorted)
			gv := slices.Clone(gotVoc)
			sort.Strings(gv)
			if !slices.Equal(gv, sorted) {
				t.Errorf("vocabulary %q, want the set %q", gotVoc, sorted)
			}
			if len(gotVoc) != len(wantVoc) {
				t.Errorf("%d vocabulary lines, want %d", len(gotVoc), len(wantVoc))
			}
		})
		n++
	}
	conformance.Report(t, "full expansion", n)
}

func lineDiff(got, want string) string {
	g, w := strings.Split(got, "\n"), strings.Split(want, "\n")
	for i := 0; i < len(g) || i < len(w); i++ {
		var a, b string
		if i < len(g) {
			a = g[i]
		}
		if i < len(w) {
			b = w[i]
		}
		if a != b {
			return "line " + itoa(i+1) + ":\n got " + a + "\nwant " + b
		}
	}
	return ""
}

// confLines splits a generated conf into its lines; an empty file (a template without slots)
// has none.
func confLines(text string) []string {
	text = strings.TrimSuffix(text, "\n")
	if text == "" {
		return []string{}
	}
	return strings.Split(text, "\n")
}

func TestConformanceInitConf(t *testing.T) {
	n := 0
	for _, argsFile := range conformance.Files(t, area, "init_conf/*/args.json") {
		dir := filepath.Dir(argsFile)
		t.Run(filepath.Base(dir), func(t *testing.T) {
			var args struct {
				Argv []string `json:"argv"`
				RC   *int     `json:"rc"`
			}
			readJSONFile(t, argsFile, &args)
			if len(args.Argv) != 3 {
				t.Fatalf("%s: argv %q", argsFile, args.Argv)
			}
			wantRC := 0
			if args.RC != nil {
				wantRC = *args.RC
			}
			// Run in a copy of the case folder (paths as written); the output folder argv[2] is
			// replaced by an empty folder outside it, and the expected file is always
			// expected/<the output's name> of the case.
			work := t.TempDir()
			conformance.CopyTree(t, dir, work)
			t.Chdir(work)
			outDir := t.TempDir()
			out, err := RunInit([]string{args.Argv[0], args.Argv[1], outDir}, nil)
			if wantRC != 0 {
				if err == nil {
					t.Errorf("%s: wrote %s, want a failure (rc %d)", dir, out, wantRC)
				}
				if entries, _ := os.ReadDir(outDir); len(entries) != 0 {
					t.Errorf("%s: failed but wrote %d files", dir, len(entries))
				}
				n++
				t.Logf("%s: fails as expected: %v", filepath.Base(dir), err)
				return
			}
			if err != nil {
				t.Fatalf("%s: %v", dir, err)
			}
			expFile := filepath.Join(dir, "expected", filepath.Base(out))
			want, err := os.ReadFile(expFile)
			if err != nil {
				t.Fatalf("%s: expected file for %s: %v", dir, filepath.Base(out), err)
			}
			got, _ := os.ReadFile(out)
			gotLines := confLines(string(got))
			wantLines := confLines(string(want))
			var extra []string
			for _, l := range gotLines {
				if !slices.Contains(wantLines, l) {
					extra = append(extra, l)
				}
			}
			for _, l := range wantLines {
				if !slices.Contains(gotLines, l) {
					t.Errorf("%s: missing line %q", dir, l)
				}
			}
			// the original-compatible pattern must find exactly the original's identifiers
			tmpl, _ := os.ReadFile(args.Argv[0]) // from the copy of the case folder (the working folder)
			orig := []string{}
			for _, id := range InitConfOriginalIdentifiers(string(tmpl)) {
				orig = append(orig, id+": "+InitConfValue)
			}
			sort.Strings(orig)
			ws := slices.Clone(wantLines)
			sort.Strings(ws)
			if !slices.Equal(orig, ws) {
				t.Errorf("%s: original-compatible identifiers %q, want %q", dir, orig, ws)
			}
			t.Logf("%s: %d lines as the original, extras (identifiers only in ' slots, a fixed defect): %q", filepath.Base(dir), len(wantLines), extra)
			n++
		})
	}
	conformance.Report(t, "init_conf", n)
}
