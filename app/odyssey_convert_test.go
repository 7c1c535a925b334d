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

// converterSplits reads a dataset's split files: name -> part -> episode ids.
func converterSplits(t *testing.T, ds string) map[string]map[string][]string {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(ds, "splits", "*.json"))
	out := map[string]map[string][]string{}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var parts map[string][]string
		if err := json.Unmarshal(data, &parts); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		out[strings.TrimSuffix(filepath.Base(f), ".json")] = parts
	}
	return out
}

// converterShots lists the screenshots of one episode of a dataset.
func converterShots(t *testing.T, ds, entry string) []string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(ds, "annotations", entry))
	if err != nil {
		t.Fatal(err)
	}
	var ep struct {
		Steps []struct {
			Screenshot string `json:"screenshot"`
		} `json:"steps"`
	}
	if err := json.Unmarshal(data, &ep); err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, s := range ep.Steps {
		out = append(out, s.Screenshot)
	}
	return out
}

// TestOdysseyConvertRuns: runs into one folder add up in the history index (the original reads
// every file of train_anno/ and test_anno/); --screenshots names the images' folder; a file
// that is not the converter's stops the index with its name, and bad options are usage errors.
func TestOdysseyConvertRuns(t *testing.T) {
	dir := isolate(t)
	area := conformance.RepoDir(t, "odyssey-converter")
	dss, _ := filepath.Glob(filepath.Join(area, "datasets", "*"))
	if len(dss) == 0 {
		t.Fatal("no dataset in the odyssey-converter area")
	}
	ds := filepath.Join(dir, "dataset")
	converterDataset(t, dss[0], ds)
	splits := converterSplits(t, ds)
	names := make([]string, 0, len(splits))
	for n := range splits {
		names = append(names, n)
	}
	sort.Strings(names)
	if len(names) < 2 {
		t.Fatalf("%s has %d splits; the test needs two", dss[0], len(names))
	}
	db := filepath.Join(dir, "s.db")
	if r := runCLI(t, "--store", db, "odyssey", "import", ds); r.code != 0 {
		t.Fatalf("import: %+v", r)
	}
	out := filepath.Join(dir, "out")
	images := map[string]bool{}
	steps := map[string]int{}
	for _, n := range names[:2] {
		for part, entries := range splits[n] {
			for _, e := range entries {
				for _, s := range converterShots(t, ds, e) {
					images[s] = true
					steps[n+"/"+part]++
				}
			}
		}
	}
	// the first by its short name when it has one
	first := strings.TrimSuffix(names[0], "_split")
	r := runCLI(t, "--store", db, "odyssey", "convert", "--split", first, out)
	if r.code != 0 || !strings.Contains(r.stdout, "wrote "+strconv.Itoa(steps[names[0]+"/train"])+" standard training chats to "+filepath.Join(out, "train_anno", "high_"+names[0]+".json")) ||
		!strings.Contains(r.stdout, "wrote "+strconv.Itoa(steps[names[0]+"/test"])+" test records to "+filepath.Join(out, "test_anno", "high_"+names[0]+".json")) {
		t.Fatalf("first run: %+v", r)
	}
	r = runCLI(t, "--store", db, "odyssey", "convert", "--split", names[1], "--level", "low", "--type", "semantic", out)
	if r.code != 0 || !strings.Contains(r.stdout, "wrote "+strconv.Itoa(4*steps[names[1]+"/train"])+" semantic training chats to "+filepath.Join(out, "train_anno", "low_sementic_"+names[1]+".json")) ||
		!strings.Contains(r.stdout, "history index of "+strconv.Itoa(len(images))+" images (from 4 files)") {
		t.Fatalf("second run (%d images expected): %+v", len(images), r)
	}
	var index map[string][]string
	data, _ := os.ReadFile(filepath.Join(out, "his_index.json"))
	if err := json.Unmarshal(data, &index); err != nil || len(index) != len(images) {
		t.Fatalf("his_index.json: %d images, want %d (%v)", len(index), len(images), err)
	}
	for img := range index {
		if !images[filepath.Base(img)] || !strings.HasPrefix(img, ds) {
			t.Errorf("index image %s is not a screenshot of %s", img, ds)
		}
	}

	// --screenshots: every image path in the folder given
	shots := filepath.Join(dir, "elsewhere", "screenshots")
	out2 := filepath.Join(dir, "out2")
	if r := runCLI(t, "--store", db, "odyssey", "convert", "--split", names[0], "--screenshots", shots, out2); r.code != 0 {
		t.Fatalf("--screenshots: %+v", r)
	}
	data, _ = os.ReadFile(filepath.Join(out2, "his_index.json"))
	index = nil
	json.Unmarshal(data, &index)
	if len(index) == 0 {
		t.Fatal("--screenshots: empty index")
	}
	for img, hist := range index {
		for _, p := range append(hist, img) {
			if filepath.Dir(p) != shots {
				t.Errorf("--screenshots: image %s", p)
			}
		}
	}

	// a file that is not the converter's: the error names it, the index stays as it was
	before, _ := os.ReadFile(filepath.Join(out, "his_index.json"))
	junk := filepath.Join(out, "test_anno", "notes.json")
	os.WriteFile(junk, []byte(`{"not": "a list"}`), 0o644)
	if r := runCLI(t, "--store", db, "odyssey", "convert", "--split", names[0], out); r.code != 1 || !strings.Contains(r.stderr, junk) {
		t.Errorf("junk file: %+v", r)
	}
	if after, _ := os.ReadFile(filepath.Join(out, "his_index.json")); !bytes.Equal(after, before) {
		t.Error("his_index.json changed by a failed run")
	}

	for _, args := range [][]string{
		{out},
		{"--split", names[0]},
		{"--split", names[0], "--level", "mid", out},
		{"--split", names[0], "--type", "fancy", out},
		{"--split", names[0], out, "more"},
	} {
		if r := runCLI(t, append([]string{"--store", db, "odyssey", "convert"}, args...)...); r.code != 2 {
			t.Errorf("%v: want usage error (2): %+v", args, r)
		}
	}
	if r := runCLI(t, "--store", db, "odyssey", "convert", "--split", "no_such_split", filepath.Join(dir, "out3")); r.code != 1 || !strings.Contains(r.stderr, "no_such_split") {
		t.Errorf("unknown split: %+v", r)
	}
	if _, err := os.Stat(filepath.Join(dir, "out3")); !os.IsNotExist(err) {
		t.Errorf("unknown split: out3 made (%v)", err)
	}
	// a user split whose name is not a file name
	if r := runCLI(t, "--store", db, "odyssey", "split", "--test-fraction", "0.5", "a/b"); r.code != 0 {
		t.Fatalf("split a/b: %+v", r)
	}
	if r := runCLI(t, "--store", db, "odyssey", "convert", "--split", "a/b", filepath.Join(dir, "out4")); r.code != 1 || !strings.Contains(r.stderr, "cannot name a file") {
		t.Errorf("split a/b: %+v", r)
	}
	if _, err := os.Stat(filepath.Join(dir, "out4")); !os.IsNotExist(err) {
		t.Errorf("split a/b: out4 made (%v)", err)
	}
}
