package evaluation

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// oldDatapointJSON is how datapoints were written before they were appended straight into one
// slice: orderedJSON and mustRaw over each part. The two must give the same bytes.
func oldDatapointJSON(dp Datapoint) json.RawMessage {
	turns := func(ts []Turn) json.RawMessage {
		list := make([]json.RawMessage, 0, len(ts))
		for _, t := range ts {
			parts := []json.RawMessage{mustRaw(t.Speaker), mustRaw(t.Text)}
			if t.Truth != nil {
				tb, _ := t.Truth.MarshalJSON()
				var ex json.RawMessage = json.RawMessage("null")
				if t.Explanation != nil {
					ex = mustRaw(*t.Explanation)
				}
				parts = append(parts, tb, ex)
			}
			list = append(list, mustRaw(parts))
		}
		return mustRaw(list)
	}
	obj := orderedJSON{{"dialogue_id", mustRaw(dp.DialogueID)}}
	if dp.OriginWorkerID != "" {
		obj = append(obj, member{"origin_worker_id", mustRaw(dp.OriginWorkerID)})
	}
	obj = append(obj, member{"group_id", mustRaw(dp.GroupID)})
	tasks := dp.AnnotationTasks
	if tasks == nil {
		tasks = []string{}
	}
	obj = append(obj, member{"annotation_tasks", mustRaw(tasks)}, member{"turns", turns(dp.Turns)})
	if dp.Turns2 != nil {
		obj = append(obj, member{"turns2", turns(dp.Turns2)})
	}
	if dp.BotPersona != nil {
		obj = append(obj, member{"bot_persona", dp.BotPersona})
	}
	return mustRaw(obj)
}

func TestAppendedJSONIsTheEncoders(t *testing.T) {
	strs := []string{"", "plain", `q"uo\te`, "<b>&amp;</b>", "\x00\x01\b\f\n\r\t\x1f\x7f", "caf\u00e9 \u2028\u2029 \U0001F600",
		"bad \xff\xfe utf8 \xe2\x82", "日本語", strings.Repeat("ab\"c\n", 1000)}
	for _, s := range strs {
		if got, want := string(appendJSONString(nil, s)), string(mustRaw(s)); got != want {
			t.Errorf("%q: %s, want %s", s, got, want)
		}
	}
	ex := "why <not>"
	truth, err := ParseTruth(json.RawMessage(`{"rude_q": "yes", "x": ""}`))
	if err != nil {
		t.Fatal(err)
	}
	dps := []Datapoint{
		{DialogueID: "d\u2028", GroupID: "g&", AnnotationTasks: []string{"a", "b<"}, Turns: []Turn{{Speaker: "user", Text: strs[5]}, {Speaker: "s", Text: strs[6], Truth: truth, Explanation: &ex}, {Speaker: "s", Text: "", Truth: truth}},
			Turns2: []Turn{}, BotPersona: json.RawMessage(`{ "a" : [1, 2] , "h": "<&>" }`), OriginWorkerID: "w"},
		{DialogueID: "", Turns: nil},
	}
	for _, dp := range dps {
		if got, want := string(datapointJSON(dp)), string(oldDatapointJSON(dp)); got != want {
			t.Errorf("datapoint:\n%s\nwant\n%s", got, want)
		}
	}
	var buf bytes.Buffer
	if err := WriteBundles(&buf, []Bundle{{Datapoints: dps}, {}}); err != nil {
		t.Fatal(err)
	}
	want := string(mustRaw(orderedJSON{{"data", mustRaw([]json.RawMessage{oldDatapointJSON(dps[0]), oldDatapointJSON(dps[1])})}})) + "\n" +
		string(mustRaw(orderedJSON{{"data", mustRaw([]json.RawMessage{})}})) + "\n"
	if buf.String() != want {
		t.Errorf("WriteBundles:\n%s\nwant\n%s", buf.String(), want)
	}
}

// Lines read from the file's bytes and from a reader give the same bundles and errors. (The
// bundles read from the bytes hold windows on them, their plain strings: a 100 MB line of
// short turns cost 77 MB more as copies.)
func TestReadBundlesDataIsReadBundles(t *testing.T) {
	in := "\ufeff{\"data\": [{\"dialogue_id\": \"d\\u00e9\", \"annotation_tasks\": [\"a\"], \"turns\": [[\"user\", \"hi\"], [\"s\", \"x\", {\"q\": \"y\"}, null]], \"bot_persona\": {\"p\": 1}, \"extra\": 1, \"extra\": 2}], \"more\": true}\n\n" +
		"{\"data\": [{\"dialogue_id\": \"e\", \"group_id\": null, \"annotation_tasks\": [], \"turns\": [], \"turns2\": null}]}"
	data := []byte(in)
	fromData, err := readBundlesData(data, "f.jsonl", nil)
	if err != nil {
		t.Fatal(err)
	}
	fromReader, err := ReadBundles(strings.NewReader(in), "f.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	var a, b bytes.Buffer
	WriteBundles(&a, fromData)
	WriteBundles(&b, fromReader)
	if a.String() != b.String() || len(fromData) != 2 {
		t.Errorf("%s\nwant\n%s", a.String(), b.String())
	}
	for _, bad := range []string{`{"data": [{"dialogue_id": 1}]}`, `[1]`, `null`, `{"data": {}}`, `{"data": [{"dialogue_id": "d", "annotation_tasks": [], "turns": [["a"]]}]}`,
		`{"data": [{"dialogue_id": "d", "annotation_tasks": [], "turns": [null]}]}`, `{"data": [1`, `{"data": null}`} {
		_, e1 := readBundlesData([]byte(bad), "f.jsonl", nil)
		_, e2 := ReadBundles(strings.NewReader(bad), "f.jsonl")
		if e1 == nil || e2 == nil || e1.Error() != e2.Error() {
			t.Errorf("%s: %v, and from a reader %v", bad, e1, e2)
		}
	}
}

func TestJSONStringSize(t *testing.T) {
	for _, s := range []string{"", "plain", `q"uo\te`, "\x00\x01\b\f\n\r\t\x1f\x7f", "caf\u00e9 \u2028\u2029 \U0001F600", "bad \xff\xfe utf8 \xe2\x82"} {
		if got, want := jsonStringSize(s), len(appendJSONString(nil, s)); got != want {
			t.Errorf("%q: %d, want %d", s, got, want)
		}
	}
}
