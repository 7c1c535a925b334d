package fakeserver_test

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/agentdesk/agentdesk/engine/modelclient/fakeserver"
)

func post(t *testing.T, url, body string) (int, http.Header, string, error) {
	t.Helper()
	r, err := http.Post(url+"/chat/completions", "application/json", strings.NewReader(body))
	if err != nil {
		return 0, nil, "", err
	}
	defer r.Body.Close()
	b, err := io.ReadAll(r.Body)
	return r.StatusCode, r.Header, string(b), err
}

const good = `{"model":"m","messages":[{"role":"user","content":[{"type":"text","text":"hi"},{"type":"image_url","image_url":{"url":"data:image/png;base64,AAAA"}}]}]}`

func TestRepliesOfEveryKind(t *testing.T) {
	for _, tc := range []struct {
		reply  fakeserver.Reply
		status int
		check  func(h http.Header, body string) bool
	}{
		{fakeserver.OK("hello"), 200, func(_ http.Header, b string) bool {
			var a struct {
				Choices []struct{ Message struct{ Content string } }
				Usage   struct {
					PromptTokens int `json:"prompt_tokens"`
				}
			}
			return json.Unmarshal([]byte(b), &a) == nil && a.Choices[0].Message.Content == "hello" && a.Usage.PromptTokens == 257
		}},
		{fakeserver.Error(503), 503, nil},
		{fakeserver.Error(0), 500, nil},
		{fakeserver.TooMany("12"), 429, func(h http.Header, _ string) bool { return h.Get("Retry-After") == "12" }},
		{fakeserver.Reply{Kind: fakeserver.BadJSON}, 200, func(_ http.Header, b string) bool { return !json.Valid([]byte(b)) }},
		{fakeserver.Reply{Kind: fakeserver.NoChoices}, 200, func(_ http.Header, b string) bool { return strings.Contains(b, `"choices":[]`) }},
		{fakeserver.Reply{Kind: fakeserver.EmptyContent}, 200, func(_ http.Header, b string) bool { return strings.Contains(b, `"content":""`) }},
		{fakeserver.Reply{Kind: fakeserver.CutJSON}, 200, func(_ http.Header, b string) bool { return !json.Valid([]byte(b)) && strings.HasPrefix(b, "{") }},
	} {
		srv := fakeserver.New(fakeserver.Options{Behave: func(fakeserver.Call) fakeserver.Reply { return tc.reply }})
		st, h, body, err := post(t, srv.URL, good)
		srv.Close()
		if err != nil || st != tc.status || tc.check != nil && !tc.check(h, body) {
			t.Errorf("reply %+v: status %d, body %q, err %v", tc.reply, st, body, err)
		}
	}
}

func TestDropCutsTheConnection(t *testing.T) {
	srv := fakeserver.New(fakeserver.Options{Behave: func(fakeserver.Call) fakeserver.Reply { return fakeserver.Reply{Kind: fakeserver.Drop} }})
	defer srv.Close()
	if _, _, _, err := post(t, srv.URL, good); err == nil {
		t.Fatal("reading a dropped answer gave no error")
	}
}

func TestRefusesWhatEnginesRefuse(t *testing.T) {
	srv := fakeserver.New(fakeserver.Options{Record: true})
	defer srv.Close()
	for _, body := range []string{
		`not json`,
		`{"messages":[{"role":"user","content":"x"}]}`,
		`{"model":"m","messages":[]}`,
		`{"model":"m","messages":[{"role":"robot","content":"x"}]}`,
		`{"model":"m","messages":[{"role":"user","content":[{"type":"image_url","image_url":{"url":"file:///etc/passwd"}}]}]}`,
		`{"model":"m","messages":[{"role":"user","content":[{"type":"image_url","image_url":{"url":"data:image/png;base64,A*A="}}]}]}`,
		`{"model":"m","messages":[{"role":"user","content":[{"type":"image_url","image_url":"data:image/png;base64,AAAA"}]}]}`,
		`{"model":"m","messages":[{"role":"user","content":[{"type":"audio","text":"x"}]}]}`,
		`{"model":"m","stream":true,"messages":[{"role":"user","content":"x"}]}`,
	} {
		if st, _, b, _ := post(t, srv.URL, body); st != 400 {
			t.Errorf("%s: status %d %s", body, st, b)
		}
	}
	if len(srv.Requests()) != 0 {
		t.Fatalf("refused requests were recorded")
	}
}

func TestSeenCountsRepeatsOfOneBody(t *testing.T) {
	var seen []int
	srv := fakeserver.New(fakeserver.Options{Record: true, Behave: func(c fakeserver.Call) fakeserver.Reply {
		seen = append(seen, c.Seen)
		return fakeserver.OK("")
	}, Answer: func(r fakeserver.Request) string { return strings.ToUpper(r.Text()) }})
	defer srv.Close()
	other := strings.Replace(good, "hi", "ho", 1)
	var answers []string
	for _, b := range []string{good, good, other, good} {
		_, _, body, _ := post(t, srv.URL, b)
		var a struct {
			Choices []struct{ Message struct{ Content string } }
		}
		json.Unmarshal([]byte(body), &a)
		answers = append(answers, a.Choices[0].Message.Content)
	}
	if len(seen) != 4 || seen[0] != 0 || seen[1] != 1 || seen[2] != 0 || seen[3] != 2 {
		t.Fatalf("seen %v", seen)
	}
	if strings.Join(answers, ",") != "HI,HI,HO,HI" || srv.Count() != 4 || len(srv.Requests()) != 4 || srv.Replies(fakeserver.Answer) != 4 {
		t.Fatalf("answers %v", answers)
	}
}

func TestKeyRequired(t *testing.T) {
	srv := fakeserver.New(fakeserver.Options{Key: "k1"})
	defer srv.Close()
	req, _ := http.NewRequest("POST", srv.URL+"/chat/completions", strings.NewReader(good))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer k1")
	r, err := http.DefaultClient.Do(req)
	if err != nil || r.StatusCode != 200 {
		t.Fatalf("with the key: %v %v", r, err)
	}
	r.Body.Close()
	if st, _, _, _ := post(t, srv.URL, good); st != 401 {
		t.Fatalf("without the key: %d", st)
	}
	if a := srv.Authorizations(); len(a) != 2 || a[0] != "Bearer k1" || a[1] != "" {
		t.Fatalf("authorizations %q", a)
	}
}
