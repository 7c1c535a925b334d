package mobileenv

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// Seed corpora live in testdata/fuzz/<FuzzName>/ (go test's format); the conformance pickles
// and task definitions are added as seeds too.

func FuzzDecodePickle(f *testing.F) {
	for _, p := range []string{"pickles/inputs/synthetic_documented.pkl", "pickles/reader/synthetic_documented.protocol2.pkl",
		"pickles/reader/synthetic_documented.protocol5.pkl", "pickles/inputs/web-dumps/anno.3.pkl"} {
		if b, err := os.ReadFile(filepath.Join(areaDir(f), p)); err == nil {
			f.Add(b)
		}
	}
	f.Add([]byte("\x80\x02cposix\nsystem\nq\x00X\x02\x00\x00\x00lsq\x01\x85q\x02Rq\x03."))
	f.Add([]byte("\x80\x04\x8e\x00\x00\x00\x80\x02\x00\x00\x00abc"))
	f.Add(resavedWithObservation(unbuiltArray))
	f.Fuzz(func(t *testing.T, data []byte) {
		ps, err := DecodeAll("fuzz", data)
		if err != nil {
			return
		}
		useDecoded(t, data)
		// whatever decodes must encode, and re-decode to the same canonical JSON
		for _, p := range ps {
			j1, err := CanonicalJSON(p.Value)
			if err != nil {
				return // e.g. non-string dict keys have no JSON form
			}
			b, err := Encode(p.Value)
			if err != nil {
				continue // values we read but do not write (none today)
			}
			v, err := Decode(b)
			if err != nil {
				t.Fatalf("re-decode of our own output: %v", err)
			}
			j2, _ := CanonicalJSON(v)
			if !bytes.Equal(j1, j2) {
				t.Fatalf("round trip changed the value:\n%s\n%s", j1, j2)
			}
		}
	})
}

// useDecoded runs what the tools and the Demonstrations workspace do with a file that decodes:
// classify it, summarise it, convert every trajectory to an episode, and draw the frames of
// small observations (info, info --json, visualize and the workspace's viewer). Errors are
// fine; a panic, or a panic caught in a worker, is a bug.
func useDecoded(t *testing.T, data []byte) {
	f, err := Parse("fuzz", data)
	if err != nil {
		return
	}
	s := f.Summary()
	_ = s.Text()
	if _, err := json.Marshal(s); err != nil {
		t.Fatalf("summary does not marshal: %v", err)
	}
	for i, traj := range f.Trajectories {
		_, _ = f.Episode(i, EpisodeOptions{})
		for j, it := range traj.Items {
			rec, ok := it.(*Dict)
			if !ok {
				continue
			}
			_, _ = CanonicalJSON(rec)
			if obs, _ := rec.Get("observation"); obs != nil {
				if a, ok := obs.(*NDArray); ok && a.Len() > 64*64*4 {
					continue // drawing a phone screen per input would slow the fuzzer to a crawl
				}
			}
			_, _ = f.StepImage(i, j)
			_, _, err := RenderFrame("fuzz", rec, FrameOptions{NoDescp: j%2 == 0})
			var pe *PanicError
			if errors.As(err, &pe) {
				t.Fatalf("%v\n%s", pe, pe.Stack)
			}
		}
	}
}

func FuzzParseModifiers(f *testing.F) {
	for _, s := range []string{"0:delete:1:3", "1:rewardize:2:0.5", "-1:remove", "0:instructionize:0:0,0:auto_instructionize", "", ":", "0:rewardize:1:1_0.5e-3", " 1 :delete: -1 :+2"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		mods, err := ParseModifiers(s)
		if err != nil {
			return
		}
		// formatting and re-parsing gives the same typed modifiers
		again, err := ParseModifiers(FormatModifiers(mods))
		if err != nil {
			t.Fatalf("%q → %q: %v", s, FormatModifiers(mods), err)
		}
		for i := range mods {
			a, b := mods[i], again[i]
			if a.Traj != b.Traj || a.Name != b.Name || a.A != b.A || a.B != b.B || (a.Delta != b.Delta && a.Delta == a.Delta) {
				t.Fatalf("%q: %+v != %+v", s, a, b)
			}
		}
		// applying never panics
		trajs := &List{}
		for i := 0; i < 3; i++ {
			l := &List{}
			for j := 0; j < 4; j++ {
				d := &Dict{}
				d.Set("reward", int64(j))
				l.Items = append(l.Items, d)
			}
			trajs.Items = append(trajs.Items, l)
		}
		_ = ApplyModifiers(trajs, mods, []any{NewStr("a"), &List{Items: []any{NewStr("b")}}})
	})
}

// FuzzParseTaskDef: task definitions are read by engine/template's reader; whatever it
// accepts, computing the instruction options (which evaluates transformations) must not panic.
func FuzzParseTaskDef(f *testing.F) {
	if b, err := os.ReadFile(filepath.Join(areaDir(f), "pickles/inputs/textprotos/demo_task.textproto")); err == nil {
		f.Add(b)
	}
	f.Add([]byte(`id: "a\x41\101\(\u0041" vocabulary: ["x", 'y' "z"] event_slots { instruction_listener: < events: [{event: {events {id: 1} transformation: "y = ['a']"}}] > }`))
	f.Add([]byte("max_duration_sec: 1.5e3 # comment\n event_slots {}"))
	f.Fuzz(func(t *testing.T, data []byte) {
		td, err := ParseTaskDef("fuzz", data)
		if err != nil {
			return
		}
		_, _ = td.InstructionOptions()
	})
}
