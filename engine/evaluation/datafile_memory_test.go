package evaluation

import (
	"bytes"
	"io"
	"runtime"
	"strings"
	"testing"
	"unsafe"
)

// bigLine is one data-file line of about size bytes: a datapoint whose second turn is one long
// text with escapes, and many short turns after it.
func bigLine(size int) []byte {
	var b bytes.Buffer
	b.WriteString(`{"data": [{"dialogue_id": "d0", "group_id": "g0", "annotation_tasks": ["a"], "turns": [["user", "hi"], ["system", "`)
	chunk := `lorem ipsum \"dolor\" sit amet \u00e9 `
	b.WriteString(strings.Repeat(chunk, size/2/len(chunk)))
	b.WriteString(`"]`)
	for b.Len() < size-64 {
		b.WriteString(`, ["user", "a short turn of a long dialogue, lorem ipsum"]`)
	}
	b.WriteString("]}]}\n")
	return b.Bytes()
}

// allocated is how many bytes fn allocates.
func allocated(fn func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	fn()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// The scaled-down copy of issue 29's 100 MB line: reading a 10 MB line from the project's
// bytes and writing it back as the store keeps it allocate a few times the line, not the dozen
// copies decoding through json.RawMessage maps and lists and marshalling each level made.
func TestBigLineAllocations(t *testing.T) {
	line := bigLine(10 << 20)
	var bs []Bundle
	read := allocated(func() {
		var err error
		if bs, err = readBundlesData(line, "big.jsonl", nil); err != nil {
			t.Fatal(err)
		}
	})
	write := allocated(func() { WriteBundles(io.Discard, bs) })
	parts := allocated(func() { WriteBundleJSON(io.Discard, bs[0], BundlePartSize) })
	n := uint64(len(line))
	t.Logf("%d-byte line: read %.2fx, written %.2fx, in parts %.2fx", n, float64(read)/float64(n), float64(write)/float64(n), float64(parts)/float64(n))
	// read: the 5 MB text decoded once (0.45x) and a 48-byte Turn for each short turn (0.45x);
	// the turns' plain strings are windows on the line (2.41x in all before: copies of the
	// strings, a list of the turns' spans, a Turn moved to the heap for each, the escaped
	// text decoded twice)
	if read > 6*n/5 {
		t.Errorf("reading a %d-byte line allocated %d bytes, want at most 1.2x", n, read)
	}
	if write > 2*n {
		t.Errorf("writing it allocated %d bytes, want at most 2x", write)
	}
	if parts > n/4 {
		t.Errorf("writing it in parts allocated %d bytes, want at most a quarter of it", parts)
	}
}

// A line of nothing but short turns (the other shape of issue 29's 100 MB lines) allocates
// little more than a Turn a turn: its strings are not copied and its turns not listed first.
func TestShortTurnsLineAllocations(t *testing.T) {
	var b bytes.Buffer
	b.WriteString(`{"data": [{"dialogue_id": "d0", "group_id": "g0", "annotation_tasks": ["a"], "turns": [["user", "hi"]`)
	turns := 1
	for b.Len() < 10<<20 {
		b.WriteString(`, ["user", "a short turn of a long dialogue, lorem ipsum"], ["system", "ok"]`)
		turns += 2
	}
	b.WriteString("]}]}\n")
	line := b.Bytes()
	var bs []Bundle
	read := allocated(func() {
		var err error
		if bs, err = readBundlesData(line, "turns.jsonl", nil); err != nil {
			t.Fatal(err)
		}
	})
	if got := len(bs[0].Datapoints[0].Turns); got != turns {
		t.Fatalf("%d turns read, want %d", got, turns)
	}
	per := float64(read) / float64(turns)
	t.Logf("%d-byte line of %d turns: read %.2fx (%.1f bytes a turn)", len(line), turns, float64(read)/float64(len(line)), per)
	if want := float64(unsafe.Sizeof(Turn{})) * 1.1; per > want {
		t.Errorf("%.1f bytes allocated a turn, want at most %.1f (a Turn is %d)", per, want, unsafe.Sizeof(Turn{}))
	}
}
