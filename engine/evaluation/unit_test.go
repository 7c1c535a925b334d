package evaluation

import (
	"context"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestStrictGradingChecksEveryKey(t *testing.T) {
	truth, _ := ParseTruth(json.RawMessage(`{"rude_q": "", "offtopic_q": "The reply is off-topic."}`))
	data := map[string]TurnAnswers{"3": {KeyTurnIdx: 3, "offtopic_q": "wrong"}}
	if g := GradeTurn(3, data, truth, Compatible); !g.Correct {
		t.Error("compatible grading keeps the original's short-circuit")
	}
	if g := GradeTurn(3, data, truth, Strict); g.Correct {
		t.Error("strict grading must check offtopic_q")
	}
	data["3"]["offtopic_q"] = "The reply is off-topic."
	if g := GradeTurn(3, data, truth, Strict); !g.Correct {
		t.Error("strict: correct answer")
	}
	data["3"]["rude_q"] = "The reply is rude."
	if g := GradeTurn(3, data, truth, Strict); g.Correct {
		t.Error(`strict: "" means must be unticked`)
	}
}

func TestGradingSkipsOtherValueKinds(t *testing.T) {
	truth, _ := ParseTruth(json.RawMessage(`{"k": 5, "n": null}`))
	g := GradeTurn(1, map[string]TurnAnswers{"1": {"k": "x", "n": "y"}}, truth, Compatible)
	if !g.Correct || len(g.Notes) != 2 {
		t.Errorf("skipped kinds: %+v", g)
	}
	// a missing key whose truth is null is not the "" case
	g = GradeTurn(1, map[string]TurnAnswers{"1": {"k": "x"}}, truth, Compatible)
	if g.Correct {
		t.Error("null truth on a missing key")
	}
	if g := GradeTurn(1, nil, truth, Compatible); !g.Graded || g.Correct {
		t.Error("nothing annotated")
	}
	empty, _ := ParseTruth(json.RawMessage(`{}`))
	if g := GradeTurn(1, nil, empty, Compatible); !g.Correct {
		t.Error("{} with nothing annotated")
	}
	if g := GradeTurn(1, map[string]TurnAnswers{"1": {"labels_labels": []string{"x"}}}, empty, Compatible); g.Correct {
		t.Error("{} with another type's answer (quirk 4)")
	}
}

func TestCompletionEdges(t *testing.T) {
	// multiselect has no rule at all, whatever the level
	ty := &AnnotationType{Name: "x", Display: Multiselect, Indices: Odd, Require: &Requirement{Level: "sometimes"}}
	if ok, warn := IsComplete(ty, nil, []int{1}); !ok || warn != "" {
		t.Errorf("multiselect: %v %q", ok, warn)
	}
	flow, _ := ParseFlow(json.RawMessage(`{"c": {"_type_": {"checkbox": {}}, "x": {}}}`))
	ty = &AnnotationType{Name: "f", Display: ButtonFlow, Indices: Odd, Require: &Requirement{Level: "sometimes"}, Flow: flow}
	if ok, warn := IsComplete(ty, nil, []int{1}); ok || !strings.Contains(warn, "sometimes") {
		t.Errorf("flow with an unknown level: %v %q", ok, warn)
	}
	cmp := &AnnotationType{Name: "c", Display: Comparative, Indices: NoIndices, Require: &Requirement{Level: "turn"}, Question: "Q"}
	ca := NewAnswers(0)
	ca.Comparative = map[string]string{"Q": "left"}
	if ok, _ := IsComplete(cmp, ca, nil); !ok {
		t.Error("comparative at turn level over no positions")
	}
	if ok, _ := IsComplete(cmp, ca, []int{1}); ok {
		t.Error("comparative at turn level looks for comparative[\"1\"]")
	}
	ty = &AnnotationType{Name: "l", Display: LikertDialogue, Indices: NoIndices, Require: &Requirement{Level: "turn"},
		Scales: []Scale{{Label: "A"}}}
	a := NewAnswers(0)
	a.SetDialogueLikert("A", 3)
	if ok, _ := IsComplete(ty, a, nil); !ok {
		t.Error("turn level over no positions")
	}
	if ok, _ := IsComplete(ty, a, []int{1}); ok {
		t.Error("likert-5-dialogue at turn level is meaningless and never complete on a turn")
	}
	if err := a.SetDialogueLikert("A", 6); err == nil {
		t.Error("out of range")
	}
}

func TestFlowParsingAndClicks(t *testing.T) {
	f, err := ParseFlow(json.RawMessage(`{"q": {"_dep_": {"boolPrevTurnExpect": {}}, "b": {"sub": {"x": {}, "y": {}}}, "a": {}}}`))
	if err != nil {
		t.Fatal(err)
	}
	if f[0].Dep != "boolPrevTurnExpect" || f[0].Checkbox || f[0].Answers[0].Text != "b" || !reflect.DeepEqual(f.QuestionTexts(), []string{"q", "sub"}) {
		t.Fatalf("%+v", f)
	}
	b, _ := f.MarshalJSON()
	if string(b) != `{"q":{"_dep_":{"boolPrevTurnExpect":{}},"b":{"sub":{"x":{},"y":{}}},"a":{}}}` {
		t.Errorf("order not kept: %s", b)
	}
	if _, err := ParseFlow(json.RawMessage(`{"q": ["a"]}`)); err == nil || !strings.Contains(err.Error(), `"q"`) {
		t.Errorf("bad flow: %v", err)
	}
	turn := TurnAnswers{}
	ApplyFlowClick(turn, f, FlowClick{ClickRadio, "q", "b"})
	ApplyFlowClick(turn, f, FlowClick{ClickRadio, "sub", "x"})
	ApplyFlowClick(turn, f, FlowClick{ClickRadio, "q", "b"})
	if turn["sub"] != "x" {
		t.Error("re-selecting the same answer keeps its sub-answers")
	}
	if err := ApplyFlowClick(turn, f, FlowClick{"drag", "q", "a"}); err == nil {
		t.Error("unknown click")
	}
	if Substitute("SPEAKER_X asks SPEAKER_Y; SPEAKER X stays", "Alex", "Sam") != "Alex asks Sam; SPEAKER X stays" {
		t.Error("substitution")
	}
	if x, y := FlowSpeakers(0); x != "Sam" || y != "Alex" {
		t.Error("user turn speakers")
	}
}

func TestDisplayModes(t *testing.T) {
	if !ButtonFlow.Collapsible() || NondetailsButtonFlow.Collapsible() || !NondetailsButtonFlow.HelpIcons() ||
		NondetailsNonhelpButtonFlow.HelpIcons() || !ForeachSelect.TurnLevel() || LikertDialogue.TurnLevel() || Display("x").Known() {
		t.Error("display properties")
	}
	if _, err := Indices("every").Positions(3); err == nil {
		t.Error("unknown indices")
	}
	if p, _ := Indices(AllSkipFirst).Positions(1); len(p) != 0 {
		t.Error("all_skip_first of one turn")
	}
}

func TestPageHelpers(t *testing.T) {
	p, _ := importExample(t, "flags")
	labels := p.Type("labels")
	if len(labels.ChoicesFor(1)) != 3 || len(labels.ChoicesFor(0)) != 2 {
		t.Error("speaker-restricted option")
	}
	ans := p.Type("answering")
	a := NewAnswers(0)
	pos := []int{1, 3, 5, 7}
	if got := OpenBlocks(ans, a, pos); !reflect.DeepEqual(got, []int{1}) {
		t.Errorf("fresh page %v", got)
	}
	turns := p.Bundles[1].Datapoints[0].Turns
	ApplyFlowClick(a.Turn(3, turns[3]), ans.Flow, FlowClick{ClickRadio, "Is SPEAKER_X's reply polite?", "Yes."})
	if got := OpenBlocks(ans, a, pos); !reflect.DeepEqual(got, []int{3, 5}) {
		t.Errorf("after turn 3: %v", got)
	}
	if ProgressText(0, 2, 1, 3) != "You are on task 2 / 3 for dialogue 1 / 2" || ButtonLabel(2, 3) != "Submit" || ButtonLabel(0, 3) != "Next" {
		t.Error("progress")
	}
	if SpeakerLabel(0, false) != "(Sam)" || SpeakerLabel(1, true) != "Partner" {
		t.Error("speaker labels")
	}
	t0 := time.Unix(1000, 0)
	if PageExpired(t0, t0.Add(3599*time.Second), p.Settings) || !PageExpired(t0, t0.Add(3601*time.Second), p.Settings) {
		t.Error("page timeout")
	}
	counts, err := ParseChatCounts("botA|botB:2,botC:1")
	if err != nil || counts["botA|botB"] != 2 || FormatChatCounts(counts) != "botA|botB:2,botC:1" {
		t.Errorf("chat counts %v %v", counts, err)
	}
}

func TestAnswerStateDurations(t *testing.T) {
	st := NewAnswerState("w")
	t0 := time.UnixMilli(1000)
	st.PageShown(0, 1, false, t0)
	st.PageDone(0, 1, false, t0.Add(time.Second))
	st.PageShown(0, 1, false, t0.Add(2*time.Second))
	st.PageShown(2, 0, true, t0)
	b, _ := json.Marshal(st)
	want := `{"workerId":"w","duration_onboarding_task_2_0":[[1000]],"duration_task_0_1":[[1000,2000],[3000]],"lastIndex":0,"lastAnnot":0}`
	if string(b) != want {
		t.Errorf("%s\nwant %s", b, want)
	}
	if Pseudonyms([]string{"b", "a", "b"})["a"] != "worker-02" {
		t.Error("pseudonyms in order of first appearance")
	}
}

func TestAnswerStateKeepsUnknownKeys(t *testing.T) {
	in := `{"workerId":"w","lastIndex":2,"lastAnnot":1,"0":{"subtask_index":0,"data":{}},"lastIncorrectTurns":[[3],0,0.75],"mistakes":[[3]]}`
	var st AnswerState
	if err := json.Unmarshal([]byte(in), &st); err != nil {
		t.Fatal(err)
	}
	if len(st.Extra) != 2 || st.LastIndex != 2 {
		t.Fatalf("%+v", st)
	}
	out, _ := json.Marshal(st)
	if string(out) != in {
		t.Errorf("round trip\n%s\n%s", out, in)
	}
}

func TestTruthShapesAsTheOriginalReadsThem(t *testing.T) {
	// the key marks a disjunction, whatever its value
	d, _ := ParseTruth(json.RawMessage(`{"_disjunction": false, "options": [{"k": "a"}, {"k": "b"}]}`))
	if !d.Disjunction || len(d.Options) != 2 {
		t.Fatalf("%+v", d)
	}
	if g := GradeTurn(1, map[string]TurnAnswers{"1": {"k": "b"}}, d, Compatible); !g.Correct {
		t.Error("second option")
	}
	// a list truth against a string answer is wrong; lists compare as sets
	l, _ := ParseTruth(json.RawMessage(`{"x_labels": ["a", "b"]}`))
	if g := GradeTurn(1, map[string]TurnAnswers{"1": {"x_labels": "ab"}}, l, Compatible); g.Correct {
		t.Error("string answer to a list truth")
	}
	if g := GradeTurn(1, map[string]TurnAnswers{"1": {"x_labels": []string{"b", "a", "a"}}}, l, Compatible); !g.Correct {
		t.Error("same set")
	}
	m, _ := ParseTruth(json.RawMessage(`{"n": [1, "1"]}`))
	if g := GradeTurn(1, map[string]TurnAnswers{"1": {"n": []string{"1"}}}, m, Compatible); g.Correct {
		t.Error(`1 and "1" differ`)
	}
	// the shown selection: a list holding "misleading" as an element counts
	c, _ := ParseTruth(json.RawMessage(`{"_disjunction": true, "options": [{"q": "x"}, {"q_labels": ["misleading"]}]}`))
	if sel := c.CorrectSelection(); sel.Entries[0].Key != "q_labels" {
		t.Errorf("selection %+v", sel)
	}
}

func TestOnlineGate(t *testing.T) {
	p, _ := importExample(t, "flags")
	turn := Turn{Speaker: "system", Text: "x"}
	labels := p.Type("labels")
	e := NewTurnAnswers(1, turn)
	if OnlineAnswered(labels, e) {
		t.Error("multiselect gates until labelled")
	}
	e[labels.LabelsKey()] = []string{"repeat"}
	if !OnlineAnswered(labels, e) {
		t.Error("labelled")
	}
	mood := p.Type("mood")
	e = NewTurnAnswers(1, turn)
	if OnlineAnswered(mood, e) {
		t.Error("a required radio flow gates")
	}
	ApplyFlowClick(e, mood.Flow, FlowClick{ClickRadio, "Does SPEAKER_X react to SPEAKER_Y's mood?", "No."})
	if !OnlineAnswered(mood, e) {
		t.Error("a flow unlocks once complete (quirk 11)")
	}
	if !OnlineAnswered(p.Type("flags"), nil) {
		t.Error("a flow without require never blocks")
	}
	opt := *labels
	opt.Name = "labels_optional"
	if !OnlineAnswered(&opt, nil) {
		t.Error("_optional")
	}
}

// The participant's reply is due max_resp_time after the bot's latest message; nothing is due
// while the bot owes a reply or once the conversation ended.
func TestChatReplyDeadline(t *testing.T) {
	t0 := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	clock := t0
	c := NewChat(Condition{Key: "a", Models: []string{"a"}}, 6)
	c.Now = func() time.Time { return clock }
	s := DefaultSettings()
	s.MaxResponseSeconds = 60
	if d := c.ReplyDeadline(s); !d.IsZero() {
		t.Fatalf("deadline %v while the bot owes its opening", d)
	}
	clock = t0.Add(5 * time.Second)
	if _, err := c.Reply(context.Background(), EchoBot{}); err != nil {
		t.Fatal(err)
	}
	if d := c.ReplyDeadline(s); !d.Equal(t0.Add(65 * time.Second)) {
		t.Fatalf("deadline %v, want 60 s after the bot's reply", d)
	}
	s.MaxResponseSeconds = 0
	if d := c.ReplyDeadline(s); !d.IsZero() {
		t.Fatalf("deadline %v without a limit", d)
	}
	s.MaxResponseSeconds = 60
	if _, err := c.End(); err != nil {
		t.Fatal(err)
	}
	if d := c.ReplyDeadline(s); !d.IsZero() {
		t.Fatalf("deadline %v after END", d)
	}
}

// The attempt started when its first page was shown; the last page end is the latest Next, whatever page it was on; a page shown again (a
// resume) does not move it.
func TestLastPageEnd(t *testing.T) {
	t0 := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	st := NewAnswerState("w")
	if !st.LastPageEnd().IsZero() || !st.Started().IsZero() {
		t.Fatal("a fresh state has a page end or a start")
	}
	st.PageShown(0, 0, false, t0)
	st.PageDone(0, 0, false, t0.Add(time.Minute))
	st.PageShown(0, 1, false, t0.Add(time.Minute))
	st.PageShown(0, 1, false, t0.Add(time.Hour))
	if got := st.LastPageEnd(); !got.Equal(t0.Add(time.Minute)) {
		t.Fatalf("last page end %v", got)
	}
	if got := st.Started(); !got.Equal(t0) {
		t.Fatalf("started %v", got)
	}
	if d := PageDeadline(st.LastPageEnd(), Settings{AnnotationDurationSeconds: 300}); !d.Equal(t0.Add(6 * time.Minute)) {
		t.Fatalf("page deadline %v", d)
	}
}

// TestLegacyDialogueFlowAnswers: a dialogue-level flow's answers stored the legacy way, a plain
// map of question → answer text in data (beside per-turn entries) or as the answer object's
// own members, are read, count for completeness, are exported as rows and written back.
func TestLegacyDialogueFlowAnswers(t *testing.T) {
	flow, err := ParseFlow(json.RawMessage(`{"Was the conversation coherent?": {"yes": {}, "no": {"Why not?": {"off topic": {}, "repetitive": {}}}}}`))
	if err != nil {
		t.Fatal(err)
	}
	ty := &AnnotationType{Name: "coherence", Display: NondetailsButtonFlow, Indices: NoIndices, Require: &Requirement{Level: "dialogue"}, Flow: flow}
	in := `{"subtask_index":0,"data":{"1":{"turn_idx":1,"text":"hi","agent_idx":1,"q":"a"},"Was the conversation coherent?":"no","Why not?":"repetitive"}}`
	var a Answers
	if err := json.Unmarshal([]byte(in), &a); err != nil {
		t.Fatal(err)
	}
	if a.DialogueFlow["Was the conversation coherent?"] != "no" || a.DialogueFlow["Why not?"] != "repetitive" || a.Data["1"].String("q") != "a" {
		t.Fatalf("read %+v", a)
	}
	if ok, _ := IsComplete(ty, &a, nil); !ok {
		t.Error("answered legacy dialogue flow is not complete")
	}
	delete(a.DialogueFlow, "Why not?")
	if ok, _ := IsComplete(ty, &a, nil); ok {
		t.Error("a missing sub-question still counts as complete")
	}
	a.DialogueFlow["Why not?"] = "repetitive"
	out, _ := json.Marshal(a)
	var back, want any
	json.Unmarshal(out, &back)
	json.Unmarshal([]byte(in), &want)
	if !reflect.DeepEqual(back, want) {
		t.Errorf("written back as %s", out)
	}
	rows := AnswerRows([]AttemptResult{{Participant: "p", Final: &AnswerState{Dialogues: map[int]*Answers{0: &a}}}}, nil)
	found := 0
	for _, r := range rows {
		if r.Section == "data" && r.Turn == -1 && (r.Key == "Why not?" && r.Value == "repetitive" || r.Key == "Was the conversation coherent?" && r.Value == "no") {
			found++
		}
	}
	if found != 2 {
		t.Errorf("rows %+v", rows)
	}
	// without data: the object's own members
	var b Answers
	if err := json.Unmarshal([]byte(`{"subtask_index":2,"Was the conversation coherent?":"yes"}`), &b); err != nil {
		t.Fatal(err)
	}
	if ok, _ := IsComplete(ty, &b, nil); !ok || b.DialogueFlow["Was the conversation coherent?"] != "yes" {
		t.Errorf("answers without data: %+v", b)
	}
}
