package mobileenv

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"math/big"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/agentdesk/agentdesk/engine/conformance"
	"github.com/agentdesk/agentdesk/engine/pyfmt"
)

// TestConformanceInputsJSON decodes every input pickle that has a canonical JSON and compares.
func TestConformanceInputsJSON(t *testing.T) {
	files := conformance.Files(t, "mobileenv", "pickles/inputs/json/*.pkl.json")
	n := 0
	for _, js := range files {
		pkl := filepath.Join(filepath.Dir(filepath.Dir(js)), strings.TrimSuffix(filepath.Base(js), ".json"))
		t.Run(filepath.Base(pkl), func(t *testing.T) {
			p, err := ReadFirst(pkl)
			if err != nil {
				t.Fatal(err)
			}
			got, err := CanonicalJSON(p.Value)
			if err != nil {
				t.Fatal(err)
			}
			g, w := normJSON(t, got), normJSON(t, mustRead(t, js))
			if g != w {
				t.Fatalf("canonical JSON differs %s", firstDiff(g, w))
			}
		})
		n++
	}
	conformance.Report(t, "input JSON", n)
}

// TestConformanceReaderFixtures decodes the reader fixtures (protocols 2, 3, 5, numpy 2 names).
func TestConformanceReaderFixtures(t *testing.T) {
	area := areaDir(t)
	idxFiles := conformance.Files(t, "mobileenv", "pickles/reader/index.json")
	n := 0
	for _, idx := range idxFiles {
		var index struct {
			Files []struct {
				File         string `json:"file"`
				ExpectedJSON string `json:"expected_json"`
				Protocol     int    `json:"protocol"`
				Prefix       string `json:"numpy_module_prefix"`
			} `json:"files"`
		}
		if err := json.Unmarshal(mustRead(t, idx), &index); err != nil {
			t.Fatal(err)
		}
		for _, f := range index.Files {
			t.Run(f.File, func(t *testing.T) {
				ps, err := ReadFile(filepath.Join(filepath.Dir(idx), f.File))
				if err != nil {
					t.Fatal(err)
				}
				if ps[0].Protocol != f.Protocol {
					t.Errorf("protocol %d, want %d", ps[0].Protocol, f.Protocol)
				}
				got, err := CanonicalJSON(ps[0].Value)
				if err != nil {
					t.Fatal(err)
				}
				g, w := normJSON(t, got), normJSON(t, mustRead(t, filepath.Join(area, f.ExpectedJSON)))
				if g != w {
					t.Fatalf("canonical JSON differs %s", firstDiff(g, w))
				}
			})
			n++
		}
	}
	conformance.Report(t, "reader fixture", n)
}

// allConformancePickles lists every .pkl of the area, except the ones that legal fixture sets
// may hold and that need not read back or re-encode as written: reader fixtures with numpy 2
// module names (numpy_module_prefix; written back under the numpy 1 names) and everything in a
// case folder whose cmd.json expects a failure (its inputs may be broken on purpose).
func allConformancePickles(t *testing.T) []string {
	area := areaDir(t)
	skip := map[string]bool{}
	idxs, _ := filepath.Glob(filepath.Join(area, "pickles/reader/index*.json"))
	for _, idx := range idxs {
		var index struct {
			Files []struct {
				File   string `json:"file"`
				Prefix string `json:"numpy_module_prefix"`
			} `json:"files"`
		}
		if err := json.Unmarshal(mustRead(t, idx), &index); err != nil {
			t.Fatalf("%s: %v", idx, err)
		}
		for _, f := range index.Files {
			if f.Prefix != "" {
				skip[filepath.Join(filepath.Dir(idx), f.File)] = true
			}
		}
	}
	var out []string
	skipped := 0
	err := filepath.Walk(area, func(p string, info os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		if info.IsDir() {
			data, err := os.ReadFile(filepath.Join(p, "cmd.json"))
			if err != nil {
				return nil
			}
			var cmd struct {
				RC int `json:"rc"`
			}
			if json.Unmarshal(data, &cmd) == nil && cmd.RC != 0 {
				skipped++
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(p, ".pkl") {
			return nil
		}
		if skip[p] {
			skipped++
			return nil
		}
		out = append(out, p)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d pickles; skipped %d numpy-2 reader fixtures and failing cases", len(out), skipped)
	return out
}

// TestRoundTripByteIdentical: read → write gives the original bytes for every protocol-4 file
// written by Python, and read → write → read gives the same canonical JSON for all files.
func TestRoundTripByteIdentical(t *testing.T) {
	n, identical := 0, 0
	for _, path := range allConformancePickles(t) {
		rel, _ := filepath.Rel(areaDir(t), path)
		data := mustRead(t, path)
		ps, err := DecodeAll(path, data)
		if err != nil {
			t.Errorf("%s: %v", rel, err)
			continue
		}
		var out []byte
		for _, p := range ps {
			b, err := Encode(p.Value)
			if err != nil {
				t.Fatalf("%s: %v", rel, err)
			}
			out = append(out, b...)
			again, err := Decode(b)
			if err != nil {
				t.Fatalf("%s: re-read: %v", rel, err)
			}
			j1, _ := CanonicalJSON(p.Value)
			j2, _ := CanonicalJSON(again)
			if !bytes.Equal(j1, j2) {
				t.Errorf("%s: round trip changes the value %s", rel, firstDiff(string(j2), string(j1)))
			}
		}
		n++
		// Raw web-tool dumps were pickled from live objects (numpy shares built-in dtypes
		// between scalars and fresh arrays), so only files written from loaded objects (resaved
		// and edited files, the synthetic inputs) are expected to be byte-identical.
		if ps[0].Protocol == 4 && !strings.Contains(rel, "web-dumps") && !strings.Contains(rel, "input_") {
			if !bytes.Equal(out, data) {
				t.Errorf("%s: written bytes differ from the original: %s", rel, firstByteDiff(out, data))
			} else {
				identical++
			}
		}
	}
	t.Logf("byte-identical protocol-4 rewrites: %d", identical)
	conformance.Report(t, "round-trip pickle", n)
}

func TestMaliciousGlobalRefused(t *testing.T) {
	cases := map[string][]byte{
		// protocol 2 GLOBAL posix.system + REDUCE
		"posix.system": []byte("\x80\x02cposix\nsystem\nq\x00X\x02\x00\x00\x00lsq\x01\x85q\x02Rq\x03."),
		// protocol 4 STACK_GLOBAL os.system
		"os.system": []byte("\x80\x04\x95\x1a\x00\x00\x00\x00\x00\x00\x00\x8c\x02os\x94\x8c\x06system\x94\x93\x94\x8c\x02ls\x94\x85\x94R\x94."),
		// builtins.eval via protocol 0
		"builtins.eval": []byte("cbuiltins\neval\n(S'1'\ntR."),
	}
	for name, data := range cases {
		_, err := Decode(data)
		if err == nil {
			t.Fatalf("%s: accepted", name)
		}
		if !errors.Is(err, ErrForbiddenGlobal) && !strings.Contains(err.Error(), name) {
			t.Fatalf("%s: unexpected error %v", name, err)
		}
		if !strings.Contains(err.Error(), name) {
			t.Fatalf("%s: error does not name the global: %v", name, err)
		}
		t.Logf("%s refused: %v", name, err)
	}
}

// TestConformanceAllPicklesJSON compares every "*.all_pickles.json" (every pickle of an input
// file) and "output_*.pkl.json" (a written file) with our decoding.
func TestConformanceAllPicklesJSON(t *testing.T) {
	area := areaDir(t)
	n := 0
	all, _ := filepath.Glob(filepath.Join(area, "pickles/resave/*/expected/json/input_*.all_pickles.json"))
	for _, js := range all {
		name := strings.TrimSuffix(strings.TrimPrefix(filepath.Base(js), "input_"), ".all_pickles.json")
		// the name is the one in the case's folder: back through its renames to the input's
		var cmd resaveCmd
		caseDir := filepath.Dir(filepath.Dir(filepath.Dir(js)))
		if err := json.Unmarshal(mustRead(t, filepath.Join(caseDir, "cmd.json")), &cmd); err != nil {
			t.Fatal(err)
		}
		renames, err := cmd.renames()
		if err != nil {
			t.Fatal(err)
		}
		ps, err := ReadFile(filepath.Join(area, "pickles/inputs/web-dumps", originalDumpName(renames, name)))
		if err != nil {
			t.Fatal(err)
		}
		var b bytes.Buffer
		b.WriteString("[")
		for i, p := range ps {
			if i > 0 {
				b.WriteString(",")
			}
			j, err := CanonicalJSON(p.Value)
			if err != nil {
				t.Fatal(err)
			}
			b.Write(j)
		}
		b.WriteString("]")
		if g, w := normJSON(t, b.Bytes()), normJSON(t, mustRead(t, js)); g != w {
			t.Errorf("%s: %s", name, firstDiff(g, w))
		}
		n++
	}
	outs, _ := filepath.Glob(filepath.Join(area, "pickles/resave/*/expected/json/output_*.pkl.json"))
	for _, js := range outs {
		name := strings.TrimSuffix(strings.TrimPrefix(filepath.Base(js), "output_"), ".json")
		p, err := ReadFirst(filepath.Join(filepath.Dir(filepath.Dir(js)), "resaved", name))
		if err != nil {
			t.Fatal(err)
		}
		j, _ := CanonicalJSON(p.Value)
		if g, w := normJSON(t, j), normJSON(t, mustRead(t, js)); g != w {
			t.Errorf("%s: %s", name, firstDiff(g, w))
		}
		n++
	}
	conformance.Report(t, "all-pickles/output JSON", n)
}

// TestHugeDeclarationsRefused: a 10 GB array declared in a small file, and byte strings
// declaring more than the file holds, are refused quickly without allocating.
func TestHugeDeclarationsRefused(t *testing.T) {
	d, _ := NewDType("u1")
	arr := &NDArray{DType: d, Shape: []int{1}, Data: []byte{7}}
	good, err := Encode(arr)
	if err != nil {
		t.Fatal(err)
	}
	// Patch the shape (1,) into (100000, 100000) - 10 GB - by re-encoding the state.
	huge := bytes.Replace(good, []byte("K\x01\x85"), []byte("J\xa0\x86\x01\x00J\xa0\x86\x01\x00\x86"), 1)
	if bytes.Equal(huge, good) {
		t.Fatal("patch failed")
	}
	huge = fixFrame(huge)
	cases := map[string][]byte{
		"10 GB array":      huge,
		"BINBYTES8 10 GB":  []byte("\x80\x04\x8e\x00\x00\x00\x80\x02\x00\x00\x00abc"),
		"BINUNICODE 4 GB":  []byte("\x80\x04X\xff\xff\xff\xffabc"),
		"FRAME beyond end": []byte("\x80\x04\x95\x00\x00\x00\x00\x01\x00\x00\x00N."),
	}
	for name, data := range cases {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		start := time.Now()
		_, err := Decode(data)
		el := time.Since(start)
		runtime.ReadMemStats(&after)
		if err == nil {
			t.Fatalf("%s accepted", name)
		}
		if !errors.Is(err, ErrTooLarge) {
			t.Errorf("%s: error %v does not wrap ErrTooLarge", name, err)
		}
		if grown := after.TotalAlloc - before.TotalAlloc; grown > 1<<20 {
			t.Errorf("%s: allocated %d bytes", name, grown)
		}
		if el > time.Second {
			t.Errorf("%s: took %v", name, el)
		}
		t.Logf("%s refused in %v: %v", name, el, err)
	}
}

// fixFrame rewrites the first FRAME length of a protocol-4 pickle after patching.
func fixFrame(b []byte) []byte {
	if len(b) > 11 && b[2] == 0x95 {
		binary.LittleEndian.PutUint64(b[3:11], uint64(len(b)-11))
	}
	return b
}

// TestPythonLoadsOurPickles has Python's pickle.load read files written by our writer and
// compares dtypes, shapes and values with our own decoding (skipped without python3+numpy).
func TestPythonLoadsOurPickles(t *testing.T) {
	py := "/usr/bin/python3"
	if err := exec.Command(py, "-c", "import numpy").Run(); err != nil {
		t.Skipf("python3 with numpy not available (%v): run scripts/deps.sh test", err)
	}
	area := areaDir(t)
	dir := t.TempDir()
	// A value exercising every type our writer emits, plus every conformance input rewritten.
	f4, _ := NewDType("f4")
	i8, _ := NewDType("i8")
	u1, _ := NewDType("u1")
	f8, _ := NewDType("f8")
	shared := &NDArray{DType: u1, Shape: []int{2, 3, 3}, Data: bytes.Repeat([]byte{1, 2, 3}, 6)}
	big1, _ := new(big.Int).SetString("-123456789012345678901234567890", 10)
	root := &Dict{}
	root.Set("f4", &NDArray{DType: f4, Shape: []int{2, 2}, Fortran: true, Data: []byte{0, 0, 128, 63, 0, 0, 0, 64, 0, 0, 64, 64, 0, 0, 128, 64}})
	root.Set("i8", &NDArray{DType: i8, Shape: []int{2}, Data: []byte{1, 0, 0, 0, 0, 0, 0, 0, 255, 255, 255, 255, 255, 255, 255, 255}})
	root.Set("scalar", &Scalar{DType: i8, Raw: []byte{3, 0, 0, 0, 0, 0, 0, 0}})
	root.Set("fscalar", &Scalar{DType: f8, Raw: []byte{0, 0, 0, 0, 0, 0, 0xe0, 0x3f}})
	root.Set("shared", &List{Items: []any{shared, shared}})
	root.Set("ints", &List{Items: []any{int64(0), int64(255), int64(256), int64(65536), int64(-1), int64(1 << 40), big1}})
	root.Set("misc", &Tuple{Items: []any{nil, true, false, 0.1, NewStr("é\u0000x"), &Bytes{B: []byte{0, 1}}, &Tuple{}, strings.Repeat("long ", 20000)}})
	root.Set("big", &NDArray{DType: u1, Shape: []int{300, 300, 3}, Data: make([]byte, 270000)})
	files := map[string]any{"synthetic.pkl": root}
	for _, in := range []string{"synthetic_documented.pkl", "synthetic_recorded.pkl", "synthetic_visual.pkl"} {
		p, err := ReadFirst(filepath.Join(area, "pickles/inputs", in))
		if err != nil {
			t.Fatal(err)
		}
		files[in] = p.Value
	}
	script := `
import pickle, sys, json, hashlib, numpy as np
def canon(v):
    if isinstance(v, np.ndarray):
        return {"ndarray": [v.dtype.str, list(v.shape), bool(np.isfortran(v)), hashlib.sha256(np.ascontiguousarray(v).tobytes()).hexdigest()]}
    if isinstance(v, np.generic):
        return {"npscalar": [v.dtype.str, v.item()]}
    if isinstance(v, dict):
        return {"dict": [[canon(k), canon(x)] for k, x in v.items()]}
    if isinstance(v, (list, tuple)):
        return {type(v).__name__: [canon(x) for x in v]}
    if isinstance(v, bytes):
        return {"bytes": v.hex()}
    if isinstance(v, float):
        return {"float": repr(v)}
    if isinstance(v, int) and not isinstance(v, bool):
        return {"int": str(v)}
    return v
for path in sys.argv[1:]:
    with open(path, "rb") as f:
        v = pickle.load(f)
    if path.endswith("synthetic.pkl"):
        assert v["shared"][0] is v["shared"][1], "shared array not shared"
    print(json.dumps(canon(v), sort_keys=True))
`
	var paths []string
	var names []string
	for name, v := range files {
		b, err := Encode(v)
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dir, name)
		os.WriteFile(p, b, 0o644)
		paths = append(paths, p)
		names = append(names, name)
	}
	out, err := exec.Command(py, append([]string{"-c", script}, paths...)...).CombinedOutput()
	if err != nil {
		t.Fatalf("python failed: %v\n%s", err, out)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(lines) != len(paths) {
		t.Fatalf("python printed %d lines for %d files", len(lines), len(paths))
	}
	for i, name := range names {
		want := pyCanon(files[name])
		var got any
		if err := json.Unmarshal([]byte(lines[i]), &got); err != nil {
			t.Fatal(err)
		}
		gj, _ := json.Marshal(got)
		wj, _ := json.Marshal(want)
		if !bytes.Equal(gj, wj) {
			t.Errorf("%s: python sees %s", name, firstDiff(string(gj), string(wj)))
		}
	}
	conformance.Report(t, "python interop file", len(paths))
}

// pyCanon mirrors the Python script's canon() on our values.
func pyCanon(v any) any {
	switch x := v.(type) {
	case *NDArray:
		sum := sha256.Sum256(x.COrder())
		shape := make([]any, len(x.Shape))
		for i, s := range x.Shape {
			shape[i] = float64(s)
		}
		return map[string]any{"ndarray": []any{x.DType.String(), shape, x.Fortran && len(x.Shape) > 1, hex.EncodeToString(sum[:])}}
	case *Scalar:
		var item any
		if x.DType.Kind == 'f' {
			item = x.Float()
		} else {
			item = float64(x.Int())
		}
		return map[string]any{"npscalar": []any{x.DType.String(), item}}
	case *Dict:
		items := []any{}
		for i := range x.Keys {
			items = append(items, []any{pyCanon(x.Keys[i]), pyCanon(x.Vals[i])})
		}
		return map[string]any{"dict": items}
	case *List:
		items := []any{}
		for _, it := range x.Items {
			items = append(items, pyCanon(it))
		}
		return map[string]any{"list": items}
	case *Tuple:
		items := []any{}
		for _, it := range x.Items {
			items = append(items, pyCanon(it))
		}
		return map[string]any{"tuple": items}
	case *Bytes:
		return map[string]any{"bytes": hex.EncodeToString(x.B)}
	case float64:
		return map[string]any{"float": pyfmt.FloatRepr(x)}
	case int64:
		return map[string]any{"int": strconv.FormatInt(x, 10)}
	case *big.Int:
		return map[string]any{"int": x.String()}
	case *Str:
		return x.S
	case string:
		return x
	}
	return v
}

// TestCrossCheckGopickle decodes every conformance pickle with gopickle (strict resolver) too.
func TestCrossCheckGopickle(t *testing.T) {
	n := 0
	for _, path := range allConformancePickles(t) {
		if err := CrossCheck(path, mustRead(t, path)); err != nil {
			t.Errorf("%v", err)
		}
		n++
	}
	// gopickle behind the resolver refuses os.system too
	err := CrossCheck("evil", []byte("\x80\x02cposix\nsystem\nq\x00X\x02\x00\x00\x00lsq\x01\x85q\x02Rq\x03."))
	if err == nil || !strings.Contains(err.Error(), "posix.system") {
		t.Errorf("evil pickle: %v", err)
	}
	if _, err := gopickleResolver("os", "system"); err == nil || !strings.Contains(err.Error(), "os.system") {
		t.Errorf("resolver accepted os.system: %v", err)
	}
	conformance.Report(t, "gopickle cross-check", n)
}
