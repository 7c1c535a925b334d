package session

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	ev "github.com/agentdesk/agentdesk/engine/evaluation"
)

// A desk session (the desktop's Annotate tab) is one annotator at the app, with nobody else
// waiting for the unit on show. Its page limit counts only the time the page is shown: the
// front end pauses the clock when the page is hidden (another screen, another tab) and resumes
// it when the page is shown again. A unit that times out at the desk stays with its annotator
// with its answers, marked timed out in its answer state (ev.TimedOutKey, exported as
// timed_out: true); Continue restores it where it stopped, with a fresh limit, and GiveBack
// returns it to the pool. Served participants keep the original's rule (deadline.go).

// deskClock is the time a desk page has been shown.
type deskClock struct {
	limit time.Duration // the page's limit; 0: none (or not a desk session)
	shown time.Duration // shown before runningSince
	// runningSince is when the page was last shown (zero while paused).
	runningSince time.Time
}

// Pause stops the page clock of a desk session (the page is hidden).
func (s *Session) Pause() {
	s.paused = true
	if !s.desk.runningSince.IsZero() {
		s.desk.shown += s.Now().Sub(s.desk.runningSince)
		s.desk.runningSince = time.Time{}
	}
}

// Resume starts the page clock of a desk session again (the page is shown).
func (s *Session) Resume() {
	s.paused = false
	if s.desk.limit > 0 && s.desk.runningSince.IsZero() {
		s.desk.runningSince = s.Now()
	}
}

// Paused reports whether the desk page clock is paused.
func (s *Session) Paused() bool { return s.paused }

// shownFor is how long the desk page on show has been shown.
func (s *Session) shownFor() time.Duration {
	d := s.desk.shown
	if !s.desk.runningSince.IsZero() {
		d += s.Now().Sub(s.desk.runningSince)
	}
	return d
}

// armDesk starts a desk page's clock with its limit (0: none); it runs unless paused.
func (s *Session) armDesk(limit time.Duration, words string) {
	s.disarm()
	if limit <= 0 {
		return
	}
	s.desk = deskClock{limit: limit}
	s.limit = words
	if !s.paused {
		s.desk.runningSince = s.Now()
	}
}

// Remaining is the time left on the desk page on show; ok is false when no desk limit applies.
func (s *Session) Remaining() (left time.Duration, ok bool) {
	if s.desk.limit <= 0 {
		return 0, false
	}
	return max(s.desk.limit-s.shownFor(), 0), true
}

// keepTimedOut ends a desk attempt at its limit: the unit stays with its annotator, its
// answers kept and marked timed out.
func (s *Session) keepTimedOut(ctx context.Context) error {
	limit := s.limit
	s.state.Extra[ev.TimedOutKey] = json.RawMessage("true")
	err := s.saveProgress(ctx)
	s.showMessage("Timed out", fmt.Sprintf("This page was shown longer than its limit (%s), so the unit timed out. "+
		"Your answers are kept, and the unit is marked as timed out in the results. Continue restores them where you stopped, "+
		"with the full time again; Give back returns the unit to the pool without them.", limit), true)
	s.timedOut = true
	return err
}

// TimedOut reports whether the message on show is a desk unit's time-out (Continue restores
// it, GiveBack returns it).
func (s *Session) TimedOut() bool { return s.timedOut && s.screen == ScreenMessage }

// GiveBack returns a desk unit that timed out to the pool (its answers dropped; the answer
// log keeps them).
func (s *Session) GiveBack(ctx context.Context) error {
	if !s.TimedOut() {
		return nil
	}
	if err := s.st.EvalReturnUnit(ctx, s.unit.ID); err != nil {
		return err
	}
	s.showMessage("Given back", "The unit went back to the pool. Continue to start another one.", true)
	return nil
}
