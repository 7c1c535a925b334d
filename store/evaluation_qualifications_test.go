package store

import (
	"context"
	"encoding/json"
	"testing"
	"time"
)

// Qualifications are shared by participant name across projects, as the original's Mephisto
// qualifications are global by name: a block earned in one project holds in another that uses
// the same name, the latest grant wins, lifting a block lifts it everywhere, and deleting a
// project takes its grants with it.
func TestEvalQualificationsSharedByName(t *testing.T) {
	ctx := context.Background()
	s := openTemp(t)
	a, _ := s.CreateEvalProject(ctx, "A", "created", "", "", "", demoAssignments())
	b, _ := s.CreateEvalProject(ctx, "B", "created", "", "", "", demoAssignments())
	annA, _ := s.EvalSignIn(ctx, a, "ann")
	u, err := s.EvalAssign(ctx, a, annA.ID, 0, "screening", -1, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.CompleteEvalUnit(ctx, u.ID, nil, json.RawMessage(`{"success":false}`), map[string]int{"shared_block": 1}); err != nil {
		t.Fatal(err)
	}
	// ann signs in to B: blocked there too; bob is not
	annB, err := s.EvalSignIn(ctx, b, "ann")
	if err != nil {
		t.Fatal(err)
	}
	if annB.Qualifications["shared_block"] != 1 || annB.QualificationsFrom["shared_block"] != "A" || annB.Screening != "" {
		t.Fatalf("ann in B %+v", annB)
	}
	bobB, _ := s.EvalSignIn(ctx, b, "bob")
	if len(bobB.Qualifications) != 0 {
		t.Fatalf("bob %+v", bobB)
	}
	if q, _ := s.EvalQualifications(ctx, annB.ID); q["shared_block"] != 1 {
		t.Fatalf("EvalQualifications %v", q)
	}
	// B's own grant of another value is later: it wins in both projects
	time.Sleep(2 * time.Millisecond)
	if err := s.SetEvalQualification(ctx, annB.ID, "shared_block", 0); err != nil {
		t.Fatal(err)
	}
	for _, pid := range []int64{a, b} {
		ps, _ := s.EvalParticipants(ctx, pid)
		if ps[0].Name != "ann" || ps[0].Qualifications["shared_block"] != 0 {
			t.Fatalf("project %d: %+v", pid, ps[0])
		}
	}
	if annA2, _ := s.EvalParticipant(ctx, a, annA.ID); annA2.QualificationsFrom["shared_block"] != "B" {
		t.Fatalf("from %v", annA2.QualificationsFrom)
	}
	// lifting it in B lifts it in A
	s.SetEvalQualification(ctx, annA.ID, "shared_block", 1)
	if err := s.RevokeEvalQualification(ctx, annB.ID, "shared_block"); err != nil {
		t.Fatal(err)
	}
	if q, _ := s.EvalQualifications(ctx, annA.ID); len(q) != 0 {
		t.Fatalf("still held in A: %v", q)
	}
	// deleting a project deletes its grants
	s.SetEvalQualification(ctx, annA.ID, "shared_screen", 1)
	if q, _ := s.EvalQualifications(ctx, annB.ID); q["shared_screen"] != 1 {
		t.Fatalf("passed in A, not seen in B: %v", q)
	}
	if err := s.DeleteEvalProject(ctx, a); err != nil {
		t.Fatal(err)
	}
	if q, _ := s.EvalQualifications(ctx, annB.ID); len(q) != 0 {
		t.Fatalf("grants of a deleted project: %v", q)
	}
}
