package evaluation

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func seedFile(f *testing.F, rel string) {
	b, err := os.ReadFile(filepath.Join("..", "..", "testdata", "conformance", area, "example-project", filepath.FromSlash(rel)))
	if err == nil {
		f.Add(b)
	}
}

// Bundles that read without error write back and read again to the same value; errors name
// the file and a line.
func FuzzReadBundles(f *testing.F) {
	seedFile(f, "task_config/task_data/demo.jsonl")
	seedFile(f, "task_config/gold_data/flags.jsonl")
	f.Add([]byte(`{"data": [{"dialogue_id": "a", "annotation_tasks": [], "turns": [["user", "x", {"_disjunction": true, "options": [{}]}, "y"]]}]}`))
	f.Add([]byte("\ufeff{\"data\": []}\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		bs, err := ReadBundles(bytes.NewReader(data), "f.jsonl")
		// kept in the line (as the importer reads long lines): the same errors, the same JSON,
		// whole and in parts
		lazy, lerr := readBundlesLazy(bytes.Clone(data), "f.jsonl", nil, 1)
		if (err == nil) != (lerr == nil) || err != nil && err.Error() != lerr.Error() {
			t.Fatalf("read whole: %v; kept in the line: %v", err, lerr)
		}
		if err == nil {
			var whole, inLine, parts bytes.Buffer
			WriteBundles(&whole, bs)
			WriteBundles(&inLine, lazy)
			for _, b := range lazy {
				WriteBundleJSON(&parts, b, 7)
				parts.WriteByte('\n')
			}
			if whole.String() != inLine.String() || whole.String() != parts.String() {
				t.Fatalf("written from the line:\n%s\nin parts:\n%s\nwant\n%s", inLine.String(), parts.String(), whole.String())
			}
		}
		if err != nil {
			var fe *FileError
			if !errors.As(err, &fe) || fe.File != "f.jsonl" || fe.Line < 1 {
				t.Fatalf("error without file and line: %v", err)
			}
			if bs != nil {
				t.Fatal("partial result")
			}
			return
		}
		var buf bytes.Buffer
		if err := WriteBundles(&buf, bs); err != nil {
			t.Fatal(err)
		}
		again, err := ReadBundles(&buf, "g.jsonl")
		if err != nil {
			t.Fatalf("written bundles do not read back: %v\n%s", err, buf.String())
		}
		if !reflect.DeepEqual(normBundles(bs), normBundles(again)) {
			t.Fatalf("round trip changed the bundles:\n%s", buf.String())
		}
	})
}

// normBundles drops the raw-JSON spelling differences (persona whitespace) before comparing.
func normBundles(bs []Bundle) []Bundle {
	out := make([]Bundle, len(bs))
	for i, b := range bs {
		for _, dp := range b.Datapoints {
			dp.BotPersona = compactJSON(dp.BotPersona)
			out[i].Datapoints = append(out[i].Datapoints, dp)
		}
	}
	return out
}

func FuzzParseTypeFile(f *testing.F) {
	seedFile(f, "task_config/annotation_buckets.json")
	f.Add([]byte(`{"config": {"a": {"task_title": "a", "config": "button_flow", "indices": "odd", "options": {"q": {"_dep_": {"boolPrevTurnExpect": {}}, "x": {}}}}}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		types, err := ParseTypeFile(data, "t.json")
		if err != nil {
			if !strings.HasPrefix(err.Error(), "t.json") {
				t.Fatalf("error does not name the file: %v", err)
			}
			return
		}
		out, err := MarshalTypeFile(types)
		if err != nil {
			t.Fatal(err)
		}
		again, err := ParseTypeFile(out, "u.json")
		if err != nil {
			t.Fatalf("written types do not read back: %v\n%s", err, out)
		}
		if !reflect.DeepEqual(types, again) {
			t.Fatalf("round trip changed the types:\n%s", out)
		}
	})
}

func FuzzReadTraining(f *testing.F) {
	seedFile(f, "task_config/onboarding_data/flags.json")
	f.Add([]byte(`{"a": {}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		tr, err := ReadTraining(data, "o.json")
		if err != nil {
			if !strings.HasPrefix(err.Error(), "o.json") {
				t.Fatalf("error does not name the file: %v", err)
			}
			return
		}
		out, err := MarshalTraining(tr)
		if err != nil {
			t.Fatal(err)
		}
		again, err := ReadTraining(out, "p.json")
		if err != nil {
			t.Fatalf("written training does not read back: %v\n%s", err, out)
		}
		if len(again.Dialogues) != 3 || again.TypeName != tr.TypeName {
			t.Fatal("round trip changed the training")
		}
		// grading never panics on arbitrary truths
		for _, d := range tr.Dialogues {
			GradeDialogue(d.Turns, nil, Strict)
			for _, turn := range d.Turns {
				if turn.Truth != nil {
					turn.Truth.CorrectSelection()
				}
			}
		}
	})
}

func FuzzAnswerState(f *testing.F) {
	f.Add([]byte(`{"workerId": "w", "duration_task_0_0": [[1, 2], [3]], "lastIndex": 1, "lastAnnot": 0, "0": {"subtask_index": 0, "data": {"1": {"turn_idx": 1, "text": "t", "agent_idx": 1, "q": "a", "l_labels": ["x"]}}, "likert": {"C": "3"}}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		var st AnswerState
		if err := st.UnmarshalJSON(data); err != nil {
			return
		}
		out, err := st.MarshalJSON()
		if err != nil {
			t.Fatal(err)
		}
		var again AnswerState
		if err := again.UnmarshalJSON(out); err != nil {
			t.Fatalf("written state does not read back: %v\n%s", err, out)
		}
		out2, _ := again.MarshalJSON()
		if !bytes.Equal(out, out2) {
			t.Fatalf("not stable:\n%s\n%s", out, out2)
		}
	})
}

func FuzzParseConditions(f *testing.F) {
	for _, s := range []string{"botA|botB:20,botA|botC:20", "botA:1,botA:2", "botA:1,", " a : -1_0 "} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		cs, err := ParseConditions(s)
		if err != nil {
			return
		}
		again, err := ParseConditions(cs.String())
		if err != nil || !reflect.DeepEqual(cs, again) {
			t.Fatalf("%q → %q does not parse back the same: %v", s, cs.String(), err)
		}
	})
}
