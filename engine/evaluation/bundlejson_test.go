package evaluation

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math/rand"
	"strings"
	"testing"
	"unicode/utf8"
)

// randomJSONString is a JSON string literal mixing plain text, every escape, surrogate pairs
// (valid and lone), multi-byte characters and invalid UTF-8.
func randomJSONString(r *rand.Rand) string {
	pieces := []string{"a", "plain words ", `\"`, `\\`, `\/`, `\b`, `\f`, `\n`, `\r`, `\t`, `\u00e9`, `\u0000`,
		`\u2028`, `\ud83d\ude00`, `\ud83d`, `\ude00`, `\ud83dx`, `\ud83d\u0041`, "é", "日本", "\xff", "\xe2\x82", "😀", `\uD83D\uDE00`}
	var b strings.Builder
	b.WriteByte('"')
	for n := r.Intn(12); n > 0; n-- {
		b.WriteString(pieces[r.Intn(len(pieces))])
	}
	b.WriteByte('"')
	return b.String()
}

// unquoteJSON decodes what json.Unmarshal decodes, byte for byte.
func TestUnquoteJSONAsEncodingJSON(t *testing.T) {
	r := rand.New(rand.NewSource(29))
	for i := 0; i < 20000; i++ {
		lit := randomJSONString(r)
		var want string
		if err := json.Unmarshal([]byte(lit), &want); err != nil {
			t.Fatalf("%q: %v", lit, err)
		}
		got, ok := unquoteJSON([]byte(lit[1 : len(lit)-1]))
		if !ok || got != want {
			t.Fatalf("%q: got %q (ok %v), want %q", lit, got, ok, want)
		}
		var viaDecode string
		if err := decodeString([]byte(lit), &viaDecode); err != nil || viaDecode != want {
			t.Fatalf("decodeString(%q) = %q, %v; want %q", lit, viaDecode, err, want)
		}
	}
	for _, bad := range []string{`\`, `\x`, `\u12`, `\u12g4`, "a\x01", `a"b`} {
		if _, ok := unquoteJSON([]byte(bad)); ok {
			t.Errorf("%q accepted", bad)
		}
	}
}

// WriteBundleJSON writes, in parts, the bytes AppendBundleJSON writes at once; each part is
// about the size asked and valid UTF-8.
func TestWriteBundleJSONInParts(t *testing.T) {
	r := rand.New(rand.NewSource(30))
	var bundles []Bundle
	for i := 0; i < 200; i++ {
		var b Bundle
		for d := r.Intn(3) + 1; d > 0; d-- {
			dp := Datapoint{DialogueID: "d\x01" + strings.Repeat("é", r.Intn(5)), GroupID: "g", AnnotationTasks: []string{"a", "b\"c"}}
			if r.Intn(2) == 0 {
				dp.OriginWorkerID = "w"
				dp.BotPersona = json.RawMessage(`[ "x" , 1 ]`)
			}
			for n := r.Intn(6); n > 0; n-- {
				var text string
				json.Unmarshal([]byte(randomJSONString(r)), &text)
				tu := Turn{Speaker: "user", Text: strings.Repeat(text, r.Intn(30))}
				if r.Intn(3) == 0 {
					truth, _ := ParseTruth([]byte(`{"x": [1, 2]}`))
					tu.Truth = truth
					if r.Intn(2) == 0 {
						tu.Explanation = &text
					}
				}
				dp.Turns = append(dp.Turns, tu)
			}
			if r.Intn(3) == 0 {
				dp.Turns2 = []Turn{{Speaker: "system", Text: "\u2029\xff"}}
			}
			b.Datapoints = append(b.Datapoints, dp)
		}
		bundles = append(bundles, b)
	}
	bundles = append(bundles, Bundle{})
	for _, size := range []int{1, 7, 64, BundlePartSize} {
		for i, b := range bundles {
			var parts [][]byte
			w := writerFunc(func(p []byte) (int, error) { parts = append(parts, bytes.Clone(p)); return len(p), nil })
			if err := WriteBundleJSON(w, b, size); err != nil {
				t.Fatal(err)
			}
			if got, want := bytes.Join(parts, nil), AppendBundleJSON(nil, b); !bytes.Equal(got, want) {
				t.Fatalf("bundle %d, parts of %d: got\n%s\nwant\n%s", i, size, got, want)
			}
			for _, p := range parts {
				if !utf8.Valid(p) {
					t.Fatalf("part %q is not valid UTF-8", p)
				}
				if len(p) > 7*size+64 {
					t.Fatalf("part of %d bytes for parts of %d", len(p), size)
				}
			}
		}
	}
}

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }

// Lines read keeping their turns in the line (as the importer reads long ones) are checked as
// lines read whole are (the same errors) and written as the same JSON, whole or in parts.
func TestLazyLinesAsReadWhole(t *testing.T) {
	r := rand.New(rand.NewSource(31))
	var file bytes.Buffer
	for i := 0; i < 50; i++ {
		var b Bundle
		for d := r.Intn(3) + 1; d > 0; d-- {
			dp := Datapoint{DialogueID: fmt.Sprintf("d%d", i), GroupID: "g", AnnotationTasks: []string{"a"}}
			for n := r.Intn(5); n > 0; n-- {
				var text string
				json.Unmarshal([]byte(randomJSONString(r)), &text)
				tu := Turn{Speaker: "user", Text: text}
				if r.Intn(3) == 0 {
					tu.Truth, _ = ParseTruth([]byte(`{"x": [1, 2]}`))
					if r.Intn(2) == 0 {
						tu.Explanation = &text
					}
				}
				dp.Turns = append(dp.Turns, tu)
			}
			if r.Intn(3) == 0 {
				dp.Turns2 = []Turn{{Speaker: "system", Text: "x\u2028"}}
			}
			b.Datapoints = append(b.Datapoints, dp)
		}
		file.Write(AppendBundleJSON(nil, b))
		file.WriteString("\n")
	}
	file.WriteString(`{"data": [{"dialogue_id": "e", "annotation_tasks": [], "turns": [], "turns2": null}]}` + "\n")
	whole, err := readBundlesData(file.Bytes(), "f.jsonl", nil)
	if err != nil {
		t.Fatal(err)
	}
	lazy, err := readBundlesLazy(file.Bytes(), "f.jsonl", nil, 1)
	if err != nil {
		t.Fatal(err)
	}
	if len(lazy) != len(whole) {
		t.Fatalf("%d bundles, want %d", len(lazy), len(whole))
	}
	for i := range whole {
		if lazy[i].Datapoints[0].turnsLine == nil || lazy[i].Datapoints[0].Turns != nil {
			t.Fatalf("bundle %d: turns decoded", i)
		}
		if a, b := AppendBundleJSON(nil, lazy[i]), AppendBundleJSON(nil, whole[i]); !bytes.Equal(a, b) {
			t.Fatalf("bundle %d:\n%s\nwant\n%s", i, a, b)
		}
		var parts bytes.Buffer
		if err := WriteBundleJSON(&parts, lazy[i], 16); err != nil || !bytes.Equal(parts.Bytes(), AppendBundleJSON(nil, whole[i])) {
			t.Fatalf("bundle %d in parts: %v\n%s", i, err, parts.Bytes())
		}
		for d := range whole[i].Datapoints {
			if lazy[i].Datapoints[d].hasTurns2() != whole[i].Datapoints[d].hasTurns2() {
				t.Fatalf("bundle %d datapoint %d: turns2 %v", i, d, lazy[i].Datapoints[d].hasTurns2())
			}
		}
	}
	for _, bad := range []string{`{"data": [{"dialogue_id": "d", "annotation_tasks": [], "turns": [["a"]]}]}`,
		`{"data": [{"dialogue_id": "d", "annotation_tasks": [], "turns": [null]}]}`,
		`{"data": [{"dialogue_id": "d", "annotation_tasks": [], "turns": {}}]}`,
		`{"data": [{"dialogue_id": "d", "annotation_tasks": [], "turns": null}]}`,
		`{"data": [{"dialogue_id": "d", "annotation_tasks": [], "turns": [[1, "x"]]}]}`,
		`{"data": [{"dialogue_id": "d", "annotation_tasks": [], "turns": [["a", 2]]}]}`,
		`{"data": [{"dialogue_id": "d", "annotation_tasks": [], "turns": [["a", "b", {"x": 1}, 3]]}]}`,
		`{"data": [{"dialogue_id": "d", "annotation_tasks": [], "turns": [["a", "b", 7, null]]}]}`,
		`{"data": [{"dialogue_id": "d", "annotation_tasks": [], "turns": [], "turns2": [["a"]]}]}`,
		`{"data": [{"dialogue_id": "d", "annotation_tasks": [], "turns": [], "turns2": 5}]}`} {
		_, e1 := readBundlesData([]byte(bad), "f.jsonl", nil)
		_, e2 := readBundlesLazy([]byte(bad), "f.jsonl", nil, 1)
		if e1 == nil || e2 == nil || e1.Error() != e2.Error() {
			t.Errorf("%s: %v, kept in the line %v", bad, e1, e2)
		}
	}
}

// A long line of short turns kept in the line allocates next to nothing when read (its turns
// are checked, not decoded), and is written in parts with little more.
func TestLazyLineAllocations(t *testing.T) {
	var b bytes.Buffer
	b.WriteString(`{"data": [{"dialogue_id": "d0", "group_id": "g0", "annotation_tasks": ["a"], "turns": [["user", "hi"]`)
	for b.Len() < 10<<20 {
		b.WriteString(`, ["user", "ok"]`)
	}
	b.WriteString("]}]}\n")
	line := b.Bytes()
	var bs []Bundle
	read := allocated(func() {
		var err error
		if bs, err = readBundlesLazy(line, "tiny.jsonl", nil, 1<<20); err != nil {
			t.Fatal(err)
		}
	})
	parts := allocated(func() { WriteBundleJSON(io.Discard, bs[0], BundlePartSize) })
	n := uint64(len(line))
	t.Logf("%d-byte line of 16-byte turns kept in the line: read %.3fx, written in parts %.3fx", n, float64(read)/float64(n), float64(parts)/float64(n))
	if read > n/50 || parts > n/4 {
		t.Errorf("read %d bytes, written %d, for a %d-byte line", read, parts, n)
	}
}

// Importing with every line kept in the file's bytes gives what importing them decoded gives:
// the same report (datapoints, comparative pairs) and the same bundles' JSON.
func TestImportLazyLines(t *testing.T) {
	dir := exampleProject(t)
	defer func(n int) { LazyLineSize = n }(LazyLineSize)
	LazyLineSize = 1 << 30
	whole, rep1, err := ImportOriginal(dir, ImportOptions{Config: "flags"})
	if err != nil {
		t.Fatal(err)
	}
	LazyLineSize = 1
	lazy, rep2, err := ImportOriginal(dir, ImportOptions{Config: "flags"})
	if err != nil {
		t.Fatal(err)
	}
	if rep1.String() != rep2.String() {
		t.Errorf("report:\n%s\nwant\n%s", rep2, rep1)
	}
	if len(lazy.Bundles) != len(whole.Bundles) || len(whole.Bundles) == 0 {
		t.Fatalf("%d bundles, want %d", len(lazy.Bundles), len(whole.Bundles))
	}
	for i := range whole.Bundles {
		if lazy.Bundles[i].Datapoints[0].turnsLine == nil {
			t.Fatalf("bundle %d decoded", i)
		}
		if a, b := AppendBundleJSON(nil, lazy.Bundles[i]), AppendBundleJSON(nil, whole.Bundles[i]); !bytes.Equal(a, b) {
			t.Fatalf("bundle %d:\n%s\nwant\n%s", i, a, b)
		}
	}
}

// A project imported with its lines kept in place saves as a project file with its turns.
func TestLazyLinesInAProjectFile(t *testing.T) {
	dir := exampleProject(t)
	defer func(n int) { LazyLineSize = n }(LazyLineSize)
	LazyLineSize = 1
	p, _, err := ImportOriginal(dir, ImportOptions{Config: "flags"})
	if err != nil {
		t.Fatal(err)
	}
	data, err := MarshalProject(p)
	if err != nil {
		t.Fatal(err)
	}
	back, err := UnmarshalProject(data, "p.toml")
	if err != nil {
		t.Fatal(err)
	}
	for i := range p.Bundles {
		if a, b := AppendBundleJSON(nil, back.Bundles[i]), AppendBundleJSON(nil, p.Bundles[i]); !bytes.Equal(a, b) || len(back.Bundles[i].Datapoints[0].Turns) == 0 {
			t.Fatalf("bundle %d:\n%s\nwant\n%s", i, a, b)
		}
	}
}
