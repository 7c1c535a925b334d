//go:build unix

package ui

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"fyne.io/fyne/v2/test"

	ev "github.com/agentdesk/agentdesk/engine/evaluation"
	"github.com/agentdesk/agentdesk/store"
	"github.com/agentdesk/agentdesk/ui/uitest"
)

// An exec bot's program stops when the participant leaves the workspace mid-chat, and when
// the window closes; coming back resumes the conversation with a fresh program.
func TestEvalExecBotsStopWhenTheWorkspaceIsLeft(t *testing.T) {
	test.NewTempApp(t)
	st, err := store.Open(filepath.Join(t.TempDir(), "eval.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	sh, _ := newTestShell(t, Deps{Store: st, StorePath: st.Path()})
	sh.Show(ScreenEvaluation)
	w := sh.evaluation
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
	if c := w.session.chat; c == nil || len(c.chat.Current().Messages) != 2 {
		t.Fatalf("no opening reply: %s", uitest.Texts(w.session.root))
	}
	waitFor("the bot's program is not running", func() bool { return len(running()) == 1 })
	sh.Show(ScreenHome)
	waitFor("the bot's program outlived the workspace", func() bool { return len(running()) == 0 })

	sh.Show(ScreenEvaluation)
	w = sh.evaluation
	w.openProject(w.projects[0].ID)
	w.session.signIn("chatter")
	if c := w.session.chat; c == nil || !c.onChat || len(c.chat.Current().Messages) != 2 {
		t.Fatalf("the conversation did not resume: %s", uitest.Texts(w.session.root))
	}
	w.session.chat.entry.SetText("still there?")
	uitest.TapButton(t, w.session.root, "Send")
	waitFor("no fresh program after the resume", func() bool { return len(running()) == 1 })
	sh.Close()
	waitFor("the bot's program outlived the window", func() bool { return len(running()) == 0 })
}
