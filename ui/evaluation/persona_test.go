package evaluation

import (
	"context"
	"strings"
	"sync"
	"testing"

	"fyne.io/fyne/v2/test"

	ev "github.com/agentdesk/agentdesk/engine/evaluation"
	"github.com/agentdesk/agentdesk/ui/uitest"
)

// personaRecorder is a bot that keeps what it was sent.
type personaRecorder struct {
	mu   sync.Mutex
	reqs map[string][]ev.BotRequest
}

func (r *personaRecorder) bot(model string) ev.Bot {
	return ev.BotFunc(func(ctx context.Context, req ev.BotRequest) (string, error) {
		r.mu.Lock()
		defer r.mu.Unlock()
		r.reqs[model] = append(r.reqs[model], req)
		return "hello from " + model, nil
	})
}

func (r *personaRecorder) first(model string) ev.BotRequest {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.reqs[model]) == 0 {
		return ev.BotRequest{}
	}
	return r.reqs[model][0]
}

// A collection session with include_persona: the session draws one of the project's persona
// sets, the blender bot observes it before "Hi!" and the other bot does not; the participant
// never sees it. The Project tab edits the sets.
func TestEvalCollectionPersonaReachesBlenderBots(t *testing.T) {
	w, _, _ := evalTestWS(t)
	p := readExample(t, w, "collect").project
	p.Bots = map[string]ev.BotSpec{"blender_a": {Kind: ev.BotEcho}, "plain_b": {Kind: ev.BotEcho}}
	p.Settings.ConversationsNeeded = "blender_a|plain_b:2"
	p.Settings.OfflineAnnotations = nil
	p.Settings.IncludePersona = true
	p.Settings.Personas = [][]string{{"i like cats.", "i work as a nurse."}}
	w.create("persona", "created", "", p, "", nil)
	rec := &personaRecorder{reqs: map[string][]ev.BotRequest{}}
	w.session.core.Bots = func(model string, _ ev.BotSpec) (ev.Bot, error) { return rec.bot(model), nil }
	s := w.session
	s.signIn("chatter")
	for guard := 0; guard < 4 && s.chat != nil && s.chat.onChat; guard++ {
		if strings.Contains(uitest.Texts(s.root), "persona") {
			t.Fatalf("the participant sees the persona: %s", uitest.Texts(s.root))
		}
		uitest.TapButton(t, s.root, "END")
	}
	want := []string{"your persona: i like cats.", "your persona: i work as a nurse."}
	if got := rec.first("blender_a").Persona; strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("blender bot observed %q", got)
	}
	if obs := rec.first("blender_a").Observations(); obs[0].Text != strings.Join(want, "\n")+"\nHi!" {
		t.Fatalf("first observation %q", obs[0].Text)
	}
	if got := rec.first("plain_b"); got.Model != "plain_b" || got.Persona != nil {
		t.Fatalf("the other bot: %+v", got)
	}

	// the Project tab's editor stores new sets (and turning include_persona off)
	w.projectTab()
	f := w.personaForm
	if f == nil || !f.include.Checked || !strings.Contains(f.text.Text, "i work as a nurse.") {
		t.Fatalf("persona editor %+v", f)
	}
	f.text.SetText("i ski.\n\ni sail.\ni cook.")
	test.Tap(f.save)
	if got := w.open.p.Settings.Personas; len(got) != 2 || got[1][1] != "i cook." {
		t.Fatalf("saved %q (%s)", got, f.status.Text)
	}
	stored, err := w.store.EvalProject(context.Background(), w.open.info.ID)
	if err != nil || len(stored.Settings.Personas) != 2 || !stored.Settings.IncludePersona {
		t.Fatalf("stored %v %v", stored.Settings.Personas, err)
	}
}
