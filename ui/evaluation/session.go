package evaluation

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	ev "github.com/agentdesk/agentdesk/engine/evaluation"
	"github.com/agentdesk/agentdesk/ui/workspace"
)

// evalSession is the Annotate tab: a participant signs in by id and works through units, page
// by page; every answer is saved as it is given.
type evalSession struct {
	ws   *Workspace
	op   *evalProject
	root *fyne.Container
	keys *evalKeys

	participant ev.ParticipantSummary
	unit        ev.UnitRecord
	dps         []ev.Datapoint
	types       [][]*ev.AnnotationType
	state       *answerState
	i, a        int
	page        *evalPage
	shownAt     time.Time
	lastTurn    int

	next         *widget.Button
	progress     *widget.ProgressBar
	progressText *widget.Label
	pageText     *widget.Label
	message      *widget.Label

	train *ev.TrainingFlow
	chat  *evalChat
	now   func() time.Time
	// deadline is when the page or chat message on show is due (zero: no limit), limit the
	// limit in words; timer ends the attempt at the deadline (evaluation_timeout.go).
	deadline time.Time
	limit    string
	timer    *time.Timer
	// enter is what Enter does on a page without Next (training texts, messages).
	enter func()
	// signInEntry is the participant id box while the sign-in page is on show.
	signInEntry *widget.Entry
}

func newEvalSession(w *Workspace, op *evalProject) *evalSession {
	s := &evalSession{ws: w, op: op, now: time.Now}
	s.keys = newEvalKeys(s.key)
	s.root = container.NewStack()
	s.showSignIn()
	return s
}

// close stops the session's background work (a bot call, exec bots, the deadline's timer).
func (s *evalSession) close() {
	s.disarm()
	if s.chat != nil {
		s.chat.close()
		s.chat = nil
	}
}

func (s *evalSession) set(o fyne.CanvasObject) {
	s.disarm()
	s.enter, s.signInEntry = nil, nil
	s.root.Objects = []fyne.CanvasObject{s.keys, o}
	s.root.Refresh()
}

// focusKeys gives the keyboard to the session (after a click took it to a widget).
func (s *evalSession) focusKeys() {
	if s.ws.host.Window() == nil {
		return
	}
	if s.signInEntry != nil {
		workspace.Focus(s.ws.host.Window(), s.signInEntry)
		return
	}
	workspace.Focus(s.ws.host.Window(), s.keys)
}

func (s *evalSession) fail(err error) {
	if err != nil {
		s.ws.showError(err)
	}
}

// showSignIn asks for the participant id.
func (s *evalSession) showSignIn() {
	s.close()
	s.page, s.next, s.train = nil, nil, nil
	id := widget.NewEntry()
	id.SetPlaceHolder("participant id, e.g. worker-01")
	start := widget.NewButtonWithIcon("Start", theme.MediaPlayIcon(), func() { s.signIn(id.Text) })
	start.Importance = widget.HighImportance
	id.OnSubmitted = s.signIn
	s.message = widget.NewLabel("")
	s.message.Wrapping = fyne.TextWrapWord
	intro := widget.NewLabel(s.intro())
	intro.Wrapping = fyne.TextWrapWord
	form := container.NewVBox(
		widget.NewLabelWithStyle("Sign in", fyne.TextAlignLeading, fyne.TextStyle{Bold: true}),
		intro, container.NewBorder(nil, nil, nil, start, id), s.message)
	s.set(container.NewCenter(container.NewGridWrap(fyne.NewSize(560, 260), form)))
	s.signInEntry = id
	s.focusKeys()
}

func (s *evalSession) intro() string {
	st := s.op.p.Settings
	t := "Enter your participant id. Your answers are saved as you give them; signing in again with the same id resumes where you stopped."
	if st.TaskDescription != "" {
		t = strings.TrimSpace(st.TaskDescription) + "\n\n" + t
	}
	if st.UseScreening && s.op.p.Training != nil {
		t += " New participants first do a short training with feedback."
	}
	return t
}

func (s *evalSession) signIn(name string) {
	ctx := s.ws.ctx()
	p, err := s.ws.store.EvalSignIn(ctx, s.op.info.ID, name)
	if err != nil {
		s.message.SetText(err.Error())
		return
	}
	s.participant = p
	s.continueWork()
}

// passedName and blockName are the project's qualification names.
func (s *evalSession) passedName() string {
	passed, _ := s.op.p.Settings.QualificationNames(s.op.info.Name)
	return passed
}

func (s *evalSession) blockName() string {
	_, block := s.op.p.Settings.QualificationNames(s.op.info.Name)
	return block
}

// continueWork resumes the participant's open unit, or starts the next one.
func (s *evalSession) continueWork() {
	ctx := s.ws.ctx()
	u, ok, err := s.ws.store.EvalOpenUnit(ctx, s.participant.ID)
	if err != nil {
		s.fail(err)
		return
	}
	if ok {
		s.showUnit(u)
		return
	}
	u, refusal, err := assignNextUnit(ctx, s.ws.store, s.op, s.participant, s.passedName(), s.blockName())
	if err != nil {
		s.fail(err)
		return
	}
	if refusal != "" {
		s.showMessage(refusal, false)
		return
	}
	s.showUnit(u)
}

// showMessage shows a page of text with Sign out and, when more work may follow, Continue.
func (s *evalSession) showMessage(text string, more bool) {
	l := widget.NewLabel(text)
	l.Wrapping = fyne.TextWrapWord
	out := widget.NewButton("Sign out", s.showSignIn)
	buttons := container.NewHBox(out)
	if more {
		cont := widget.NewButtonWithIcon("Continue", theme.NavigateNextIcon(), s.continueWork)
		cont.Importance = widget.HighImportance
		buttons.Add(cont)
	}
	who := widget.NewLabel("Signed in as " + s.participant.Name)
	s.set(container.NewCenter(container.NewGridWrap(fyne.NewSize(620, 280), container.NewVBox(who, l, buttons))))
	if more {
		s.enter = s.continueWork
	}
	s.focusKeys()
}

// showUnit opens a unit at its saved page and turn.
func (s *evalSession) showUnit(u ev.UnitRecord) {
	s.close()
	s.train = nil
	s.unit = u
	s.state = newAnswerState(s.participant.Name)
	if len(u.State) > 0 && string(u.State) != "{}" {
		if err := json.Unmarshal(u.State, s.state); err != nil {
			s.fail(fmt.Errorf("unit %d: saved answers: %w", u.ID, err))
			return
		}
	}
	s.state.WorkerID = s.participant.Name
	switch u.Kind {
	case ev.UnitScreening:
		s.startTraining()
		return
	case ev.UnitCollection:
		s.startChat()
		return
	}
	dps, err := unitDatapoints(s.op.p, u)
	if err != nil {
		s.fail(err)
		return
	}
	s.dps, s.types = dps.datapoints, dps.types
	s.train = nil
	s.i, s.a = u.LastIndex, u.LastAnnot
	if s.i >= len(s.dps) {
		s.i, s.a = len(s.dps)-1, 0
	}
	s.lastTurn = u.LastTurn
	s.showPage()
}
