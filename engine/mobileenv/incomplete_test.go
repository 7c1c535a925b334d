package mobileenv

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// pyStr is a protocol-2 BINUNICODE of s.
func pyStr(s string) string {
	n := len(s)
	return "X" + string([]byte{byte(n), byte(n >> 8), byte(n >> 16), byte(n >> 24)}) + s
}

// unbuiltArray is numpy's array reduction without its BUILD: _reconstruct(ndarray, (0,), b'b').
const unbuiltArray = "cnumpy.core.multiarray\n_reconstruct\ncnumpy\nndarray\nK\x00\x85C\x01b\x87R"

// resavedWithObservation is a resaved file whose one step record has obs as its observation.
func resavedWithObservation(obs string) []byte {
	rec0 := "}" + pyStr("task_id") + pyStr("t") + "s"
	rec1 := "}(" + pyStr("observation") + obs + pyStr("action_type") + "K\x00" + pyStr("touch_position") +
		"G?\xe0\x00\x00\x00\x00\x00\x00G?\xe0\x00\x00\x00\x00\x00\x00\x86u"
	meta := "}(" + pyStr("task_definition_id") + pyStr("demo") + "u"
	return []byte("\x80\x02}(" + pyStr("meta") + meta + pyStr("trajectories") + "]](" + rec0 + rec1 + "eau.")
}

// TestIncompleteObjectsRefused: objects that REDUCE creates and only BUILD completes (numpy
// arrays and dtypes) are refused when BUILD never comes, with the offset of their REDUCE. Such
// an array used to reach the canonical JSON writer and the frame renderer with no dtype and
// crash them.
func TestIncompleteObjectsRefused(t *testing.T) {
	dtypeNoBuild := "cnumpy\ndtype\n" + pyStr("u1") + "\x89\x88\x87R"
	cases := map[string]struct {
		data   string
		offset int64
	}{
		"array never built":          {"\x80\x02" + unbuiltArray + ".", 2 + int64(len(unbuiltArray)) - 1},
		"dtype never built":          {"\x80\x02" + dtypeNoBuild + ".", 2 + int64(len(dtypeNoBuild)) - 1},
		"array in a list, not built": {"\x80\x02](" + unbuiltArray + "N" + "e.", 4 + int64(len(unbuiltArray)) - 1},
	}
	for name, c := range cases {
		_, err := Decode([]byte(c.data))
		if !errors.Is(err, ErrIncomplete) {
			t.Errorf("%s: error %v, want ErrIncomplete", name, err)
			continue
		}
		var de *DecodeError
		if !errors.As(err, &de) || de.Offset != c.offset {
			t.Errorf("%s: error %v, want it at byte %d", name, err, c.offset)
		}
		t.Logf("%s: %v", name, err)
	}
	// the class itself as the pickle's value
	if _, err := Decode([]byte("\x80\x02cnumpy\nndarray\n.")); err == nil || !strings.Contains(err.Error(), "class") {
		t.Errorf("a bare class accepted: %v", err)
	}

	// Every consumer of a file holding one: an error naming the offset, no panic.
	dir := t.TempDir()
	path := filepath.Join(dir, "obs.pkl")
	if err := os.WriteFile(path, resavedWithObservation(unbuiltArray), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Info(path); !errors.Is(err, ErrIncomplete) {
		t.Errorf("Info: %v", err)
	}
	if _, err := Open(path); !errors.Is(err, ErrIncomplete) {
		t.Errorf("Open: %v", err)
	}
	if _, err := Visualize(path, filepath.Join(dir, "frames"), VisualizeOptions{}); !errors.Is(err, ErrIncomplete) {
		t.Errorf("Visualize: %v", err)
	}
}

// TestConsumersRejectUnbuiltArrays: values made in code (edits, tests) can hold an array with
// no dtype or too few bytes; the readers say so instead of panicking.
func TestConsumersRejectUnbuiltArrays(t *testing.T) {
	d, _ := NewDType("u1")
	for name, a := range map[string]*NDArray{
		"no dtype":  {Shape: []int{2, 2, 3}},
		"too short": {DType: d, Shape: []int{2, 2, 3}, Data: []byte{1, 2, 3}},
	} {
		if _, err := CanonicalJSON(a); err == nil {
			t.Errorf("%s: CanonicalJSON accepted it", name)
		}
		if _, err := ObservationImage(a); err == nil {
			t.Errorf("%s: ObservationImage accepted it", name)
		}
		rec := &Dict{}
		rec.Set("observation", a)
		rec.Set("action_type", int64(0))
		rec.Set("touch_position", &Tuple{Items: []any{0.5, 0.5}})
		if _, _, err := RenderFrame("t", rec, FrameOptions{}); err == nil {
			t.Errorf("%s: RenderFrame accepted it", name)
		}
	}
}
