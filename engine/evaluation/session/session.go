// Package session is the one study session of an evaluation project: a participant signs in,
// is given units by the project's rules, answers them page by page (every answer saved as it
// is given), trains with feedback, chats with bots, times out, and resumes where they
// stopped. The desktop's Annotate tab and the participants' web pages both drive it: they
// show what View describes and call its actions, so one sequence of answers leaves the same
// rows in the store whichever front end it came through.
//
// A Session is not safe for concurrent use: a front end serialises the actions of one
// participant (the desktop runs them on its UI goroutine, the web server holds a lock per
// participant).
package session

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	ev "github.com/agentdesk/agentdesk/engine/evaluation"
)

// Store is what a session reads from and writes to the store.
type Store interface {
	EvalSignIn(ctx context.Context, projectID int64, name string) (ev.ParticipantSummary, error)
	EvalParticipants(ctx context.Context, projectID int64) ([]ev.ParticipantSummary, error)
	// EvalHeldUnits lists the units participants hold or completed, without their bundles
	// and answers; EvalUnitAt finds a task or collection unit by its place.
	EvalHeldUnits(ctx context.Context, projectID int64) ([]ev.UnitRecord, error)
	EvalUnitAt(ctx context.Context, projectID int64, kind string, position, index int) (ev.UnitRecord, error)
	EvalOpenUnit(ctx context.Context, participantID int64) (u ev.UnitRecord, ok bool, err error)
	EvalAssign(ctx context.Context, projectID, participantID, unitID int64, kind string, index int, shown, state json.RawMessage) (ev.UnitRecord, error)
	EvalReturnUnit(ctx context.Context, unitID int64) error
	SaveEvalAnswer(ctx context.Context, a ev.AnswerRecord, state json.RawMessage, pos ev.Position) error
	SaveEvalProgress(ctx context.Context, unitID int64, state json.RawMessage, pos ev.Position) error
	CompleteEvalUnit(ctx context.Context, unitID int64, state, result json.RawMessage, grant map[string]int) error

	EvalStartConversation(ctx context.Context, unitID int64, position int, condition, model string) (int64, error)
	EvalAddTurn(ctx context.Context, conversationID int64, t ev.TurnRecord) error
	EvalAddBotError(ctx context.Context, conversationID int64, turn int, message string) error
	EvalEndConversation(ctx context.Context, conversationID int64) error
	EvalConversations(ctx context.Context, unitID int64) ([]ev.ConversationRecord, error)
	EvalChatCounts(ctx context.Context, projectID int64) (map[string]map[string]int, error)
}

// Project is a stored project as sessions share it: its id and name in the store, its
// definition, and the lock that makes its assignments one at a time. Sessions of many
// participants read the definition at once (a served study): change it only with SetDef,
// with a new definition (copy, then change the copy).
type Project struct {
	ID     int64
	Name   string
	def    atomic.Pointer[ev.Project]
	assign sync.Mutex
}

// NewProject is a project with its definition.
func NewProject(id int64, name string, p *ev.Project) *Project {
	sp := &Project{ID: id, Name: name}
	sp.def.Store(p)
	return sp
}

// Def is the project's definition (do not change it).
func (p *Project) Def() *ev.Project { return p.def.Load() }

// SetDef replaces the project's definition (a bot or the completion code edited).
func (p *Project) SetDef(d *ev.Project) { p.def.Store(d) }

// Screen is what a session has on show.
type Screen string

const (
	// ScreenSignIn asks for the participant id.
	ScreenSignIn Screen = "sign-in"
	// ScreenMessage is a page of text: a unit submitted, no more work, a time-out, a block;
	// Continue goes on when View.More.
	ScreenMessage Screen = "message"
	// ScreenTraining is one of the training's text pages with one button (View.Button).
	ScreenTraining Screen = "training"
	// ScreenPage is a page of a unit: one dialogue with one annotation type (View.Page).
	ScreenPage Screen = "page"
	// ScreenChat is a collection unit's conversation with a bot (View.Chat).
	ScreenChat Screen = "chat"
)

// Keys of the answer state that hold a session's own bookkeeping next to the original's keys,
// so that it resumes in the middle of a training or a conversation.
const (
	trainingKey = "agentdeskTraining"
	chatKey     = "agentdeskChat"
)

// Session is one participant's study session.
type Session struct {
	st      Store
	project *Project
	// Now is the session's clock (tests set it).
	Now func() time.Time
	// Bots makes the runnable bot of a model key; nil: the project's bot definitions.
	Bots func(model string, spec ev.BotSpec) (ev.Bot, error)
	// Desk makes this a desk session (desk.go): the page limit counts the time the page is
	// shown, and a unit that times out keeps its answers.
	Desk bool

	screen      Screen
	participant ev.ParticipantSummary
	unit        ev.UnitRecord
	dps         []ev.Datapoint
	types       [][]*ev.AnnotationType
	state       *ev.AnswerState
	i, a        int
	lastTurn    int
	shownAt     time.Time
	train       *ev.TrainingFlow
	chat        *chatSession

	// Message and training pages: their title, text and button; more is true when Continue
	// may give more work.
	title, text, button string
	more                bool
	// refusal is the code of the reason a message gives no more work (ev.Refuse…).
	refusal string
	// notice is a warning about the page on show ("not corrected yet", a bot failure).
	notice string
	// deadline is when the page or chat message on show is due (zero: no limit), limit the
	// limit in words.
	deadline time.Time
	limit    string
	// desk is a desk session's page clock; paused is set while the front end hides the page;
	// timedOut is set on the message of a desk unit that timed out.
	desk     deskClock
	paused   bool
	timedOut bool
}

// New returns a session of a project at its sign-in page.
func New(st Store, p *Project) *Session {
	return &Session{st: st, project: p, Now: time.Now, screen: ScreenSignIn, lastTurn: -1}
}

// Project is the session's project.
func (s *Session) Project() *Project { return s.project }

// Participant is who is signed in (the zero summary before).
func (s *Session) Participant() ev.ParticipantSummary { return s.participant }

// Unit is the unit on show (the zero record when none).
func (s *Session) Unit() ev.UnitRecord { return s.unit }

// Screen is what the session has on show.
func (s *Session) Screen() Screen { return s.screen }

// Close stops the session's background resources (the bots' programs).
func (s *Session) Close() {
	if s.chat != nil {
		s.chat.close()
		s.chat = nil
	}
}

// SignOut ends the participant's session; everything is saved already.
func (s *Session) SignOut() {
	s.Close()
	*s = Session{st: s.st, project: s.project, Now: s.Now, Bots: s.Bots, Desk: s.Desk, paused: s.paused, screen: ScreenSignIn, lastTurn: -1}
}

// SignIn signs a participant in by id (creating them on first sign-in) and shows their open
// unit where they stopped, or their next one.
func (s *Session) SignIn(ctx context.Context, name string) error {
	p, err := s.st.EvalSignIn(ctx, s.project.ID, name)
	if err != nil {
		return err
	}
	s.SignOut()
	s.participant = p
	return s.Continue(ctx)
}

// SignInToStart signs a participant in without handing out a unit: their open unit resumes
// where they stopped; with none, a start page (title, text and a Start button) waits, and its
// Continue hands out the next unit. A served study's entrants start here, so that opening a
// link holds no unit.
func (s *Session) SignInToStart(ctx context.Context, name, title, text string) error {
	p, err := s.st.EvalSignIn(ctx, s.project.ID, name)
	if err != nil {
		return err
	}
	s.SignOut()
	s.participant = p
	u, ok, err := s.st.EvalOpenUnit(ctx, p.ID)
	if err != nil {
		return err
	}
	if ok {
		return s.openUnit(ctx, u)
	}
	s.showMessage(title, text, true)
	s.button = "Start"
	return nil
}

// TimedOutAway shows that the participant's unit timed out while they were away (the server
// gave it back at its limit): Continue starts a fresh one.
func (s *Session) TimedOutAway() {
	s.showMessage("Timed out", fmt.Sprintf("You took too long to respond (%s), and your unit timed out while you were away: "+
		"it went back to the pool and its answers were dropped. Continue to start a fresh one.", pageLimit(s.project.Def().Settings)), true)
}

// Continue resumes the participant's open unit, or starts the next one; with none left it
// shows why.
func (s *Session) Continue(ctx context.Context) error {
	if s.participant.ID == 0 {
		return errors.New("nobody is signed in")
	}
	s.Close()
	u, refusal, err := s.nextUnit(ctx)
	if err != nil {
		return err
	}
	if refusal != nil {
		s.showMessage("", refusal.Message, false)
		s.refusal = refusal.Code
		return nil
	}
	return s.openUnit(ctx, u)
}

// nextUnit is the participant's open unit or, with none, a new one. Assignments of a project
// are made one at a time (its lock), so that requests arriving together (two browsers of one
// participant, many participants at once) never give anyone two units of one assignment.
func (s *Session) nextUnit(ctx context.Context) (ev.UnitRecord, *ev.Refusal, error) {
	s.project.assign.Lock()
	defer s.project.assign.Unlock()
	u, ok, err := s.st.EvalOpenUnit(ctx, s.participant.ID)
	if err != nil || ok {
		return u, nil, err
	}
	return AssignNext(ctx, s.st, s.project, s.participant)
}

func (s *Session) showMessage(title, text string, more bool) {
	s.Close()
	s.screen, s.title, s.text, s.more, s.refusal, s.button = ScreenMessage, title, text, more, "", ""
	s.train, s.notice, s.timedOut = nil, "", false
	s.disarm()
}

// openUnit opens a unit at its saved page and turn.
func (s *Session) openUnit(ctx context.Context, u ev.UnitRecord) error {
	s.Close()
	s.train, s.notice = nil, ""
	s.unit = u
	s.state = newAnswerState(s.participant.Name)
	if len(u.State) > 0 && string(u.State) != "{}" {
		st := ev.NewAnswerState("")
		if err := json.Unmarshal(u.State, st); err != nil {
			return fmt.Errorf("unit %d: saved answers: %w", u.ID, err)
		}
		if st.Extra == nil {
			st.Extra = map[string]json.RawMessage{}
		}
		s.state = st
	}
	s.state.WorkerID = s.participant.Name
	switch u.Kind {
	case ev.UnitScreening:
		return s.startTraining(ctx)
	case ev.UnitCollection:
		return s.startChat(ctx)
	}
	dps, types, err := UnitDatapoints(s.project.Def(), u)
	if err != nil {
		return err
	}
	s.dps, s.types = dps, types
	s.i, s.a = u.LastIndex, u.LastAnnot
	if s.i >= len(s.dps) {
		s.i, s.a = len(s.dps)-1, 0
	}
	s.lastTurn = u.LastTurn
	return s.showPage(ctx)
}

func newAnswerState(worker string) *ev.AnswerState {
	st := ev.NewAnswerState(worker)
	st.Extra = map[string]json.RawMessage{}
	return st
}

func (s *Session) lastPage() bool {
	return s.i == len(s.types)-1 && s.a == len(s.types[s.i])-1
}

// showPage shows page (i, a): its time span starts, the position is saved, its deadline set.
func (s *Session) showPage(ctx context.Context) error {
	s.screen = ScreenPage
	s.shownAt = s.Now()
	s.state.PageShown(s.i, s.a, s.train != nil, s.shownAt)
	s.state.LastIndex, s.state.LastAnnot = s.i, s.a
	if s.train != nil && s.train.Step == ev.StepFeedback {
		if pos, _, _, ok := s.train.FeedbackTurn(); ok {
			s.lastTurn = pos
		}
	}
	if s.Desk {
		if !s.pageDeadline().IsZero() {
			s.armDesk(time.Duration(s.project.Def().Settings.AnnotationDurationSeconds)*time.Second, pageLimit(s.project.Def().Settings))
		} else {
			s.disarm()
		}
	} else if !s.arm(ctx, s.pageDeadline(), pageLimit(s.project.Def().Settings)) {
		return nil
	}
	return s.saveProgress(ctx)
}

// Edit applies one answer on the page on show and saves it at once: the answer log's row and
// the whole answer state. An edit the page does not take is an *EditError; nothing is saved.
func (s *Session) Edit(ctx context.Context, e Edit) error {
	p := s.Page()
	if p == nil {
		return &EditError{Reason: "no page with questions is on show"}
	}
	if s.expired(ctx) {
		return ErrExpired
	}
	key, value, err := p.Apply(e)
	if err != nil {
		return err
	}
	if e.Turn >= 0 {
		s.lastTurn = e.Turn
	}
	state, err := json.Marshal(s.state)
	if err != nil {
		return err
	}
	rec := ev.AnswerRecord{UnitID: s.unit.ID, ParticipantID: s.participant.ID, DialoguePos: s.i, TypePos: s.a,
		TypeName: p.Type.Name, Turn: e.Turn, Question: key, Value: value, AnsweredAt: s.Now(), PageShownAt: s.shownAt}
	if err := s.st.SaveEvalAnswer(ctx, rec, state, s.position()); err != nil {
		return fmt.Errorf("your answer could not be saved: %w", err)
	}
	return nil
}

// ErrExpired is returned by an action that came after the deadline of what was on show: the
// attempt timed out and the session shows why.
var ErrExpired = errors.New("this unit has timed out")

// ErrIncomplete is returned by Next on a page whose questions are not all answered.
var ErrIncomplete = errors.New("the page is not complete")

func (s *Session) position() ev.Position {
	return ev.Position{Index: s.i, Annot: s.a, Turn: s.lastTurn}
}

// Focus records the turn the participant is on, so that the session resumes on it.
func (s *Session) Focus(ctx context.Context, turn int) error {
	if turn == s.lastTurn || turn < 0 || s.screen != ScreenPage {
		return nil
	}
	s.lastTurn = turn
	return s.saveProgress(ctx)
}

func (s *Session) saveProgress(ctx context.Context) error {
	state, err := json.Marshal(s.state)
	if err != nil {
		return err
	}
	return s.st.SaveEvalProgress(ctx, s.unit.ID, state, s.position())
}

// Next is the screen's forward button: Next or Submit on a page, the button of a training
// page, Continue on a message.
func (s *Session) Next(ctx context.Context) error {
	switch s.screen {
	case ScreenMessage:
		if !s.more {
			return nil
		}
		return s.Continue(ctx)
	case ScreenTraining:
		if s.train == nil { // the passed page: the real work begins
			return s.Continue(ctx)
		}
		return s.trainingNext(ctx)
	case ScreenPage:
		if s.train != nil {
			return s.trainingNext(ctx)
		}
		return s.nextPage(ctx)
	}
	return nil
}

func (s *Session) nextPage(ctx context.Context) error {
	if s.expired(ctx) {
		return ErrExpired
	}
	p := s.Page()
	if ok, _ := ev.IsComplete(p.Type, p.Answers, p.Positions); !ok {
		return ErrIncomplete
	}
	s.state.PageDone(s.i, s.a, false, s.Now())
	if s.chat != nil && s.a+1 >= len(s.types[s.i]) {
		return s.chat.afterOffline(ctx)
	}
	if s.lastPage() {
		return s.submit(ctx)
	}
	if s.a+1 < len(s.types[s.i]) {
		s.a++
	} else {
		s.i, s.a = s.i+1, 0
	}
	s.lastTurn = -1
	return s.showPage(ctx)
}

// submit completes the unit with its final answer state; a gold unit is graded first and
// counted in the participant's gold qualifications.
func (s *Session) submit(ctx context.Context) error {
	s.state.LastIndex, s.state.LastAnnot = s.i, s.a
	result := json.RawMessage(`{"completed":true}`)
	var grant map[string]int
	if s.unit.Kind == ev.UnitGold {
		var err error
		if result, grant, err = s.gradeGold(ctx); err != nil {
			return err
		}
	}
	state, err := json.Marshal(s.state)
	if err != nil {
		return err
	}
	if err := s.st.CompleteEvalUnit(ctx, s.unit.ID, state, result, grant); err != nil {
		return err
	}
	s.showMessage("Thank you", "Thank you: this unit is submitted.", true)
	return nil
}

// gradeGold grades a gold unit (spec §10.1) with the strike count made effective: the
// participant is blocked once wrong golds exceed max_incorrect_golds.
func (s *Session) gradeGold(ctx context.Context) (json.RawMessage, map[string]int, error) {
	var answers []map[string]ev.TurnAnswers
	for i := range s.dps {
		var data map[string]ev.TurnAnswers
		if a := s.state.Dialogues[i]; a != nil {
			data = a.Data
		}
		answers = append(answers, data)
	}
	g, err := ev.GradeGold(ev.Bundle{Datapoints: s.dps}, answers, s.project.Def().Settings.AllowedGoldMistakes, s.project.Def().Settings.Grading)
	if err != nil {
		return nil, nil, err
	}
	base := s.project.GoldBase()
	state, _, err := AssignmentState(ctx, s.st, s.project)
	if err != nil {
		return nil, nil, err
	}
	blocked := state.RecordGold(s.project.Def(), s.participant.Name, g.Passed)
	rec := state.Record(s.participant.Name)
	grant := map[string]int{base + GoldCorrectSuffix: rec.CorrectGolds, base + GoldWrongSuffix: rec.WrongGolds}
	if rec.ExtraGold {
		grant[base+GoldExtraSuffix] = 1
	}
	if blocked {
		grant[s.project.BlockName()] = 1
	}
	result, _ := json.Marshal(map[string]any{"completed": true, "gold_mistakes": g.Mistakes, "gold_passed": g.Passed})
	return result, grant, nil
}

// Training is the training on show (nil outside a screening unit); read it, do not change it.
func (s *Session) Training() *ev.TrainingFlow { return s.train }

// SetBot makes a model's replies come from bot for the rest of the session (a bot whose
// definition was edited, or a test's); nil drops the one in use so that the next reply
// starts it again from the project's definition.
func (s *Session) SetBot(model string, bot ev.Bot) {
	if s.chat == nil {
		return
	}
	if old, ok := s.chat.bots[model]; ok {
		ev.CloseBot(old)
		delete(s.chat.bots, model)
	}
	if bot != nil {
		s.chat.bots[model] = bot
	}
}

// Chat is the collection session's conversations (nil outside a collection unit); read it,
// do not change it.
func (s *Session) Chat() *ev.Chat {
	if s.chat == nil {
		return nil
	}
	return s.chat.chat
}
