package evaluation

import (
	"time"

	"fyne.io/fyne/v2"
)

// The session decides the time limits (engine/evaluation/session: each page or chat message
// is due within the project's limit, and an action after it times the attempt out). So that
// nobody types into a unit that is already lost, the desktop also ends the attempt at the
// deadline with a timer.

// arm sets the timer of a deadline (the zero time: none).
func (s *evalSession) arm(deadline time.Time) {
	s.disarm()
	if deadline.IsZero() {
		return
	}
	var t *time.Timer
	t = time.AfterFunc(time.Until(deadline)+10*time.Millisecond, func() {
		fyne.Do(func() {
			if s.timer != t {
				return
			}
			expired, err := s.core.Expire(s.ctx())
			if expired {
				s.fail(err)
				s.render()
			}
		})
	})
	s.timer = t
}

// disarm stops the deadline's timer.
func (s *evalSession) disarm() {
	if s.timer != nil {
		s.timer.Stop()
		s.timer = nil
	}
}
