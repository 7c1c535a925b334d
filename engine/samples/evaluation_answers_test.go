package samples

import (
	"encoding/json"
	"path/filepath"
	"reflect"
	"testing"

	ev "github.com/agentdesk/agentdesk/engine/evaluation"
)

// TestEvalAnswersAreCompleteAndDiffer: every sample attempt answers every page of its bundle
// completely by the engine's own rule (what Next checks), one attempt per annotator per
// bundle, and the two annotators agree on most but not all answers.
func TestEvalAnswersAreCompleteAndDiffer(t *testing.T) {
	p, err := evalProject()
	if err != nil {
		t.Fatal(err)
	}
	passed, _ := p.Settings.QualificationNames(p.Name)
	attempts, err := EvalAnswers(p, passed)
	if err != nil {
		t.Fatal(err)
	}
	if len(attempts) != len(EvalAnnotators)*len(p.Bundles) {
		t.Fatalf("%d attempts for %d bundles", len(attempts), len(p.Bundles))
	}
	if len(EvalAnnotators) >= evalUnits {
		t.Fatalf("%d sample annotators take every one of the %d units of a bundle: none is left for the user", len(EvalAnnotators), evalUnits)
	}
	states := map[string]map[int]*ev.AnswerState{}
	for _, a := range attempts {
		var st ev.AnswerState
		if err := json.Unmarshal(a.State, &st); err != nil {
			t.Fatal(err)
		}
		if a.Grant[passed] != 1 || a.Kind != ev.UnitTask || st.WorkerID != a.Participant || st.LastPageEnd().IsZero() {
			t.Fatalf("%s, bundle %d: %+v", a.Participant, a.Position, a)
		}
		dp := p.Bundles[a.Position].Datapoints[0]
		for _, name := range dp.AnnotationTasks {
			typ := p.Type(name)
			if ok, warning := ev.IsComplete(typ, st.Dialogues[0], typ.Positions(len(dp.Turns))); !ok {
				t.Errorf("%s, %s, %s: incomplete: %s", a.Participant, dp.DialogueID, name, warning)
			}
		}
		if states[a.Participant] == nil {
			states[a.Participant] = map[int]*ev.AnswerState{}
		}
		states[a.Participant][a.Position] = &st
	}
	same, differ := 0, 0
	for b := range p.Bundles {
		x, y := states[EvalAnnotators[0]][b].Dialogues[0], states[EvalAnnotators[1]][b].Dialogues[0]
		if reflect.DeepEqual(x.Likert, y.Likert) && reflect.DeepEqual(x.Data, y.Data) && reflect.DeepEqual(x.Comparative, y.Comparative) {
			same++
		} else {
			differ++
		}
	}
	if differ == 0 || same == 0 {
		t.Fatalf("%d bundles answered alike, %d differently: the annotators should agree on some and differ on others", same, differ)
	}
	// the same answers on every run
	again, _ := EvalAnswers(p, passed)
	if !reflect.DeepEqual(again, attempts) {
		t.Fatal("the sample answers change from run to run")
	}
}

// TestPathsAreWhatWriteWrites: Paths names the files Write writes, without writing.
func TestPathsAreWhatWriteWrites(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "samples")
	paths, err := Paths(dir)
	if err != nil {
		t.Fatal(err)
	}
	if !paths.Missing() {
		t.Fatal("nothing written, yet nothing missing")
	}
	set, err := Write(dir)
	if err != nil {
		t.Fatal(err)
	}
	if set != paths || set.Missing() {
		t.Fatalf("Write wrote %+v, Paths says %+v (missing: %v)", set, paths, set.Missing())
	}
}
