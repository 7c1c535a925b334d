package evaluation

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// copyExample copies the example project to a temporary folder the test may change.
func copyExample(t *testing.T) string {
	t.Helper()
	src := exampleProject(t)
	dst := t.TempDir()
	err := filepath.Walk(src, func(path string, info os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, path)
		if info.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	return dst
}

// editFile replaces old by new in a file of dir (the text must be there).
func editFile(t *testing.T, dir, rel, old, new string) {
	t.Helper()
	path := filepath.Join(dir, rel)
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), old) {
		t.Fatalf("%s has no %q", rel, old)
	}
	if err := os.WriteFile(path, []byte(strings.Replace(string(data), old, new, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestObservationsPrefixThePersonaLikeParlAI(t *testing.T) {
	req := BotRequest{Model: "blender_90M", Persona: PersonaFor("blender_90M", true, []string{" i like cats. ", "", "i am a nurse."}),
		History: []BotMessage{{Role: "user", Text: "Hi!"}, {Role: "bot", Text: "Hello"}, {Role: "user", Text: "how are you"}}}
	got := req.Observations()
	want := []BotMessage{{Role: "user", Text: "your persona: i like cats.\nyour persona: i am a nurse.\nHi!"},
		{Role: "bot", Text: "Hello"}, {Role: "user", Text: "how are you"}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("observations %q", got)
	}
	if req.History[0].Text != "Hi!" {
		t.Fatal("the request's own history must stay as shown")
	}
	plain := BotRequest{History: req.History}
	if !reflect.DeepEqual(plain.Observations(), req.History) {
		t.Fatal("no persona: the history as it is")
	}
	if PersonaFor("emora", true, []string{"x"}) != nil || PersonaFor("blender", false, []string{"x"}) != nil {
		t.Fatal("only blender bots, only with include_persona")
	}
}

// recordingBot keeps the requests it was sent.
type recordingBot struct{ reqs []BotRequest }

func (b *recordingBot) Reply(_ context.Context, req BotRequest) (string, error) {
	b.reqs = append(b.reqs, req)
	return "hello", nil
}

func TestChatGivesThePersonaToBlenderBotsOnly(t *testing.T) {
	cond := Condition{Key: "blender_90M|emora", Models: []string{"blender_90M", "emora"}, Count: 1}
	chat := NewChatWithPersona(cond, 4, true, []string{"i like cats.", "i am a nurse."})
	bot := &recordingBot{}
	if _, err := chat.Reply(context.Background(), bot); err != nil {
		t.Fatal(err)
	}
	chat.Send("tell me more")
	chat.Reply(context.Background(), bot)
	chat.End()
	chat.Next()
	chat.Reply(context.Background(), bot)
	want := []string{"your persona: i like cats.", "your persona: i am a nurse."}
	if !reflect.DeepEqual(bot.reqs[0].Persona, want) || !reflect.DeepEqual(bot.reqs[1].Persona, want) {
		t.Fatalf("blender bot's persona %q", bot.reqs[0].Persona)
	}
	if bot.reqs[2].Persona != nil || chat.Conversations[1].Persona != nil {
		t.Fatal("emora observes no persona")
	}
	if chat.Conversations[0].Messages[0].Text != FakeStart {
		t.Fatal("the participant's conversation shows only Hi!")
	}
	// a saved session resumes with its persona
	b, _ := json.Marshal(chat)
	var back Chat
	if err := json.Unmarshal(b, &back); err != nil || !reflect.DeepEqual(back.Persona, chat.Persona) || !back.IncludePersona ||
		!reflect.DeepEqual(back.Conversations[0].Persona, want) {
		t.Fatalf("resumed %+v %v", back, err)
	}
}

func TestExecBotObservesThePersonaFirst(t *testing.T) {
	b := helperBot(t, "observe", 60)
	req := BotRequest{Model: "blender", Persona: PersonaFor("blender", true, []string{"i like cats."}),
		History: []BotMessage{{Role: "user", Text: "Hi!"}}}
	got, err := b.Reply(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	if got != "your persona: i like cats.\nHi!|your persona: i like cats." {
		t.Fatalf("the program observed %q", got)
	}
	got, _ = b.Reply(context.Background(), BotRequest{Model: "x", History: []BotMessage{{Role: "user", Text: "Hi!"}}})
	if got != "Hi!|" {
		t.Fatalf("without persona %q", got)
	}
}

func TestHTTPBotObservesThePersonaFirst(t *testing.T) {
	var got struct {
		Messages []struct{ Role, Content string } `json:"messages"`
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		json.Unmarshal(body, &got)
		fmt.Fprint(w, `{"choices": [{"message": {"content": "hi"}}]}`)
	}))
	defer srv.Close()
	b, err := NewBot("blender", BotSpec{Kind: BotHTTP, URL: srv.URL, SystemPrompt: "Be nice."})
	if err != nil {
		t.Fatal(err)
	}
	chat := NewChatWithPersona(Condition{Key: "blender", Models: []string{"blender"}}, 6, true, []string{"i like cats."})
	if _, err := chat.Reply(context.Background(), b); err != nil {
		t.Fatal(err)
	}
	if len(got.Messages) != 2 || got.Messages[0].Content != "Be nice." ||
		got.Messages[1].Role != "user" || got.Messages[1].Content != "your persona: i like cats.\nHi!" {
		t.Fatalf("messages %+v", got.Messages)
	}
}

func TestChoosePersonaAndParsePersonas(t *testing.T) {
	s := DefaultSettings()
	s.Personas = [][]string{{"a."}, {}, {"b.", "c."}}
	if ChoosePersona(s, newTestRand()) != nil {
		t.Fatal("include_persona off: none")
	}
	s.IncludePersona = true
	seen := map[string]bool{}
	rng := newTestRand()
	for range 40 {
		seen[strings.Join(ChoosePersona(s, rng), " ")] = true
	}
	if !reflect.DeepEqual(seen, map[string]bool{"a.": true, "b. c.": true}) {
		t.Fatalf("drawn %v (empty sets are skipped)", seen)
	}
	want := [][]string{{"i like cats.", "i am a nurse."}, {"i ski."}}
	for name, in := range map[string]string{
		"text":       "your persona: i like cats.\ni am a nurse.\n\n\n  i ski.  \n",
		"json":       `[["i like cats.", "i am a nurse."], ["i ski."]]`,
		"json lines": "[\"i like cats.\", \"your persona: i am a nurse.\"]\n[\"i ski.\"]\n",
		"crlf":       "i like cats.\r\ni am a nurse.\r\n\r\ni ski.",
	} {
		got, err := ParsePersonas([]byte(in))
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("%s: %q %v", name, got, err)
		}
	}
	if _, err := ParsePersonas([]byte("[\"a\"]\n{\"b\": 1}")); err == nil {
		t.Error("a line that is not a list of sentences")
	}
	if got, _ := ParsePersonas([]byte(FormatPersonas(want))); !reflect.DeepEqual(got, want) {
		t.Errorf("round trip %q", got)
	}
}

func TestFinalChatDataPersonasAsTheOriginal(t *testing.T) {
	p, _ := importExample(t, "collect")
	chat := NewChatWithPersona(Condition{Key: "botA|botB", Models: []string{"botA", "botB"}, Count: 2}, 4, true, []string{"i like cats."})
	chat.Reply(context.Background(), EchoBot{})
	chat.End()
	raw, err := FinalChatData(p, AttemptResult{Participant: "w", Chat: chat}, nil)
	if err != nil {
		t.Fatal(err)
	}
	var out map[string]json.RawMessage
	json.Unmarshal(raw, &out)
	if string(out["personas"]) != `["i like cats."]` {
		t.Fatalf("personas %s: the session's sentences, drawn whichever bots observed them", out["personas"])
	}
	chat = NewChat(Condition{Key: "botA", Models: []string{"botA"}, Count: 1}, 4)
	raw, _ = FinalChatData(p, AttemptResult{Participant: "w", Chat: chat}, nil)
	json.Unmarshal(raw, &out)
	if string(out["personas"]) != "null" {
		t.Fatalf("no persona: %s", out["personas"])
	}
}

func TestImportReportsWhereThePersonaGoes(t *testing.T) {
	dir := copyExample(t)
	editFile(t, dir, "hydra_configs/conf/collect.yaml", "include_persona: false", "include_persona: true")
	editFile(t, dir, "hydra_configs/conf/collect.yaml", `"botA|botB:2"`, `"botA|blender_3B:2"`)
	editFile(t, dir, "task_config/model_opts.yaml", "botB: >", "blender_3B: >")
	_, rep, err := ImportOriginal(dir, ImportOptions{Config: "collect"})
	if err != nil {
		t.Fatal(err)
	}
	if !hasItem(rep, Warning, "hydra_configs/conf/collect.yaml", "blended_skill_talk") {
		t.Errorf("no persona sets: warned\n%s", rep)
	}
	personas := filepath.Join(t.TempDir(), "personas.txt")
	os.WriteFile(personas, []byte("i like cats.\ni am a nurse.\n\ni ski.\n"), 0o644)
	p, rep, err := ImportOriginal(dir, ImportOptions{Config: "collect", Personas: personas})
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Settings.Personas) != 2 || !hasItem(rep, Understood, "hydra_configs/conf/collect.yaml", "blender_3B observe it") ||
		!hasItem(rep, Understood, personas, "2 persona sets") {
		t.Errorf("personas %q\n%s", p.Settings.Personas, rep)
	}
	// the project file keeps them
	data, err := MarshalProject(p)
	if err != nil {
		t.Fatal(err)
	}
	q, err := UnmarshalProject(data, "p.toml")
	if err != nil || !reflect.DeepEqual(q.Settings.Personas, p.Settings.Personas) {
		t.Fatalf("round trip %v %v", q, err)
	}
}
