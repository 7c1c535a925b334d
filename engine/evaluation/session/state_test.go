package session

import (
	"encoding/json"
	"strings"
	"testing"

	ev "github.com/agentdesk/agentdesk/engine/evaluation"
)

// The answer state keeps the keys a session adds in one place: what is read back is written
// out again, a key deleted after a resume stays deleted, and mistakes are set and cleared.
func TestAnswerStateExtraKeys(t *testing.T) {
	in := `{"workerId":"w","lastIndex":1,"lastAnnot":0,"0":{"subtask_index":0,"data":{}},"mistakes":[[3]],"training":{"step":"x"}}`
	st := ev.NewAnswerState("")
	if err := json.Unmarshal([]byte(in), st); err != nil {
		t.Fatal(err)
	}
	out, err := json.Marshal(st)
	if err != nil || string(out) != in {
		t.Fatalf("round trip\n%s\n%s (%v)", out, in, err)
	}
	delete(st.Extra, "training")
	setMistakes(st, [][]int{{1, 2}})
	st.Extra["success"] = json.RawMessage(`true`)
	out, _ = json.Marshal(st)
	if want := `{"workerId":"w","lastIndex":1,"lastAnnot":0,"0":{"subtask_index":0,"data":{}},"mistakes":[[1,2]],"success":true}`; string(out) != want {
		t.Fatalf("after a resume\n%s\n%s", out, want)
	}
	setMistakes(st, nil)
	if out, _ = json.Marshal(st); strings.Contains(string(out), "mistakes") {
		t.Fatalf("mistakes cleared: %s", out)
	}
	if out, _ = json.Marshal(newAnswerState("v")); string(out) != `{"workerId":"v","lastIndex":0,"lastAnnot":0}` {
		t.Fatalf("new state: %s", out)
	}
}
