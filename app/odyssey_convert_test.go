package app

import (
	"bytes"
	"encoding/json"
	"image"
	"image/png"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/agentdesk/agentdesk/engine/conformance"
)

// converterCase is a case.json of the odyssey-converter conformance area.
type converterCase struct {
	Dataset string  `json:"dataset"` // relative to the area folder
	Split   string  `json:"split"`
	HisLen  int     `json:"his_len"`
	Level   string  `json:"level"`
	Type    string  `json:"type"`
	Seed    *uint64 `json:"seed"`
}

// converterDataset copies a conformance dataset (annotations/, splits/) to dir and gives it a
// 1x1 PNG for every screenshot its annotations name.
func converterDataset(t *testing.T, src, dir string) {
	t.Helper()
	conformance.CopyTree(t, filepath.Join(src, "annotations"), filepath.Join(dir, "annotations"))
	conformance.CopyTree(t, filepath.Join(src, "splits"), filepath.Join(dir, "splits"))
	var pngData bytes.Buffer
	if err := png.Encode(&pngData, image.NewRGBA(image.Rect(0, 0, 1, 1))); err != nil {
		t.Fatal(err)
	}
	shots := filepath.Join(dir, "screenshots")
	if err := os.MkdirAll(shots, 0o755); err != nil {
		t.Fatal(err)
	}
	anns, _ := filepath.Glob(filepath.Join(dir, "annotations", "*.json"))
	if len(anns) == 0 {
		t.Fatalf("%s has no annotations/*.json", src)
	}
	for _, f := range anns {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var ep struct {
			Steps []struct {
				Screenshot string `json:"screenshot"`
			} `json:"steps"`
		}
		if err := json.Unmarshal(data, &ep); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		for _, s := range ep.Steps {
			if err := os.WriteFile(filepath.Join(shots, filepath.Base(s.Screenshot)), pngData.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// withoutPrefixes decodes JSON and removes every prefix from every text in it (keys too).
func withoutPrefixes(t *testing.T, file string, data []byte, prefixes []string) any {
	t.Helper()
	var v any
	if err := json.Unmarshal(data, &v); err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	var walk func(any) any
	strip := func(s string) string {
		for _, p := range prefixes {
			s = strings.ReplaceAll(s, p, "")
		}
		return s
	}
	walk = func(v any) any {
		switch x := v.(type) {
		case string:
			return strip(x)
		case []any:
			for i := range x {
				x[i] = walk(x[i])
			}
		case map[string]any:
			m := make(map[string]any, len(x))
			for k, val := range x {
				m[strip(k)] = walk(val)
			}
			return m
		}
		return v
	}
	return walk(v)
}

// relFiles lists the files under dir, relative to it.
func relFiles(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		out = append(out, filepath.ToSlash(rel))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(out)
	return out
}

// multiset is the records of a JSON list as sorted canonical texts.
func multiset(t *testing.T, v any) []string {
	t.Helper()
	list, ok := v.([]any)
	if !ok {
		t.Fatalf("not a list: %T", v)
	}
	out := make([]string, len(list))
	for i, r := range list {
		b, _ := json.Marshal(r) // maps marshal with sorted keys
		out[i] = string(b)
	}
	sort.Strings(out)
	return out
}

// TestOdysseyConvertConformance runs `odyssey convert` on every case of the odyssey-converter
// area (datasets imported into a temporary store) and compares its files with what the
// original format_converter.py wrote: JSON-equal, and the shuffled semantic chats as a
// multiset of records.
func TestOdysseyConvertConformance(t *testing.T) {
	area := conformance.Dir(t, "odyssey-converter")
	caseFiles, _ := filepath.Glob(filepath.Join(area, "*", "case.json"))
	sort.Strings(caseFiles)
	read, files, identical := 0, 0, 0
	for _, cf := range caseFiles {
		name := filepath.Base(filepath.Dir(cf))
		t.Run(name, func(t *testing.T) {
			data, err := os.ReadFile(cf)
			if err != nil {
				t.Fatal(err)
			}
			var c converterCase
			if err := json.Unmarshal(data, &c); err != nil {
				t.Fatalf("%s: %v", cf, err)
			}
			if c.Dataset == "" || c.Split == "" || c.Level == "" || c.Type == "" {
				t.Fatalf("%s: dataset, split, level and type are required", cf)
			}
			dir := isolate(t)
			ds := filepath.Join(dir, "dataset")
			converterDataset(t, filepath.Join(area, filepath.FromSlash(c.Dataset)), ds)
			db := filepath.Join(dir, "s.db")
			if r := runCLI(t, "--store", db, "odyssey", "import", ds); r.code != 0 {
				t.Fatalf("import: %+v", r)
			}
			out := filepath.Join(dir, "out")
			args := []string{"--store", db, "odyssey", "convert", "--split", c.Split, "--his_len", strconv.Itoa(c.HisLen),
				"--level", c.Level, "--type", c.Type}
			if c.Seed != nil {
				args = append(args, "--seed", strconv.FormatUint(*c.Seed, 10))
			}
			if r := runCLI(t, append(args, out)...); r.code != 0 {
				t.Fatalf("convert: %+v", r)
			}
			prefixes := []string{ds + string(filepath.Separator)}
			if real, err := filepath.EvalSymlinks(ds); err == nil && real != ds {
				prefixes = append(prefixes, real+string(filepath.Separator))
			}
			expDir := filepath.Join(filepath.Dir(cf), "expected")
			want, got := relFiles(t, expDir), relFiles(t, out)
			if !reflect.DeepEqual(want, got) {
				t.Fatalf("files: got %v, want %v", got, want)
			}
			for _, rel := range want {
				wantData, err := os.ReadFile(filepath.Join(expDir, rel))
				if err != nil {
					t.Fatal(err)
				}
				gotData, err := os.ReadFile(filepath.Join(out, rel))
				if err != nil {
					t.Fatal(err)
				}
				w := withoutPrefixes(t, rel, wantData, nil)
				g := withoutPrefixes(t, rel, gotData, prefixes)
				files++
				shuffled := c.Type == "semantic" && strings.HasPrefix(rel, "train_anno/")
				if shuffled {
					w, g = multiset(t, w), multiset(t, g)
				}
				if !reflect.DeepEqual(w, g) {
					wb, _ := json.MarshalIndent(w, "", " ")
					gb, _ := json.MarshalIndent(g, "", " ")
					t.Errorf("%s differs from the original's (shuffled: %v)\n got: %.3000s\nwant: %.3000s", rel, shuffled, gb, wb)
					continue
				}
				stripped := gotData
				for _, p := range prefixes {
					stripped = bytes.ReplaceAll(stripped, []byte(p), nil)
				}
				if bytes.Equal(stripped, wantData) {
					identical++
				}
			}
			read++
		})
	}
	t.Logf("%d files compared, %d of them byte for byte the original's once the data folder is removed", files, identical)
	conformance.Report(t, "odyssey-converter", read)
}
