package evaluation

import (
	"strings"
	"testing"

	ev "github.com/agentdesk/agentdesk/engine/evaluation"
	"github.com/agentdesk/agentdesk/ui/uitest"
)

// Qualifications are shared by name across projects, as the original's: whoever failed the
// screening of one project is not eligible in another with the same block qualification,
// whoever passed it starts the other's real work without training, and lifting the block in
// one project lifts it in the other.
func TestEvalQualificationsSharedAcrossProjects(t *testing.T) {
	w, _, st := evalTestWS(t)
	importExample(t, w) // "demo": flags_screen and flags_block
	first := w.open
	s := w.session
	s.signIn("bad")
	doTraining(t, s, false, true)
	if !strings.Contains(uitest.Texts(s.root), "Better luck next time") {
		t.Fatalf("failed training: %s", uitest.Texts(s.root))
	}
	uitest.TapButton(t, s.root, "Sign out")
	s.signIn("good")
	doTraining(t, s, false, false)
	if !strings.Contains(uitest.Texts(s.root), "Congratulations") {
		t.Fatalf("passed training: %s", uitest.Texts(s.root))
	}

	importExampleAs(t, w, "demo-again") // the same qualification names
	s = w.session
	s.signIn("bad")
	if !strings.Contains(uitest.Texts(s.root), "not eligible") {
		t.Fatalf("blocked in demo, yet given work in demo-again: %s", uitest.Texts(s.root))
	}
	uitest.TapButton(t, s.root, "Sign out")
	s.signIn("good")
	if s.unit.Kind != ev.UnitTask {
		t.Fatalf("passed in demo, yet unit %q in demo-again: %s", s.unit.Kind, uitest.Texts(s.root))
	}
	uitest.TapButton(t, s.root, "Sign out")
	s.signIn("fresh")
	if s.unit.Kind != ev.UnitScreening {
		t.Fatalf("a new participant skipped the training: %q", s.unit.Kind)
	}

	// the Results tab says where the block comes from; lifting it here lifts it in demo
	d := w.dash
	d.reload()
	var bad ev.ParticipantSummary
	ps, _ := st.EvalParticipants(w.ctx(), w.open.info.ID)
	for _, p := range ps {
		if p.Name == "bad" {
			bad = p
		}
	}
	if got := d.screeningText(bad); got != "blocked in demo" {
		t.Fatalf("screening column %q", got)
	}
	if err := d.unblock(bad); err != nil {
		t.Fatal(err)
	}
	ps, _ = st.EvalParticipants(w.ctx(), first.info.ID)
	for _, p := range ps {
		if p.Name == "bad" && p.Qualifications["flags_block"] != 0 {
			t.Fatalf("still blocked in demo: %v", p.Qualifications)
		}
	}
}
