package web

import (
	"context"
	"crypto/tls"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	ev "github.com/agentdesk/agentdesk/engine/evaluation"
)

// heldUnits counts the units participants hold and have not completed.
func heldUnits(t *testing.T, h *harness) (held, open int) {
	t.Helper()
	units, err := h.st.EvalUnits(context.Background(), h.proj.ID)
	if err != nil {
		t.Fatal(err)
	}
	for _, u := range units {
		if u.Kind != ev.UnitTask {
			continue
		}
		switch u.Status {
		case ev.UnitAssigned:
			held++
		case ev.UnitOpen:
			open++
		}
	}
	return held, open
}

func (h *harness) studyLink() string {
	h.t.Helper()
	l, err := h.srv.StudyLink(context.Background())
	if err != nil {
		h.t.Fatal(err)
	}
	return l
}

// An id that holds a personal link cannot be used through the study link, and every id, by
// either link, is bound to the first browser that started: a second browser gets a page
// saying so, and the roster a line.
func TestIdentityIsBoundToItsLinkAndFirstBrowser(t *testing.T) {
	h := serveExample(t, "flags", noScreening)
	alice := h.participant("alice")
	if alice.open(); alice.lastStatus != http.StatusOK || !strings.Contains(alice.page, "Signed in as alice") {
		t.Fatalf("alice's own link: %d", alice.lastStatus)
	}
	// a stranger with the study link and alice's id
	stranger := h.browser(h.studyLink() + "&PROLIFIC_PID=alice")
	if stranger.openOnly(); stranger.lastStatus != http.StatusForbidden || !strings.Contains(stranger.page, "personal link") {
		t.Fatalf("the study link with a personal id answers %d:\n%s", stranger.lastStatus, stranger.page)
	}
	// carol has a personal link she has not opened yet: the study link cannot take her id either
	h.participant("carol")
	thief := h.browser(h.studyLink() + "&workerId=carol")
	if thief.openOnly(); thief.lastStatus != http.StatusForbidden {
		t.Fatalf("the study link with an unused personal id answers %d", thief.lastStatus)
	}
	// alice's own link forwarded to another browser
	copyCat := h.browser(alice.link)
	if copyCat.openOnly(); copyCat.lastStatus != http.StatusForbidden || !strings.Contains(copyCat.page, "another browser") {
		t.Fatalf("alice's link in a second browser answers %d:\n%s", copyCat.lastStatus, copyCat.page)
	}
	if status, _ := copyCat.post(vals("do", "start")); status == http.StatusOK {
		t.Fatal("a second browser started as alice")
	}
	if alice.open(); alice.lastStatus != http.StatusOK {
		t.Fatalf("alice lost her session: %d", alice.lastStatus)
	}
	roster, err := h.srv.Roster(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	noted := false
	for _, r := range roster {
		if r.Name == "alice" && strings.Contains(r.Conflict, "another browser tried this id") {
			noted = true
		}
	}
	if !noted {
		t.Fatalf("the roster does not say another browser tried alice's id: %+v", roster)
	}
	// a study-link id, once started, is bound too
	bob := h.browser(h.studyLink() + "&PROLIFIC_PID=bob")
	if bob.open(); bob.lastStatus != http.StatusOK || !strings.Contains(bob.page, "Signed in as bob") {
		t.Fatalf("bob: %d", bob.lastStatus)
	}
	if other := h.browser(bob.link); other.openOnly() != "" && other.lastStatus != http.StatusForbidden {
		t.Fatalf("bob's id in a second browser answers %d", other.lastStatus)
	}
}

// Opening a link holds no unit and binds nothing (a link scanner or a preview that fetches it
// takes nothing from the participant); Start does both.
func TestUnitsAreHandedOutOnStart(t *testing.T) {
	h := serveExample(t, "flags", noScreening)
	study := h.studyLink()
	for i := 0; i < 30; i++ { // 30 scripted ids fetching the link
		c := h.browser(fmt.Sprintf("%s&PROLIFIC_PID=script-%d", study, i))
		if c.openOnly(); c.lastStatus != http.StatusOK || c.at != "start" {
			t.Fatalf("the link of a new id answers %d at %q", c.lastStatus, c.at)
		}
	}
	scanner := h.browser(h.participantLink("dave"))
	scanner.openOnly()
	if held, _ := heldUnits(t, h); held != 0 {
		t.Fatalf("fetching links took %d units", held)
	}
	dave := h.browser(h.participantLink("dave")) // dave himself, after the scanner
	if dave.open(); dave.lastStatus != http.StatusOK || dave.at == "start" {
		t.Fatalf("dave after a scanner fetched his link: %d %s", dave.lastStatus, dave.at)
	}
	if held, _ := heldUnits(t, h); held != 1 {
		t.Fatalf("after one Start %d units are held", held)
	}
}

func (h *harness) participantLink(worker string) string {
	h.t.Helper()
	l, err := h.srv.Link(context.Background(), worker, "")
	if err != nil {
		h.t.Fatal(err)
	}
	return l
}

// 40 new study-link ids from one address within two seconds: some are told to wait (429 with
// Retry-After) and they take fewer than all the units; a participant from another address two
// seconds later gets a unit. Signed-in participants on the limited address keep answering.
func TestStudyLinkEntryIsRateLimitedPerClient(t *testing.T) {
	h, clock := serveExampleClocked(t, "flags", func(p *ev.Project) { noScreening(p); p.Settings.AnnotationDurationSeconds = 30 })
	_, units := heldUnits(t, h)
	study := h.studyLink()
	insider := h.participant("insider") // signed in before the burst, same address
	insider.open()
	started, limited := 0, 0
	for i := 0; i < 40; i++ {
		c := h.browser(fmt.Sprintf("%s&PROLIFIC_PID=burst-%d", study, i))
		c.openOnly()
		req, _ := http.NewRequest("POST", h.ts.URL+"/act?"+c.query(), strings.NewReader(vals("do", "start", "form", c.form, "at", "start").Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		resp, err := c.c.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		switch resp.StatusCode {
		case http.StatusSeeOther, http.StatusOK:
			started++
		case http.StatusTooManyRequests, http.StatusServiceUnavailable:
			limited++
			if ra, err := strconv.Atoi(resp.Header.Get("Retry-After")); err != nil || ra < 1 {
				t.Fatalf("a %d without a Retry-After in seconds: %q", resp.StatusCode, resp.Header.Get("Retry-After"))
			}
		default:
			t.Fatalf("Start of burst-%d: %d", i, resp.StatusCode)
		}
		clock.Advance(50 * time.Millisecond) // 40 in two seconds
	}
	held, _ := heldUnits(t, h)
	t.Logf("40 new ids from one address in 2 s: %d started, %d told to wait; %d of %d units held", started, limited, held, units)
	if limited == 0 || held >= units {
		t.Fatalf("the burst was not limited: %d started, %d limited, %d of %d units held", started, limited, held, units)
	}
	// the insider's answers are never limited
	for i := 0; i < 3; i++ {
		insider.do(insider.firstChoice())
	}
	// someone else, from another address, two seconds later
	clock.Advance(2 * time.Second)
	late := h.browserAt(study+"&PROLIFIC_PID=real-person", "127.0.0.2")
	if late.open(); late.lastStatus != http.StatusOK || late.at == "start" || !strings.Contains(late.page, "data-screen=\"page\"") {
		t.Fatalf("a participant from another address after the burst: %d at %q:\n%s", late.lastStatus, late.at, late.page)
	}
	// once the burst's units are reclaimed (nobody answered them), the address gets in again
	clock.Advance(31 * time.Second)
	if _, err := h.srv.Reclaim(context.Background()); err != nil {
		t.Fatal(err)
	}
	again := h.browser(study + "&PROLIFIC_PID=burst-after")
	if again.open(); again.lastStatus != http.StatusOK || !strings.Contains(again.page, `data-screen="page"`) {
		t.Fatalf("after the burst's units were reclaimed: %d\n%s", again.lastStatus, again.page)
	}
}

// Requests with tokens that are not valid are limited per client: past the budget they get 429
// with Retry-After; a signed-in participant on the same address is not.
func TestBadTokensAreRateLimited(t *testing.T) {
	h, _ := serveExampleClocked(t, "flags", noScreening)
	w1 := h.participant("w1")
	w1.open()
	codes := map[int]int{}
	var retry string
	for i := 0; i < 60; i++ {
		resp, err := http.Get(h.ts.URL + "/?worker_id=w1&token=guess" + strconv.Itoa(i))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		codes[resp.StatusCode]++
		if resp.StatusCode == http.StatusTooManyRequests {
			retry = resp.Header.Get("Retry-After")
		}
	}
	if codes[http.StatusTooManyRequests] == 0 || retry == "" {
		t.Fatalf("60 bad tokens at once: %v, Retry-After %q", codes, retry)
	}
	if codes[http.StatusForbidden] == 0 {
		t.Fatalf("no request was refused as invalid before the limit: %v", codes)
	}
	w1.do(w1.firstChoice()) // the participant answers on
}

// The study link takes at most max_entrants participants in progress at once: beyond, 503 with
// Retry-After, and a page that tries again.
func TestStudyLinkEntrantsAreCapped(t *testing.T) {
	h, _ := serveExampleClocked(t, "flags", func(p *ev.Project) { noScreening(p); p.Settings.MaxEntrants = 2 })
	study := h.studyLink()
	for i, ip := range []string{"127.0.0.2", "127.0.0.3"} {
		c := h.browserAt(fmt.Sprintf("%s&PROLIFIC_PID=e%d", study, i), ip)
		if c.open(); c.lastStatus != http.StatusOK || c.at == "start" {
			t.Fatalf("entrant %d: %d", i, c.lastStatus)
		}
	}
	third := h.browserAt(study+"&PROLIFIC_PID=e3", "127.0.0.4")
	third.openOnly()
	req, _ := http.NewRequest("POST", h.ts.URL+"/act?"+third.query(), strings.NewReader(vals("do", "start", "form", third.form, "at", "start").Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	resp, err := third.c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body := make([]byte, 4096)
	n, _ := resp.Body.Read(body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusServiceUnavailable || resp.Header.Get("Retry-After") == "" ||
		!strings.Contains(string(body[:n]), `http-equiv="refresh"`) {
		t.Fatalf("a third entrant with max_entrants 2: %d, Retry-After %q:\n%s", resp.StatusCode, resp.Header.Get("Retry-After"), body[:n])
	}
	// personal links are not entrants
	if p := h.participant("invited"); p.open() == "" || p.lastStatus != http.StatusOK {
		t.Fatalf("a personal link while the study link is full: %d", p.lastStatus)
	}
}

// A held unit whose page limit passed goes back to the pool on the server's clock: for a
// participant still there (their page says they timed out) and for one who left before a
// restart (told when they come back); the next participant gets it.
func TestHeldUnitsAreReclaimedAtTheirLimit(t *testing.T) {
	h, clock := serveExampleClocked(t, "flags", func(p *ev.Project) {
		noScreening(p)
		p.Settings.AnnotationDurationSeconds = 5
	})
	ctx := context.Background()
	here := h.participant("here")
	here.open()
	gone := h.participant("gone")
	gone.open()
	heldBefore, _ := heldUnits(t, h)
	if heldBefore != 2 {
		t.Fatalf("%d units held", heldBefore)
	}
	h.start() // a restart: "gone" is no longer on the server
	h.srv.Reclaim(ctx)
	if held, _ := heldUnits(t, h); held != 2 {
		t.Fatalf("units reclaimed before their limit: %d held", held)
	}
	here.open() // "here" is back on the new server; "gone" is not
	clock.Advance(6 * time.Second)
	n, err := h.srv.Reclaim(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if held, _ := heldUnits(t, h); n != 2 || held != 0 {
		t.Fatalf("after the limit: reclaimed %d, %d still held", n, held)
	}
	if here.openOnly(); !strings.Contains(here.page, "Timed out") {
		t.Fatalf("the participant still there is not told:\n%s", here.page)
	}
	if gone.openOnly(); !strings.Contains(gone.page, "Timed out") || !strings.Contains(gone.page, "while you were away") {
		t.Fatalf("the participant who left is not told:\n%s", gone.page)
	}
	next := h.browserAt(h.participantLink("next"), "127.0.0.2")
	if next.open(); !strings.Contains(next.page, `data-screen="page"`) {
		t.Fatalf("the next participant gets no unit:\n%s", next.page)
	}
}

// Closing recruitment refuses new ids and lets those in progress finish; revoking the study
// link does the same for those in progress; evicting ends everyone's study-link session and
// gives their units back.
func TestClosingRecruitmentKeepsParticipantsInProgress(t *testing.T) {
	h := serveExample(t, "flags", noScreening)
	ctx := context.Background()
	old := h.studyLink()
	inside := h.browser(old + "&PROLIFIC_PID=inside")
	inside.open()
	if err := h.srv.SetRecruiting(ctx, false); err != nil {
		t.Fatal(err)
	}
	if c := h.browser(old + "&PROLIFIC_PID=newcomer"); c.openOnly() != "" && c.lastStatus != http.StatusForbidden {
		t.Fatalf("a new id after closing: %d", c.lastStatus)
	}
	inside.do(inside.firstChoice()) // the one in progress answers on
	if err := h.srv.SetRecruiting(ctx, true); err != nil {
		t.Fatal(err)
	}
	if _, err := h.st.RevokeEvalStudyLink(ctx, h.proj.ID); err != nil {
		t.Fatal(err)
	}
	if c := h.browser(old + "&PROLIFIC_PID=newcomer"); c.openOnly() != "" && c.lastStatus != http.StatusForbidden {
		t.Fatalf("a new id with the revoked link: %d", c.lastStatus)
	}
	inside.do(inside.firstChoice())
	if fresh := h.browserAt(h.studyLink()+"&PROLIFIC_PID=fresh", "127.0.0.2"); fresh.open() == "" || fresh.lastStatus != http.StatusOK {
		t.Fatalf("the new study link: %d", fresh.lastStatus)
	}
	ej, err := h.srv.Evict(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if ej.Participants != 2 || ej.Units != 2 {
		t.Fatalf("evicted %+v, want 2 participants and 2 units", ej)
	}
	if inside.openOnly(); inside.lastStatus != http.StatusForbidden {
		t.Fatalf("evicted, the old link answers %d", inside.lastStatus)
	}
	if held, _ := heldUnits(t, h); held != 0 {
		t.Fatalf("%d units still held after evicting", held)
	}
}

// Under TLS every response says Strict-Transport-Security; without it, none does.
func TestHSTSUnderTLS(t *testing.T) {
	h := serveExample(t, "flags", nil)
	srv, err := New(context.Background(), Options{Store: h.st, Project: h.proj, BaseURL: "https://127.0.0.1", Secure: true, ReclaimEvery: -1})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	ts := httptest.NewTLSServer(srv.Handler())
	defer ts.Close()
	c := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}}
	resp, err := c.Get(ts.URL + "/?worker_id=w1&token=nope")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if got := resp.Header.Get("Strict-Transport-Security"); !strings.HasPrefix(got, "max-age=") {
		t.Fatalf("Strict-Transport-Security under TLS: %q", got)
	}
	plain, err := http.Get(h.ts.URL + "/?worker_id=w1&token=nope")
	if err != nil {
		t.Fatal(err)
	}
	plain.Body.Close()
	if got := plain.Header.Get("Strict-Transport-Security"); got != "" {
		t.Fatalf("Strict-Transport-Security over plain HTTP: %q", got)
	}
}
