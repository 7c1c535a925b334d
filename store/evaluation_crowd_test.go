package store

import (
	"context"
	"path/filepath"
	"strconv"
	"testing"

	ev "github.com/agentdesk/agentdesk/engine/evaluation"
)

// The sites' ids are kept once per distinct set (seen again: last_seen moves, a submit_to is
// added), at most MaxEvalCrowdIDs sets per participant, and go with the participant.
func TestEvalCrowdIDs(t *testing.T) {
	st, err := Open(filepath.Join(t.TempDir(), "s.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	ctx := context.Background()
	pid, err := st.CreateEvalProject(ctx, "demo", "created", "", "", "", demoAssignments())
	if err != nil {
		t.Fatal(err)
	}
	w, err := st.EvalSignIn(ctx, pid, "W1")
	if err != nil {
		t.Fatal(err)
	}
	a := ev.CrowdIDs{Site: ev.SiteMTurk, HitID: "H", AssignmentID: "A1"}
	for _, c := range []ev.CrowdIDs{a, {}, a, {Site: ev.SiteMTurk, HitID: "H", AssignmentID: "A1", SubmitTo: "https://www.mturk.com"}} {
		if err := st.RecordEvalCrowd(ctx, w.ID, c); err != nil {
			t.Fatal(err)
		}
	}
	got, err := st.EvalCrowdIDsOf(ctx, w.ID)
	if err != nil || len(got) != 1 || got[0].SubmitTo != "https://www.mturk.com" || got[0].AssignmentID != "A1" || got[0].LastSeen.Before(got[0].FirstSeen) {
		t.Fatalf("ids %+v, %v", got, err)
	}
	for i := 0; i < 3*MaxEvalCrowdIDs; i++ {
		if err := st.RecordEvalCrowd(ctx, w.ID, ev.CrowdIDs{Site: ev.SiteProlific, SessionID: strconv.Itoa(i)}); err != nil {
			t.Fatal(err)
		}
	}
	all, err := st.EvalCrowdIDs(ctx, pid)
	if err != nil || len(all[w.ID]) != MaxEvalCrowdIDs {
		t.Fatalf("%d sets kept, want %d (%v)", len(all[w.ID]), MaxEvalCrowdIDs, err)
	}
	if err := st.DeleteEvalProject(ctx, pid); err != nil {
		t.Fatal(err)
	}
	if got, _ := st.EvalCrowdIDsOf(ctx, w.ID); len(got) != 0 {
		t.Fatalf("ids outlive their participant: %+v", got)
	}
}
