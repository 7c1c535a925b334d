package evaluation

import (
	"fmt"
	"time"

	"fyne.io/fyne/v2"

	ev "github.com/agentdesk/agentdesk/engine/evaluation"
	"github.com/agentdesk/agentdesk/ui/widgets"
)

// The original's time limits (spec §9.3, §13.4): each Next/Submit is due within
// annotation_duration_in_seconds of the previous one, and each chat message (or END) within
// max_resp_time of the bot's reply. Past the limit the attempt times out: the unit returns to
// the pool with its answers dropped (the answer log keeps them), and the participant may start
// again. The session checks when the participant acts and, so that nobody types into a unit
// that is already lost, a timer ends the attempt at the deadline.

// pageDeadline is when the page on show must be finished: the limit after the previous Next
// or, on the first page, after the attempt started (both on the session's clock, recorded in
// the answer state). Training pages and a collection session's rating pages have none (the
// chat has its own limit).
func (s *evalSession) pageDeadline() time.Time {
	if s.train != nil || (s.unit.Kind != ev.UnitTask && s.unit.Kind != ev.UnitGold) {
		return time.Time{}
	}
	previous := s.state.LastPageEnd()
	if previous.IsZero() {
		previous = s.state.Started()
	}
	return ev.PageDeadline(previous, s.op.p.Settings)
}

// arm sets the deadline of what is on show (the zero time: none) and the timer that ends the
// attempt at it. A deadline already passed (a unit resumed too late) ends it at once; it
// reports whether the attempt is still on.
func (s *evalSession) arm(deadline time.Time, limit string) bool {
	s.disarm()
	if deadline.IsZero() {
		return true
	}
	s.deadline, s.limit = deadline, limit
	if s.expired() {
		return false
	}
	var t *time.Timer
	t = time.AfterFunc(deadline.Sub(s.now()), func() {
		fyne.Do(func() {
			if s.timer == t {
				s.expired()
			}
		})
	})
	s.timer = t
	return true
}

// disarm drops the deadline and stops its timer.
func (s *evalSession) disarm() {
	if s.timer != nil {
		s.timer.Stop()
		s.timer = nil
	}
	s.deadline, s.limit = time.Time{}, ""
}

// expired ends the attempt when its deadline has passed, and reports whether it did; call it
// before acting on a Next, a message or END.
func (s *evalSession) expired() bool {
	if s.deadline.IsZero() || !s.now().After(s.deadline) {
		return false
	}
	limit := s.limit
	s.disarm()
	s.close()
	if err := s.ws.store.EvalReturnUnit(s.ws.ctx(), s.unit.ID); err != nil {
		s.fail(err)
	}
	s.page, s.next, s.train = nil, nil, nil
	s.showMessage(fmt.Sprintf("You took too long to respond (%s), and this unit has timed out: it went back to the pool "+
		"and its answers were dropped. Continue to start a fresh one.", limit), true)
	return true
}

// dueText tells the participant when the page or message on show is due.
func (s *evalSession) dueText() string {
	if s.deadline.IsZero() {
		return ""
	}
	return fmt.Sprintf("Due by %s (%s).", s.deadline.Local().Format("15:04:05"), s.limit)
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
		return widgets.Plural(int(d/time.Hour), "hour")
	case d%time.Minute == 0:
		return widgets.Plural(int(d/time.Minute), "minute")
	}
	return widgets.Plural(seconds, "second")
}
