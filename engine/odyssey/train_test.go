package odyssey

import (
	"bytes"
	"encoding/json"
	"errors"
	"reflect"
	"slices"
	"strings"
	"testing"
)

func TestPyStrListRoundTrip(t *testing.T) {
	lists := [][]string{
		{},
		{"a"},
		{"/d/screenshots/x_0.png", "/d/screenshots/x_1.png"},
		{"it's", `say "hi"`, `both ' and "`, `back\slash`, "tab\there\nnew\rline", "ü 中文 🍰", "\x00\x07\x7f\u0085\u2028", ""},
	}
	for _, l := range lists {
		text := PyStrList(l)
		got, err := ParsePyStrList(text)
		if err != nil {
			t.Errorf("%s: %v", text, err)
			continue
		}
		if !slices.Equal(got, l) {
			t.Errorf("%s: read %q, want %q", text, got, l)
		}
	}
	// what Python's eval also reads: spacing and the other escapes
	got, err := ParsePyStrList(` [ 'a\x41\u00e9\101' ,"b\'" ] `)
	if err != nil || !slices.Equal(got, []string{"aAéA", "b'"}) {
		t.Errorf("spaced list: %q, %v", got, err)
	}
	for _, bad := range []string{"", "x", "[", "['a'", "['a' 'b']", "['a'] x", "[1]", `['a\x4']`, "['a,]"} {
		if _, err := ParsePyStrList(bad); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}

func TestPyIndent(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{`[]`, `[]`},
		{`{}`, `{}`},
		{`{"a":[],"b":{},"c":[1,2.50,1e2,-0,true,null]}`, "{\n    \"a\": [],\n    \"b\": {},\n    \"c\": [\n        1,\n        2.5,\n        100.0,\n        0,\n        true,\n        null\n    ]\n}"},
		{`["é\u2028<>&\"\\\n\u0001\b\f"]`, "[\n    \"é\u2028<>&\\\"\\\\\\n\\u0001\\b\\f\"\n]"},
	} {
		got, err := PyIndent([]byte(c.in))
		if err != nil || string(got) != c.want {
			t.Errorf("%s:\n got %q, %v\nwant %q", c.in, got, err, c.want)
		}
	}
	if _, err := PyIndent([]byte(`[1] [2]`)); err == nil {
		t.Error("two values: no error")
	}
}

func convEpisode(t *testing.T, id string, steps string) *Annotation {
	t.Helper()
	data := `{"episode_id":"` + id + `","device_info":{"device_name":"Pixel 7 Pro"},"task_info":{"category":"General_Tool","instruction":"Do it"},"step_length":2,"steps":[` + steps + `]}`
	a, err := ParseAnnotation("/data/annotations/"+id+".json", []byte(data))
	if err != nil {
		t.Fatal(err)
	}
	return a
}

const convSteps = `{"step":0,"screenshot":"e_0.png","action":"CLICK","info":[[1,2]],"low_level_instruction":"tap","description":"d0","intention":"i0","context":"c0","sam2_bbox":[]},
	{"step":1,"screenshot":"e_1.png","action":"COMPLETE","info":"","low_level_instruction":"stop","description":null,"intention":"i1","context":"c1","sam2_bbox":[]}`

func TestTrainChats(t *testing.T) {
	eps := []*Annotation{convEpisode(t, "e", convSteps)}
	img := func(n string) string { return "/shots/" + n }
	std, err := TrainChats(eps, ChatOptions{Split: "random_split", Level: LevelLow, HisLen: 4, Kind: ChatStandard}, img)
	if err != nil || len(std) != 2 {
		t.Fatalf("standard: %d, %v", len(std), err)
	}
	if std[1].ID != "GUIOdyssey_random_split_1" || std[1].History != "['/shots/e_0.png']" ||
		!strings.Contains(string(std[1].Conversations[0].Value), `how to stop\nPrevious screenshots: <img>image-history: /shots/e_1.png</img>\nPrevious Actions: 1. CLICK: (1, 2)\n\nProvide`) {
		t.Errorf("standard step 1: %+v", std[1])
	}
	// his_len 0 lists no action even with earlier steps
	none, _ := TrainChats(eps, ChatOptions{Split: "s", Level: LevelHigh, HisLen: 0, Kind: ChatStandard}, img)
	if !strings.Contains(string(none[1].Conversations[0].Value), "Previous Actions: None") {
		t.Errorf("his_len 0: %s", none[1].Conversations[0].Value)
	}
	sem, err := TrainChats(eps, ChatOptions{Split: "a.b", Level: LevelHigh, HisLen: 4, Kind: ChatSemantic, Seed: 5}, img)
	if err != nil || len(sem) != 8 {
		t.Fatalf("semantic: %d, %v", len(sem), err)
	}
	ids := map[string]int{}
	nullDesc := false
	for _, r := range sem {
		ids[r.ID]++
		if strings.HasSuffix(r.ID, "_desc") && string(r.Conversations[1].Value) == "null" {
			nullDesc = true
		}
	}
	// the original never advances the semantic counter, and names its split up to the first dot
	want := map[string]int{"GUIOdyssey_a_0_desc": 2, "GUIOdyssey_a_0_action": 2, "GUIOdyssey_a_0_intention": 2, "GUIOdyssey_single_a_0_context": 2}
	if !reflect.DeepEqual(ids, want) || !nullDesc {
		t.Errorf("semantic ids %v (null description kept: %v)", ids, nullDesc)
	}
	again, _ := TrainChats(eps, ChatOptions{Split: "a.b", Level: LevelHigh, HisLen: 4, Kind: ChatSemantic, Seed: 5}, img)
	if !reflect.DeepEqual(again, sem) {
		t.Error("the same seed gave another order")
	}
	differs := false
	for seed := uint64(6); seed < 16 && !differs; seed++ {
		other, _ := TrainChats(eps, ChatOptions{Split: "a.b", Level: LevelHigh, HisLen: 4, Kind: ChatSemantic, Seed: seed}, img)
		differs = !reflect.DeepEqual(other, sem)
	}
	if !differs {
		t.Error("ten other seeds gave the same order")
	}

	// a step without the semantic fields: the error names the file and the step
	v1 := convEpisode(t, "v", `{"step":0,"screenshot":"v_0.png","action":"CLICK","info":"KEY_HOME"}`)
	if _, err := TrainChats([]*Annotation{v1}, ChatOptions{Split: "s", Level: LevelHigh, Kind: ChatSemantic}, img); err == nil ||
		!strings.Contains(err.Error(), "/data/annotations/v.json: episode v step 0") || !strings.Contains(err.Error(), "description") {
		t.Errorf("v1 semantic: %v", err)
	}
	bad := convEpisode(t, "b", `{"step":0,"screenshot":"b_0.png","action":"FLY","info":""}`)
	if _, err := TrainChats([]*Annotation{bad}, ChatOptions{Split: "s", Level: LevelHigh, Kind: ChatStandard}, img); err == nil ||
		!strings.Contains(err.Error(), "/data/annotations/b.json: episode b step 0") {
		t.Errorf("unknown action: %v", err)
	}
	for _, o := range []ChatOptions{{Level: "mid", Kind: ChatStandard}, {Level: LevelHigh, Kind: "fancy"}} {
		if _, err := TrainChats(eps, o, img); err == nil {
			t.Errorf("%+v: no error", o)
		}
	}
}

func TestHistoryIndex(t *testing.T) {
	eps := []*Annotation{convEpisode(t, "e", convSteps)}
	img := func(n string) string { return "/shots/" + n }
	chats, _ := TrainChats(eps, ChatOptions{Split: "s", Level: LevelHigh, HisLen: 4, Kind: ChatSemantic}, img)
	recs, _ := TestRecords("s", LevelHigh, eps, img)
	cj, _ := MarshalPy(chats)
	rj, _ := MarshalPy(recs)
	x := NewHistoryIndex()
	if err := x.AddFile("train.json", cj, HistoryFieldTrain); err != nil {
		t.Fatal(err)
	}
	if err := x.AddFile("test.json", rj, HistoryFieldTest); err != nil {
		t.Fatal(err)
	}
	var got map[string][]string
	if err := json.Unmarshal(x.JSON(), &got); err != nil {
		t.Fatal(err)
	}
	want := map[string][]string{"/shots/e_0.png": {}, "/shots/e_1.png": {"/shots/e_0.png"}}
	if x.Len() != 2 || !reflect.DeepEqual(got, want) {
		t.Errorf("index %v, want %v", got, want)
	}
	// the same image with another history fails, as the original's assertion does
	err := x.AddFile("other.json", []byte(`[{"image":"/shots/e_1.png","history":"[]"}]`), HistoryFieldTrain)
	if err == nil || !strings.Contains(err.Error(), "other.json: record 0") || !strings.Contains(err.Error(), "train.json") {
		t.Errorf("conflict: %v", err)
	}
	for _, bad := range []string{`{}`, `[{"history":"[]"}]`, `[{"image":"a"}]`, `[{"image":"a","history":"['x'"}]`,
		`[{"image":null,"history":"[]"}]`, `[{"image":"a","history":null}]`, `[{"image":7,"history":"[]"}]`} {
		if err := NewHistoryIndex().AddFile("bad.json", []byte(bad), HistoryFieldTrain); err == nil || !strings.HasPrefix(err.Error(), "bad.json") {
			t.Errorf("%s: %v", bad, err)
		}
	}
	if string(NewHistoryIndex().JSON()) != "{}" {
		t.Error("empty index")
	}
}

func TestChatsWriteStops(t *testing.T) {
	eps := []*Annotation{convEpisode(t, "e", convSteps)}
	c, err := NewChats(eps, ChatOptions{Split: "s", Level: LevelHigh, HisLen: 4, Kind: ChatStandard}, func(n string) string { return n })
	if err != nil {
		t.Fatal(err)
	}
	stop := errors.New("stopped")
	var b bytes.Buffer
	if err := c.WritePy(&b, func() error { return stop }); err != stop {
		t.Errorf("chats: %v", err)
	}
	recs, _ := TestRecords("s", LevelHigh, eps, func(n string) string { return n })
	if err := WriteTestRecordsPy(&b, recs, func() error { return stop }); err != stop {
		t.Errorf("test records: %v", err)
	}
	// written whole, both are what MarshalPy makes of the records
	for name, write := range map[string]func(*bytes.Buffer) error{
		"chats":        func(b *bytes.Buffer) error { return c.WritePy(b, nil) },
		"test records": func(b *bytes.Buffer) error { return WriteTestRecordsPy(b, recs, nil) },
	} {
		var got bytes.Buffer
		if err := write(&got); err != nil {
			t.Fatal(err)
		}
		var want []byte
		if name == "chats" {
			all, _ := TrainChats(eps, ChatOptions{Split: "s", Level: LevelHigh, HisLen: 4, Kind: ChatStandard}, func(n string) string { return n })
			want, _ = MarshalPy(all)
		} else {
			want, _ = MarshalPy(recs)
		}
		if got.String() != string(want) {
			t.Errorf("%s:\n got %s\nwant %s", name, got.String(), want)
		}
	}
}
