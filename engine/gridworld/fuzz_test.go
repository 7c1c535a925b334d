package gridworld

import (
	"strings"
	"testing"
	"testing/fstest"
)

// FuzzLoadIGLUDataset feeds arbitrary dialogs.csv and step-file contents to the loader: it
// must never panic, and every error must name the file it comes from.
func FuzzLoadIGLUDataset(f *testing.F) {
	f.Add(testDialogs, `{"worldEndingState":{"blocks":[[0,63,0,57],[0,64,0,59]]}}`)
	f.Add("PartitionKey,structureId,StepId,IsHITQualified,instruction,Answer4ClarifyingQuestion,ClarifyingQuestion\n1-c7,c7,2,True,,,\n", `{"worldEndingState":{"blocks":[[0,63,0,57]]}}`)
	f.Add("PartitionKey,structureId,StepId,IsHITQualified,instruction,Answer4ClarifyingQuestion,ClarifyingQuestion\n1-c7,c7,1,True,,yes,\n", `{}`)
	f.Add("\"unterminated", `{"worldEndingState":{"blocks":[[0,63]]}}`)
	f.Fuzz(func(t *testing.T, dialogs, step string) {
		fsys := fstest.MapFS{
			"dialogs.csv":              {Data: []byte(dialogs)},
			"builder-data/1-c7/step-2": {Data: []byte(step)},
			"builder-data/1-c7/step-6": {Data: []byte(step)},
			"builder-data/3-c9/step-2": {Data: []byte(step)},
		}
		ds, err := LoadIGLUDataset(fsys, LoadOptions{})
		if err != nil {
			msg := err.Error()
			if !strings.HasPrefix(msg, "dialogs.csv") && !strings.HasPrefix(msg, "builder-data/") {
				t.Fatalf("error does not name its file: %v", err)
			}
			return
		}
		if _, err := ds.AllTasks(); err != nil {
			t.Fatalf("loaded dataset yields a bad task: %v", err)
		}
	})
}

// FuzzDecodeAction decodes arbitrary JSON in the three action forms; decoded actions must be
// valid, round-trip through MarshalJSON and step an environment without error.
func FuzzDecodeAction(f *testing.F) {
	f.Add([]byte(`17`), uint8(0))
	f.Add([]byte(`{"forward":1,"back":0,"left":0,"right":1,"jump":1,"attack":1,"use":0,"camera":[0.5,-4],"hotbar":2}`), uint8(1))
	f.Add([]byte(`{"movement":[0.1,-0.2,1],"camera":[5,-5],"inventory":6,"placement":2}`), uint8(2))
	f.Add([]byte(`{"movement":[NaN]}`), uint8(2))
	f.Fuzz(func(t *testing.T, data []byte, form uint8) {
		space, disc := Walking, true
		switch form % 3 {
		case 1:
			disc = false
		case 2:
			space, disc = Flying, false
		}
		a, err := DecodeAction(data, space, disc)
		if err != nil {
			return
		}
		if err := a.Validate(); err != nil {
			t.Fatalf("decoded action invalid: %v", err)
		}
		out, err := a.MarshalJSON()
		if err != nil {
			t.Fatal(err)
		}
		b, err := DecodeAction(out, space, disc)
		if err != nil || b != a {
			t.Fatalf("round trip %s -> %+v -> %s -> %+v (%v)", data, a, out, b, err)
		}
		cfg := vectorConfig(space)
		cfg.Discretize = disc
		e := newTestEnv(t, cfg, DummyTask())
		if _, _, _, err := e.Step(a); err != nil {
			t.Fatalf("step: %v", err)
		}
	})
}
