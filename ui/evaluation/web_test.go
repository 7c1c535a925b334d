package evaluation

import (
	"context"
	"encoding/json"
	"html"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	ev "github.com/agentdesk/agentdesk/engine/evaluation"
	"github.com/agentdesk/agentdesk/engine/evaluation/session"
	"github.com/agentdesk/agentdesk/store"
	"github.com/agentdesk/agentdesk/ui/uitest"
	"github.com/agentdesk/agentdesk/ui/web"
)

// One scripted participant through both front ends: at the desk (the Annotate tab's widgets)
// and in a browser (the served pages' requests), on two stores holding the same project. Both
// leave the same answer rows and the same completed units.
func TestSameAnswersThroughTheDesktopAndTheWeb(t *testing.T) {
	w, _, deskStore := evalTestWS(t)
	imp := readExample(t, w, "flags")
	p := imp.project
	p.Settings.UseScreening = false
	w.create("both", "imported", evalExample, p, "", nil)

	// At the desk: tick the first choice under every annotatable turn, then Next, to the end
	// of the first unit.
	s := w.session
	s.signIn("alice")
	for guard := 0; guard < 20 && s.page != nil; guard++ {
		for _, pos := range s.page.positions {
			box := s.page.boxes[pos]
			if c := uitest.Find(fyne.CanvasObject(box), func(*widget.Check) bool { return true }); c != nil {
				test.Tap(c)
			}
		}
		s.key(fyne.KeyReturn)
	}
	if !strings.Contains(uitest.Texts(s.root), "submitted") {
		t.Fatalf("the desktop session did not submit: %s", uitest.Texts(s.root))
	}

	// In a browser: the same clicks, as the page's script sends them.
	webStore := uitest.OpenStore(t)
	ctx := context.Background()
	id, err := webStore.SaveEvalProject(ctx, "both", "imported", evalExample, p, "")
	if err != nil {
		t.Fatal(err)
	}
	saved, _ := webStore.EvalProject(ctx, id)
	ts := httptest.NewUnstartedServer(nil)
	srv, err := web.New(ctx, web.Options{Store: webStore, Project: session.NewProject(id, "both", saved),
		BaseURL: "http://" + ts.Listener.Addr().String()})
	if err != nil {
		t.Fatal(err)
	}
	ts.Config.Handler = srv.Handler()
	ts.Start()
	defer ts.Close()
	defer srv.Close()
	link, _ := srv.Link(ctx, "alice", "")
	b := newBrowser(t, link)
	for guard := 0; guard < 20 && strings.Contains(b.page, `data-screen="page"`); guard++ {
		for _, e := range b.firstChoicePerTurn() {
			b.post(e)
		}
		b.post(url.Values{"do": {"next"}})
	}
	if !strings.Contains(b.page, "submitted") {
		t.Fatalf("the web session did not submit:\n%s", b.page)
	}

	desk, webRows := storedAnswers(t, deskStore, w.open.info.ID), storedAnswers(t, webStore, id)
	if len(desk) == 0 || strings.Join(desk, "\n") != strings.Join(webRows, "\n") {
		t.Fatalf("the stored answers differ\ndesktop:\n%s\nweb:\n%s", strings.Join(desk, "\n"), strings.Join(webRows, "\n"))
	}
	t.Logf("%d answer rows alike", len(desk))
}

// storedAnswers lists a project's answers and completed units without times and ids.
func storedAnswers(t *testing.T, st *store.Store, projectID int64) []string {
	t.Helper()
	ctx := context.Background()
	units, err := st.EvalUnits(ctx, projectID)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, u := range units {
		if u.Status == ev.UnitCompleted {
			var state ev.AnswerState
			json.Unmarshal(u.State, &state)
			state.Durations = nil
			b, _ := json.Marshal(state)
			out = append(out, "unit "+u.GroupID+" "+u.Participant+" "+string(b))
		}
		as, _ := st.EvalAnswers(ctx, u.ID)
		for _, a := range as {
			v, _ := json.Marshal(a.Value)
			out = append(out, strings.Join([]string{u.Participant, a.TypeName, strconvItoa(a.DialoguePos), strconvItoa(a.TypePos),
				strconvItoa(a.Turn), a.Question, string(v)}, "|"))
		}
	}
	return out
}

func strconvItoa(i int) string { b, _ := json.Marshal(i); return string(b) }

// webBrowser is a participant's browser as far as the test needs one.
type webBrowser struct {
	t        *testing.T
	c        *http.Client
	link     string
	page     string
	form, at string
}

func newBrowser(t *testing.T, link string) *webBrowser {
	jar, _ := cookiejar.New(nil)
	b := &webBrowser{t: t, c: &http.Client{Jar: jar}, link: link}
	b.open()
	if b.at == "start" { // the start page of a link not used yet: Start, as the participant would
		b.post(url.Values{"do": {"start"}})
	}
	return b
}

var (
	formAttr  = regexp.MustCompile(`data-form="([^"]*)"`)
	atAttr    = regexp.MustCompile(`data-at="([^"]*)"`)
	choiceTag = regexp.MustCompile(`data-turn="(\d+)">(?s:.*?)<input type="(\w+)" name="[^"]*" data-kind="([^"]*)" data-key="([^"]*)" data-value="([^"]*)"`)
)

func (b *webBrowser) open() {
	resp, err := b.c.Get(b.link)
	if err != nil {
		b.t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	b.page = string(body)
	if m := formAttr.FindStringSubmatch(b.page); m != nil {
		b.form = m[1]
	}
	if m := atAttr.FindStringSubmatch(b.page); m != nil {
		b.at = m[1]
	}
}

// firstChoicePerTurn is, for every annotated turn, the edit of its first choice.
func (b *webBrowser) firstChoicePerTurn() []url.Values {
	var out []url.Values
	for _, part := range strings.Split(b.page, `<fieldset class="group"`)[1:] {
		m := choiceTag.FindStringSubmatch(part)
		if m == nil {
			continue
		}
		e := url.Values{"do": {"edit"}, "turn": {m[1]}, "kind": {m[3]}, "key": {html.UnescapeString(m[4])}, "value": {html.UnescapeString(m[5])}}
		if m[3] == "flow" {
			e.Set("click", map[bool]string{true: "check", false: "radio"}[m[2] == "checkbox"])
		}
		out = append(out, e)
	}
	return out
}

func (b *webBrowser) post(f url.Values) {
	f.Set("form", b.form)
	f.Set("at", b.at)
	q := b.link[strings.Index(b.link, "?")+1:]
	base := b.link[:strings.Index(b.link, "/?")]
	req, _ := http.NewRequest("POST", base+"/act?"+q, strings.NewReader(f.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Accept", "application/json")
	resp, err := b.c.Do(req)
	if err != nil {
		b.t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 {
		b.t.Fatalf("%s: %d %s", f.Encode(), resp.StatusCode, body)
	}
	b.open()
}
