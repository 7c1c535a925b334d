package evaluation

import (
	"bytes"
	"io"
	"runtime"
	"strings"
	"testing"
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
	n := uint64(len(line))
	t.Logf("%d-byte line: read %.2fx, written %.2fx", n, float64(read)/float64(n), float64(write)/float64(n))
	if read > 3*n {
		t.Errorf("reading a %d-byte line allocated %d bytes, want at most 3x", n, read)
	}
	if write > 2*n {
		t.Errorf("writing it allocated %d bytes, want at most 2x", write)
	}
}
