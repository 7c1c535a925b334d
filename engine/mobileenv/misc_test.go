package mobileenv

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentdesk/agentdesk/engine/episode"
)

func TestTextprotoInstructionOptions(t *testing.T) {
	td, err := ReadTaskDef(filepath.Join(areaDir(t), "pickles/inputs/textprotos/demo_task.textproto"))
	if err != nil {
		t.Fatal(err)
	}
	if td.ID != "demo_task-1" || strings.Join(td.Vocabulary, "|") != "how to|tails|lobster|bake" {
		t.Fatalf("id %q vocabulary %q", td.ID, td.Vocabulary)
	}
	opts, err := td.InstructionOptions()
	if err != nil {
		t.Fatal(err)
	}
	got := []string{}
	for _, o := range opts {
		j, _ := CanonicalJSON(o)
		got = append(got, string(j))
	}
	want := []string{`["Access the article \"How to Bake Lobster Tails\""]`, `"a plain str instruction"`, `["COMPUTED", "LIST"]`}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("options\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestTaskDefPythonProtobuf checks the reading of task definitions against Python protobuf
// 4.21's text_format.Parse (what the original tools call) where a hand-written reader easily
// differs: escapes, string concatenation across a comment, unknown fields. The expected values
// are Python's.
func TestTaskDefPythonProtobuf(t *testing.T) {
	for _, c := range []struct {
		text string
		want string // the vocabulary entry; "" means Python fails with a ParseError
	}{
		{`vocabulary: "\u0041"`, "A"},
		{`vocabulary: "\u00e9"`, ""}, // raw_unicode_escape gives byte 0xE9: not UTF-8
		{`vocabulary: "\X41"`, `\X41`},
		{`vocabulary: "\777"`, `\u01ff`},
		{"vocabulary: \"ab\" # comment\n \"cd\"", "abcd"},
		{"vocabulary: \"x\" unknown_field: 1", ""},
		{`vocabulary: "\303\251"`, "é"},
		{`vocabulary: "\u65e5"`, `\u65e5`},
	} {
		td, err := ParseTaskDef("t.textproto", []byte(c.text))
		switch {
		case c.want == "" && err == nil:
			t.Errorf("%q accepted (vocabulary %q); Python rejects it", c.text, td.Vocabulary)
		case c.want == "":
			if !strings.Contains(err.Error(), "t.textproto") {
				t.Errorf("%q: error %q does not name the file", c.text, err)
			}
		case err != nil:
			t.Errorf("%q: %v", c.text, err)
		case len(td.Vocabulary) != 1 || td.Vocabulary[0] != c.want:
			t.Errorf("%q: vocabulary %q, want [%q]", c.text, td.Vocabulary, c.want)
		}
	}
	// nested instruction slots without transformation: Python's IndexError
	td, err := ParseTaskDef("t", []byte(`id: "x" event_slots { instruction_listener { events { event { events { id: 1 } } } } }`))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := td.InstructionOptions(); err == nil || !strings.Contains(err.Error(), "IndexError") {
		t.Errorf("missing transformation: %v", err)
	}
}

func TestEvalTransformation(t *testing.T) {
	cases := map[string]string{
		`y = ['a', "b"]`:                           `["a", "b"]`,
		`y = 'x' "y"`:                              `"xy"`,
		`y = [s.upper() for s in ['ab', 'c']]`:     `["AB", "C"]`,
		"x = 'q'\ny = [x, x.upper()]":              `["q", "Q"]`,
		`y = ('a',)`:                               `{"tuple": ["a"]}`,
		`y = [s.strip().lower() for s in [' A ']]`: `["a"]`,
		`y = 'it\'s'`:                              `"it's"`,
		`y = 1`:                                    `1`,
	}
	for src, want := range cases {
		v, err := EvalTransformation(src)
		if err != nil {
			t.Errorf("%q: %v", src, err)
			continue
		}
		j, _ := CanonicalJSON(v)
		if string(j) != want {
			t.Errorf("%q = %s, want %s", src, j, want)
		}
	}
	for _, bad := range []string{`import os`, `y = __import__('os').system('ls')`, `y = open('x').read()`, `y = [f(s) for s in ['a']]`, `x = 1`} {
		if _, err := EvalTransformation(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

func TestInfoAndEpisode(t *testing.T) {
	area := areaDir(t)
	s, err := Info(filepath.Join(area, "pickles/inputs/synthetic_recorded.pkl"))
	if err != nil {
		t.Fatal(err)
	}
	if s.Kind != KindResaved || s.Protocol != 4 || len(s.Trajectories) == 0 || s.Observations["|u1 (48, 27, 3)"] == 0 {
		t.Fatalf("summary %+v", s)
	}
	txt := s.Text()
	if !strings.Contains(txt, "resaved annotation file") || !strings.Contains(txt, "demo_task") {
		t.Fatalf("text:\n%s", txt)
	}
	// a negative reward is a reward event too (the visual file's second trajectory has -1)
	vis, err := Info(filepath.Join(area, "pickles/inputs/synthetic_visual.pkl"))
	if err != nil {
		t.Fatal(err)
	}
	if r := vis.Trajectories[1]; r.Rewarded != 1 || r.TotalReward != -1 || !strings.Contains(vis.Text(), "reward -1.0 on 1 step(s)") {
		t.Fatalf("negative reward: %+v\n%s", r, vis.Text())
	}
	raw, err := Info(filepath.Join(area, "pickles/inputs/web-dumps/anno.2.pkl"))
	if err != nil {
		t.Fatal(err)
	}
	if raw.Kind != KindRaw || raw.Pickles != 2 || len(raw.Trajectories) != 2 {
		t.Fatalf("raw summary %+v", raw)
	}
	f, err := Open(filepath.Join(area, "pickles/inputs/synthetic_visual.pkl"))
	if err != nil {
		t.Fatal(err)
	}
	for _, png := range []bool{false, true} {
		ep, err := f.Episode(0, EpisodeOptions{EncodePNG: png})
		if err != nil {
			t.Fatal(err)
		}
		if ep.Source != episode.SourceMobileEnv || ep.ExternalID != "synthetic_visual.pkl#0" || len(ep.Steps) != 5 {
			t.Fatalf("episode %+v", ep)
		}
		st := ep.Steps[1]
		if st.Action.Kind != "touch" || len(st.Action.Points) != 1 || st.Action.Points[0].X != 0.5 || st.Action.Points[0].Y != 0.25 {
			t.Fatalf("step 1 action %+v", st.Action)
		}
		if ep.Steps[2].Action.Kind != "text" || ep.Steps[2].Action.Text != "lobster" || ep.Steps[2].Reward != 1 {
			t.Fatalf("step 2 %+v", ep.Steps[2])
		}
		if png && (len(st.Observation) < 8 || string(st.Observation[1:4]) != "PNG") {
			t.Fatal("observation not PNG")
		}
		if !png && st.ObservationRef == "" {
			t.Fatal("no observation ref")
		}
		if ep.Steps[4].Instruction == "" {
			t.Fatal("instruction in force not carried")
		}
	}
	img, err := f.StepImage(0, 1)
	if err != nil || img.Bounds().Dx() != 180 || img.Bounds().Dy() != 320 {
		t.Fatalf("StepImage: %v %v", err, img)
	}
	// float observations (the upstream docs' variant) convert for the viewer
	doc, err := Open(filepath.Join(area, "pickles/inputs/synthetic_documented.pkl"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := doc.StepImage(0, 0); err != nil {
		t.Fatal(err)
	}
	// but the strict visualiser rejects them like the original
	rec, _ := doc.Record(0, 1)
	if _, _, err := RenderFrame("x", rec, FrameOptions{Strict: true}); err == nil {
		t.Fatal("strict render accepted float observations")
	}
}

func TestVideoGIFWithoutFFmpeg(t *testing.T) {
	dir := t.TempDir()
	vids, err := Video(context.Background(), filepath.Join(areaDir(t), "pickles/inputs/synthetic_visual.pkl"), filepath.Join(dir, "out"),
		VideoOptions{Format: "gif", VisualizeOptions: VisualizeOptions{SafeNames: true}})
	if err != nil {
		t.Fatal(err)
	}
	if len(vids) != 2 || !strings.HasSuffix(vids[0], "demo_task_0of2_len5.gif") {
		t.Fatalf("videos %v", vids)
	}
	for _, v := range vids {
		if st, err := os.Stat(v); err != nil || st.Size() == 0 {
			t.Fatalf("%s: %v", v, err)
		}
	}
}

func TestTruncatedAndGarbageInputs(t *testing.T) {
	b := mustRead(t, filepath.Join(areaDir(t), "pickles/inputs/synthetic_documented.pkl"))
	for _, n := range []int{0, 1, 2, 11, 100, len(b) / 2, len(b) - 1} {
		_, err := DecodeAll("cut.pkl", b[:n])
		if err == nil {
			t.Fatalf("truncated at %d accepted", n)
		}
		var de *DecodeError
		if n > 0 && !errors.As(err, &de) {
			t.Fatalf("truncated at %d: %v is not a DecodeError", n, err)
		}
		if n > 0 && !strings.Contains(err.Error(), "cut.pkl: byte ") {
			t.Fatalf("error does not name file and offset: %v", err)
		}
	}
}

func TestNumpy2ModuleNames(t *testing.T) {
	// numpy ≥ 2 writes numpy._core.*; it must decode like numpy.core.*
	data := []byte("\x80\x04\x8c\x16numpy._core.multiarray\x94\x8c\x06scalar\x94\x93\x94\x8c\x05numpy\x94\x8c\x05dtype\x94\x93\x94\x8c\x02i8\x94\x89\x88\x87\x94R\x94(K\x03\x8c\x01<\x94NNNJ\xff\xff\xff\xffJ\xff\xff\xff\xffK\x00t\x94bC\x08\x03\x00\x00\x00\x00\x00\x00\x00\x94\x86\x94R\x94.")
	v, err := Decode(data)
	if err != nil {
		t.Fatal(err)
	}
	s, ok := v.(*Scalar)
	if !ok || s.Int() != 3 || s.DType.String() != "<i8" {
		t.Fatalf("decoded %#v", v)
	}
	// our writer uses numpy.core names (loadable by numpy 1 and 2)
	b, _ := Encode(v)
	if !strings.Contains(string(b), "numpy.core.multiarray") {
		t.Fatal("writer does not use numpy.core names")
	}
}

// TestSharedStructureBlowup: a small pickle describing an exponentially large tree through
// memo references decodes in linear time; walking it is bounded.
func TestSharedStructureBlowup(t *testing.T) {
	b := []byte("\x80\x04]\x940") // L0 = [] memo 0, popped
	for i := 0; i < 60; i++ {
		// L_{i+1} = [L_i, L_i], memo i+1, popped
		b = append(b, ']', 0x94, '(', 'h', byte(i), 'h', byte(i), 'e', '0')
	}
	b = append(b, 'h', 60, '.')
	start := time.Now()
	v, err := Decode(b)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := CanonicalJSON(v); err == nil {
		t.Fatal("2^60-node expansion rendered")
	}
	if _, err := Encode(v); err != nil {
		t.Fatal(err)
	}
	if el := time.Since(start); el > 5*time.Second {
		t.Fatalf("took %v", el)
	}
	// many-key dict: linear
	d := []byte("\x80\x04}(")
	for i := 0; i < 50000; i++ {
		k := fmt.Sprintf("k%d", i%40000)
		d = append(d, 0x8c, byte(len(k)))
		d = append(d, k...)
		d = append(d, 'N')
	}
	d = append(d, 'u', '.')
	start = time.Now()
	v, err = Decode(d)
	if err != nil {
		t.Fatal(err)
	}
	if v.(*Dict).Len() != 40000 {
		t.Fatalf("%d keys", v.(*Dict).Len())
	}
	if el := time.Since(start); el > 2*time.Second {
		t.Fatalf("many-key dict took %v", el)
	}
}

func TestPyErrorLines(t *testing.T) {
	dir := t.TempDir()
	_, err := Edit(filepath.Join(dir, "missing.pkl"), "0:remove", dir, EditOptions{})
	if got := PyErrorLine(err); !strings.HasPrefix(got, "FileNotFoundError: [Errno 2] No such file or directory: ") {
		t.Fatalf("missing file: %q", got)
	}
	if !errors.Is(err, os.ErrNotExist) {
		t.Fatal("not errors.Is ErrNotExist")
	}
	_, err = ParseModifiers("")
	if got := PyErrorLine(err); got != "IndexError: list index out of range" {
		t.Fatalf("empty modifiers: %q", got)
	}
}

func TestRenderFrameConcurrent(t *testing.T) {
	f, err := Open(filepath.Join(areaDir(t), "pickles/inputs/synthetic_visual.pkl"))
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 8)
	for g := 0; g < 8; g++ {
		go func(g int) {
			rec, _ := f.Record(0, 1+g%4)
			_, _, err := RenderFrame("demo_task", rec, FrameOptions{})
			done <- err
		}(g)
	}
	for g := 0; g < 8; g++ {
		if err := <-done; err != nil {
			t.Fatal(err)
		}
	}
}
