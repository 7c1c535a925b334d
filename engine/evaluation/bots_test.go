package evaluation

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// The test binary doubles as an exec bot when EVAL_BOT_HELPER names a behaviour.
func TestMain(m *testing.M) {
	if mode := os.Getenv("EVAL_BOT_HELPER"); mode != "" {
		runHelperBot(mode)
		return
	}
	os.Exit(m.Run())
}

func runHelperBot(mode string) {
	in := bufio.NewScanner(os.Stdin)
	n := 0
	for in.Scan() {
		n++
		var req BotRequest
		if err := json.Unmarshal(in.Bytes(), &req); err != nil {
			fmt.Println(`{"error": "bad request"}`)
			continue
		}
		switch mode {
		case "slow":
			time.Sleep(time.Minute)
		case "crash":
			fmt.Fprintln(os.Stderr, "model weights not found")
			os.Exit(3)
		case "crashonce":
			marker := os.Getenv("EVAL_BOT_MARKER")
			if _, err := os.Stat(marker); err != nil {
				os.WriteFile(marker, nil, 0o644)
				os.Exit(4)
			}
		case "garbage":
			fmt.Println("this is not json")
			continue
		case "refuse":
			fmt.Println(`{"error": "out of memory"}`)
			continue
		case "observe": // says what it observed: the first message and the persona field
			out, _ := json.Marshal(map[string]string{"text": req.History[0].Text + "|" + strings.Join(req.Persona, ";")})
			fmt.Println(string(out))
			continue
		}
		last := req.History[len(req.History)-1]
		out, _ := json.Marshal(map[string]string{"text": fmt.Sprintf("reply %d to %s (%d messages, model %s)", n, last.Text, len(req.History), req.Model)})
		fmt.Println(string(out))
	}
}

func helperBot(t *testing.T, mode string, timeout int) Bot {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("EVAL_BOT_HELPER", mode)
	b, err := NewBot("helper", BotSpec{Kind: BotExec, Command: []string{exe}, TimeoutSeconds: timeout})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { CloseBot(b) })
	return b
}

func botErrorKind(err error) BotErrorKind {
	var be *BotError
	if errors.As(err, &be) {
		return be.Kind
	}
	return ""
}

func TestExecBotProtocol(t *testing.T) {
	b := helperBot(t, "echo", 60)
	chat := NewChat(Condition{Key: "helper", Models: []string{"helper"}, Count: 1}, 4)
	if chat.CanSend() || !chat.NeedsReply() {
		t.Fatal("the bot speaks first")
	}
	if _, err := chat.Reply(context.Background(), b); err != nil {
		t.Fatal(err)
	}
	if err := chat.Send("how are you"); err != nil {
		t.Fatal(err)
	}
	got, err := chat.Reply(context.Background(), b)
	if err != nil {
		t.Fatal(err)
	}
	// the process stays up: this is its second request, with the whole history
	if got != "Reply 2 to how are you (3 messages, model helper)" {
		t.Fatalf("reply %q", got)
	}
	// four messages: the cap is reached, only END remains
	if chat.CanSend() || !chat.CanEnd() || chat.Send("more") == nil {
		t.Fatal("message cap not enforced")
	}
	if more, err := chat.End(); err != nil || more || !chat.Done() {
		t.Fatalf("end: %v %v", more, err)
	}
}

func TestExecBotFailuresAreTypedAndRetryable(t *testing.T) {
	req := BotRequest{Model: "m", History: []BotMessage{{Role: "user", Text: "Hi!"}}}
	for mode, want := range map[string]BotErrorKind{"slow": BotTimeout, "crash": BotUnavailable, "garbage": BotBadReply, "refuse": BotBadReply} {
		t.Run(mode, func(t *testing.T) {
			timeout := 60 // starting the helper can take seconds on a loaded machine
			if mode == "slow" {
				timeout = 1
			}
			b := helperBot(t, mode, timeout)
			start := time.Now()
			_, err := b.Reply(context.Background(), req)
			if botErrorKind(err) != want {
				t.Fatalf("err %v (%T), want kind %s", err, err, want)
			}
			if time.Since(start) > 50*time.Second {
				t.Fatal("took too long")
			}
			if mode == "crash" && !strings.Contains(err.Error(), "model weights not found") {
				t.Errorf("standard error not in %q", err)
			}
		})
	}
	// a cancelled call returns at once
	b := helperBot(t, "slow", 30)
	ctx, cancel := context.WithCancel(context.Background())
	go func() { time.Sleep(100 * time.Millisecond); cancel() }()
	if _, err := b.Reply(ctx, req); botErrorKind(err) != BotCanceled {
		t.Fatalf("cancel: %v", err)
	}
	// a program that died is started again on the next request
	t.Setenv("EVAL_BOT_MARKER", filepath.Join(t.TempDir(), "crashed"))
	once := helperBot(t, "crashonce", 60)
	if _, err := once.Reply(context.Background(), req); botErrorKind(err) != BotUnavailable {
		t.Fatalf("first request: %v", err)
	}
	if got, err := once.Reply(context.Background(), req); err != nil || !strings.HasPrefix(got, "reply 1 to Hi!") {
		t.Fatalf("after a restart: %q %v", got, err)
	}
	eb := once.(*execBot)
	proc := eb.cmd
	CloseBot(once)
	if eb.cmd != nil || proc.ProcessState == nil {
		t.Fatal("Close left the program running")
	}
	// the conversation is kept and the bot can be retried
	chat := NewChat(Condition{Key: "x", Models: []string{"x"}}, 6)
	if _, err := chat.Reply(context.Background(), helperBot(t, "crash", 5)); err == nil {
		t.Fatal("no error")
	}
	if len(chat.Current().Messages) != 1 || !chat.NeedsReply() {
		t.Fatal("a failed reply changed the conversation")
	}
	if _, err := chat.Reply(context.Background(), EchoBot{}); err != nil {
		t.Fatal(err)
	}
}

func TestHTTPBot(t *testing.T) {
	var got map[string]any
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer sekrit" {
			http.Error(w, "no key", http.StatusUnauthorized)
			return
		}
		json.NewDecoder(r.Body).Decode(&got)
		if strings.Contains(fmt.Sprint(got["messages"]), "slow") {
			select { // until the bot gives up
			case <-r.Context().Done():
			case <-time.After(20 * time.Second):
			}
			return
		}
		fmt.Fprint(w, `{"choices": [{"message": {"role": "assistant", "content": "hello there . i am fine"}}]}`)
	}))
	defer srv.Close()
	t.Setenv("EVAL_TEST_KEY", "sekrit")
	b, err := NewBot("gpt", BotSpec{Kind: BotHTTP, URL: srv.URL, Model: "tiny", SystemPrompt: "Be nice.", Temperature: 0.5, TimeoutSeconds: 3, APIKeyEnv: "EVAL_TEST_KEY"})
	if err != nil {
		t.Fatal(err)
	}
	chat := NewChat(Condition{Key: "gpt", Models: []string{"gpt"}}, 6)
	reply, err := chat.Reply(context.Background(), b)
	if err != nil {
		t.Fatal(err)
	}
	if reply != "Hello there. I am fine" {
		t.Errorf("normalised reply %q", reply)
	}
	msgs := got["messages"].([]any)
	if got["model"] != "tiny" || got["temperature"] != 0.5 || len(msgs) != 2 ||
		msgs[0].(map[string]any)["role"] != "system" || msgs[1].(map[string]any)["content"] != "Hi!" {
		t.Errorf("request %v", got)
	}
	chat.Send("be slow")
	if _, err := chat.Reply(context.Background(), b); botErrorKind(err) != BotTimeout {
		t.Fatalf("timeout: %v", err)
	}
	t.Setenv("EVAL_TEST_KEY", "wrong")
	if _, err := chat.Reply(context.Background(), b); botErrorKind(err) != BotUnavailable || !strings.Contains(err.Error(), "401") {
		t.Fatalf("auth failure: %v", err)
	}
}

func TestNewBotRefusesParlAI(t *testing.T) {
	if _, err := NewBot("botA", BotSpec{Kind: BotParlAI, Options: "--model-file zoo:x"}); err == nil {
		t.Fatal("a ParlAI model cannot run")
	}
	if _, err := NewBot("x", BotSpec{Kind: "carrier-pigeon"}); err == nil {
		t.Fatal("unknown kind")
	}
}

func TestNormaliseReply(t *testing.T) {
	for in, want := range map[string]string{
		"hello , how are you ? i'm fine .": "Hello, how are you? I'm fine.",
		"_potentially_unsafe__ok then":     "Ok then",
		"Already Fine!":                    "Already Fine!",
	} {
		if got := NormaliseReply(in); got != want {
			t.Errorf("%q → %q, want %q", in, got, want)
		}
	}
}

func TestTwoBotSessionAndOfflinePages(t *testing.T) {
	p, _ := importExample(t, "collect")
	conds, err := ParseConditions(p.Settings.ConversationsNeeded)
	if err != nil {
		t.Fatal(err)
	}
	rng := newTestRand()
	cond, err := ChooseCondition(conds, map[string]int{}, map[string]int{}, rng)
	if err != nil || len(cond.Models) != 2 {
		t.Fatalf("%v %v", cond, err)
	}
	if _, err := ChooseCondition(conds, map[string]int{"botA|botB": 2}, nil, rng); !errors.Is(err, ErrNoBots) {
		t.Fatalf("all done: %v", err)
	}
	chat := NewChat(cond, p.Settings.NumTurns)
	for k := 0; k < 2; k++ {
		chat.Reply(context.Background(), EchoBot{})
		for chat.CanSend() {
			chat.Send("hello")
			chat.Reply(context.Background(), EchoBot{})
		}
		if n := len(chat.Current().Messages); n != 6 {
			t.Fatalf("conversation %d has %d messages, want the cap 6", k, n)
		}
		more, _ := chat.End()
		if more != (k == 0) {
			t.Fatal("more")
		}
		if more {
			chat.Next()
		}
	}
	if !chat.Done() || chat.Conversations[0].Model == chat.Conversations[1].Model {
		t.Fatal("both bots chatted")
	}
}

func TestParseBots(t *testing.T) {
	bots, err := ParseBots([]byte(`
[bots.demo]
kind = "echo"

[bots.local]
kind = "exec"
command = ["python3", "bot.py"]
timeout_seconds = 30

[bots.api]
kind = "http"
url = "http://localhost:8000/v1/chat/completions"
model = "m"
temperature = 0.7
`), "bots.toml")
	if err != nil {
		t.Fatal(err)
	}
	if bots["local"].Command[1] != "bot.py" || bots["api"].Temperature != 0.7 || bots["demo"].Kind != BotEcho {
		t.Fatalf("%+v", bots)
	}
	for in, want := range map[string]string{
		"[bots.x]\nkind = \"exec\"\n":                    `bot "x": an exec bot needs a command`,
		"[bots.x]\nkind = \"http\"\nurl = \"ftp://a\"\n": "http(s) url",
		"[bots.x]\nkind = \"echo\"\ncolour = 1\n":        "bots.toml:3:1: unknown key bots.x.colour",
	} {
		if _, err := ParseBots([]byte(in), "bots.toml"); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %v, want %q", in, err, want)
		}
	}
}
