package session

import (
	"context"
	"fmt"
	"time"

	ev "github.com/agentdesk/agentdesk/engine/evaluation"
)

// The original's time limits (spec §9.3, §13.4): each Next/Submit is due within
// annotation_duration_in_seconds of the previous one, and each chat message (or END) within
// max_resp_time of the bot's reply. Past the limit the attempt times out: the unit returns to
// the pool with its answers dropped (the answer log keeps them), and the participant may start
// again. The session checks when the participant acts; a front end may also call Expire at
// the deadline so that nobody types into a unit that is already lost.

// pageDeadline is when the page on show must be finished: the limit after the previous Next
// or, on the first page, after the attempt started. Training pages and a collection session's
// rating pages have none (the chat has its own limit).
func (s *Session) pageDeadline() time.Time {
	if s.train != nil || (s.unit.Kind != ev.UnitTask && s.unit.Kind != ev.UnitGold) {
		return time.Time{}
	}
	previous := s.state.LastPageEnd()
	if previous.IsZero() {
		previous = s.state.Started()
	}
	return ev.PageDeadline(previous, s.project.Def().Settings)
}

// arm sets the deadline of what is on show (the zero time: none). A deadline already passed
// (a unit resumed too late) ends the attempt at once; it reports whether the attempt is on.
func (s *Session) arm(ctx context.Context, deadline time.Time, limit string) bool {
	s.disarm()
	if deadline.IsZero() {
		return true
	}
	s.deadline, s.limit = deadline, limit
	return !s.expired(ctx)
}

func (s *Session) disarm() { s.deadline, s.limit, s.desk = time.Time{}, "", deskClock{} }

// Expire ends the attempt if what is on show is past its deadline, and reports whether it did.
func (s *Session) Expire(ctx context.Context) (bool, error) {
	if !s.past() {
		return false, nil
	}
	return true, s.expire(ctx)
}

func (s *Session) past() bool {
	if s.desk.limit > 0 {
		return s.shownFor() > s.desk.limit
	}
	return !s.deadline.IsZero() && s.Now().After(s.deadline)
}

// expired ends the attempt when its deadline has passed; an error returning the unit shows
// in the message.
func (s *Session) expired(ctx context.Context) bool {
	if !s.past() {
		return false
	}
	if err := s.expire(ctx); err != nil {
		s.text += " (" + err.Error() + ")"
	}
	return true
}

func (s *Session) expire(ctx context.Context) error {
	if s.desk.limit > 0 {
		return s.keepTimedOut(ctx)
	}
	limit := s.limit
	err := s.st.EvalReturnUnit(ctx, s.unit.ID)
	s.showMessage("Timed out", fmt.Sprintf("You took too long to respond (%s), and this unit has timed out: it went back to the pool "+
		"and its answers were dropped. Continue to start a fresh one.", limit), true)
	return err
}

func pageLimit(st ev.Settings) string {
	return fmt.Sprintf("%s per page", limitText(st.AnnotationDurationSeconds))
}

func replyLimit(st ev.Settings) string {
	return fmt.Sprintf("%s per message", limitText(st.MaxResponseSeconds))
}

func limitText(seconds int) string {
	d := time.Duration(seconds) * time.Second
	switch {
	case d%time.Hour == 0:
		return plural(int(d/time.Hour), "hour")
	case d%time.Minute == 0:
		return plural(int(d/time.Minute), "minute")
	}
	return plural(seconds, "second")
}

func plural(n int, word string) string {
	if n == 1 {
		return fmt.Sprintf("1 %s", word)
	}
	return fmt.Sprintf("%d %ss", n, word)
}
