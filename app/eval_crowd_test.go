package app

import (
	"context"
	"encoding/csv"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	ev "github.com/agentdesk/agentdesk/engine/evaluation"
	"github.com/agentdesk/agentdesk/engine/evaluation/session"
	"github.com/agentdesk/agentdesk/store"
)

// crowdProject imports the example project (golds on) and gives it participants from both
// sites: P1 and "=cmd" finished a unit, P2 finished one then failed the gold checks, P3 failed
// screening, M1 finished a unit over two MTurk assignments, M2 did nothing.
func crowdProject(t *testing.T) (string, map[string]string) {
	t.Helper()
	dir := isolate(t)
	db := filepath.Join(dir, "eval.db")
	if r := runCLI(t, "--store", db, "eval", "import", "--config", "flags", "--no-screening", evalExample); r.code != 0 {
		t.Fatalf("import: %+v", r)
	}
	st, err := store.Open(db)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	ctx := context.Background()
	info, err := st.EvalProjectByName(ctx, "demo")
	if err != nil {
		t.Fatal(err)
	}
	p, err := st.EvalProject(ctx, info.ID)
	if err != nil {
		t.Fatal(err)
	}
	p.Settings.UseGolds, p.Settings.MaxIncorrectGolds = true, 0
	config, _ := ev.MarshalProject(p)
	if err := st.SetEvalProjectConfig(ctx, info.ID, string(config)); err != nil {
		t.Fatal(err)
	}
	sp := session.NewProject(info.ID, info.Name, p)
	at := time.Date(2026, 12, 6, 10, 0, 0, 0, time.UTC)
	task := func(who string, pos int, grant map[string]int) ev.ImportedAttempt {
		return ev.ImportedAttempt{File: who, Participant: who, Kind: ev.UnitTask, Position: pos, CompletedAt: at, Grant: grant}
	}
	evil := `=HYPERLINK("http://evil.example/x")`
	if _, err := st.ImportEvalAttempts(ctx, info.ID, []ev.ImportedAttempt{
		task("P1", 0, nil), task(evil, 1, nil), task("P2", 1, map[string]int{sp.GoldBase() + session.GoldWrongSuffix: 2}), task("M1", 2, nil),
		{File: "P3", Participant: "P3", Kind: ev.UnitScreening, CompletedAt: at, Grant: map[string]int{sp.BlockName(): 1}},
	}); err != nil {
		t.Fatal(err)
	}
	if _, err := st.EvalSignIn(ctx, info.ID, "M2"); err != nil {
		t.Fatal(err)
	}
	ws, err := st.EvalParticipants(ctx, info.ID)
	if err != nil {
		t.Fatal(err)
	}
	ids := map[string]int64{}
	for _, w := range ws {
		ids[w.Name] = w.ID
	}
	for who, c := range map[string][]ev.CrowdIDs{
		"P1": {{Site: ev.SiteProlific, StudyID: "S1", SessionID: "X1"}},
		evil: {{Site: ev.SiteProlific, StudyID: "S1", SessionID: "X9"}},
		"P2": {{Site: ev.SiteProlific, StudyID: "S1", SessionID: "X2"}},
		"P3": {{Site: ev.SiteProlific, StudyID: "S1", SessionID: "X3"}},
		"M1": {{Site: ev.SiteMTurk, HitID: "H1", AssignmentID: "A1"}, {Site: ev.SiteMTurk, HitID: "H2", AssignmentID: "A2", SubmitTo: "https://www.mturk.com"}},
		"M2": {{Site: ev.SiteMTurk, HitID: "H1", AssignmentID: "A3"}},
	} {
		for _, x := range c {
			if err := st.RecordEvalCrowd(ctx, ids[who], x); err != nil {
				t.Fatal(err)
			}
		}
	}
	sv, err := st.EvalServing(ctx, info.ID)
	if err != nil {
		t.Fatal(err)
	}
	codes := map[string]string{}
	for who := range ids {
		codes[who] = ev.CompletionCode(sv.Secret, info.ID, who)
	}
	return db, codes
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// eval payouts writes Prolific's approve list and bonus lines and MTurk's approve/reject
// file for the right people, every cell safe for spreadsheets.
func TestEvalPayouts(t *testing.T) {
	db, _ := crowdProject(t)
	out := filepath.Join(filepath.Dir(db), "payouts")
	r := runCLI(t, "--store", db, "eval", "payouts", "demo", "--site", "prolific", "--out", out, "--bonus-per-unit", "0.5")
	if r.code != 0 || !strings.Contains(r.stdout, "4 participants from prolific: 2 to approve, 1 to reject, 0 to review, 1 screened out") {
		t.Fatalf("payouts: %+v", r)
	}
	evil := `'=HYPERLINK("http://evil.example/x")`
	if got, want := readFile(t, filepath.Join(out, "prolific-approve.txt")), "P1\n\""+strings.ReplaceAll(evil, `"`, `""`)+"\"\n"; got != want {
		t.Errorf("approve list %q, want %q", got, want)
	}
	if got := readFile(t, filepath.Join(out, "prolific-reject.txt")); got != "P2\n" {
		t.Errorf("reject list %q", got)
	}
	if got := readFile(t, filepath.Join(out, "prolific-bonus.csv")); !strings.HasPrefix(got, "P1,0.50\n") {
		t.Errorf("bonus lines %q", got)
	}
	recs, err := csv.NewReader(strings.NewReader(readFile(t, filepath.Join(out, "decisions.csv")))).ReadAll()
	if err != nil || len(recs) != 5 || recs[0][3] != "decision" {
		t.Fatalf("decisions: %v %v", recs, err)
	}
	for _, rec := range recs[1:] {
		if strings.HasPrefix(rec[0], "=") {
			t.Errorf("a formula in decisions.csv: %v", rec)
		}
		if rec[0] == "P3" && rec[3] != "screened-out" || rec[0] == "P2" && (rec[3] != "reject" || !strings.Contains(rec[4], "gold")) {
			t.Errorf("decision %v", rec)
		}
	}
	mt := filepath.Join(filepath.Dir(db), "mturk")
	r = runCLI(t, "--store", db, "eval", "payouts", "demo", "--site", "mturk", "--out", mt, "--bonus-per-unit", "1.25")
	if r.code != 0 {
		t.Fatalf("payouts mturk: %+v", r)
	}
	if got, want := readFile(t, filepath.Join(mt, "mturk-approve-reject.csv")), "AssignmentId,WorkerId,Approve,Reject\nA1,M1,x,\nA2,M1,x,\n"; got != want {
		t.Errorf("MTurk file %q, want %q", got, want)
	}
	if got, want := readFile(t, filepath.Join(mt, "mturk-bonus.csv")), "WorkerId,AssignmentId,BonusAmount,Reason\nM1,A2,1.25,1.25 for 1 unit\n"; got != want {
		t.Errorf("MTurk bonus %q, want %q", got, want)
	}
	for _, bad := range [][]string{{"--site", "other", "--out", mt}, {"--site", "mturk"}, {"--site", "mturk", "--out", mt, "--bonus-per-unit", "-1"}} {
		if r := runCLI(t, append([]string{"--store", db, "eval", "payouts", "demo"}, bad...)...); r.code != 2 {
			t.Errorf("%v: %+v", bad, r)
		}
	}
}

// eval codes lists the codes of those who finished something and tells whose a code is.
func TestEvalCodes(t *testing.T) {
	db, codes := crowdProject(t)
	r := runCLI(t, "--store", db, "eval", "codes", "demo")
	if r.code != 0 || !strings.Contains(r.stdout, codes["P1"]) || !strings.Contains(r.stdout, "S1 X1") || strings.Contains(r.stdout, codes["P3"]) {
		t.Fatalf("codes: %+v", r)
	}
	typed := strings.ToLower(strings.ReplaceAll(codes["M1"], "-", " "))
	if r := runCLI(t, "--store", db, "eval", "codes", "demo", "--verify", typed); r.code != 0 || !strings.Contains(r.stdout, "completion code of M1") {
		t.Errorf("verify M1's code: %+v", r)
	}
	if r := runCLI(t, "--store", db, "eval", "codes", "demo", "--verify", "ABCD-EFGH-JKMN"); r.code == 0 || !strings.Contains(r.stderr, "no participant") {
		t.Errorf("verify a made-up code: %+v", r)
	}
	if r := runCLI(t, "--store", db, "eval", "codes", "demo", "--verify", codes["P3"]); r.code == 0 || !strings.Contains(r.stderr, "finished no unit") {
		t.Errorf("verify a code never shown: %+v", r)
	}
	out := filepath.Join(filepath.Dir(db), "codes.csv")
	if r := runCLI(t, "--store", db, "eval", "codes", "demo", "--out", out); r.code != 0 {
		t.Fatalf("codes --out: %+v", r)
	}
	recs, err := csv.NewReader(strings.NewReader(readFile(t, out))).ReadAll()
	if err != nil || len(recs) != 5 || strings.Join(recs[0], ",") != "participant,units_done,completion_code,site,study_id,session_id,hit_id,assignment_id,first_seen" {
		t.Fatalf("codes.csv: %v %v", recs, err)
	}
	for _, rec := range recs[1:] {
		if rec[0] == "M1" && (rec[7] != "A2" || rec[3] != "mturk") || strings.HasPrefix(rec[0], "=") {
			t.Errorf("row %v", rec)
		}
	}
}

// eval serve keeps the screen-out code and link in the project; a link that is not http(s) is
// refused.
func TestEvalServeScreenOut(t *testing.T) {
	dir := isolate(t)
	db := filepath.Join(dir, "eval.db")
	runCLI(t, "--store", db, "eval", "import", "--config", "flags", evalExample)
	if r := runCLI(t, "--store", db, "eval", "serve", "demo", "--screen-out-url", "javascript:alert(1)"); r.code == 0 || !strings.Contains(r.stderr, "screen_out_url") {
		t.Errorf("a bad screen-out link: %+v", r)
	}
	runCLI(t, "--store", db, "eval", "serve", "demo", "--screen-out-code", "SO-42", "--screen-out-url", "https://example.org/out", "--addr", "0.0.0.0:0")
	saved := filepath.Join(dir, "saved.toml")
	runCLI(t, "--store", db, "eval", "save", "demo", saved)
	if b := readFile(t, saved); !strings.Contains(b, `screen_out_code = 'SO-42'`) || !strings.Contains(b, `screen_out_url = 'https://example.org/out'`) {
		t.Errorf("the screen-out settings were not kept:\n%s", b)
	}
}
