package gridworld

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"
)

const testDialogs = `PartitionKey,structureId,StepId,IsHITQualified,instruction,Answer4ClarifyingQuestion,ClarifyingQuestion,Role
1-c7,c7,1,True,place a blue$$block,,,architect
1-c7,c7,2,True,,,,builder
1-c7,c7,3,True,now a green one on top,,,architect
1-c7,c7,4,True,,,which side?,builder
1-c7,c7,5,True,,on top$please,,architect
1-c7,c7,6,True,,,,builder
1-c7,c7,7,False,ignored,,,architect
2-c7,c7,1,True,nothing here,,,architect
3-c9,c9,1,True,build a red block,,,architect
3-c9,c9,2,True,,,,builder
3-c9,c9,3,True,then nothing,,,architect
3-c9,c9,4,True,,,,builder
`

func testFS() fstest.MapFS {
	return fstest.MapFS{
		"dialogs.csv":              {Data: []byte(testDialogs)},
		"builder-data/1-c7/step-2": {Data: []byte(`{"worldEndingState":{"blocks":[[0,63,0,57]]},"gameId":"1-c7","stepId":2}`)},
		"builder-data/1-c7/step-6": {Data: []byte(`{"worldEndingState":{"blocks":[[0,63,0,57],[0,64,0,59]]}}`)},
		"builder-data/3-c9/step-2": {Data: []byte(`{"worldEndingState":{"blocks":[[1,63,1,60]]}}`)},
		"builder-data/3-c9/step-4": {Data: []byte(`{"worldEndingState":{"blocks":[]}}`)},
	}
}

func TestLoadIGLUDataset(t *testing.T) {
	ds, err := LoadIGLUDataset(testFS(), LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if ids := ds.StructureIDs(); len(ids) != 2 || ds.NumSessions() != 2 {
		t.Fatalf("structures %v sessions %d", ids, ds.NumSessions())
	}
	s := ds.Sessions["c7"][0]
	wantTurns := [][]string{{"<Architect> place a blue\nblock"}, {"<Architect> now a green one on top", "<Builder> which side?", "<Architect> on top\nplease"}}
	if len(s.Turns) != 2 || strings.Join(s.Turns[0], "|") != strings.Join(wantTurns[0], "|") || strings.Join(s.Turns[1], "|") != strings.Join(wantTurns[1], "|") {
		t.Errorf("turns %q", s.Turns)
	}
	if len(s.Structures) != 2 || len(s.Structures[1]) != 2 || s.Structures[1][1] != (Block{0, 0, 0, Green}) {
		t.Errorf("structures %v", s.Structures)
	}
	// c9: the empty last structure is dropped with its utterances
	s9 := ds.Sessions["c9"][0]
	if len(s9.Structures) != 1 || len(s9.Turns) != 1 || s9.Structures[0][0] != (Block{1, -1, 1, Red}) {
		t.Errorf("c9: %+v", s9)
	}
	all, err := ds.AllTasks()
	if err != nil || len(all) != 3 {
		t.Fatalf("tasks %d %v", len(all), err)
	}
}

func TestLoaderErrorsNamePosition(t *testing.T) {
	cases := []struct {
		name, file, data, want string
	}{
		{"bad step id", "dialogs.csv", strings.Replace(testDialogs, "1-c7,c7,3,", "1-c7,c7,x3,", 1), "dialogs.csv:4:"},
		{"missing column", "dialogs.csv", "PartitionKey,StepId\n1-c7,1\n", "dialogs.csv:1: missing column"},
		{"unknown voxel", "builder-data/1-c7/step-2", `{"worldEndingState":{"blocks":[[0,63,0,99]]}}`, "builder-data/1-c7/step-2:1:"},
		{"bad json", "builder-data/1-c7/step-6", "{\n\"worldEndingState\": {\"blocks\": [[0,63,0,57],]}}", "builder-data/1-c7/step-6:2:"},
		{"out of zone", "builder-data/3-c9/step-2", `{"worldEndingState":{"blocks":[[9,63,1,60]]}}`, "outside the build zone"},
	}
	for _, c := range cases {
		fsys := testFS()
		fsys[c.file] = &fstest.MapFile{Data: []byte(c.data)}
		_, err := LoadIGLUDataset(fsys, LoadOptions{})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want %q", c.name, err, c.want)
		}
	}
}

func TestPinnedDatasetSpecs(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "dataset")
	for name, f := range testFS() {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, f.Data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	rng := rand.New(rand.NewPCG(1, 2))
	draw := func(spec string) []*Task {
		t.Helper()
		src, name, err := ResolveTaskSpec(spec)
		if err != nil {
			t.Fatalf("%s: %v", spec, err)
		}
		if name != spec {
			t.Errorf("%s: name %q", spec, name)
		}
		var out []*Task
		for i := 0; i < 40; i++ {
			task, err := src.NextTask(rng)
			if err != nil {
				t.Fatalf("%s: %v", spec, err)
			}
			out = append(out, task)
		}
		return out
	}
	// structure c9 has one session with one turn: always the red block from an empty world
	for _, task := range draw("iglu:" + dir + "#structure=c9") {
		if task.Target.Count() != 1 || len(task.StartingGrid) != 0 || !strings.Contains(task.Chat, "red") {
			t.Fatalf("c9: %+v", task)
		}
	}
	// c7, session by index and by id, turn 0: starts from the blue block, the goal adds green
	for _, spec := range []string{"#structure=c7,session=0,turn=0", "#session=1-c7,turn=0", "#structure=c7,turn=0"} {
		for _, task := range draw("iglu:" + dir + spec) {
			if len(task.StartingGrid) != 1 || task.Target.Count() != 2 || !strings.Contains(task.LastInstruction, "green") {
				t.Fatalf("%s: %+v", spec, task)
			}
		}
	}
	// turn -1: the empty world, the first turn as goal
	for _, task := range draw("iglu:" + dir + "#structure=c7,turn=-1") {
		if len(task.StartingGrid) != 0 || task.Target.Count() != 1 {
			t.Fatalf("turn -1: %+v", task)
		}
	}
	// unpinned turn: both turns of c7 are drawn
	seen := map[int]bool{}
	for _, task := range draw("iglu:" + dir + "#structure=c7") {
		seen[len(task.StartingGrid)] = true
	}
	if !seen[0] || !seen[1] {
		t.Errorf("random turns of c7: starting sizes seen %v", seen)
	}
	for spec, want := range map[string]string{
		"#structure=c8":           `no structure "c8" in the dataset (it has 2: c7, c9)`,
		"#structure=c7,session=3": "session 3: structure c7 has sessions 0 to 0",
		"#session=9-c7":           `no session "9-c7" (sessions: 1-c7, 3-c9)`,
		"#structure=c7,turn=2":    "turn 2: session 1-c7 has turns -1 to 1",
		"#turn=x":                 "turn=x: want -1",
		"#structure=c7,color=red": `bad pin "color=red"`,
	} {
		_, _, err := ResolveTaskSpec("iglu:" + dir + spec)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: error %v, want %q", spec, err, want)
		}
	}
	// a '#' that is not a pin belongs to the folder's name
	odd := dir + "#1"
	if err := os.Rename(dir, odd); err != nil {
		t.Fatal(err)
	}
	if _, _, err := ResolveTaskSpec("iglu:" + odd); err != nil {
		t.Errorf("folder with '#': %v", err)
	}
}
