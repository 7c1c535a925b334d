package evaluation

import (
	"net/url"
	"regexp"
	"testing"
)

// The sites' ids are read from a link; MTurk's preview assignment, ids that are not plain text
// and a turkSubmitTo other than MTurk's own are left out.
func TestCrowdIDsOf(t *testing.T) {
	q, _ := url.ParseQuery("workerId=W1&assignmentId=A1&hitId=H1&turkSubmitTo=https%3A%2F%2Fwww.mturk.com")
	if c := CrowdIDsOf(q); c != (CrowdIDs{Site: SiteMTurk, HitID: "H1", AssignmentID: "A1", SubmitTo: "https://www.mturk.com"}) {
		t.Errorf("MTurk: %+v", c)
	}
	q, _ = url.ParseQuery("PROLIFIC_PID=P1&STUDY_ID=S1&SESSION_ID=X1")
	if c := CrowdIDsOf(q); c != (CrowdIDs{Site: SiteProlific, StudyID: "S1", SessionID: "X1"}) {
		t.Errorf("Prolific: %+v", c)
	}
	q, _ = url.ParseQuery("workerId=W1&assignmentId=ASSIGNMENT_ID_NOT_AVAILABLE&hitId=%01x&turkSubmitTo=https%3A%2F%2Fevil.example")
	if c := CrowdIDsOf(q); c != (CrowdIDs{Site: SiteMTurk}) {
		t.Errorf("preview and junk: %+v", c)
	}
	if c := CrowdIDsOf(url.Values{"worker_id": {"w"}}); !c.Empty() {
		t.Errorf("a personal link: %+v", c)
	}
	for raw, want := range map[string]string{
		"https://www.mturk.com": "https://www.mturk.com", "https://workersandbox.mturk.com/": "https://workersandbox.mturk.com",
		"HTTPS://WWW.MTURK.COM": "https://www.mturk.com", "https://evil.example": "", "http://www.mturk.com": "",
		"https://www.mturk.com:8443": "", "https://www.mturk.com/mturk/externalSubmit": "", "https://www.mturk.com?x=1": "",
		"//www.mturk.com": "", "https://a@www.mturk.com": "", "": "",
	} {
		if got, ok := MTurkSubmitOrigin(raw); got != want || ok != (want != "") {
			t.Errorf("MTurkSubmitOrigin(%q) = %q, %v", raw, got, ok)
		}
	}
}

// Completion codes: one per participant and project, readable, checked however typed.
func TestCompletionCode(t *testing.T) {
	secret := []byte("0123456789abcdef0123456789abcdef")
	a, b := CompletionCode(secret, 1, "alice"), CompletionCode(secret, 1, "bob")
	if !regexp.MustCompile(`^[0-9A-HJKMNP-TV-Z]{4}-[0-9A-HJKMNP-TV-Z]{4}-[0-9A-HJKMNP-TV-Z]{4}$`).MatchString(a) || a == b ||
		a != CompletionCode(secret, 1, "alice") || a == CompletionCode(secret, 2, "alice") || a == CompletionCode([]byte("other secret, other codes........"), 1, "alice") {
		t.Fatalf("codes %s %s", a, b)
	}
	if !VerifyCompletionCode(secret, 1, "alice", " "+a[:4]+" "+a[5:9]+a[10:]+" ") || VerifyCompletionCode(secret, 1, "bob", a) {
		t.Error("verification")
	}
}
