package annotate_test

import (
	"context"
	"errors"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	ev "github.com/agentdesk/agentdesk/engine/evaluation"
	"github.com/agentdesk/agentdesk/engine/evaluation/annotate"
	"github.com/agentdesk/agentdesk/engine/evaluation/annotate/annotatetest"
	"github.com/agentdesk/agentdesk/engine/evaluation/session"
	"github.com/agentdesk/agentdesk/engine/modelclient"
	"github.com/agentdesk/agentdesk/engine/modelclient/fakeserver"
	"github.com/agentdesk/agentdesk/engine/samples"
	"github.com/agentdesk/agentdesk/store"
)

type fixture struct {
	st   *store.Store
	proj *session.Project
	def  *ev.Project
}

func sampleFixture(t *testing.T) fixture {
	t.Helper()
	ctx := context.Background()
	p, err := samples.EvaluationProject()
	if err != nil {
		t.Fatal(err)
	}
	st, err := store.Open(filepath.Join(t.TempDir(), "annotate.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	id, err := st.SaveEvalProject(ctx, p.Name, "created", "", p, "")
	if err != nil {
		t.Fatal(err)
	}
	saved, err := st.EvalProject(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	return fixture{st: st, proj: session.NewProject(id, p.Name, saved), def: saved}
}

func client(t *testing.T, url string) *modelclient.Client {
	t.Helper()
	c, err := modelclient.New(modelclient.Config{BaseURL: url, Model: "fake-1", Concurrency: 4, MaxRetries: 2,
		Backoff: time.Millisecond, MaxBackoff: time.Millisecond, Key: modelclient.KeySource{Env: []string{"AGENTDESK_TEST_NO_KEY"}}})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func participant(t *testing.T, f fixture, name string) ev.ParticipantSummary {
	t.Helper()
	ps, err := f.st.EvalParticipants(context.Background(), f.proj.ID)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range ps {
		if p.Name == name {
			return p
		}
	}
	t.Fatalf("no participant %q", name)
	return ev.ParticipantSummary{}
}

// A model that answers the training as its truth says passes the screening (after feedback on
// the first dialogue, answered wrongly on purpose) and then annotates every unit it is given:
// its answers are stored as a model participant's.
func TestModelPassesScreeningAndAnnotates(t *testing.T) {
	f := sampleFixture(t)
	o := annotatetest.Oracle{Project: f.def, SloppyFirst: true}
	srv := fakeserver.New(fakeserver.Options{Answer: func(r fakeserver.Request) string { return o.Answer(r.Text()) }, Record: true})
	defer srv.Close()
	res, err := annotate.Run(context.Background(), f.st, f.proj, client(t, srv.URL), annotate.Options{Model: "fake-1", URL: srv.URL, Ahead: 3})
	if err != nil {
		t.Fatal(err)
	}
	if res.Screening != "passed" || res.Refusal != ev.RefuseNoMoreWork {
		t.Fatalf("screening %q, refusal %q (%s)", res.Screening, res.Refusal, res.Message)
	}
	if want := len(f.def.Bundles); res.Units != want {
		t.Errorf("%d units submitted, want %d (one per bundle)", res.Units, want)
	}
	feedback := 0
	for _, r := range srv.Requests() {
		if strings.Contains(r.Text(), "# Correction") {
			feedback++
		}
	}
	if feedback == 0 {
		t.Error("no feedback page was asked: the first training dialogue was answered wrongly on purpose")
	}
	who := participant(t, f, "model:fake-1")
	if !who.IsModel() || who.Model != "fake-1" || who.ModelURL != srv.URL || who.Done != len(f.def.Bundles) || who.Screening != "passed" {
		t.Errorf("participant %+v", who)
	}
	// a person cannot sign in as the model
	if _, err := f.st.EvalSignIn(context.Background(), f.proj.ID, "model:fake-1"); !errors.Is(err, store.ErrModelParticipant) {
		t.Errorf("a person signed in as the model: %v", err)
	}
	// nor another model: its answers would be filed under fake-1
	if _, err := f.st.EvalSignInModel(context.Background(), f.proj.ID, "model:fake-1", "fake-2", srv.URL); err == nil ||
		!strings.Contains(err.Error(), "needs its own participant id") {
		t.Errorf("another model signed in as model:fake-1: %v", err)
	}
	if again, err := f.st.EvalSignInModel(context.Background(), f.proj.ID, "model:fake-1", "fake-1", srv.URL); err != nil || again.ID != who.ID {
		t.Errorf("the same model signing in again: %+v, %v", again, err)
	}
}

// A model that answers the training wrongly fails the screening and is blocked like a person:
// the block qualification, no unit given, and a run started again gets no work either.
func TestModelFailsScreeningAndIsBlocked(t *testing.T) {
	f := sampleFixture(t)
	o := annotatetest.Oracle{Project: f.def, Fail: true}
	srv := fakeserver.New(fakeserver.Options{Answer: func(r fakeserver.Request) string { return o.Answer(r.Text()) }})
	defer srv.Close()
	c := client(t, srv.URL)
	res, err := annotate.Run(context.Background(), f.st, f.proj, c, annotate.Options{Model: "fake-1", URL: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	if res.Screening != "failed" || res.Units != 0 || !strings.Contains(res.Message, "Better luck") {
		t.Fatalf("%+v", res)
	}
	who := participant(t, f, "model:fake-1")
	if who.Screening != "failed" || who.Qualifications[f.proj.BlockName()] != 1 || who.Done != 0 {
		t.Errorf("participant %+v", who)
	}
	n := srv.Count()
	res, err = annotate.Run(context.Background(), f.st, f.proj, c, annotate.Options{Model: "fake-1", URL: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	if res.Refusal != ev.RefuseNotEligible || srv.Count() != n {
		t.Errorf("blocked model given work again: %+v, %d requests", res, srv.Count()-n)
	}
}

// A reply that cannot be read is asked again with what was wrong; one that never reads is
// recorded as an error after the bounded asks, nothing is answered for it, and the next run
// continues the same unit.
func TestUnreadableRepliesAreAskedAgainThenRecorded(t *testing.T) {
	f := sampleFixture(t)
	f.proj.Def().Settings.UseScreening = false
	o := annotatetest.Oracle{Project: f.def}
	// The first run's requests (temperature 0) all get a reply without JSON; the second run's
	// (temperature 0.5) one, the first. Requests of the first run the server finishes late
	// cannot take the second run's.
	var junked atomic.Bool
	srv := fakeserver.New(fakeserver.Options{Answer: func(r fakeserver.Request) string {
		if r.Temperature == nil || *r.Temperature != 0.5 || junked.CompareAndSwap(false, true) {
			return "I think the chatbot did fine overall."
		}
		return o.Answer(r.Messages[1].Content[0].Text)
	}, Record: true})
	defer srv.Close()
	c := client(t, srv.URL)
	_, err := annotate.Run(context.Background(), f.st, f.proj, c, annotate.Options{Model: "fake-1", URL: srv.URL, MaxAsks: 3})
	var pe *annotate.PageError
	if !errors.As(err, &pe) || pe.Asks != 3 || srv.Count() < 3 {
		t.Fatalf("err %v, %d requests", err, srv.Count())
	}
	third := 0
	for _, r := range srv.Requests() {
		if len(r.Messages) == 6 && strings.Contains(r.Messages[5].Content[0].Text, "Your reply could not be read: it holds no JSON object") {
			third++
		}
	}
	if third == 0 {
		t.Error("no third ask says what was wrong")
	}
	who := participant(t, f, "model:fake-1")
	errs, err := f.st.EvalModelErrors(context.Background(), who.ID)
	if err != nil || len(errs) != 1 || errs[0].Asks != 3 || !strings.Contains(errs[0].Reply, "did fine") {
		t.Fatalf("recorded errors %+v, %v", errs, err)
	}
	u, ok, err := f.st.EvalOpenUnit(context.Background(), who.ID)
	if err != nil || !ok {
		t.Fatalf("no open unit left for the next run: %v", err)
	}
	if as, err := f.st.EvalAnswers(context.Background(), u.ID); err != nil || len(as) != 0 {
		t.Fatalf("answers stored for an unreadable reply: %+v %v", as, err)
	}
	// one unreadable reply, then good ones: the run finishes, one page asked twice
	c2, err := modelclient.New(modelclient.Config{BaseURL: srv.URL, Model: "fake-1", Temperature: 0.5, Concurrency: 4,
		Key: modelclient.KeySource{Env: []string{"AGENTDESK_TEST_NO_KEY"}}})
	if err != nil {
		t.Fatal(err)
	}
	res, err := annotate.Run(context.Background(), f.st, f.proj, c2, annotate.Options{Model: "fake-1", URL: srv.URL, Ahead: 2})
	if err != nil {
		t.Fatal(err)
	}
	if res.Reasks != 1 || res.Units != len(f.def.Bundles) || res.Refusal != ev.RefuseNoMoreWork {
		t.Errorf("%+v", res)
	}
}

// --units stops after that many units; running again continues with the rest.
func TestUnitsLimitAndResume(t *testing.T) {
	f := sampleFixture(t)
	f.proj.Def().Settings.UseScreening = false
	o := annotatetest.Oracle{Project: f.def}
	srv := fakeserver.New(fakeserver.Options{Answer: func(r fakeserver.Request) string { return o.Answer(r.Text()) }})
	defer srv.Close()
	c := client(t, srv.URL)
	res, err := annotate.Run(context.Background(), f.st, f.proj, c, annotate.Options{Model: "fake-1", URL: srv.URL, Units: 2})
	if err != nil || res.Units != 2 || res.Refusal != "" {
		t.Fatalf("%+v %v", res, err)
	}
	n := srv.Count()
	res, err = annotate.Run(context.Background(), f.st, f.proj, c, annotate.Options{Model: "fake-1", URL: srv.URL})
	if err != nil || res.Units != len(f.def.Bundles)-2 || res.Refusal != ev.RefuseNoMoreWork {
		t.Fatalf("%+v %v", res, err)
	}
	if pages := 5*(len(f.def.Bundles)-1) + 1; srv.Count() != pages {
		t.Errorf("%d requests in all, want one per page: %d", srv.Count(), pages)
	}
	_ = n
}

// slowCompleter is a model whose first answer takes longer than a page's time limit (the
// session's clock jumps while it thinks).
type slowCompleter struct {
	c    annotate.Completer
	now  *atomic.Int64
	once atomic.Bool
}

func (s *slowCompleter) Complete(ctx context.Context, req modelclient.Request) (modelclient.Response, error) {
	if s.once.CompareAndSwap(false, true) {
		s.now.Add(int64(10 * time.Minute))
	}
	return s.c.Complete(ctx, req)
}

// A page whose time runs out while the model thinks times out at the desk like a person's
// (the unit kept, marked timed out); the run restores it and goes on with the answer in hand.
func TestPageTimesOutWhileTheModelThinks(t *testing.T) {
	f := sampleFixture(t)
	f.proj.Def().Settings.UseScreening = false
	o := annotatetest.Oracle{Project: f.def}
	srv := fakeserver.New(fakeserver.Options{Answer: func(r fakeserver.Request) string { return o.Answer(r.Text()) }})
	defer srv.Close()
	var now atomic.Int64
	now.Store(time.Date(2026, 12, 7, 9, 0, 0, 0, time.UTC).UnixNano())
	clock := func() time.Time { return time.Unix(0, now.Load()).UTC() }
	c := &slowCompleter{c: client(t, srv.URL), now: &now}
	res, err := annotate.Run(context.Background(), f.st, f.proj, c, annotate.Options{Model: "fake-1", URL: srv.URL, Now: clock, Units: 1})
	if err != nil {
		t.Fatal(err)
	}
	if res.Units != 1 || res.Requests != 5 {
		t.Fatalf("%+v", res)
	}
	units, err := f.st.EvalUnits(context.Background(), f.proj.ID)
	if err != nil {
		t.Fatal(err)
	}
	timedOut := 0
	for _, u := range units {
		if u.Status == ev.UnitCompleted && strings.Contains(string(u.State), `"`+ev.TimedOutKey+`":true`) {
			timedOut++
		}
	}
	if timedOut != 1 {
		t.Errorf("%d submitted units marked timed out, want 1", timedOut)
	}
}

// Every kind of page a project can show (per-turn labels, question flows with boxes, Likert
// scales per turn and per dialogue, choices rated per turn and per dialogue, comparisons) is
// asked and answered through the session, one request per page, and the answers land in the
// units as a person's clicks would.
func TestEveryKindOfPage(t *testing.T) {
	ctx := context.Background()
	var dialogues []ev.Datapoint
	for i, texts := range [][]string{{"I lost my keys.", "Where did you see them last?", "At the bakery.", "Ask the baker.", "Thanks!", "Good luck."},
		{"I lost my keys.", "Keys are metal.", "Okay?", "Metal is shiny.", "Bye.", "Bye."}} {
		d := ev.Datapoint{DialogueID: "d" + strconv.Itoa(i)}
		for k, s := range texts {
			sp := "user"
			if k%2 == 1 {
				sp = "bot"
			}
			d.Turns = append(d.Turns, ev.Turn{Speaker: sp, Text: s})
		}
		dialogues = append(dialogues, d)
	}
	p, err := ev.CatalogueProject("Every page", dialogues, ev.CatalogueOptions{Behaviours: true, DialogueLikert: true,
		TurnLikert: true, Pairs: [][2]int{{0, 1}}})
	if err != nil {
		t.Fatal(err)
	}
	choices := []ev.Choice{{Value: "warm", Label: "Warm"}, {Value: "clear", Label: "Clear"}}
	p.Types = append(p.Types,
		&ev.AnnotationType{Name: "tone", Title: "tone", Display: ev.ForeachSelect, Indices: ev.Odd, Question: "Rate the reply:",
			Choices: choices, Require: &ev.Requirement{Level: "turn"}, Description: "How the reply sounds."},
		&ev.AnnotationType{Name: "tone_dialogue", Title: "tone_dialogue", Display: ev.ForeachSelectDialogue, Indices: ev.NoIndices,
			Question: "Rate the chat:", Choices: choices, Require: &ev.Requirement{Level: "dialogue"}, Description: "How the chat sounds."})
	kinds := map[ev.Display]bool{}
	for b := range p.Bundles {
		for d := range p.Bundles[b].Datapoints {
			dp := &p.Bundles[b].Datapoints[d]
			if dp.Turns2 == nil {
				dp.AnnotationTasks = append(dp.AnnotationTasks, "tone", "tone_dialogue")
			}
			for _, name := range dp.AnnotationTasks {
				kinds[p.Type(name).Display] = true
			}
		}
	}
	if err := p.Validate(); err != nil {
		t.Fatal(err)
	}
	st, err := store.Open(filepath.Join(t.TempDir(), "every.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	id, err := st.SaveEvalProject(ctx, p.Name, "created", "", p, "")
	if err != nil {
		t.Fatal(err)
	}
	def, err := st.EvalProject(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	o := annotatetest.Oracle{Project: def}
	srv := fakeserver.New(fakeserver.Options{Answer: func(r fakeserver.Request) string { return o.Answer(r.Text()) }})
	defer srv.Close()
	res, err := annotate.Run(ctx, st, session.NewProject(id, def.Name, def), client(t, srv.URL), annotate.Options{Model: "fake-1", URL: srv.URL, Ahead: 4})
	if err != nil {
		t.Fatal(err)
	}
	pages := 0
	for _, b := range def.Bundles {
		for _, dp := range b.Datapoints {
			pages += len(dp.AnnotationTasks)
		}
	}
	if res.Refusal != ev.RefuseNoMoreWork || res.Units != len(def.Bundles) || res.Requests != pages || res.Reasks != 0 || len(kinds) != len(ev.Displays) {
		t.Fatalf("%+v: %d pages of %d kinds (%v)", res, pages, len(kinds), kinds)
	}
	units, err := st.EvalUnits(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	done := 0
	for _, u := range units {
		if u.Kind != ev.UnitTask || strings.Contains(string(u.Bundle), "|") {
			continue
		}
		done++
		// the ratings per turn and per dialogue are in the unit's answers, as clicks leave them
		for _, want := range []string{`"warm":"`, `"Warm":"`} {
			if !strings.Contains(string(u.State), want) {
				t.Errorf("unit %d has no %s in %s", u.ID, want, u.State)
			}
		}
	}
	if done != len(dialogues) {
		t.Errorf("%d units of single dialogues, want %d", done, len(dialogues))
	}
	t.Logf("%d pages of %d kinds: %v", pages, len(kinds), kinds)
}
