package evaluation

import (
	"encoding/json"
	"fmt"
	"strings"

	ev "github.com/agentdesk/agentdesk/engine/evaluation"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
)

// A unit's pages: the datapoints of the unit on show, page by page, its progress, every answer
// saved as it is given, and the unit submitted (gold units graded) at its end.

// shownUnit is a unit's datapoints and types in the order shown.
type shownUnit struct {
	datapoints []ev.Datapoint
	types      [][]*ev.AnnotationType
}

// unitDatapoints reads a unit's bundle (a gold unit's from the project's gold data) and
// applies its recorded order.
func unitDatapoints(p *ev.Project, u ev.UnitRecord) (shownUnit, error) {
	order, err := ev.ReadUnitOrder(u.Shown)
	if err != nil {
		return shownUnit{}, fmt.Errorf("unit %d: shown order: %w", u.ID, err)
	}
	var dps []ev.Datapoint
	if order.Gold != nil {
		if *order.Gold < 0 || *order.Gold >= len(p.Gold) {
			return shownUnit{}, fmt.Errorf("unit %d: gold bundle %d is not in the project", u.ID, *order.Gold)
		}
		dps = p.Gold[*order.Gold].Datapoints
	} else {
		bs, err := ev.ReadBundles(strings.NewReader(string(u.Bundle)), fmt.Sprintf("unit %d", u.ID))
		if err != nil || len(bs) != 1 {
			return shownUnit{}, fmt.Errorf("unit %d: its bundle cannot be read: %v", u.ID, err)
		}
		dps = bs[0].Datapoints
	}
	if order.Datapoints == nil {
		plain := ev.NewUnitOrder(ev.Bundle{Datapoints: dps}, 0, false)
		order.Datapoints, order.Tasks = plain.Datapoints, plain.Tasks
	}
	var out shownUnit
	for k, i := range order.Datapoints {
		if i < 0 || i >= len(dps) || k >= len(order.Tasks) {
			return shownUnit{}, fmt.Errorf("unit %d: shown order names datapoint %d of %d", u.ID, i, len(dps))
		}
		dp := dps[i]
		dp.AnnotationTasks = order.Tasks[k]
		var ts []*ev.AnnotationType
		for _, name := range dp.AnnotationTasks {
			t := p.Type(name)
			if t == nil {
				return shownUnit{}, fmt.Errorf("unit %d: dialogue %s names the unknown annotation type %q", u.ID, dp.DialogueID, name)
			}
			ts = append(ts, t)
		}
		out.datapoints = append(out.datapoints, dp)
		out.types = append(out.types, ts)
	}
	return out, nil
}

func (s *evalSession) lastPage() bool {
	return s.i == len(s.types)-1 && s.a == len(s.types[s.i])-1
}

// showPage builds the page (dialogue i, type a): the type's description on the left, the
// dialogue with its widgets on the right, progress and Next/Submit at the bottom.
func (s *evalSession) showPage() {
	dp := &s.dps[s.i]
	t := s.types[s.i][s.a]
	s.shownAt = s.now()
	s.state.PageShown(s.i, s.a, s.train != nil, s.shownAt)
	s.state.LastIndex, s.state.LastAnnot = s.i, s.a
	s.page = newEvalPage(s.ws.host.Window(), dp, t, s.state.answers(s.i), s.op.p.Settings.CollectDialogue)
	s.page.onAnswer = s.answered
	s.page.onFocus = s.focused
	s.page.refocus = s.focusKeys
	s.next = widget.NewButtonWithIcon("Next", theme.NavigateNextIcon(), s.nextPage)
	if s.lastPage() && s.train == nil && (s.chat == nil || s.chat.chat.Done()) {
		s.next.SetText("Submit")
		s.next.SetIcon(theme.ConfirmIcon())
	}
	s.next.Importance = widget.HighImportance
	s.pageText = widget.NewLabel("")
	s.pageText.Wrapping = fyne.TextWrapWord
	s.progress = widget.NewProgressBar()
	s.progressText = widget.NewLabel("")
	if s.train != nil && s.train.Step == ev.StepFeedback {
		s.applyFeedback()
	}
	content := s.page.content()
	bottom := container.NewVBox(widget.NewSeparator(),
		container.NewBorder(nil, nil, nil, container.NewCenter(s.next), container.NewVBox(s.pageText, container.NewBorder(nil, nil, s.progressText, nil, s.progress))))
	right := container.NewBorder(nil, bottom, nil, nil, content)
	split := container.NewHSplit(s.describe(t), right)
	split.Offset = 0.3
	s.set(split)
	if !s.arm(s.pageDeadline(), pageLimit(s.op.p.Settings)) {
		return
	}
	s.updateProgress()
	if s.lastTurn >= 0 {
		s.page.focusTurn(s.lastTurn)
	} else {
		s.page.setFocus(0)
	}
	if s.train != nil {
		s.pageText.SetText(s.train.Message())
	}
	s.saveProgress()
	s.focusKeys()
	// Once the page is laid out, bring the focused turn into view.
	page := s.page
	fyne.Do(func() {
		if s.page == page {
			page.highlightFocus()
		}
	})
}

// describe is the left pane: the type's name and the project's description of it.
func (s *evalSession) describe(t *ev.AnnotationType) fyne.CanvasObject {
	title := widget.NewLabelWithStyle(ev.TrainingDisplayName(t.Title), fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	title.SizeName = theme.SizeNameSubHeadingText
	text := t.Description
	if strings.TrimSpace(text) == "" {
		text = "This project gives no description of " + t.Title + "."
	}
	body := widget.NewLabel(text)
	body.Wrapping = fyne.TextWrapWord
	keys := widget.NewLabel(keyHelp(t))
	keys.Wrapping = fyne.TextWrapWord
	keys.Importance = widget.LowImportance
	who := widget.NewLabel("Signed in as " + s.participant.Name)
	out := widget.NewButton("Sign out", s.showSignIn)
	return container.NewBorder(nil, container.NewVBox(keys, container.NewBorder(nil, nil, nil, out, who)), nil, nil,
		container.NewVScroll(container.NewVBox(title, body)))
}

func keyHelp(t *ev.AnnotationType) string {
	switch t.Display {
	case ev.LikertTurn, ev.LikertDialogue, ev.ForeachSelect, ev.ForeachSelectDialogue:
		return "Keys: 1-5 answer the highlighted question; ↑/↓ move between questions, ←/→ between turns; Enter goes on when the page is complete."
	case ev.Comparative:
		return "Keys: 1-3 choose the answer; Enter goes on when the page is complete."
	}
	return "Keys: ←/→ or ↑/↓ move between turns; 1-9 tick or choose the n-th answer of the highlighted turn; Enter goes on when the page is complete."
}

// updateProgress refreshes the page text, the unit progress and whether Next is enabled.
func (s *evalSession) updateProgress() {
	if s.page == nil {
		return
	}
	if s.train != nil {
		s.pageText.SetText(s.train.Message())
	} else {
		text := ev.ProgressText(s.i, len(s.types), s.a, len(s.types[s.i]))
		if due := s.dueText(); due != "" {
			text += ". " + due
		}
		s.pageText.SetText(text)
	}
	info, err := s.ws.store.EvalProjectInfo(s.ws.ctx(), s.op.info.ID)
	if err == nil {
		s.progress.Max = float64(max(info.Units, 1))
		s.progress.SetValue(float64(info.Done))
		mine := ""
		if p, err := s.ws.store.EvalParticipant(s.ws.ctx(), s.op.info.ID, s.participant.ID); err == nil {
			mine = fmt.Sprintf(" (yours: %d done, %d open)", p.Done, p.Assigned)
		}
		s.progressText.SetText(fmt.Sprintf("Units done %d / %d%s", info.Done, info.Units, mine))
	}
	s.refreshNext()
}

func (s *evalSession) refreshNext() {
	if s.page == nil || s.next == nil {
		return
	}
	var ok bool
	if s.train != nil && s.train.Step == ev.StepFeedback {
		ok = true // checked on Next, with a message, as the original does
	} else {
		ok, _ = ev.IsComplete(s.page.typ, s.page.ans, s.page.positions)
	}
	if ok {
		s.next.Enable()
	} else {
		s.next.Disable()
	}
}

// answered saves one answer at once: the log row and the whole answer state.
func (s *evalSession) answered(turn int, key string, value any) {
	now := s.now()
	state, err := json.Marshal(s.state)
	if err != nil {
		s.fail(err)
		return
	}
	if turn >= 0 {
		s.lastTurn = turn
	}
	a := ev.AnswerRecord{UnitID: s.unit.ID, ParticipantID: s.participant.ID, DialoguePos: s.i, TypePos: s.a,
		TypeName: s.page.typ.Name, Turn: turn, Question: key, Value: value, AnsweredAt: now, PageShownAt: s.shownAt}
	if err := s.ws.store.SaveEvalAnswer(s.ws.ctx(), a, state, s.position()); err != nil {
		s.fail(fmt.Errorf("your answer could not be saved: %w", err))
	}
	s.refreshNext()
	s.focusKeys()
}

func (s *evalSession) position() ev.Position {
	return ev.Position{Index: s.i, Annot: s.a, Turn: s.lastTurn}
}

// focused records the focused turn so that a session resumes on it.
func (s *evalSession) focused(turn int) {
	if turn == s.lastTurn || turn < 0 {
		return
	}
	s.lastTurn = turn
	s.saveProgress()
}

func (s *evalSession) saveProgress() {
	state, err := json.Marshal(s.state)
	if err != nil {
		s.fail(err)
		return
	}
	s.fail(s.ws.store.SaveEvalProgress(s.ws.ctx(), s.unit.ID, state, s.position()))
}

// key is the session's keyboard: the page's keys, and Enter for Next.
func (s *evalSession) key(k fyne.KeyName) {
	if s.chat != nil && s.chat.onChat {
		return
	}
	if k == fyne.KeyReturn || k == fyne.KeyEnter {
		switch {
		case s.page != nil && s.next != nil && !s.next.Disabled():
			s.next.OnTapped()
		case s.page == nil && s.enter != nil:
			s.enter()
		}
		return
	}
	if s.page != nil {
		s.page.key(k)
	}
}

// nextPage closes the page's time span and shows the next page, or submits the unit.
func (s *evalSession) nextPage() {
	if s.train != nil {
		s.trainingNext()
		return
	}
	if s.expired() {
		return
	}
	if ok, _ := ev.IsComplete(s.page.typ, s.page.ans, s.page.positions); !ok {
		return
	}
	s.state.PageDone(s.i, s.a, false, s.now())
	if s.chat != nil && s.a+1 >= len(s.types[s.i]) {
		s.chat.afterOffline()
		return
	}
	if s.lastPage() {
		s.submit()
		return
	}
	if s.a+1 < len(s.types[s.i]) {
		s.a++
	} else {
		s.i, s.a = s.i+1, 0
	}
	s.lastTurn = -1
	s.showPage()
}

// submit completes the unit with its final answer state; a gold unit is graded first and
// counted in the participant's gold qualifications.
func (s *evalSession) submit() {
	s.state.LastIndex, s.state.LastAnnot = s.i, s.a
	result := json.RawMessage(`{"completed":true}`)
	var grant map[string]int
	if s.unit.Kind == ev.UnitGold {
		var err error
		if result, grant, err = s.gradeGold(); err != nil {
			s.fail(err)
			return
		}
	}
	state, err := json.Marshal(s.state)
	if err != nil {
		s.fail(err)
		return
	}
	if err := s.ws.store.CompleteEvalUnit(s.ws.ctx(), s.unit.ID, state, result, grant); err != nil {
		s.fail(err)
		return
	}
	s.page, s.next = nil, nil
	s.showMessage("Thank you: this unit is submitted.", true)
}

// gradeGold grades a gold unit (spec §10.1) with the strike count made effective: the
// participant is blocked once wrong golds exceed max_incorrect_golds.
func (s *evalSession) gradeGold() (json.RawMessage, map[string]int, error) {
	var answers []map[string]ev.TurnAnswers
	for i := range s.dps {
		answers = append(answers, s.state.dialogueData(i))
	}
	g, err := ev.GradeGold(ev.Bundle{Datapoints: s.dps}, answers, s.op.p.Settings.AllowedGoldMistakes, s.op.p.Settings.Grading)
	if err != nil {
		return nil, nil, err
	}
	base := goldBase(s.op)
	state, _, err := assignmentState(s.ws.ctx(), s.ws.store, s.op, s.passedName(), s.blockName())
	if err != nil {
		return nil, nil, err
	}
	blocked := state.RecordGold(s.op.p, s.participant.Name, g.Passed)
	rec := state.Record(s.participant.Name)
	grant := map[string]int{base + goldCorrectSuffix: rec.CorrectGolds, base + goldWrongSuffix: rec.WrongGolds}
	if rec.ExtraGold {
		grant[base+goldExtraSuffix] = 1
	}
	if blocked {
		grant[s.blockName()] = 1
	}
	result, _ := json.Marshal(map[string]any{"completed": true, "gold_mistakes": g.Mistakes, "gold_passed": g.Passed})
	return result, grant, nil
}

// evalKeys is an invisible focusable widget that gives the session the keyboard.
type evalKeys struct {
	widget.BaseWidget
	onKey func(fyne.KeyName)
}

func newEvalKeys(onKey func(fyne.KeyName)) *evalKeys {
	k := &evalKeys{onKey: onKey}
	k.ExtendBaseWidget(k)
	return k
}

func (k *evalKeys) CreateRenderer() fyne.WidgetRenderer {
	return widget.NewSimpleRenderer(canvas.NewRectangle(nil))
}

func (k *evalKeys) FocusGained() {}

func (k *evalKeys) FocusLost() {}

func (k *evalKeys) TypedRune(r rune) {}

func (k *evalKeys) TypedKey(e *fyne.KeyEvent) { k.onKey(e.Name) }
