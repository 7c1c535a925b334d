package evaluation

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	ev "github.com/agentdesk/agentdesk/engine/evaluation"
	"github.com/agentdesk/agentdesk/engine/evaluation/session"
	"github.com/agentdesk/agentdesk/store"
	"github.com/agentdesk/agentdesk/ui/uitest"
)

const evalExample = "../../testdata/conformance/evaluation/example-project"

// evalTestWS opens the Evaluation workspace on a fresh store in a test window.
func evalTestWS(t *testing.T) (*Workspace, fyne.Window, *store.Store) {
	t.Helper()
	test.NewTempApp(t)
	st := uitest.OpenStore(t)
	h := uitest.NewHost(t, 1400, 900)
	w := New(h, st)
	h.Put(w)
	return w, h.Win, st
}

// importExample imports the example project with its static-annotation configuration.
func importExample(t *testing.T, w *Workspace) {
	t.Helper()
	imp := readExample(t, w, "flags")
	if imp == nil || imp.project == nil {
		t.Fatal("import gave nothing")
	}
	rep := reportText(imp.report)
	if !strings.Contains(rep, "Understood (") || !strings.Contains(rep, "Ignored (") {
		t.Fatalf("import report does not say what was understood and ignored:\n%s", rep)
	}
	if imp.defaultName() != "demo" {
		t.Fatalf("default name %q", imp.defaultName())
	}
	w.create(imp.defaultName(), "imported", evalExample, imp.project, rep, func(id int64, err error) {
		if err != nil {
			t.Fatal(err)
		}
	})
	if w.open == nil || w.open.info.Units != 4 {
		t.Fatalf("open project %+v", w.open)
	}
}

// tick ticks (or unticks) the checkbox labelled text under turn pos of the page.
func tick(t *testing.T, s *evalSession, pos int, text string) {
	t.Helper()
	box := s.page.boxes[pos]
	if box == nil {
		t.Fatalf("turn %d has no widgets", pos)
	}
	c := uitest.Find(fyne.CanvasObject(box), func(c *widget.Check) bool { return c.Text == text })
	if c == nil {
		t.Fatalf("turn %d has no checkbox %q: %s", pos, text, uitest.Texts(box))
	}
	test.Tap(c)
}

// doTraining goes through the example's training; wrongFirst leaves the rude reply of the
// first dialogue unticked (one mistake, then corrected), failThird ticks nothing on the third.
func doTraining(t *testing.T, s *evalSession, wrongFirst, failThird bool) {
	t.Helper()
	uitest.TapButton(t, s.root, "Begin Flags")
	if s.train == nil || s.train.Step != ev.StepDialogue {
		t.Fatalf("not on a training dialogue: %s", uitest.Texts(s.root))
	}
	if !wrongFirst {
		tick(t, s, 3, "The reply is rude.")
	}
	uitest.TapButton(t, s.root, "Next")
	if wrongFirst {
		if s.train.Step != ev.StepMistakes || !strings.Contains(uitest.Texts(s.root), "You made 1 mistake on") {
			t.Fatalf("no mistakes page: %s", uitest.Texts(s.root))
		}
		uitest.TapButton(t, s.root, "Show the first mistake")
		if pos, _, _, _ := s.train.FeedbackTurn(); pos != 3 || s.page.feedback[3] != true || s.page.editable(1) {
			t.Fatalf("feedback on turn %d, editable elsewhere %v", pos, s.page.editable(1))
		}
		if !strings.Contains(uitest.Texts(s.root), "Mocking the partner is rude.") {
			t.Fatalf("explanation missing: %s", uitest.Texts(s.root))
		}
		uitest.TapButton(t, s.root, "Next") // not corrected yet
		if s.train.Step != ev.StepFeedback || !strings.Contains(s.pageText.Text, "Not corrected") {
			t.Fatalf("an uncorrected answer was accepted: %v %q", s.train.Step, s.pageText.Text)
		}
		tick(t, s, 3, "The reply is rude.")
		uitest.TapButton(t, s.root, "Next")
	}
	if s.train.Step != ev.StepInterlude {
		t.Fatalf("after dialogue 1: %v", s.train.Step)
	}
	uitest.TapButton(t, s.root, "Next conversation")
	tick(t, s, 5, "The reply is off-topic.")
	uitest.TapButton(t, s.root, "Next")
	if !strings.Contains(uitest.Texts(s.root), "Test Round!") {
		t.Fatalf("no test round page: %s", uitest.Texts(s.root))
	}
	uitest.TapButton(t, s.root, "Next conversation")
	if !failThird {
		tick(t, s, 1, "The reply is rude.")
		tick(t, s, 1, "The reply is off-topic.")
		tick(t, s, 7, "The reply is off-topic.")
	}
	uitest.TapButton(t, s.root, "Next")
}

// answerPage answers whatever the page asks: the first option of every radio question, a 4
// (or 2) on every 1-5 question through the keyboard, and the first comparison option.
func answerPage(t *testing.T, s *evalSession, low bool) {
	t.Helper()
	p := s.page
	switch {
	case p.typ.Display.IsFlow():
		for _, pos := range p.positions {
			p.focusTurn(pos) // opens a button_flow block
			for {
				r := uitest.Find(fyne.CanvasObject(p.boxes[pos]), func(r *widget.RadioGroup) bool { return r.Selected == "" })
				if r == nil {
					break
				}
				choice := r.Options[0]
				if low {
					choice = r.Options[len(r.Options)-1]
				}
				r.SetSelected(choice)
			}
		}
	case p.typ.Display == ev.LikertTurn || p.typ.Display == ev.LikertDialogue:
		key := fyne.Key4
		if low {
			key = fyne.Key2
		}
		p.setFocus(0)
		for range p.slots {
			s.keys.TypedKey(&fyne.KeyEvent{Name: key})
		}
	case p.typ.Display == ev.Comparative:
		s.keys.TypedKey(&fyne.KeyEvent{Name: fyne.Key1})
		if p.ans.Comparative[p.typ.Question] != p.typ.Comparisons[0] {
			t.Fatalf("key 1 on a comparison stored %v", p.ans.Comparative)
		}
	case p.typ.Display == ev.Multiselect:
		// by keyboard: move to turn 5, key 1 ticks the first label
		p.focusTurn(5)
		s.keys.TypedKey(&fyne.KeyEvent{Name: fyne.Key1})
		if got := p.ans.TurnAt(5).List("labels_labels"); len(got) != 1 || got[0] != "repeat" {
			t.Fatalf("key 1 on turn 5 stored %v", got)
		}
	}
}

// finishUnit answers every page of the open unit and submits it.
func finishUnit(t *testing.T, s *evalSession, low bool) {
	t.Helper()
	for guard := 0; guard < 20; guard++ {
		if s.page == nil {
			t.Fatalf("no page on show: %s", uitest.Texts(s.root))
		}
		answerPage(t, s, low)
		last := s.next.Text == "Submit"
		if s.next.Disabled() {
			t.Fatalf("page %d/%d (%s) is answered but Next is disabled", s.i, s.a, s.page.typ.Name)
		}
		s.key(fyne.KeyReturn) // Enter is Next
		if last {
			if !strings.Contains(uitest.Texts(s.root), "submitted") {
				t.Fatalf("after submit: %s", uitest.Texts(s.root))
			}
			return
		}
	}
	t.Fatal("unit never ended")
}

// The example project end to end: import, sign in, training with a corrected mistake, every
// unit annotated by two participants where it needs two, a crash-and-resume in the middle, a
// failed screening, the results in the dashboard, and the three exports.
func TestEvalExampleProjectEndToEnd(t *testing.T) {
	w, win, st := evalTestWS(t)
	importExample(t, w)
	ctx := context.Background()
	s := w.session
	s.signIn("ann-1")
	if s.unit.Kind != ev.UnitScreening {
		t.Fatalf("first unit %q, want the screening", s.unit.Kind)
	}
	doTraining(t, s, true, false)
	if !strings.Contains(uitest.Texts(s.root), "Congratulations") {
		t.Fatalf("training not passed: %s", uitest.Texts(s.root))
	}
	uitest.TapButton(t, s.root, "Start the real work")

	// Unit 1: the first bundle (flags and labels in a shuffled order).
	if s.unit.Position != 0 || s.unit.Kind != ev.UnitTask {
		t.Fatalf("unit at bundle %d (%s), want 0", s.unit.Position, s.unit.Kind)
	}
	if win.Canvas().Focused() != s.keys {
		t.Fatalf("the session does not have the keyboard: %T", win.Canvas().Focused())
	}
	finishUnit(t, s, false)
	uitest.TapButton(t, s.root, "Continue")

	// Unit 2: bundle 1 (button flow, turn and dialogue Likert). Answer part of it, then
	// "crash": a new session resumes on the same page and turn with the answers kept.
	if s.unit.Position != 1 {
		t.Fatalf("second unit at bundle %d", s.unit.Position)
	}
	for s.page.typ.Display != ev.LikertTurn {
		answerPage(t, s, false)
		s.key(fyne.KeyReturn)
	}
	s.page.setFocus(0)
	for k := 0; k < 3; k++ {
		s.keys.TypedKey(&fyne.KeyEvent{Name: fyne.Key5})
	}
	page, turn := [2]int{s.i, s.a}, s.lastTurn
	if got := s.page.ans.TurnAt(3).String("Clear"); got != "5" {
		t.Fatalf("key 5 stored %q on turn 3", got)
	}
	s2 := newEvalSession(w, w.open)
	s2.signIn("ann-1")
	if [2]int{s2.i, s2.a} != page || s2.lastTurn != turn || s2.page.focusedTurn() != turn {
		t.Fatalf("resumed at page %v turn %d (focus %d), want %v turn %d", [2]int{s2.i, s2.a}, s2.lastTurn, s2.page.focusedTurn(), page, turn)
	}
	if got := s2.page.ans.TurnAt(3).String("Clear"); got != "5" {
		t.Fatalf("answer lost in the crash: %q", got)
	}
	log, _ := st.EvalAnswers(ctx, s2.unit.ID)
	if len(log) == 0 || log[len(log)-1].Turn < 0 || log[0].Question == "" {
		t.Fatalf("answer log %+v", log)
	}
	w.session = s2
	win.SetContent(s2.root)
	s = s2
	finishUnit(t, s, false)
	uitest.TapButton(t, s.root, "Continue")

	// Unit 3: the comparative pair. Then nothing is left for ann-1.
	if s.unit.Position != 2 || s.page.typ.Display != ev.Comparative {
		t.Fatalf("third unit at bundle %d", s.unit.Position)
	}
	finishUnit(t, s, false)
	uitest.TapButton(t, s.root, "Continue")
	if !strings.Contains(uitest.Texts(s.root), "no more work") {
		t.Fatalf("after all units: %s", uitest.Texts(s.root))
	}

	// ann-3 fails the graded dialogue and is blocked.
	uitest.TapButton(t, s.root, "Sign out")
	s.signIn("ann-3")
	doTraining(t, s, false, true)
	if !strings.Contains(uitest.Texts(s.root), "Better luck next time") {
		t.Fatalf("failed training: %s", uitest.Texts(s.root))
	}
	uitest.TapButton(t, s.root, "Sign out")
	s.signIn("ann-3")
	if !strings.Contains(uitest.Texts(s.root), "not eligible") {
		t.Fatalf("a blocked participant got work: %s", uitest.Texts(s.root))
	}

	// ann-2 passes the training at once and gets the second slot of bundle 1.
	uitest.TapButton(t, s.root, "Sign out")
	s.signIn("ann-2")
	doTraining(t, s, false, false)
	uitest.TapButton(t, s.root, "Start the real work")
	if s.unit.Position != 1 || s.unit.Index != 1 {
		t.Fatalf("ann-2 got bundle %d unit %d", s.unit.Position, s.unit.Index)
	}
	finishUnit(t, s, true)

	// The dashboard: every unit done, each participant's progress and screening outcome.
	d := w.dash
	d.reload()
	if !strings.Contains(d.summary.Text, "4 of 4 units done") {
		t.Fatalf("summary %q", d.summary.Text)
	}
	cells := map[string]string{}
	for r := 1; r <= len(d.participants); r++ {
		cells[d.peopleCell(widget.TableCellID{Row: r, Col: 0})] = d.peopleCell(widget.TableCellID{Row: r, Col: 1}) + "/" + d.peopleCell(widget.TableCellID{Row: r, Col: 3})
	}
	if cells["ann-1"] != "3/passed" || cells["ann-2"] != "1/passed" || cells["ann-3"] != "0/failed (blocked)" {
		t.Fatalf("participants %v", cells)
	}
	d.computeStats()
	if d.stats == nil {
		t.Fatalf("no statistics: %s", d.statsStatus.Text)
	}
	var clear *ev.LabelStats
	for i, l := range d.stats.Labels {
		if l.Label == "clarity_turn: Clear" {
			clear = &d.stats.Labels[i]
		}
	}
	if clear == nil || clear.Items != 4 || clear.Kind != "scale" || len(clear.Rates) != 1 || clear.Rates[0].Bot != "botB" {
		t.Fatalf("clarity_turn: Clear: %+v", clear)
	}
	if d.agreement.Length != nil {
		if r, _ := d.agreement.Length(); r != len(d.stats.Labels)+1 {
			t.Fatalf("agreement table has %d rows for %d labels", r, len(d.stats.Labels))
		}
	}
	if len(d.chart.Objects) == 0 {
		t.Fatal("no rates chart")
	}
	// Choosing another level of measurement recomputes alpha at that level.
	ordinalAlpha := clear.Alpha
	if !strings.Contains(d.statsStatus.Text, "ordinal α") {
		t.Fatalf("status after the default computation: %q", d.statsStatus.Text)
	}
	d.level.SetSelected("nominal")
	if !strings.Contains(d.statsStatus.Text, "nominal α") {
		t.Fatalf("status after choosing nominal: %q", d.statsStatus.Text)
	}
	d.level.SetSelected("ordinal")
	for _, l := range d.stats.Labels {
		if l.Label == "clarity_turn: Clear" && !(l.Alpha == ordinalAlpha || math.IsNaN(l.Alpha) && math.IsNaN(ordinalAlpha)) {
			t.Fatalf("clarity_turn: Clear ordinal alpha %v, then %v", ordinalAlpha, l.Alpha)
		}
	}

	// The exports.
	out := t.TempDir()
	for _, f := range []string{"csv", "jsonl"} {
		path := filepath.Join(out, "demo."+f)
		var files []string
		d.exportTo(f, path, true, func(fs []string, err error) {
			if err != nil {
				t.Fatal(err)
			}
			files = fs
		})
		b, err := os.ReadFile(path)
		if err != nil || len(files) != 1 {
			t.Fatal(err)
		}
		if strings.Contains(string(b), "ann-1") || !strings.Contains(string(b), "worker-01") {
			t.Fatalf("%s export not pseudonymised", f)
		}
		if f == "csv" {
			rows, err := csv.NewReader(strings.NewReader(string(b))).ReadAll()
			if err != nil || len(rows) < 20 {
				t.Fatalf("csv: %d rows, %v", len(rows), err)
			}
		}
	}
	var files []string
	d.exportTo("original", filepath.Join(out, "original"), false, func(fs []string, err error) {
		if err != nil {
			t.Fatal(err)
		}
		files = fs
	})
	states := 0
	for _, f := range files {
		if filepath.Base(f) == "state.json" {
			states++
			b, _ := os.ReadFile(f)
			if _, err := ev.ReadStateFile(b, f); err != nil {
				t.Fatalf("%s does not read back: %v", f, err)
			}
		}
	}
	if states != 7 { // 4 units and 3 screenings
		t.Fatalf("%d state files: %v", states, files)
	}

	// Those files come back into a fresh import of the same project from the Results tab:
	// every unit done, the same participants and outcomes, the same statistics.
	importExampleAs(t, w, "demo-again")
	d2 := w.dash
	var n, skipped int
	d2.importResults(filepath.Join(out, "original"), func(got, skip int, err error) {
		if err != nil {
			t.Fatal(err)
		}
		n, skipped = got, skip
	})
	if n != 7 || skipped != 0 || !strings.Contains(d2.summary.Text, "4 of 4 units done") {
		t.Fatalf("imported %d, skipped %d: %s", n, skipped, d2.summary.Text)
	}
	if len(d2.stats.Labels) != len(d.stats.Labels) {
		t.Fatalf("%d labels after the round trip, %d before", len(d2.stats.Labels), len(d.stats.Labels))
	}
	for i := range d.stats.Labels {
		if a, b := d.stats.Labels[i], d2.stats.Labels[i]; a.Label != b.Label || a.Items != b.Items || a.Cell(2) != b.Cell(2) {
			t.Fatalf("label %d differs: %+v / %+v", i, a, b)
		}
	}
}

// readExample reads one configuration of the example project, as the import dialog does
// before anything is stored.
func readExample(t *testing.T, w *Workspace, config string) *evalImport {
	t.Helper()
	var imp *evalImport
	w.importFolder(evalExample, config, func(i *evalImport, err error) {
		if err != nil {
			t.Fatal(err)
		}
		imp = i
	})
	if imp == nil || imp.project == nil {
		t.Fatalf("reading the example's %s configuration gave nothing", config)
	}
	return imp
}

// importExampleAs imports the example's static project under another name.
func importExampleAs(t *testing.T, w *Workspace, name string) {
	t.Helper()
	w.importFolder(evalExample, "flags", func(i *evalImport, err error) {
		if err != nil {
			t.Fatal(err)
		}
		w.create(name, "imported", evalExample, i.project, "", func(_ int64, err error) {
			if err != nil {
				t.Fatal(err)
			}
		})
	})
}

// A project from the built-in catalogue over the example's dialogues: behaviour labels and
// turn ratings, two annotators per dialogue; the agreement table names ABC-Eval labels.
func TestEvalCatalogueProject(t *testing.T) {
	w, _, _ := evalTestWS(t)
	data := filepath.Join(evalExample, "task_config", "task_data", "demo.jsonl")
	var id int64
	w.createFromCatalogue(ev.CatalogueChoice{Name: "cat", DataFile: data, Behaviours: true, Annotators: 2}, func(got int64, err error) {
		if err != nil {
			t.Fatal(err)
		}
		id = got
	})
	if id == 0 || w.open == nil || w.open.info.Units != 10 { // 5 dialogues x 2
		t.Fatalf("project %d, %+v", id, w.open)
	}
	s := w.session
	for _, who := range []string{"a", "b"} {
		s.signIn(who)
		if s.page == nil {
			t.Fatalf("%s: no page: %s", who, uitest.Texts(s.root))
		}
		// tick the first box of every turn of every page of the first unit
		for guard := 0; guard < 40 && s.page != nil; guard++ {
			for _, pos := range s.page.positions {
				s.page.focusTurn(pos)
				if c := uitest.Find(fyne.CanvasObject(s.page.boxes[pos]), func(c *widget.Check) bool { return !c.Checked }); c != nil && who == "a" {
					test.Tap(c)
				}
				for {
					r := uitest.Find(fyne.CanvasObject(s.page.boxes[pos]), func(r *widget.RadioGroup) bool { return r.Selected == "" })
					if r == nil {
						break
					}
					r.SetSelected(r.Options[0])
				}
			}
			if s.next.Disabled() {
				t.Fatalf("%s: page %s incomplete", who, s.page.typ.Name)
			}
			s.nextPage()
		}
		uitest.TapButton(t, s.root, "Sign out")
	}
	// A unit left open is given back from the Results tab and goes to the next participant.
	s.signIn("c")
	held := s.unit.ID
	w.dash.reload()
	var c ev.ParticipantSummary
	for _, p := range w.dash.participants {
		if p.Name == "c" {
			c = p
		}
	}
	if err := w.dash.returnUnit(c); err != nil {
		t.Fatal(err)
	}
	uitest.TapButton(t, s.root, "Sign out")
	s.signIn("d")
	if s.unit.ID != held {
		t.Fatalf("the returned unit %d did not go to the next participant (got %d)", held, s.unit.ID)
	}
	uitest.TapButton(t, s.root, "Sign out")
	w.dash.computeStats()
	names := ""
	for _, l := range w.dash.stats.Labels {
		names += l.Label + "\n"
	}
	if !strings.Contains(names, "(!Soc)") || strings.Contains(names, "antisocial_q") {
		t.Fatalf("catalogue labels not used:\n%s", names)
	}
}

// Collection: the first bot fails with a clear message and Retry keeps the conversation; the
// echo bot chats up to the message cap; the conversation is rated and stored.
func TestEvalCollectionChat(t *testing.T) {
	w, _, st := evalTestWS(t)
	imp := readExample(t, w, "collect")
	p := imp.project
	p.Bots["botA"] = ev.BotSpec{Kind: ev.BotEcho}
	p.Bots["botB"] = ev.BotSpec{Kind: ev.BotEcho}
	// The example's offline lists hold names the original drops (neither "likert" nor
	// "comparative" in them); rate with renamed copies so that pages are shown.
	likert, compare := *p.Type("clarity_dialogue"), *p.Type("clarity_compare")
	likert.Name, compare.Name = "clarity_likert", "clarity_comparative"
	p.Types = append(p.Types, &likert, &compare)
	p.Settings.OfflineAnnotations = [][]string{{"clarity_likert"}, {"clarity_likert", "clarity_comparative"}}
	w.create("collect", "imported", evalExample, p, "", nil)
	ctx := context.Background()
	s := w.session
	s.signIn("chatter")
	c := s.chat
	if c == nil || !c.onChat {
		t.Fatalf("no chat: %s", uitest.Texts(s.root))
	}
	first := s.core.Chat().Current().Model
	if n := len(s.core.Chat().Current().Messages); n != 2 {
		t.Fatalf("opening: %d messages", n)
	}
	// Break the bot of the running conversation: its reply fails, is shown, and Retry works
	// once it is back.
	s.core.SetBot(first, failingBot{})
	c.entry.SetText("How are you?")
	uitest.TapButton(t, s.root, "Send")
	if !strings.Contains(uitest.Texts(s.root), "could not answer") || len(s.core.Chat().Current().Messages) != 3 {
		t.Fatalf("bot failure not shown or conversation lost: %s", uitest.Texts(s.root))
	}
	s.core.SetBot(first, nil)
	p.Bots[first] = ev.BotSpec{Kind: ev.BotEcho}
	uitest.TapButton(t, s.root, "Retry")
	if n := len(s.core.Chat().Current().Messages); n != 4 || !strings.Contains(s.core.Chat().Current().Messages[3].Text, "How are you") {
		t.Fatalf("after retry: %+v", s.core.Chat().Current().Messages)
	}
	for s.core.Chat().CanSend() {
		c.entry.SetText("more")
		uitest.TapButton(t, s.root, "Send")
	}
	if !c.entry.Disabled() || c.entry.PlaceHolder != ev.CapMessage {
		t.Fatal("the text box is open past the message cap")
	}
	uitest.TapButton(t, s.root, "END")
	// Rating of conversation 1: clarity_dialogue.
	if s.page == nil || s.page.typ.Name != "clarity_likert" {
		t.Fatalf("no rating page: %s", uitest.Texts(s.root))
	}
	finishChatPages(t, s)
	if s.chat == nil || !s.chat.onChat || s.core.Chat().Index() != 1 {
		t.Fatalf("second conversation not started")
	}
	uitest.TapButton(t, s.root, "END")
	finishChatPages(t, s)
	if !strings.Contains(uitest.Texts(s.root), "submitted") {
		t.Fatalf("unit not submitted: %s", uitest.Texts(s.root))
	}
	convs, _ := st.EvalConversations(ctx, s.unit.ID)
	if len(convs) != 2 || len(convs[0].Turns) != 6 || len(convs[0].Errors) != 1 || convs[1].EndedAt.IsZero() {
		t.Fatalf("stored conversations %+v", convs)
	}
	_, results, err := st.EvalResults(ctx, w.open.info.ID)
	if err != nil {
		t.Fatal(err)
	}
	var rows int
	for _, a := range results {
		rows += len(ev.AnswerRows(a.Attempts, nil))
	}
	if rows < 4 { // two Likert answers per conversation, one comparison
		t.Fatalf("%d answer rows", rows)
	}
	// The Project tab's bot editor stores a new definition; a bot that cannot start is refused.
	if err := w.saveBot("botB", ev.BotSpec{Kind: ev.BotHTTP}); err == nil {
		t.Fatal("an http bot without a URL was accepted")
	}
	if err := w.saveBot("botB", ev.BotSpec{Kind: ev.BotExec, Command: []string{"cat"}, TimeoutSeconds: 5}); err != nil {
		t.Fatal(err)
	}
	again, _ := st.EvalProject(ctx, w.open.info.ID)
	if b := again.Bots["botB"]; b.Kind != ev.BotExec || len(b.Command) != 1 || b.TimeoutSeconds != 5 {
		t.Fatalf("stored bot %+v", b)
	}
}

func finishChatPages(t *testing.T, s *evalSession) {
	t.Helper()
	for guard := 0; guard < 10 && s.page != nil && (s.chat == nil || !s.chat.onChat); guard++ {
		answerPage(t, s, false)
		s.key(fyne.KeyReturn)
	}
}

type failingBot struct{}

func (failingBot) Reply(ctx context.Context, req ev.BotRequest) (string, error) {
	return "", &ev.BotError{Bot: "broken", Kind: ev.BotTimeout, Err: context.DeadlineExceeded}
}

// Gold units: with golds on, a participant who passed training first gets the hidden gold
// dialogue, graded on submit: a wrong gold counts as a strike and, with no strikes allowed,
// blocks; a right one lets real units follow.
func TestEvalGoldUnits(t *testing.T) {
	for _, right := range []bool{true, false} {
		w, _, st := evalTestWS(t)
		imp := readExample(t, w, "flags")
		imp.project.Settings.UseGolds = true
		w.create("gold", "imported", evalExample, imp.project, "", nil)
		s := w.session
		s.signIn("ann")
		doTraining(t, s, false, false)
		uitest.TapButton(t, s.root, "Start the real work")
		if s.unit.Kind != ev.UnitGold || s.page == nil {
			t.Fatalf("after training: unit %q", s.unit.Kind)
		}
		// The gold dialogue's truth: only turn 3 is rude.
		if right {
			tick(t, s, 3, "The reply is rude.")
		} else {
			tick(t, s, 1, "The reply is off-topic.")
			tick(t, s, 5, "The reply is rude.")
		}
		s.key(fyne.KeyReturn)
		if !strings.Contains(uitest.Texts(s.root), "submitted") {
			t.Fatalf("gold not submitted: %s", uitest.Texts(s.root))
		}
		u, _ := st.EvalUnit(context.Background(), s.unit.ID)
		ps, _ := st.EvalParticipants(context.Background(), w.open.info.ID)
		q := ps[0].Qualifications
		w.dash.reload()
		score := w.dash.peopleCell(widget.TableCellID{Row: 1, Col: 4})
		if want := map[bool]string{true: "1 right, 0 wrong", false: "0 right, 1 wrong"}[right]; score != want {
			t.Fatalf("the Results tab scores the gold %q, want %q", score, want)
		}
		if right {
			if !strings.Contains(string(u.Result), `"gold_passed":true`) || q["flags_gold-correct-golds"] != 1 {
				t.Fatalf("right gold: result %s, qualifications %v", u.Result, q)
			}
			uitest.TapButton(t, s.root, "Continue")
			if s.unit.Kind != ev.UnitTask {
				t.Fatalf("after a right gold: %q", s.unit.Kind)
			}
		} else {
			if !strings.Contains(string(u.Result), `"gold_mistakes":3`) || q["flags_gold-wrong-golds"] != 1 || q["flags_block"] != 1 {
				t.Fatalf("wrong gold: result %s, qualifications %v", u.Result, q)
			}
			uitest.TapButton(t, s.root, "Continue")
			if !strings.Contains(uitest.Texts(s.root), "not eligible") {
				t.Fatalf("after a wrong gold: %s", uitest.Texts(s.root))
			}
		}
	}
}

// Online annotation: a multiselect under every bot message; Send and END wait for an answer
// under the latest one, which is stored with the conversation.
func TestEvalCollectionOnlineAnnotation(t *testing.T) {
	w, _, st := evalTestWS(t)
	imp := readExample(t, w, "collect")
	p := imp.project
	p.Bots["botA"] = ev.BotSpec{Kind: ev.BotEcho}
	p.Bots["botB"] = ev.BotSpec{Kind: ev.BotEcho}
	p.Settings.OnlineAnnotation = "labels"
	w.create("online", "imported", evalExample, p, "", nil)
	s := w.session
	s.signIn("chatter")
	c := s.chat
	if !c.send.Disabled() || !c.end.Disabled() || !strings.Contains(c.status.Text, "Answer the question") {
		t.Fatalf("Send open before the bot's message is annotated (%q)", c.status.Text)
	}
	tick(t, s, 1, "Repeats itself")
	if c.send.Disabled() || c.end.Disabled() {
		t.Fatal("Send still closed after the answer")
	}
	c.entry.SetText("Tell me more.")
	uitest.TapButton(t, s.root, "Send")
	if !c.send.Disabled() {
		t.Fatal("the new bot message needs its own answer")
	}
	tick(t, s, 3, "Contradicts itself")
	u, _ := st.EvalUnit(context.Background(), s.unit.ID)
	var state ev.AnswerState
	if err := json.Unmarshal(u.State, &state); err != nil {
		t.Fatal(err)
	}
	if got := state.Dialogue(0).TurnAt(3).List("labels_labels"); len(got) != 1 || got[0] != "contra" {
		t.Fatalf("stored online answer %v", got)
	}
}

// Collection sessions are handed out by the engine's rules: allowed_concurrent and
// maximum_units_per_worker hold for them as for annotation units, and a session is numbered
// as the engine numbers it.
func TestEvalCollectionAssignmentRules(t *testing.T) {
	w, _, st := evalTestWS(t)
	imp := readExample(t, w, "collect")
	p := imp.project
	p.Settings.AllowedConcurrent = 1
	p.Settings.MaximumUnitsPerWorker = 2
	w.create("collect-rules", "imported", evalExample, p, "", nil)
	ctx := context.Background()
	op := w.open
	who, err := st.EvalSignIn(ctx, op.info.ID, "chatter")
	if err != nil {
		t.Fatal(err)
	}
	first, refusal, err := session.AssignNext(ctx, st, op.sp, who)
	if err != nil || refusal != nil || first.Kind != ev.UnitCollection {
		t.Fatalf("first session: %+v %q %v", first, refusal, err)
	}
	if _, refusal, err := session.AssignNext(ctx, st, op.sp, who); err != nil || refusal == nil || !strings.Contains(refusal.Message, "too many units open") {
		t.Fatalf("a second session while one is open (allowed_concurrent 1): refusal %q, %v", refusal, err)
	}
	if err := st.CompleteEvalUnit(ctx, first.ID, first.State, json.RawMessage(`{}`), nil); err != nil {
		t.Fatal(err)
	}
	second, refusal, err := session.AssignNext(ctx, st, op.sp, who)
	if err != nil || refusal != nil || second.ID == first.ID {
		t.Fatalf("second session: %+v %q %v", second, refusal, err)
	}
	if err := st.CompleteEvalUnit(ctx, second.ID, second.State, json.RawMessage(`{}`), nil); err != nil {
		t.Fatal(err)
	}
	if _, refusal, err := session.AssignNext(ctx, st, op.sp, who); err != nil || refusal == nil || !strings.Contains(refusal.Message, "maximum of 2 units") {
		t.Fatalf("a third session (maximum_units_per_worker 2): refusal %q, %v", refusal, err)
	}
}

// The per-page limit (annotation_duration_in_seconds) as served participants have it (the
// session's rule when it is not a desk session): the page says when it is due; a Next after
// it, or a resume after it, times the attempt out and gives the unit back to the pool;
// Continue starts afresh. (The desk's own rule: TestDeskPageClock.)
func TestEvalPageTimeLimit(t *testing.T) {
	w, _, st := evalTestWS(t)
	imp := readExample(t, w, "flags")
	p := imp.project
	p.Settings.UseScreening = false
	p.Settings.AnnotationDurationSeconds = 60
	w.create("limits", "imported", evalExample, p, "", nil)
	ctx := context.Background()
	s := w.session
	s.core.Desk = false
	var late time.Duration
	s.setNow(func() time.Time { return time.Now().Add(late) })
	s.signIn("slow")
	if s.page == nil || !strings.Contains(s.pageText.Text, "(1 minute per page)") {
		t.Fatalf("the page does not say when it is due: %s", uitest.Texts(s.root))
	}
	answerPage(t, s, false)
	first := s.unit.ID
	late = 30 * time.Second
	s.key(fyne.KeyReturn) // in time
	if s.page == nil || s.unit.ID != first {
		t.Fatalf("a Next in time was refused: %s", uitest.Texts(s.root))
	}
	answerPage(t, s, false)
	late = 100 * time.Second // 70 s after the previous Next
	s.key(fyne.KeyReturn)
	if !strings.Contains(uitest.Texts(s.root), "timed out") || s.page != nil {
		t.Fatalf("a late Next did not time out: %s", uitest.Texts(s.root))
	}
	u, err := st.EvalUnit(ctx, first)
	if err != nil || u.Status != ev.UnitOpen || string(u.State) != "{}" {
		t.Fatalf("the timed-out unit: %+v %v", u, err)
	}
	// Continue gives the participant a fresh attempt (the first fit: the same unit).
	uitest.TapButton(t, s.root, "Continue")
	if s.page == nil || s.unit.ID != first || s.i != 0 || s.a != 0 {
		t.Fatalf("after the timeout: unit %d page %d/%d: %s", s.unit.ID, s.i, s.a, uitest.Texts(s.root))
	}
	// Coming back after the limit: the open unit times out on resume.
	uitest.TapButton(t, s.root, "Sign out")
	late += 10 * time.Minute
	s.signIn("slow")
	if !strings.Contains(uitest.Texts(s.root), "timed out") {
		t.Fatalf("a late resume did not time out: %s", uitest.Texts(s.root))
	}
	if _, open, _ := st.EvalOpenUnit(ctx, s.participant.ID); open {
		t.Fatal("the participant still holds the timed-out unit")
	}
}

// The chat reply limit (max_resp_time): a message sent after it times the session out, its
// bots are stopped and its conversation dropped with the unit.
func TestEvalChatReplyLimit(t *testing.T) {
	w, _, st := evalTestWS(t)
	imp := readExample(t, w, "collect")
	p := imp.project
	p.Bots["botA"] = ev.BotSpec{Kind: ev.BotEcho}
	p.Bots["botB"] = ev.BotSpec{Kind: ev.BotEcho}
	p.Settings.MaxResponseSeconds = 30
	w.create("chat-limit", "imported", evalExample, p, "", nil)
	ctx := context.Background()
	s := w.session
	var late time.Duration
	s.setNow(func() time.Time { return time.Now().Add(late) })
	s.signIn("chatter")
	c := s.chat
	if c == nil || !c.onChat || !strings.Contains(c.status.Text, "30 seconds per message") {
		t.Fatalf("no chat, or it does not say when a message is due: %s", uitest.Texts(s.root))
	}
	unit := s.unit.ID
	c.entry.SetText("in time")
	uitest.TapButton(t, s.root, "Send")
	if n := len(s.core.Chat().Current().Messages); n != 4 {
		t.Fatalf("%d messages after a message in time", n)
	}
	late = time.Minute
	c.entry.SetText("too late")
	uitest.TapButton(t, s.root, "Send")
	if !strings.Contains(uitest.Texts(s.root), "timed out") || s.chat != nil {
		t.Fatalf("a late message did not time out: %s", uitest.Texts(s.root))
	}
	if u, _ := st.EvalUnit(ctx, unit); u.Status != ev.UnitOpen {
		t.Fatalf("the unit is %s", u.Status)
	}
	if cs, _ := st.EvalConversations(ctx, unit); len(cs) != 0 {
		t.Fatalf("the timed-out conversation stayed: %+v", cs)
	}
}

// A flow question's help icon shows that question's own help (speakers substituted), and the
// type's description where the question has none.
func TestEvalQuestionHelp(t *testing.T) {
	test.NewTempApp(t)
	c, err := ev.Catalogue()
	if err != nil {
		t.Fatal(err)
	}
	var rel *ev.AnnotationType
	for _, ty := range c.BehaviourTypes {
		if ty.Name == "relevance" {
			rel = ty
		}
	}
	dp := &ev.Datapoint{DialogueID: "d_botA", Turns: []ev.Turn{{Speaker: "user", Text: "I got a puppy!"}, {Speaker: "system", Text: "Nice."}}}
	p := newEvalPage(nil, dp, rel, ev.NewAnswers(0), false)
	x, y := ev.FlowSpeakers(1)
	got := p.helpLabel(1, rel.Flow[0].Text).Text
	if !strings.Contains(got, "acknowledgement") || strings.Contains(got, "SPEAKER_") || !strings.Contains(got, y) {
		t.Fatalf("help of the first question: %q", got)
	}
	if other := p.helpLabel(1, rel.Flow[1].Text).Text; other == got {
		t.Fatal("two questions show the same help")
	}
	plain := *rel
	plain.Flow = ev.Flow{{Text: "Q?", Answers: []ev.FlowAnswer{{Text: "A"}}}}
	p = newEvalPage(nil, dp, &plain, ev.NewAnswers(0), false)
	if got := p.helpLabel(1, "Q?").Text; got != ev.Substitute(rel.Description, x, y) {
		t.Fatalf("a question without help: %q", got)
	}
}

// The statistics computation can be cancelled (Cancel, or closing the workspace): the screen
// says so and Recompute is offered again.
func TestEvalStatsCancel(t *testing.T) {
	w, _, _ := evalTestWS(t)
	importExample(t, w)
	d := w.dash
	h := w.host.(*uitest.Host)
	h.Run = func(f func()) {
		if !d.cancelBtn.Visible() {
			t.Error("no Cancel button while computing")
		}
		w.Close() // as when the window closes mid-computation
		f()
	}
	d.computeStats()
	if d.stats != nil || !strings.Contains(d.statsStatus.Text, "Cancelled") || d.computeBtn.Disabled() || d.cancelBtn.Visible() {
		t.Fatalf("after cancelling: stats %v, status %q", d.stats, d.statsStatus.Text)
	}
	h.Run = nil
	d.computeStats()
	if d.stats == nil || d.cancelBtn.Visible() {
		t.Fatalf("Recompute after a cancel: %q", d.statsStatus.Text)
	}
}

// The bot editor sets every setting of an http bot: model, system prompt, temperature,
// timeout; bad numbers are refused with a message.
func TestEvalBotFields(t *testing.T) {
	test.NewTempApp(t)
	f := newBotFields(ev.BotSpec{Kind: ev.BotParlAI, Options: "--model-file zoo:x"})
	f.kind.SetSelected(string(ev.BotHTTP))
	test.Type(f.url, "http://localhost:9/v1/chat/completions")
	test.Type(f.model, "small")
	test.Type(f.prompt, "You are a friendly partner.")
	test.Type(f.temp, "0.7")
	test.Type(f.timeout, "20")
	s, err := f.spec()
	if err != nil || s.Kind != ev.BotHTTP || s.Model != "small" || s.SystemPrompt != "You are a friendly partner." ||
		s.Temperature != 0.7 || s.TimeoutSeconds != 20 || s.Options != "--model-file zoo:x" {
		t.Fatalf("spec %+v, %v", s, err)
	}
	if back := newBotFields(s); back.temp.Text != "0.7" || back.prompt.Text != s.SystemPrompt {
		t.Fatalf("the form does not show the stored settings: %q %q", back.temp.Text, back.prompt.Text)
	}
	f.temp.SetText("hot")
	if _, err := f.spec(); err == nil || !strings.Contains(err.Error(), "temperature") {
		t.Fatalf("a bad temperature: %v", err)
	}
}

// The Results tab's long headings wrap instead of setting the window's minimum width (they once
// widened the whole window to about 1560 px).
func TestEvalDashboardFitsTheDefaultWindow(t *testing.T) {
	w, _, _ := evalTestWS(t)
	importExample(t, w)
	if got := w.dash.root.MinSize().Width; got > 1000 {
		t.Fatalf("Results tab needs %.0f px of width; the default window is 1200 px with the navigation", got)
	}
}

// TestEvaluationFitsALaptop: the project list, an open project's tabs, training and unit pages
// and a collection chat fit a 1024x700 screen.
func TestEvaluationFitsALaptop(t *testing.T) {
	w, _, _ := evalTestWS(t)
	uitest.Fits(t, "the project list", w.Content())
	importExample(t, w)
	for i := range w.tabs.Items {
		w.tabs.SelectIndex(i)
		uitest.Fits(t, "project tab "+w.tabs.Items[i].Text, w.Content())
	}
	w.tabs.SelectIndex(0)
	s := w.session
	s.signIn("ada")
	uitest.Fits(t, "a training page", w.Content())
	doTraining(t, s, false, false)
	uitest.Fits(t, "a unit page", w.Content())

	w2, _, _ := evalTestWS(t)
	imp := readExample(t, w2, "collect")
	imp.project.Bots["botA"] = ev.BotSpec{Kind: ev.BotEcho}
	imp.project.Bots["botB"] = ev.BotSpec{Kind: ev.BotEcho}
	w2.create("collect", "imported", evalExample, imp.project, "", nil)
	w2.session.signIn("chatter")
	uitest.Fits(t, "a collection chat", w2.Content())
}

// TestEvaluationDialogsFitAndKeepInput: the configuration question scrolls within the window,
// and the catalogue form keeps Create off until a name and dialogues are given, and stays open
// (with everything given) when the file cannot be read.
func TestEvaluationDialogsFitAndKeepInput(t *testing.T) {
	w, win, _ := evalTestWS(t)
	win.Resize(fyne.NewSize(700, 420))
	w.chooseConfig(evalExample)
	uitest.DialogFits(t, "Which configuration?", win)
	win.Canvas().Overlays().Remove(win.Canvas().Overlays().Top())

	win.Resize(uitest.Laptop)
	w.showCatalogueForm()
	uitest.DialogFits(t, "New project from the ABC-Eval catalogue", win)
	f := w.catalogueForm
	if !f.create.Disabled() {
		t.Fatal("Create is on without dialogues")
	}
	bad := filepath.Join(t.TempDir(), "dialogues.jsonl")
	os.WriteFile(bad, []byte("not json\n"), 0o644)
	f.setData(bad)
	if f.create.Disabled() || f.name.Text != "dialogues" {
		t.Fatalf("after choosing the dialogues: Create off %v, name %q", f.create.Disabled(), f.name.Text)
	}
	test.Tap(f.create)
	if win.Canvas().Overlays().Top() == nil || f.name.Text != "dialogues" {
		t.Fatal("a failed Create closed the form")
	}
}

// The store the app gives the workspace can run model annotators.
var _ annotateStore = (*store.Store)(nil)
