package evaluation

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/agentdesk/agentdesk/engine/conformance"
)

const area = "evaluation"

// caseFile is the common shape of the case files: a header, optional type definitions and one
// case per line.
type caseFile struct {
	Description string                     `json:"description"`
	Count       int                        `json:"count"`
	Buckets     map[string]json.RawMessage `json:"buckets"`
	Cases       []json.RawMessage          `json:"cases"`
}

// kinds maps every case-file prefix to the test that reads it; TestConformanceCoversEveryFile
// fails on a file no test reads.
var kinds = []string{"completion", "conversations_needed", "correct_answer_display", "flow_edits",
	"grading", "indices", "offline_annotation_groups", "sessions"}

// readCases reads every file of one kind (kind.json and kind_*.json, so that further sets in
// the same format are read too) and calls fn per case with its file and index.
func readCases(t *testing.T, kind string, fn func(t *testing.T, file string, buckets map[string]*AnnotationType, raw json.RawMessage)) {
	t.Helper()
	var files []string
	for _, f := range conformance.Files(t, area, "*.json") {
		base := strings.TrimSuffix(filepath.Base(f), ".json")
		if base == kind || (strings.HasPrefix(base, kind+"_") && !isOtherKind(base, kind)) {
			files = append(files, f)
		}
	}
	n := 0
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var cf caseFile
		if err := json.Unmarshal(b, &cf); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		if cf.Count != 0 && cf.Count != len(cf.Cases) {
			t.Errorf("%s: header says %d cases, file has %d", f, cf.Count, len(cf.Cases))
		}
		buckets := map[string]*AnnotationType{}
		for name, raw := range cf.Buckets {
			at, err := ParseAnnotationType(name, raw)
			if err != nil {
				t.Fatalf("%s: bucket %s: %v", f, name, err)
			}
			buckets[name] = at
		}
		for i, c := range cf.Cases {
			fn(t, filepath.Base(f)+"#"+itoa(i), buckets, c)
			n++
		}
		t.Logf("%s: %d cases", f, len(cf.Cases))
	}
	conformance.Report(t, kind, n)
}

// isOtherKind reports whether base belongs to a longer kind name that starts with kind.
func isOtherKind(base, kind string) bool {
	for _, k := range kinds {
		if k != kind && len(k) > len(kind) && (base == k || strings.HasPrefix(base, k+"_")) {
			return true
		}
	}
	return false
}

func itoa(i int) string { return strings.TrimSpace(string(mustRaw(i))) }

func TestConformanceCoversEveryFile(t *testing.T) {
	for _, f := range conformance.Files(t, area, "*.json") {
		base := strings.TrimSuffix(filepath.Base(f), ".json")
		ok := false
		for _, k := range kinds {
			if base == k || strings.HasPrefix(base, k+"_") {
				ok = true
			}
		}
		if !ok {
			t.Errorf("no conformance test reads %s", f)
		}
	}
}

// jsonEqual compares two values by their JSON encodings (maps sort their keys).
func jsonEqual(t *testing.T, got any, want json.RawMessage) bool {
	t.Helper()
	var w any
	if err := json.Unmarshal(want, &w); err != nil {
		t.Fatal(err)
	}
	gb, err := json.Marshal(got)
	if err != nil {
		t.Fatal(err)
	}
	var g any
	if err := json.Unmarshal(gb, &g); err != nil {
		t.Fatal(err)
	}
	return reflect.DeepEqual(g, w)
}

func TestConformanceIndices(t *testing.T) {
	readCases(t, "indices", func(t *testing.T, id string, _ map[string]*AnnotationType, raw json.RawMessage) {
		var c struct {
			Name     string
			NTurns   int `json:"n_turns"`
			Expected []int
		}
		mustUnmarshal(t, raw, &c)
		got, err := Indices(c.Name).Positions(c.NTurns)
		if err != nil {
			t.Errorf("%s: %v", id, err)
			return
		}
		if !reflect.DeepEqual(got, c.Expected) {
			t.Errorf("%s: %s over %d turns = %v, want %v", id, c.Name, c.NTurns, got, c.Expected)
		}
	})
}

func mustUnmarshal(t *testing.T, raw []byte, v any) {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(raw))
	if err := dec.Decode(v); err != nil {
		t.Fatalf("case %s: %v", raw, err)
	}
}

func TestConformanceCompletion(t *testing.T) {
	readCases(t, "completion", func(t *testing.T, id string, buckets map[string]*AnnotationType, raw json.RawMessage) {
		var c completionCase
		mustUnmarshal(t, raw, &c)
		at := buckets[c.Bucket]
		if at == nil {
			t.Fatalf("%s: bucket %q not defined", id, c.Bucket)
		}
		var a *Answers
		if !isNull(c.Annotations) {
			a = &Answers{}
			if err := json.Unmarshal(c.Annotations, a); err != nil {
				t.Fatalf("%s: %v", id, err)
			}
		}
		got, warning := IsComplete(at, a, c.Indices)
		if got != c.Expected {
			t.Errorf("%s (%s): complete = %v, want %v", id, c.Name, got, c.Expected)
		}
		if c.Console.Logged() != (warning != "") {
			t.Errorf("%s (%s): warning %q where the original logged %q", id, c.Name, warning, c.Console.String())
		}
	})
}

// completionCase is a case of completion.json.
type completionCase struct {
	Name        string
	Bucket      string
	Annotations json.RawMessage
	Indices     []int `json:"indices_to_annotate"`
	Expected    bool
	Console     consoleLog
}

// consoleLog is what the original logged in a case: the case files give it as one string or as
// a list of lines (absent, null, "" or [] when nothing was logged).
type consoleLog []string

func (c *consoleLog) UnmarshalJSON(b []byte) error {
	var one string
	if err := json.Unmarshal(b, &one); err == nil {
		*c = nil
		if one != "" {
			*c = consoleLog{one}
		}
		return nil
	}
	var lines []string
	if err := json.Unmarshal(b, &lines); err != nil {
		return fmt.Errorf("console: want a string or a list of lines, not %s", b)
	}
	*c = lines
	return nil
}

// Logged says whether the original logged anything.
func (c consoleLog) Logged() bool {
	for _, l := range c {
		if strings.TrimSpace(l) != "" {
			return true
		}
	}
	return false
}

// String is the log, one line per line.
func (c consoleLog) String() string { return strings.Join(c, "\n") }

func TestConformanceFlowEdits(t *testing.T) {
	readCases(t, "flow_edits", func(t *testing.T, id string, buckets map[string]*AnnotationType, raw json.RawMessage) {
		var c struct {
			Name     string
			Bucket   string
			Events   []FlowClick
			Expected struct {
				AfterEach []json.RawMessage `json:"after_each_event"`
				Final     json.RawMessage
			}
		}
		mustUnmarshal(t, raw, &c)
		at := buckets[c.Bucket]
		if at == nil {
			t.Fatalf("%s: bucket %q not defined", id, c.Bucket)
		}
		a := NewAnswers(0)
		turn := Turn{Speaker: "system", Text: "reply"}
		for i, ev := range c.Events {
			entry := a.Turn(1, turn)
			if err := ApplyFlowClick(entry, at.Flow, ev); err != nil {
				t.Fatalf("%s: event %d: %v", id, i, err)
			}
			if i < len(c.Expected.AfterEach) && !jsonEqual(t, withoutBookkeeping(entry), c.Expected.AfterEach[i]) {
				t.Errorf("%s (%s): after event %d: %v, want %s", id, c.Name, i, withoutBookkeeping(entry), c.Expected.AfterEach[i])
			}
		}
		if !jsonEqual(t, withoutBookkeeping(a.TurnAt(1)), c.Expected.Final) {
			t.Errorf("%s (%s): final %v, want %s", id, c.Name, a.TurnAt(1), c.Expected.Final)
		}
	})
}

func withoutBookkeeping(ta TurnAnswers) map[string]any {
	out := map[string]any{}
	for k, v := range ta {
		if !IsBookkeeping(k) {
			out[k] = v
		}
	}
	return out
}

// caseTurn is a ground-truth turn as the case files write it.
type caseTurn struct {
	Text        string          `json:"text"`
	AgentIdx    int             `json:"agent_idx"`
	Answers     json.RawMessage `json:"answers"`
	Explanation *string         `json:"explanation"`
}

func (ct caseTurn) turn(t *testing.T) Turn {
	tr := Turn{Text: ct.Text, Speaker: "system", Explanation: ct.Explanation}
	if ct.AgentIdx == 0 {
		tr.Speaker = "user"
	}
	if ct.Answers != nil && !isNull(ct.Answers) {
		truth, err := ParseTruth(ct.Answers)
		if err != nil {
			t.Fatal(err)
		}
		tr.Truth = truth
	}
	return tr
}

type caseGrade struct {
	Correct       int
	Incorrect     int
	Total         int
	IncorrectIdxs []int           `json:"incorrect_idxs"`
	Score         json.RawMessage // absent in grading.json; null in sessions.json for 0/0
	Console       consoleLog      // what the original logged (skipped value kinds)
}

func checkGrade(t *testing.T, id string, got DialogueGrade, want caseGrade) {
	t.Helper()
	if got.Correct != want.Correct || got.Incorrect != want.Incorrect || got.Total != want.Total ||
		!reflect.DeepEqual(got.Mistakes, want.IncorrectIdxs) {
		t.Errorf("%s: graded %d/%d/%d %v, want %d/%d/%d %v", id, got.Correct, got.Incorrect, got.Total, got.Mistakes,
			want.Correct, want.Incorrect, want.Total, want.IncorrectIdxs)
	}
	switch {
	case want.Score == nil:
	case isNull(want.Score):
		if !math.IsNaN(got.Score()) {
			t.Errorf("%s: score %v, want null (0/0)", id, got.Score())
		}
	default:
		var ws float64
		if err := json.Unmarshal(want.Score, &ws); err != nil {
			t.Fatal(err)
		}
		if got.Score() != ws {
			t.Errorf("%s: score %v, want %v", id, got.Score(), ws)
		}
	}
}

func TestConformanceGrading(t *testing.T) {
	readCases(t, "grading", func(t *testing.T, id string, _ map[string]*AnnotationType, raw json.RawMessage) {
		var c struct {
			Name      string
			TurnIdx   int `json:"turn_idx"`
			Annotated map[string]TurnAnswers
			TrueTurn  caseTurn `json:"true_turn"`
			Expected  caseGrade
		}
		mustUnmarshal(t, raw, &c)
		turn := c.TrueTurn.turn(t)
		g := GradeTurn(c.TurnIdx, c.Annotated, turn.Truth, Compatible)
		if c.Expected.Console.Logged() != (len(g.Notes) > 0) {
			t.Errorf("%s (%s): notes %q where the original logged %q", id, c.Name, g.Notes, c.Expected.Console.String())
		}
		got := DialogueGrade{Mistakes: []int{}}
		if g.Graded {
			got.Total = 1
			if g.Correct {
				got.Correct = 1
			} else {
				got.Incorrect = 1
				got.Mistakes = append(got.Mistakes, c.TurnIdx)
			}
		}
		checkGrade(t, id+" ("+c.Name+")", got, c.Expected)
	})
}

func TestConformanceSessions(t *testing.T) {
	readCases(t, "sessions", func(t *testing.T, id string, _ map[string]*AnnotationType, raw json.RawMessage) {
		var c struct {
			Name      string
			Kind      string
			Dialogues []struct {
				TrueTurns    []caseTurn `json:"true_turns"`
				Annotated    map[string]TurnAnswers
				PassCriteria *int `json:"pass_criteria"`
				Remaining    *int
			}
			AllowedGoldMistakes int `json:"allowed_gold_mistakes"`
			Expected            struct {
				PerDialogue  []caseGrade `json:"per_dialogue"`
				Mistakes     [][]int
				Passed       *bool
				GoldMistakes *int  `json:"gold_mistakes"`
				GoldPassed   *bool `json:"gold_passed"`
			}
		}
		mustUnmarshal(t, raw, &c)
		id += " (" + c.Name + ")"
		var answers []map[string]TurnAnswers
		var grades []DialogueGrade
		switch c.Kind {
		case "training":
			tr := &Training{}
			for _, d := range c.Dialogues {
				td := TrainingDialogue{}
				if d.PassCriteria != nil {
					td.PassCriteria = *d.PassCriteria
				}
				if d.Remaining != nil {
					td.Remaining = *d.Remaining
				}
				for _, ct := range d.TrueTurns {
					td.Turns = append(td.Turns, ct.turn(t))
				}
				tr.Dialogues = append(tr.Dialogues, td)
				answers = append(answers, d.Annotated)
			}
			r, err := GradeTraining(tr, answers, Compatible)
			if err != nil {
				t.Fatalf("%s: %v", id, err)
			}
			grades = r.PerDialogue
			if !reflect.DeepEqual(r.Mistakes, c.Expected.Mistakes) {
				t.Errorf("%s: mistakes %v, want %v", id, r.Mistakes, c.Expected.Mistakes)
			}
			if c.Expected.Passed == nil || r.Passed != *c.Expected.Passed {
				t.Errorf("%s: passed %v, want %v", id, r.Passed, c.Expected.Passed)
			}
		case "gold":
			var b Bundle
			for _, d := range c.Dialogues {
				dp := Datapoint{}
				for _, ct := range d.TrueTurns {
					dp.Turns = append(dp.Turns, ct.turn(t))
				}
				b.Datapoints = append(b.Datapoints, dp)
				answers = append(answers, d.Annotated)
			}
			r, err := GradeGold(b, answers, c.AllowedGoldMistakes, Compatible)
			if err != nil {
				t.Fatalf("%s: %v", id, err)
			}
			grades = r.PerDialogue
			if c.Expected.GoldMistakes == nil || r.Mistakes != *c.Expected.GoldMistakes {
				t.Errorf("%s: gold mistakes %d, want %v", id, r.Mistakes, c.Expected.GoldMistakes)
			}
			if c.Expected.GoldPassed == nil || r.Passed != *c.Expected.GoldPassed {
				t.Errorf("%s: gold passed %v, want %v", id, r.Passed, c.Expected.GoldPassed)
			}
		default:
			t.Fatalf("%s: unknown kind %q", id, c.Kind)
		}
		if len(grades) != len(c.Expected.PerDialogue) {
			t.Fatalf("%s: %d dialogues graded, want %d", id, len(grades), len(c.Expected.PerDialogue))
		}
		for i := range grades {
			checkGrade(t, id+" dialogue "+itoa(i), grades[i], c.Expected.PerDialogue[i])
		}
	})
}

func TestConformanceCorrectAnswerDisplay(t *testing.T) {
	readCases(t, "correct_answer_display", func(t *testing.T, id string, _ map[string]*AnnotationType, raw json.RawMessage) {
		var c struct {
			Name     string
			Answers  json.RawMessage
			Expected json.RawMessage
		}
		mustUnmarshal(t, raw, &c)
		truth, err := ParseTruth(c.Answers)
		if err != nil {
			t.Fatalf("%s: %v", id, err)
		}
		got, err := truth.CorrectSelection().MarshalJSON()
		if err != nil {
			t.Fatal(err)
		}
		if !jsonEqual(t, json.RawMessage(got), c.Expected) {
			t.Errorf("%s (%s): shown %s, want %s", id, c.Name, got, c.Expected)
		}
	})
}

func TestConformanceConversationsNeeded(t *testing.T) {
	readCases(t, "conversations_needed", func(t *testing.T, id string, _ map[string]*AnnotationType, raw json.RawMessage) {
		var c struct {
			Input      string
			Expected   map[string]any
			TotalUnits *int `json:"total_units"`
		}
		mustUnmarshal(t, raw, &c)
		got, err := ParseConditions(c.Input)
		if msg, isErr := c.Expected["error"]; isErr && len(c.Expected) == 1 {
			if err == nil {
				t.Errorf("%s: %q parsed as %v, want an error like %v", id, c.Input, got, msg)
			}
			return
		}
		if err != nil {
			t.Errorf("%s: %q: %v", id, c.Input, err)
			return
		}
		m := map[string]any{}
		for _, cond := range got {
			m[cond.Key] = float64(cond.Count)
		}
		if !reflect.DeepEqual(m, c.Expected) {
			t.Errorf("%s: %q = %v, want %v", id, c.Input, m, c.Expected)
		}
		if c.TotalUnits != nil && got.Total() != *c.TotalUnits {
			t.Errorf("%s: total %d, want %d", id, got.Total(), *c.TotalUnits)
		}
	})
}

func TestConformanceOfflineAnnotationGroups(t *testing.T) {
	readCases(t, "offline_annotation_groups", func(t *testing.T, id string, _ map[string]*AnnotationType, raw json.RawMessage) {
		var c struct {
			Input    []string
			Expected struct {
				Likert       []string `json:"likert_group"`
				Comparative  []string `json:"comparative_group"`
				Dropped      []string
				ResultLength int `json:"result_length"`
			}
		}
		mustUnmarshal(t, raw, &c)
		g := OfflineGroups(c.Input)
		if !sameMultiset(g.Likert, c.Expected.Likert) || !sameMultiset(g.Comparative, c.Expected.Comparative) {
			t.Errorf("%s: groups %v %v, want %v %v", id, g.Likert, g.Comparative, c.Expected.Likert, c.Expected.Comparative)
		}
		if !sameMultiset(g.Dropped, c.Expected.Dropped) {
			t.Errorf("%s: dropped %v, want %v", id, g.Dropped, c.Expected.Dropped)
		}
		// the second conversation shows both groups
		pages := g.Pages(1, rand.New(rand.NewPCG(1, 2)))
		if len(pages) != c.Expected.ResultLength {
			t.Errorf("%s: %d pages, want %d", id, len(pages), c.Expected.ResultLength)
		}
	})
}

func sameMultiset(a, b []string) bool {
	x := append([]string{}, a...)
	y := append([]string{}, b...)
	sort.Strings(x)
	sort.Strings(y)
	return reflect.DeepEqual(x, y)
}

// TestConformanceConsoleStringOrLines: a case may give what the original logged as one string
// or as a list of lines; an empty string, an empty list or null is nothing logged.
func TestConformanceConsoleStringOrLines(t *testing.T) {
	for _, c := range []struct {
		json   string
		logged bool
	}{
		{`"annotation for turn 3 is not a dict"`, true},
		{`["turn 3: skipped", "turn 5: skipped"]`, true},
		{`[""]`, false},
		{`[]`, false},
		{`""`, false},
		{`null`, false},
	} {
		var comp completionCase
		if err := json.Unmarshal([]byte(`{"name": "x", "expected": true, "console": `+c.json+`}`), &comp); err != nil {
			t.Errorf("completion case with console %s: %v", c.json, err)
		} else if got := comp.Console.Logged(); got != c.logged {
			t.Errorf("completion case with console %s: logged %v, want %v", c.json, got, c.logged)
		}
		var g caseGrade
		if err := json.Unmarshal([]byte(`{"correct": 1, "console": `+c.json+`}`), &g); err != nil {
			t.Errorf("expected grade with console %s: %v", c.json, err)
		} else if got := g.Console.Logged(); got != c.logged {
			t.Errorf("expected grade with console %s: logged %v, want %v", c.json, got, c.logged)
		}
	}
	var lines caseGrade
	if err := json.Unmarshal([]byte(`{"console": ["a", "b"]}`), &lines); err != nil || lines.Console.String() != "a\nb" {
		t.Errorf("lines %q %v", lines.Console.String(), err)
	}
	var bad completionCase
	if err := json.Unmarshal([]byte(`{"console": 3}`), &bad); err == nil {
		t.Error("a number as console was taken")
	}
}
