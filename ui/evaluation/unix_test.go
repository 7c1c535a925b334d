//go:build unix

package evaluation

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	ev "github.com/agentdesk/agentdesk/engine/evaluation"
	"github.com/agentdesk/agentdesk/ui/uitest"
)

// An exec bot's program stops when the workspace closes mid-chat (the window closes, the store
// changes); the next workspace resumes the conversation with a fresh program. Leaving the
// workspace for another screen keeps it, and the chat, as it is.
func TestEvalExecBotsStopWhenTheWorkspaceIsLeft(t *testing.T) {
	w, _, st := evalTestWS(t)
	h := w.host.(*uitest.Host)
	imp := readExample(t, w, "collect")
	pids := filepath.Join(t.TempDir(), "pids")
	bot := ev.BotSpec{Kind: ev.BotExec, Command: []string{"sh", "-c",
		`echo $$ >> "$0"; while read -r line; do echo '{"text": "a reply"}'; done`, pids}}
	p := imp.project
	p.Bots["botA"], p.Bots["botB"] = bot, bot
	w.create("exec-stop", "imported", evalExample, p, "", nil)
	running := func() []int {
		b, _ := os.ReadFile(pids)
		var alive []int
		for _, f := range strings.Fields(string(b)) {
			var pid int
			fmt.Sscan(f, &pid)
			if syscall.Kill(pid, 0) == nil {
				alive = append(alive, pid)
			}
		}
		return alive
	}
	waitFor := func(what string, ok func() bool) {
		t.Helper()
		for i := 0; i < 200 && !ok(); i++ {
			time.Sleep(10 * time.Millisecond)
		}
		if !ok() {
			t.Fatalf("%s (running: %v)", what, running())
		}
	}
	w.session.signIn("chatter")
	if c := w.session.chat; c == nil || len(w.session.core.Chat().Current().Messages) != 2 {
		t.Fatalf("no opening reply: %s", uitest.Texts(w.session.root))
	}
	waitFor("the bot's program is not running", func() bool { return len(running()) == 1 })
	w.Close()
	waitFor("the bot's program outlived the workspace", func() bool { return len(running()) == 0 })

	w = New(h, st)
	h.Put(w)
	w.openProject(w.projects[0].ID)
	w.session.signIn("chatter")
	if c := w.session.chat; c == nil || !c.onChat || len(w.session.core.Chat().Current().Messages) != 2 {
		t.Fatalf("the conversation did not resume: %s", uitest.Texts(w.session.root))
	}
	w.session.chat.entry.SetText("still there?")
	uitest.TapButton(t, w.session.root, "Send")
	waitFor("no fresh program after the resume", func() bool { return len(running()) == 1 })
	w.Close()
	waitFor("the bot's program outlived the window", func() bool { return len(running()) == 0 })
}
