package evaluation

import (
	"context"
	"errors"
	"strings"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	ev "github.com/agentdesk/agentdesk/engine/evaluation"
	"github.com/agentdesk/agentdesk/engine/evaluation/session"
	"github.com/agentdesk/agentdesk/ui/workspace"
)

// evalSession is the Annotate tab: the desktop front end of the study session
// (engine/evaluation/session). It shows what the session's View describes and hands every
// click and key to the session, which applies and saves it; the participants' web pages drive
// the same session.
type evalSession struct {
	ws   *Workspace
	op   *evalProject
	root *fyne.Container
	keys *evalKeys
	core *session.Session

	// What is on show, as the last render saw it.
	view        session.View
	participant ev.ParticipantSummary
	unit        ev.UnitRecord
	train       *ev.TrainingFlow
	i, a        int
	lastTurn    int
	page        *evalPage
	chat        *evalChat

	next         *widget.Button
	progress     *widget.ProgressBar
	progressText *widget.Label
	pageText     *widget.Label
	message      *widget.Label
	// countdown is the time left on a page with a limit (timeout.go).
	countdown *widget.Label

	// timer ends the attempt at the deadline of what is on show; stopTicks stops the desk
	// page clock's ticker (timeout.go).
	timer     *time.Timer
	stopTicks func()
	// enter is what Enter does on a page without Next (training texts, messages).
	enter func()
	// signInEntry is the participant id box while the sign-in page is on show.
	signInEntry *widget.Entry
}

func newEvalSession(w *Workspace, op *evalProject) *evalSession {
	s := &evalSession{ws: w, op: op, core: session.New(w.store, op.sp)}
	s.core.Desk = true // one annotator at the app: the page clock runs while the page is shown
	s.keys = newEvalKeys(s.key)
	s.root = container.NewStack()
	s.showSignIn()
	return s
}

// setNow sets the session's clock (tests).
func (s *evalSession) setNow(now func() time.Time) { s.core.Now = now }

// close stops the session's background work (a bot call, exec bots, the deadline's timer).
func (s *evalSession) close() {
	s.disarm()
	if s.chat != nil {
		s.chat.close()
		s.chat = nil
	}
	s.core.Close()
}

func (s *evalSession) set(o fyne.CanvasObject) {
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

func (s *evalSession) ctx() context.Context { return s.ws.ctx() }

// act runs a session action and shows what follows; an incomplete page or a training page
// not corrected yet are said on the page, not in a dialog.
func (s *evalSession) act(err error) {
	switch {
	case err == nil, errors.Is(err, session.ErrExpired):
	case errors.Is(err, session.ErrIncomplete):
		return
	case errors.Is(err, session.ErrNotCorrected):
		if s.pageText != nil {
			s.pageText.SetText(s.core.View().Notice)
			s.pageText.Importance = widget.DangerImportance
			s.pageText.Refresh()
		}
		return
	default:
		s.fail(err)
	}
	s.render()
}

// render shows what the session has on show.
func (s *evalSession) render() {
	v := s.core.View()
	s.view = v
	s.participant, s.unit, s.train = s.core.Participant(), s.core.Unit(), s.core.Training()
	if s.chat != nil && v.Screen != session.ScreenChat {
		s.chat.close()
		s.chat = nil
	}
	s.page, s.next, s.pageText = nil, nil, nil
	switch v.Screen {
	case session.ScreenSignIn:
		s.showSignIn()
	case session.ScreenMessage:
		s.showMessage(v.Text, v.More)
	case session.ScreenTraining:
		s.trainingPage(v.Title, v.Text, v.Button)
	case session.ScreenPage:
		s.showPage(v)
	case session.ScreenChat:
		if s.chat == nil {
			s.chat = newEvalChat(s)
		}
		s.chat.show(v)
	}
	s.arm(v)
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
	// said once: a description that speaks of the training already says it
	if st.UseScreening && s.op.p.Training != nil && !strings.Contains(strings.ToLower(st.TaskDescription), "training") {
		t += " New participants first do a short training with feedback."
	}
	return t
}

func (s *evalSession) signIn(name string) {
	if err := s.core.SignIn(s.ctx(), name); err != nil {
		if s.core.Participant().ID == 0 { // refused at the door: say it under the id
			s.message.SetText(err.Error())
			return
		}
		s.fail(err)
	}
	s.render()
}

// signOut ends the participant's session (everything is saved already).
func (s *evalSession) signOut() {
	s.close()
	s.core.SignOut()
	s.render()
}

// continueWork resumes the participant's open unit, or starts the next one.
func (s *evalSession) continueWork() { s.act(s.core.Continue(s.ctx())) }

// giveBack returns a unit that timed out to the pool, without its answers.
func (s *evalSession) giveBack() { s.act(s.core.GiveBack(s.ctx())) }

// showMessage shows a page of text with Sign out and, when more work may follow, Continue.
func (s *evalSession) showMessage(text string, more bool) {
	l := widget.NewLabel(text)
	l.Wrapping = fyne.TextWrapWord
	out := widget.NewButton("Sign out", s.signOut)
	buttons := container.NewHBox(out)
	if s.view.TimedOut {
		buttons.Add(widget.NewButtonWithIcon("Give back", theme.ContentUndoIcon(), s.giveBack))
	}
	if more {
		label := "Continue"
		if s.view.TimedOut {
			label = "Restore my answers"
		}
		cont := widget.NewButtonWithIcon(label, theme.NavigateNextIcon(), s.continueWork)
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

// trainingPage is one of the training's text pages with a single button.
func (s *evalSession) trainingPage(title, text, button string) {
	t := widget.NewLabelWithStyle(title, fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	t.SizeName = theme.SizeNameSubHeadingText
	l := widget.NewLabel(text)
	l.Wrapping = fyne.TextWrapWord
	next := func() { s.act(s.core.Next(s.ctx())) }
	b := widget.NewButtonWithIcon(button, theme.NavigateNextIcon(), next)
	b.Importance = widget.HighImportance
	s.set(container.NewCenter(container.NewGridWrap(fyne.NewSize(640, 260), container.NewVBox(t, l, container.NewHBox(b)))))
	s.enter = next
	s.focusKeys()
}
