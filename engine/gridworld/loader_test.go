package gridworld

import (
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
