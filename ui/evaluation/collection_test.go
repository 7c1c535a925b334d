package evaluation

import (
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"

	ev "github.com/agentdesk/agentdesk/engine/evaluation"
	"github.com/agentdesk/agentdesk/ui/uitest"
)

// A dialogue-collection project made in the app, not imported: two echo bots in paired
// sessions with quality and engaging ratings after each conversation and their comparison
// after the second; a participant chats and rates through it.
func TestEvalCollectionProjectCreatedInTheApp(t *testing.T) {
	w, win, st := evalTestWS(t)
	win.Resize(uitest.Laptop)
	w.showCollectionForm()
	uitest.DialogFits(t, "New dialogue-collection project", win)
	f := w.collectionForm
	if !f.create.Disabled() {
		t.Fatal("Create is on without a name")
	}
	f.name.SetText("chat")
	f.perSession.SetSelected(f.twoBots)
	f.sessions.SetText("2")
	if !strings.Contains(f.defaultConds.Text, "botA|botB:2") {
		t.Fatalf("default conditions %q", f.defaultConds.Text)
	}
	f.dims[4].SetChecked(true) // engaging, with quality checked already
	f.numTurns.SetText("1")
	test.Tap(f.create)
	if w.open != nil || !strings.Contains(f.status.Text, "message cap") || win.Canvas().Overlays().Top() == nil {
		t.Fatalf("a bad cap was accepted or closed the form: %q", f.status.Text)
	}
	f.numTurns.SetText("4")
	f.addBot("botC", ev.BotSpec{Kind: ev.BotExec})
	f.refresh()
	if f.lastErr == nil || !strings.Contains(f.lastErr.Error(), "needs a command") {
		t.Fatalf("an exec bot without a command: %v", f.lastErr)
	}
	f.bots[2].kind.SetSelected(string(ev.BotEcho))
	f.conditions.SetText("botA|botB:2")
	test.Tap(f.create)
	if w.open == nil || w.open.info.Name != "chat" || w.open.info.Units != 2 {
		t.Fatalf("project not created: %+v (%q)", w.open, f.status.Text)
	}
	p, err := st.EvalProject(w.ctx(), w.open.info.ID)
	if err != nil {
		t.Fatal(err)
	}
	if s := p.Settings; !s.CollectDialogue || s.NumBots != 2 || s.NumTurns != 4 || s.ConversationsNeeded != "botA|botB:2" ||
		len(s.OfflineAnnotations) != 2 || len(s.OfflineAnnotations[1]) != 4 || len(p.Bots) != 3 {
		t.Fatalf("stored %+v, bots %v", s, p.Bots)
	}

	// a participant chats with both bots and rates each conversation
	s := w.session
	s.signIn("chatter")
	rated := map[string]bool{}
	for k := 0; k < 2; k++ {
		if s.chat == nil || !s.chat.onChat {
			t.Fatalf("conversation %d not on show: %s", k, uitest.Texts(s.root))
		}
		for s.core.Chat().CanSend() {
			s.chat.entry.SetText("hello there")
			uitest.TapButton(t, s.root, "Send")
		}
		uitest.TapButton(t, s.root, "END")
		for guard := 0; guard < 10 && s.page != nil && (s.chat == nil || !s.chat.onChat); guard++ {
			rated[s.page.typ.Name] = true
			answerPage(t, s, false)
			s.key(fyne.KeyReturn)
		}
	}
	if !strings.Contains(uitest.Texts(s.root), "submitted") {
		t.Fatalf("unit not submitted: %s", uitest.Texts(s.root))
	}
	for _, n := range []string{"quality_likert", "engaging_likert", "quality_comparative", "engaging_comparative"} {
		if !rated[n] {
			t.Errorf("no %s page (rated %v)", n, rated)
		}
	}
}
