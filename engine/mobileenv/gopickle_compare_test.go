package mobileenv

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	gopickle "github.com/nlpodyssey/gopickle/pickle"
)

// The measurements behind the choice of decoder (doc.go, "Why not gopickle"): run by
// scripts/compare-gopickle.sh, which times each case as a whole process (peak memory
// included) with the test binary in this mode.
//
//	PICKLE_COMPARE=ours|gopickle PICKLE_FILE=path  decode the file once and print the outcome
//	PICKLE_HOSTILE_DIR=dir                          write the hostile inputs into dir
func TestDecoderComparison(t *testing.T) {
	if dir := os.Getenv("PICKLE_HOSTILE_DIR"); dir != "" {
		for name, data := range hostileInputs(t) {
			if err := os.WriteFile(filepath.Join(dir, name+".pkl"), data, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		return
	}
	which, path := os.Getenv("PICKLE_COMPARE"), os.Getenv("PICKLE_FILE")
	if which == "" || path == "" {
		t.Skip("a measurement helper: PICKLE_COMPARE and PICKLE_FILE select the decoder and the file")
	}
	start := time.Now()
	var err error
	switch which {
	case "ours":
		_, err = Open(path) // reads through the input limits, decodes, classifies
	case "gopickle": // streaming from the file, as gopickle is meant to be used
		var f *os.File
		if f, err = os.Open(path); err == nil {
			defer f.Close()
			u := gopickle.NewUnpickler(bufio.NewReaderSize(f, 1<<20))
			u.FindClass = gopickleResolver
			_, err = u.Load()
		}
	default:
		t.Fatalf("PICKLE_COMPARE=%s", which)
	}
	fmt.Printf("%s %s: %v, error: %v\n", which, filepath.Base(path), time.Since(start).Round(time.Millisecond), err)
}

// hostileInputs are small files that declare or build far more than they hold.
func hostileInputs(t *testing.T) map[string][]byte {
	d, _ := NewDType("u1")
	good, err := Encode(&NDArray{DType: d, Shape: []int{1}, Data: []byte{7}})
	if err != nil {
		t.Fatal(err)
	}
	huge := bytes.Replace(good, []byte("K\x01\x85"), []byte("J\xa0\x86\x01\x00J\xa0\x86\x01\x00\x86"), 1) // shape (100000, 100000)
	binary.LittleEndian.PutUint64(huge[3:11], uint64(len(huge)-11))
	// 24 lists, each holding the previous one twice (memo references): 2^24 leaves when expanded
	laughs := []byte("\x80\x02]q\x00K\x01a")
	for i := byte(1); i < 24; i++ {
		laughs = append(laughs, '0', ']', 'q', i, '(', 'h', i-1, 'h', i-1, 'e')
	}
	laughs = append(laughs, '.')
	return map[string][]byte{
		"binbytes8-10GB":      []byte("\x80\x04\x8e\x00\x00\x00\x80\x02\x00\x00\x00abc"),
		"binunicode-4GB":      []byte("\x80\x04X\xff\xff\xff\xffabc"),
		"array-shape-10GB":    huge,
		"array-never-built":   []byte("\x80\x02" + unbuiltArray + "."),
		"list-of-2^24-leaves": laughs,
		"deep-100k":           append(append([]byte("\x80\x02"), bytes.Repeat([]byte("("), 100000)...), '.'),
	}
}
