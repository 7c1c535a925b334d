package web

import (
	"context"
	"html"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	ev "github.com/agentdesk/agentdesk/engine/evaluation"
)

// noScreening turns the training off so that a participant starts on a unit's first page.
func noScreening(p *ev.Project) { p.Settings.UseScreening = false }

// A participant's link opens their page; the same token with another id, a revoked link and a
// malformed one are refused; crowdsourcing sites' parameter names are understood.
func TestLinksAdmitTheirParticipantOnly(t *testing.T) {
	h := serveExample(t, "flags", nil)
	ctx := context.Background()
	w1 := h.participant("w1")
	if page := w1.open(); w1.lastStatus != 200 || !strings.Contains(page, "Training: Flags") || !strings.Contains(page, "Signed in as w1") {
		t.Fatalf("the link answers %d:\n%s", w1.lastStatus, page)
	}
	other := h.browser(strings.Replace(w1.link, "worker_id=w1", "worker_id=w2", 1))
	if other.open(); other.lastStatus != http.StatusForbidden {
		t.Fatalf("w1's token with w2's id answers %d", other.lastStatus)
	}
	for _, bad := range []string{"/?worker_id=w1", "/?token=x", "/?worker_id=w1&worker_id=w2&token=x", "/?worker_id=w1&workerId=w1&token=x",
		"/?worker_id=%01&token=x"} {
		c := h.browser(h.ts.URL + bad)
		if c.open(); c.lastStatus != http.StatusBadRequest && c.lastStatus != http.StatusForbidden {
			t.Errorf("%s answers %d", bad, c.lastStatus)
		}
	}
	// Revoked: the old link stops working, a new one works and resumes the same session.
	if err := h.srv.Revoke(ctx, "w1"); err != nil {
		t.Fatal(err)
	}
	if w1.open(); w1.lastStatus != http.StatusForbidden {
		t.Fatalf("a revoked link answers %d", w1.lastStatus)
	}
	again := h.participant("w1")
	if page := again.open(); again.lastStatus != 200 || !strings.Contains(page, "Training: Flags") {
		t.Fatalf("the new link answers %d", again.lastStatus)
	}
	// The study link admits new ids under the sites' names, each bound to its first browser.
	study, err := h.srv.StudyLink(ctx)
	if err != nil {
		t.Fatal(err)
	}
	prolific := h.browser(study + "&PROLIFIC_PID=p-7&STUDY_ID=s1&SESSION_ID=x9")
	if page := prolific.open(); prolific.lastStatus != 200 || !strings.Contains(page, "Signed in as p-7") {
		t.Fatalf("the study link with Prolific's parameters answers %d", prolific.lastStatus)
	}
	mturk := h.browser(study + "&workerId=m-3&assignmentId=a1&hitId=h1")
	if page := mturk.open(); mturk.lastStatus != 200 || !strings.Contains(page, "Signed in as m-3") {
		t.Fatalf("the study link with MTurk's parameters answers %d", mturk.lastStatus)
	}
	thief := h.browser(study + "&PROLIFIC_PID=p-7")
	if page := thief.open(); thief.lastStatus != http.StatusForbidden || !strings.Contains(page, "another browser") {
		t.Fatalf("another browser with the same id answers %d", thief.lastStatus)
	}
	if prolific.open(); prolific.lastStatus != 200 {
		t.Fatalf("the first browser lost its session: %d", prolific.lastStatus)
	}
	if _, err := h.st.RevokeEvalStudyLink(ctx, h.proj.ID); err != nil {
		t.Fatal(err)
	}
	late := h.browser(study + "&PROLIFIC_PID=p-8")
	if late.open(); late.lastStatus != http.StatusForbidden {
		t.Fatalf("a revoked study link answers %d", late.lastStatus)
	}
}

// Every response carries the security headers; the page holds no inline script.
func TestSecurityHeaders(t *testing.T) {
	h := serveExample(t, "flags", nil)
	resp, err := http.Get(h.ts.URL + "/?worker_id=w1&token=nope")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	csp := resp.Header.Get("Content-Security-Policy")
	for _, want := range []string{"default-src 'none'", "script-src 'self'", "frame-ancestors 'none'"} {
		if !strings.Contains(csp, want) {
			t.Errorf("CSP %q lacks %q", csp, want)
		}
	}
	if strings.Contains(csp, "unsafe-inline") {
		t.Errorf("CSP allows inline script or style: %q", csp)
	}
	for k, want := range map[string]string{"X-Content-Type-Options": "nosniff", "X-Frame-Options": "DENY", "Referrer-Policy": "no-referrer", "Cache-Control": "no-store"} {
		if got := resp.Header.Get(k); got != want {
			t.Errorf("%s: %q, want %q", k, got, want)
		}
	}
	page := h.participant("w1").open()
	if strings.Contains(page, "<script>") || strings.Contains(page, " onclick=") || strings.Contains(page, "style=") {
		t.Fatal("the page holds inline script or style")
	}
}

// Actions need the page's form token, a same-origin request and a form body of bounded size;
// every field is checked, and a refused answer stores nothing.
func TestActionsAreCheckedBeforeAnythingIsStored(t *testing.T) {
	h := serveExample(t, "flags", noScreening)
	c := h.participant("w1")
	c.open()
	good := c.firstChoice()
	variant := func(kv ...string) url.Values {
		v := withAt(good, c.at)
		v.Del("at")
		for i := 0; i+1 < len(kv); i += 2 {
			v.Set(kv[i], kv[i+1])
		}
		return v
	}
	cases := []struct {
		name   string
		fields url.Values
		hdr    []string
		status int
	}{
		{"no form token", withForm(variant(), "x"), nil, http.StatusForbidden},
		{"cross-site", variant(), []string{"Sec-Fetch-Site", "cross-site"}, http.StatusForbidden},
		{"another origin", variant(), []string{"Origin", "https://evil.example"}, http.StatusForbidden},
		{"a turn not asked", variant("turn", "0"), nil, http.StatusUnprocessableEntity},
		{"a turn out of range", variant("turn", "99"), nil, http.StatusUnprocessableEntity},
		{"a dialogue-level answer on a turn type", variant("turn", "-1"), nil, http.StatusUnprocessableEntity},
		{"an unknown choice", variant("key", "<script>"), nil, http.StatusUnprocessableEntity},
		{"another kind of answer", variant("kind", "comparative"), nil, http.StatusUnprocessableEntity},
		{"a flow click on labels", variant("kind", "flow", "click", "radio"), nil, http.StatusUnprocessableEntity},
		{"an unknown click", variant("kind", "flow", "click", "poke"), nil, http.StatusBadRequest},
		{"an unknown kind", variant("kind", "shell"), nil, http.StatusBadRequest},
		{"a scale value out of range", variant("kind", "scale", "value", "6"), nil, http.StatusUnprocessableEntity},
		{"a turn that is not a number", variant("turn", "one"), nil, http.StatusBadRequest},
		{"a field given twice", func() url.Values { v := variant(); v.Add("turn", "3"); return v }(), nil, http.StatusBadRequest},
		{"an unknown action", vals("do", "drop-tables"), nil, http.StatusBadRequest},
		{"a page no longer on show", variant("at", "p0.0.0.0"), nil, http.StatusConflict},
	}
	for _, tc := range cases {
		if status, msg := c.post(tc.fields, tc.hdr...); status != tc.status || msg == "" {
			t.Errorf("%s: %d %q, want %d with a reason", tc.name, status, msg, tc.status)
		}
	}
	if rows := answerRows(t, h.st, h.proj.ID); len(rows) != 0 {
		t.Fatalf("refused answers were stored: %v", rows)
	}
	// Size limit and content type.
	big := variant()
	big.Set("pad", strings.Repeat("x", maxBody))
	if status, _ := c.post(big); status != http.StatusRequestEntityTooLarge {
		t.Errorf("a %d-byte body answers %d", maxBody, status)
	}
	req, _ := http.NewRequest("POST", h.ts.URL+"/act?"+c.query(), strings.NewReader(`{"do":"next"}`))
	req.Header.Set("Content-Type", "application/json")
	if resp, err := c.c.Do(req); err != nil || resp.StatusCode != http.StatusUnsupportedMediaType {
		t.Errorf("a JSON body: %v %v", resp.StatusCode, err)
	}
	if status, msg := c.post(variant()); status != http.StatusOK {
		t.Fatalf("the good answer: %d %s", status, msg)
	}
	if rows := answerRows(t, h.st, h.proj.ID); len(rows) != 1 || !strings.Contains(rows[0], good.Get("key")) {
		t.Fatalf("stored: %v", rows)
	}
}

func withForm(v url.Values, form string) url.Values {
	out := url.Values{}
	for k, x := range v {
		out[k] = x
	}
	out.Set("form", form)
	return out
}

func withAt(v url.Values, at string) url.Values {
	out := withForm(v, "")
	out.Del("form")
	out.Set("at", at)
	return out
}

// Dialogue text and participant ids holding markup are shown as text.
func TestHostileTextIsEscaped(t *testing.T) {
	hostile := `<script>alert(1)</script><img src=x onerror=alert(2)>"'&`
	h := serveExample(t, "flags", func(p *ev.Project) {
		noScreening(p)
		for bi := range p.Bundles {
			for di := range p.Bundles[bi].Datapoints {
				for ti := range p.Bundles[bi].Datapoints[di].Turns {
					p.Bundles[bi].Datapoints[di].Turns[ti].Text += " " + hostile
				}
			}
		}
	})
	c := h.participant(`<b>bold</b>`)
	page := c.open()
	if c.lastStatus != 200 {
		t.Fatalf("status %d", c.lastStatus)
	}
	if strings.Contains(page, "<script>alert") || strings.Contains(page, "<img src=x") || strings.Contains(page, "<b>bold</b>") {
		t.Fatalf("markup from the data reached the page:\n%s", page)
	}
	if !strings.Contains(page, "&lt;script&gt;alert(1)&lt;/script&gt;") || !strings.Contains(page, "&lt;b&gt;bold&lt;/b&gt;") {
		t.Fatalf("the text is not shown escaped:\n%s", page)
	}
}

// A participant goes through training and a unit by their link; a restart of the server
// resumes them on the same page with their answers.
func TestTrainingUnitsAndResume(t *testing.T) {
	h := serveExample(t, "flags", nil)
	c := h.participant("w1")
	c.open()
	c.do(vals("do", "next")) // Begin Flags
	// Training dialogue 1: tick what the truth wants.
	for guard := 0; guard < 40 && strings.Contains(c.page, `data-screen="page"`) || strings.Contains(c.page, `data-screen="training"`); guard++ {
		if strings.Contains(c.page, `data-screen="training"`) {
			c.do(vals("do", "next"))
			continue
		}
		if !strings.Contains(c.page, "Training") && !strings.Contains(c.page, "training") {
			break
		}
		answerTraining(t, h, c)
	}
	if !strings.Contains(c.page, "Congratulations") && !strings.Contains(c.page, `data-screen="page"`) {
		t.Fatalf("after training:\n%s", c.page)
	}
	if strings.Contains(c.page, "Congratulations") {
		c.do(vals("do", "next")) // Start the real work
	}
	if !strings.Contains(c.page, `data-screen="page"`) {
		t.Fatalf("no unit page:\n%s", c.page)
	}
	e := c.firstChoice()
	c.do(e)
	before := c.at
	h.start() // the server restarts
	c.h = h
	page := c.open()
	if c.at != before || !strings.Contains(page, `data-key="`+html.EscapeString(e.Get("key"))+`" data-value="`+html.EscapeString(e.Get("value"))+`" data-click="`+e.Get("click")+`" checked`) {
		t.Fatalf("not resumed on the same page with the answer (was %s, now %s):\n%s", before, c.at, page)
	}
}

// answerTraining answers a training page from its truth (the session's page) and goes on.
func answerTraining(t *testing.T, h *harness, c *client) {
	t.Helper()
	h.srv.mu.Lock()
	p := h.srv.people["w1"]
	h.srv.mu.Unlock()
	p.mu.Lock()
	pg := p.sess.Page()
	var edits []url.Values
	if pg != nil {
		for _, pos := range pg.Positions {
			tr := pg.Datapoint.Turns[pos].Truth
			if tr == nil || !pg.Editable(pos) {
				continue
			}
			for _, e := range tr.Entries {
				if s, ok := e.Value.(string); ok && s != "" {
					if pg.Answers.TurnAt(pos).String(e.Key) == s {
						continue
					}
					edits = append(edits, vals("do", "edit", "turn", itoa(pos), "kind", "flow", "key", e.Key, "value", s, "click", "check"))
				}
			}
		}
	}
	p.mu.Unlock()
	for _, e := range edits {
		c.do(e)
	}
	c.do(vals("do", "next"))
}

// Many participants arriving at once: nobody gets two units of one assignment, and no unit
// goes to two people.
func TestManyParticipantsAtOnce(t *testing.T) {
	h := serveExample(t, "flags", noScreening)
	var wg sync.WaitGroup
	names := []string{}
	for i := 0; i < 12; i++ {
		names = append(names, "p"+itoa(i))
	}
	var mu sync.Mutex
	started := map[string][]int{}
	for _, n := range names {
		for k := 0; k < 2; k++ { // two browsers of the same participant pressing Start at the same moment
			wg.Add(1)
			go func(c *client) {
				defer wg.Done()
				status := c.lastStatus
				if c.openOnly(); c.lastStatus == http.StatusOK { // the other may have started already
					status, _ = c.post(vals("do", "start"))
				} else {
					status = c.lastStatus
				}
				mu.Lock()
				started[n] = append(started[n], status)
				mu.Unlock()
			}(h.participant(n))
		}
	}
	wg.Wait()
	for n, st := range started { // the id is bound to one of the two browsers; the other is refused
		if slices.Sort(st); len(st) != 2 || st[0] != http.StatusOK || st[1] != http.StatusForbidden {
			t.Errorf("%s's two browsers: %v, want one 200 and one 403", n, st)
		}
	}
	units, err := h.st.EvalUnits(context.Background(), h.proj.ID)
	if err != nil {
		t.Fatal(err)
	}
	held := map[string]int{}
	groups := map[string]bool{}
	for _, u := range units {
		if u.ParticipantID == 0 {
			continue
		}
		held[u.Participant]++
		key := u.Participant + "/" + u.GroupID
		if groups[key] {
			t.Errorf("%s holds two units of group %s", u.Participant, u.GroupID)
		}
		groups[key] = true
	}
	for n, k := range held {
		if k > 1 {
			t.Errorf("%s holds %d units", n, k)
		}
	}
	if len(held) == 0 {
		t.Fatal("nobody got a unit")
	}
}

// waitFor asks for the page until cond holds (a bot's reply comes in the background).
func (c *client) waitFor(t *testing.T, what string, cond func(string) bool) {
	t.Helper()
	for i := 0; i < 200; i++ {
		if cond(c.open()) {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("%s:\n%s", what, c.page)
}

// A collection unit by the link: the bot's replies come without a reload, online answers gate
// the text box, END leads to the ratings, and the unit is submitted.
func TestChatWithTheEchoBot(t *testing.T) {
	h := serveExample(t, "collect", func(p *ev.Project) {
		p.Bots["botA"] = ev.BotSpec{Kind: ev.BotEcho}
		p.Bots["botB"] = ev.BotSpec{Kind: ev.BotEcho}
		p.Settings.OnlineAnnotation = "labels"
	})
	c := h.participant("chatter")
	c.open()
	c.waitFor(t, "no opening reply", func(p string) bool { return strings.Contains(p, `data-turn="1"`) && !strings.Contains(p, "typing") })
	if !strings.Contains(c.page, "Answer the question under your partner") || !strings.Contains(c.page, `placeholder="Type your message" disabled`) {
		t.Fatalf("the text box is open before the bot's message is annotated:\n%s", c.page)
	}
	if status, _ := c.post(vals("do", "send", "text", "too early")); status == http.StatusOK {
		t.Fatal("a message was taken before the bot's message was annotated")
	}
	c.open()
	c.do(c.firstChoice())
	c.do(vals("do", "send", "text", "Tell me about <b>rivers</b>"))
	c.waitFor(t, "no reply to the message", func(p string) bool {
		return strings.Contains(p, `data-turn="3"`) && !strings.Contains(p, `id="typing"`)
	})
	if !strings.Contains(c.page, "Tell me about &lt;b&gt;rivers&lt;/b&gt;") {
		t.Fatalf("the message is not shown as text:\n%s", c.page)
	}
	convs, err := h.st.EvalConversations(context.Background(), func() int64 {
		h.srv.mu.Lock()
		defer h.srv.mu.Unlock()
		return h.srv.people["chatter"].sess.Unit().ID
	}())
	if err != nil || len(convs) != 1 || len(convs[0].Turns) != 4 {
		t.Fatalf("stored conversation: %+v %v", convs, err)
	}
}
