package session

import (
	"fmt"
	"time"

	ev "github.com/agentdesk/agentdesk/engine/evaluation"
)

// View is what a front end shows: the screen and, per screen, its content.
type View struct {
	Screen      Screen
	Participant string
	// Title, Text and Button are a message's or training page's; More says whether a
	// message offers Continue.
	Title, Text, Button string
	More                bool
	// Refusal is the code of the reason a message gives no more work (ev.RefuseNoMoreWork,
	// ev.RefuseNotEligible, …), "" on other messages.
	Refusal string
	// Notice warns about the page on show (not corrected yet, a bot that failed).
	Notice string
	// Page is the page on show (ScreenPage; also the online annotation of a chat).
	Page *Page
	// Chat is the conversation on show (ScreenChat).
	Chat *ChatView
	// Deadline is when what is on show is due (zero: no limit); Limit says the limit in words.
	Deadline time.Time
	Limit    string
	// Desk sessions: Left is the time left on the page (DeskLimit: a limit applies), Paused
	// says the page clock is paused, TimedOut that the message is a unit's time-out (Continue
	// restores it, GiveBack returns it).
	Left      time.Duration
	DeskLimit bool
	Paused    bool
	TimedOut  bool
}

// Page is a page of a unit: one dialogue (a pair for comparative types) with one annotation
// type, the answers given so far, and where the participant is.
type Page struct {
	Datapoint *ev.Datapoint
	Type      *ev.AnnotationType
	// Answers is the dialogue's answer object (edited by Apply).
	Answers *ev.Answers
	// Positions are the annotatable turns.
	Positions []int
	// Collection is true for a page about a collected conversation (speaker names differ,
	// comparative pairs are shown the other way round).
	Collection bool
	// Training is true on a training page.
	Training bool
	// Feedback is the turn under correction on a training feedback page (-1: none); only it
	// takes answers. Explanation and Correct are its explanation (the speakers named) and
	// correct selection.
	Feedback    int
	Explanation string
	Correct     *ev.Truth
	// Dialogue and Dialogues, Annot and Annots place the page in its unit.
	Dialogue, Dialogues, Annot, Annots int
	// Turn is the turn the participant was last on (-1: none yet).
	Turn int
	// Progress is the page's place in words ("Dialogue 1 of 2, question 1 of 1") or the
	// training's message.
	Progress string
	// Last is true on the unit's last page (its button is Submit).
	Last bool
}

// Editable says whether a turn takes answers (on a feedback page only the mistaken one).
func (p *Page) Editable(pos int) bool { return p.Feedback < 0 || p.Feedback == pos }

// Complete says whether the page's questions are answered as the type requires.
func (p *Page) Complete() bool {
	if p.Feedback >= 0 {
		return true // checked on Next, with a message, as the original does
	}
	ok, _ := ev.IsComplete(p.Type, p.Answers, p.Positions)
	return ok
}

// NextLabel is the page's button: Submit on a unit's last page, else Next.
func (p *Page) NextLabel() string {
	if p.Last {
		return "Submit"
	}
	return "Next"
}

// View describes what the session has on show.
func (s *Session) View() View {
	v := View{Screen: s.screen, Participant: s.participant.Name, Title: s.title, Text: s.text,
		Button: s.button, More: s.more, Refusal: s.refusal, Notice: s.notice, Deadline: s.deadline, Limit: s.limit,
		Paused: s.paused, TimedOut: s.TimedOut()}
	v.Left, v.DeskLimit = s.Remaining()
	switch s.screen {
	case ScreenPage:
		v.Page = s.Page()
	case ScreenChat:
		v.Chat = s.chat.view()
		v.Page = s.Page()
	}
	return v
}

// Page is the page on show, nil when none (the online annotation page during a chat).
func (s *Session) Page() *Page {
	if s.screen == ScreenChat {
		if s.chat == nil {
			return nil
		}
		return s.chat.onlinePage()
	}
	if s.screen != ScreenPage || s.i >= len(s.dps) || s.a >= len(s.types[s.i]) {
		return nil
	}
	p := s.pageOf(s.i, s.a, s.state.Dialogue(s.i))
	p.Training, p.Turn = s.train != nil, s.lastTurn
	if s.train != nil {
		p.Progress = s.train.Message()
		if s.train.Step == ev.StepFeedback {
			if pos, why, correct, ok := s.train.FeedbackTurn(); ok {
				p.Feedback, p.Correct = pos, correct
				p.Explanation = p.TurnText(pos, why)
			}
		}
	} else {
		p.Progress = ev.ProgressText(s.i, len(s.types), s.a, len(s.types[s.i]))
		p.Last = s.lastPage() && (s.chat == nil || s.chat.chat.Done())
	}
	return p
}

// pageOf is the page of dialogue i's annotation a of the open unit, with answers.
func (s *Session) pageOf(i, a int, answers *ev.Answers) *Page {
	p := &Page{Datapoint: &s.dps[i], Type: s.types[i][a], Answers: answers,
		Collection: s.project.Def().Settings.CollectDialogue, Feedback: -1,
		Dialogue: i, Dialogues: len(s.types), Annot: a, Annots: len(s.types[i]), Turn: -1}
	if p.Type.Display.TurnLevel() {
		p.Positions = p.Type.Positions(len(p.Datapoint.Turns))
	} else {
		p.Positions = []int{}
	}
	return p
}

// UnitPages are the pages of the open unit, in order, as Page will show them, each with
// answers of its own and none given (a model annotator asks them ahead: their prompts depend
// only on the dialogue and the type); nil when no unit is open.
func (s *Session) UnitPages() []*Page {
	var out []*Page
	for i := range s.types {
		for a := range s.types[i] {
			out = append(out, s.pageOf(i, a, ev.NewAnswers(i)))
		}
	}
	return out
}

// Due tells the participant when what is on show is due ("" without a limit).
func (v View) Due() string {
	if v.Deadline.IsZero() {
		return ""
	}
	return fmt.Sprintf("Due by %s (%s).", v.Deadline.Local().Format("15:04:05"), v.Limit)
}
