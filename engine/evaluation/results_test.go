package evaluation

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// annotateUnit plays a participant through a static unit of the example project.
func annotateUnit(t *testing.T, p *Project, u UnitKey, who string) AttemptResult {
	t.Helper()
	order := NewUnitOrder(p.Bundles[u.Bundle], UnitSeed(p.Settings.RandomSeed, u), true)
	shown := order.Apply(p.Bundles[u.Bundle])
	st := NewAnswerState(who)
	clock := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	res := AttemptResult{AttemptID: "key1-1", Participant: who, Kind: AttemptUnit, Shown: shown}
	pages := order.Pages()
	for k, pg := range pages {
		st.PageShown(pg.Dialogue, pg.Annot, false, clock)
		dp := shown[pg.Dialogue]
		ty := p.Type(pg.Type)
		a := st.Dialogue(pg.Dialogue)
		for _, pos := range ty.Positions(len(dp.Turns)) {
			switch ty.Name {
			case "flags":
				if pos == 3 {
					ApplyFlowClick(a.Turn(pos, dp.Turns[pos]), ty.Flow, FlowClick{ClickCheck, "rude_q", "The reply is rude."})
				}
			case "labels":
				if pos == 5 {
					a.SetLabels(ty, pos, dp.Turns[pos], []string{"repeat", "contra"})
				}
			}
		}
		if ok, _ := IsComplete(ty, a, ty.Positions(len(dp.Turns))); !ok {
			t.Fatalf("page %v incomplete", pg)
		}
		clock = clock.Add(time.Minute)
		st.PageDone(pg.Dialogue, pg.Annot, false, clock)
		if k+1 < len(pages) {
			st.LastIndex, st.LastAnnot = pages[k+1].Dialogue, pages[k+1].Annot
			snap := *st
			res.Snapshots = append(res.Snapshots, Snapshot{Time: clock, State: &snap})
		}
	}
	res.Final, res.FinalTime = st, clock
	return res
}

func TestStateJSONShapeForAnalysisScripts(t *testing.T) {
	p, _ := importExample(t, "flags")
	res := annotateUnit(t, p, UnitKey{0, 0}, "Ann Smith")
	names := Pseudonyms([]string{"Ann Smith"})
	data, err := StateJSON(p, res, names)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(data, []byte("Ann Smith")) || bytes.Contains(data, []byte("worker-07")) {
		t.Fatal("a participant's name leaked into a pseudonymised export")
	}
	if names["worker-07"] != "worker-02" || !bytes.Contains(data, []byte(`"origin_worker_id": "worker-02"`)) {
		t.Errorf("origin_worker_id not pseudonymised: %v", names)
	}
	// what the analysis code reads: the second-to-last message's final_data.annotations
	var top struct {
		Inputs []struct {
			DialogueID      string   `json:"dialogue_id"`
			AnnotationTasks []string `json:"annotation_tasks"`
			Turns           []struct {
				Text     string `json:"text"`
				AgentIdx int    `json:"agent_idx"`
			} `json:"turns"`
		} `json:"inputs"`
		Outputs struct {
			Messages []map[string]any `json:"messages"`
		} `json:"outputs"`
	}
	if err := json.Unmarshal(data, &top); err != nil {
		t.Fatal(err)
	}
	if len(top.Inputs) != 1 || top.Inputs[0].DialogueID != "demo_d1_botA" || top.Inputs[0].Turns[1].AgentIdx != 1 || len(top.Inputs[0].AnnotationTasks) != 2 {
		t.Fatalf("inputs %+v", top.Inputs)
	}
	msgs := top.Outputs.Messages
	final := msgs[len(msgs)-2]["data"].(map[string]any)["task_data"].(map[string]any)["final_data"].(map[string]any)
	var ann map[string]any
	if err := json.Unmarshal([]byte(final["annotations"].(string)), &ann); err != nil {
		t.Fatal(err)
	}
	if ann["workerId"] != "worker-01" || final["completed"] != true {
		t.Errorf("final %v", final)
	}
	d0 := ann["0"].(map[string]any)["data"].(map[string]any)
	if d0["3"].(map[string]any)["rude_q"] != "The reply is rude." || len(d0["5"].(map[string]any)["labels_labels"].([]any)) != 2 {
		t.Errorf("answers %v", d0)
	}
	if _, ok := ann["duration_task_0_1"].([]any); !ok {
		t.Errorf("durations missing: %v", ann)
	}
	// round trip through the reader
	sf, err := ReadStateFile(data, "state.json")
	if err != nil {
		t.Fatal(err)
	}
	if sf.Final == nil || sf.Final.Dialogues[0].TurnAt(5).List("labels_labels")[1] != "contra" || len(sf.Snapshots) != 1 || sf.Snapshots[0].LastAnnot != 1 {
		t.Fatalf("read back %+v", sf)
	}
	dir := t.TempDir()
	err = WriteAssignment(dir, "run 1", p, AssignmentResult{AssignmentID: "a0", Bundle: p.Bundles[0], Units: 1, Attempts: []AttemptResult{res}}, names)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"runs/NO_PROJECT/run_1/a0/assign_data.json", "runs/NO_PROJECT/run_1/a0/key1-1/state.json"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Error(err)
		}
	}
	run, err := ReadRun(filepath.Join(dir, "runs", "NO_PROJECT", "run_1"))
	if err != nil || len(run) != 1 || run[0].Units != 1 || len(run[0].Shared) != 1 || run[0].Shared[0].DialogueID != "demo_d1_botA" ||
		len(run[0].Attempts) != 1 || run[0].Attempts[0].State.Final.WorkerID != "worker-01" {
		t.Fatalf("read run back: %v %+v", err, run)
	}
	os.WriteFile(filepath.Join(dir, "runs/NO_PROJECT/run_1/a0/key1-1/state.json"), []byte("{\n\"inputs\": [,]}"), 0o644)
	if _, err := ReadRun(filepath.Join(dir, "runs", "NO_PROJECT", "run_1")); err == nil || !strings.Contains(err.Error(), "state.json:2:") {
		t.Fatalf("a broken state.json: %v", err)
	}
	ad, _ := os.ReadFile(filepath.Join(dir, "runs/NO_PROJECT/run_1/a0/assign_data.json"))
	var assign struct {
		Shared   []map[string]any `json:"shared"`
		UnitData []map[string]any `json:"unit_data"`
	}
	if json.Unmarshal(ad, &assign) != nil || len(assign.Shared) != 1 || len(assign.UnitData) != 1 {
		t.Errorf("assign_data %s", ad)
	}
}

func TestScreeningAndCollectionState(t *testing.T) {
	p, _ := importExample(t, "flags")
	f, _ := NewTrainingFlow(p.Training, Compatible)
	for !f.Done() {
		if f.Step == StepDialogue {
			answerTruths(f.Answers[f.Dialogue], f.CurrentDialogue())
		}
		if err := f.Next(); err != nil {
			t.Fatal(err)
		}
	}
	st := NewAnswerState("bo")
	for k, a := range f.Answers {
		st.Dialogues[k] = a
	}
	res := AttemptResult{AttemptID: "s-1", Participant: "bo", Kind: AttemptScreening, Training: p.Training, Final: st,
		TrainingMistakes: f.Mistakes, TrainingPassed: f.Passed, FinalTime: time.Now()}
	data, err := StateJSON(p, res, nil)
	if err != nil {
		t.Fatal(err)
	}
	sf, err := ReadStateFile(data, "state.json")
	if err != nil || sf.Success == nil || !*sf.Success || len(sf.Mistakes) != 3 {
		t.Fatalf("screening state %v %+v", err, sf)
	}
	if !strings.Contains(string(sf.Inputs[0]), `"is_screen": true`) || !strings.Contains(string(sf.Inputs[0]), `"explanation": "Mocking the partner is rude."`) {
		t.Errorf("screening inputs %s", sf.Inputs[0])
	}

	c, _ := importExample(t, "collect")
	chat := NewChat(Condition{Key: "botA|botB", Models: []string{"botB", "botA"}, Count: 2}, 4)
	for !chat.Done() {
		chat.Reply(t.Context(), EchoBot{})
		for chat.CanSend() {
			chat.Send("hello")
			chat.Reply(t.Context(), EchoBot{})
		}
		if more, _ := chat.End(); more {
			chat.Next()
		}
	}
	fc, err := FinalChatData(c, AttemptResult{AttemptID: "c-1", Participant: "cy", Kind: AttemptCollection, Chat: chat}, nil)
	if err != nil {
		t.Fatal(err)
	}
	var out struct {
		Dialog     map[string][]map[string]any `json:"dialog"`
		ChatModels []string                    `json:"chatModels"`
		ChatDone   bool                        `json:"chatDone"`
		Workers    []string                    `json:"workers"`
		TaskDesc   struct {
			AnnotationsConfig string `json:"annotations_config"`
		} `json:"task_description"`
	}
	if err := json.Unmarshal(fc, &out); err != nil {
		t.Fatal(err)
	}
	if len(out.Dialog["botA"]) != 4 || out.Dialog["botB"][0]["fake_start"] != true || out.Dialog["botB"][1]["id"] != "Partner" ||
		out.ChatModels[0] != "botB" || !out.ChatDone || out.Workers[0] != "cy" || !strings.HasPrefix(out.TaskDesc.AnnotationsConfig, `{"config":`) {
		t.Errorf("final_chat_data %s", fc)
	}
}

func TestCSVAndJSONL(t *testing.T) {
	p, _ := importExample(t, "flags")
	res := annotateUnit(t, p, UnitKey{0, 0}, "ann")
	res.Final.Dialogue(0).SetDialogueLikert("Clear", 4)
	rows := AnswerRows([]AttemptResult{res}, nil)
	if len(rows) != 3 {
		t.Fatalf("rows %+v", rows)
	}
	var buf bytes.Buffer
	if err := WriteCSV(&buf, rows); err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(&buf).ReadAll()
	if err != nil || len(recs) != 4 || recs[1][6] != "3" || recs[1][8] != "rude_q" || recs[2][9] != "repeat|contra" || recs[3][5] != "likert" || recs[3][6] != "" {
		t.Fatalf("csv %v %v", recs, err)
	}
	buf.Reset()
	WriteJSONL(&buf, rows)
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	var r AnswerRow
	if len(lines) != 3 || json.Unmarshal([]byte(lines[1]), &r) != nil || len(r.Values) != 2 {
		t.Fatalf("jsonl %s", buf.String())
	}
}

// An attempt that timed out at the desk keeps its answers: they are exported, unfinished, with
// timed_out: true; a finished attempt's rows say nothing of it.
func TestTimedOutAttemptsAreExported(t *testing.T) {
	st := NewAnswerState("ada")
	st.Dialogue(0).Likert = map[string]string{"quality": "4"}
	var marked AnswerState
	raw, _ := json.Marshal(st)
	json.Unmarshal(raw, &marked)
	marked.Extra = map[string]json.RawMessage{TimedOutKey: json.RawMessage("true")}
	if !marked.IsTimedOut() || st.IsTimedOut() {
		t.Fatal("IsTimedOut")
	}
	timedOut := AttemptResult{AttemptID: "0-1", Participant: "ada", TimedOut: marked.IsTimedOut(), Snapshots: []Snapshot{{State: &marked}}}
	done := AttemptResult{AttemptID: "0-2", Participant: "bo", Final: st}
	var buf bytes.Buffer
	if err := WriteJSONL(&buf, AnswerRows([]AttemptResult{timedOut, done}, nil)); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	if len(lines) != 2 || !strings.Contains(lines[0], `"participant":"ada"`) || !strings.Contains(lines[0], `"timed_out":true`) ||
		strings.Contains(lines[1], "timed_out") || !strings.Contains(lines[0], `"value":"4"`) {
		t.Fatalf("export:\n%s", buf.String())
	}
	// An unfinished attempt that did not time out has nothing to export.
	if rows := AnswerRows([]AttemptResult{{Participant: "cy", Snapshots: []Snapshot{{State: st}}}}, nil); len(rows) != 0 {
		t.Fatalf("an unfinished attempt exported %+v", rows)
	}
}
