package odyssey

import (
	"fmt"
	"reflect"
	"runtime"
	"testing"
)

// BigEpisode writes one episode of n steps as an annotation file (about 100 bytes a step),
// with an unofficial action, a misnumbered step and one v2 field on the way, so that a
// streamed read has warnings, kinds and a schema to get right.
func BigEpisode(id string, n int) []byte {
	b := fmt.Appendf(nil, `{"episode_id":%q,"device_info":{"product":"p","release_version":"14","sdk_version":"34","w":1080,"h":2400,"device_name":"Medium Phone"},"task_info":{"category":"General_Tool","app":["Chrome"],"meta_task":"m","task":"t","instruction":"do it"},"step_length":%d,"steps":[`, id, n)
	for i := range n {
		if i > 0 {
			b = append(b, ',')
		}
		num, action, info := i, "CLICK", fmt.Sprintf("[[500,%d]]", i%1000)
		switch {
		case i == n/2:
			num = i + 7
		case i%997 == 5:
			action, info = "HOME", `""`
		case i%499 == 3:
			action, info = "TEXT", `"hello"`
		case i == n-1:
			action, info = "COMPLETE", `""`
		}
		b = fmt.Appendf(b, `{"step":%d,"screenshot":"%s_%d.png","action":%q,"info":%s,"ps":""`, num, id, i, action, info)
		if i == n/3 {
			b = append(b, `,"low_level_instruction":"tap"`...)
		}
		b = append(b, '}')
	}
	return append(b, "]}"...)
}

// An episode read streamed says what the same episode read whole says, and StepBatches gives
// its steps as they are kept whole, prepared.
func TestStreamedEpisodeIsTheSame(t *testing.T) {
	data := BigEpisode("ep", 3000)
	whole, err := parseAnnotation("ep.json", data, 0)
	if err != nil {
		t.Fatal(err)
	}
	whole.Prepare()
	streamed, err := parseAnnotation("ep.json", data, 100)
	if err != nil {
		t.Fatal(err)
	}
	if whole.Streamed() || !streamed.Streamed() || streamed.Steps != nil {
		t.Fatalf("streamed: whole %v, streamed %v", whole.Streamed(), streamed.Streamed())
	}
	if streamed.NumSteps() != 3000 || streamed.StepLength != whole.StepLength {
		t.Errorf("steps %d, step_length %d", streamed.NumSteps(), streamed.StepLength)
	}
	if !reflect.DeepEqual(streamed.Warnings, whole.Warnings) || len(whole.Warnings) < 3 {
		t.Errorf("warnings\n%q\nwant\n%q", streamed.Warnings, whole.Warnings)
	}
	if streamed.Schema() != whole.Schema() || whole.Schema() != SchemaV2 {
		t.Errorf("schema %s, want %s", streamed.Schema(), whole.Schema())
	}
	if !reflect.DeepEqual(streamed.Facets(), whole.Facets()) {
		t.Errorf("facets %v, want %v", streamed.Facets(), whole.Facets())
	}
	if string(streamed.MetadataJSON()) != string(whole.MetadataJSON()) {
		t.Errorf("metadata %s, want %s", streamed.MetadataJSON(), whole.MetadataJSON())
	}
	next := 0
	err = streamed.StepBatches(7, func(first int, steps []StepAnnotation) error {
		if first != next || len(steps) > 7 {
			t.Fatalf("batch at %d of %d steps, want at %d", first, len(steps), next)
		}
		for j := range steps {
			got, want := &steps[j], &whole.Steps[first+j]
			ga, ge := got.Stored()
			wa, we := want.Stored()
			if ga != wa || ge != we || got.Kind() != want.Kind() || got.Screenshot != want.Screenshot ||
				got.LowLevelInstruction != want.LowLevelInstruction || got.Offset != want.Offset {
				t.Fatalf("step %d: %s %s, want %s %s", first+j, ga, ge, wa, we)
			}
		}
		next += len(steps)
		return nil
	})
	if err != nil || next != 3000 {
		t.Fatalf("StepBatches: %v after %d steps", err, next)
	}
	// An episode at or under the threshold is read whole.
	if a, _ := parseAnnotation("ep.json", BigEpisode("small", 100), 100); a.Streamed() || len(a.Steps) != 100 {
		t.Error("a 100-step episode was streamed at threshold 100")
	}
}

// heapAfter is the live heap once keep has been built, less the live heap before.
func heapAfter(keep func() any) int64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	v := keep()
	runtime.GC()
	runtime.ReadMemStats(&after)
	runtime.KeepAlive(v)
	return int64(after.HeapAlloc) - int64(before.HeapAlloc)
}

// The scaled-down copy of `make reliability`'s 300k-step file: 30k steps read streamed hold
// the file's bytes and little more; read whole, they held many times the file (which is what
// made the 300k-step import peak at 727 MB).
func TestStreamedEpisodeMemory(t *testing.T) {
	data := BigEpisode("ep", 30_000)
	bound := int64(len(data)) + 2<<20
	streamed := heapAfter(func() any {
		a, err := parseAnnotation("ep.json", data, 4096)
		if err != nil {
			t.Fatal(err)
		}
		return a
	})
	whole := heapAfter(func() any {
		a, err := parseAnnotation("ep.json", data, 0)
		if err != nil {
			t.Fatal(err)
		}
		a.Prepare()
		return a
	})
	t.Logf("%d-byte file: %d bytes live streamed, %d read whole", len(data), streamed, whole)
	if streamed > bound {
		t.Errorf("streamed: %d bytes live for a %d-byte file, want at most %d", streamed, len(data), bound)
	}
	if whole <= bound { // the bound tells the two apart
		t.Errorf("read whole: %d bytes live, under the streamed bound %d", whole, bound)
	}
}
