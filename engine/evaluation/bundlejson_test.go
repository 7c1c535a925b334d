package evaluation

import (
	"bytes"
	"encoding/json"
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
