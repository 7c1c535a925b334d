package evaluation

import (
	"fmt"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	"github.com/agentdesk/agentdesk/engine/evaluation/session"
)

// Time limits. The session decides them (engine/evaluation/session). The Annotate tab is a
// desk session: a page's limit counts only the time the page is on show, so a ticker pauses
// the page clock whenever the page is hidden (another tab, another screen) and resumes it when
// it is shown again, shows the time left and warns a minute before; a unit that times out
// keeps its answers (Continue restores them). A chat's reply limit is a deadline on the
// clock: a timer ends the attempt at it, so that nobody types into a unit already lost.

// warnBefore is how long before a page's limit the countdown warns.
const warnBefore = time.Minute

// newTicker makes the desk page clock's tickers: ticker in the app; the package's tests make
// it inert (a real ticker would go on calling into a test's widgets after the test ended, on
// its own goroutine) and tick by hand where they test the clock.
var newTicker = ticker

// ticker runs f on the UI goroutine every d until stop is called (the Workspace's every).
func ticker(d time.Duration, f func()) (stop func()) {
	t := time.NewTicker(d)
	done := make(chan struct{})
	go func() {
		for {
			select {
			case <-t.C:
				fyne.Do(f)
			case <-done:
				return
			}
		}
	}()
	return func() { t.Stop(); close(done) }
}

// arm sets what ends the attempt on show: the ticker of a desk page's limit, or the timer of a
// deadline (the zero time: none).
func (s *evalSession) arm(v session.View) {
	s.disarm()
	if v.DeskLimit {
		s.stopTicks = s.ws.every(time.Second, s.tick)
		s.showTimeLeft()
		return
	}
	deadline := v.Deadline
	if deadline.IsZero() {
		return
	}
	var t *time.Timer
	t = time.AfterFunc(time.Until(deadline)+10*time.Millisecond, func() {
		fyne.Do(func() {
			if s.timer != t {
				return
			}
			s.expire()
		})
	})
	s.timer = t
}

// disarm stops the deadline's timer and the page clock's ticker.
func (s *evalSession) disarm() {
	if s.timer != nil {
		s.timer.Stop()
		s.timer = nil
	}
	if s.stopTicks != nil {
		s.stopTicks()
		s.stopTicks = nil
	}
}

// expire ends the attempt if it is past its limit.
func (s *evalSession) expire() {
	expired, err := s.core.Expire(s.ctx())
	if expired {
		s.fail(err)
		s.render()
	}
}

// tick runs the desk page clock: it pauses while the page is hidden, ends the attempt at the
// limit, and shows the time left.
func (s *evalSession) tick() {
	if s.shown() {
		s.core.Resume()
	} else {
		s.core.Pause()
	}
	if left, ok := s.core.Remaining(); ok && left <= 0 {
		s.expire()
		return
	}
	s.showTimeLeft()
}

// shown reports whether the session's page is on show in the window (every object from the
// window's content down to it visible).
func (s *evalSession) shown() bool {
	win := s.ws.host.Window()
	if win == nil {
		return false
	}
	return shownIn(win.Content(), s.root)
}

// shownIn reports whether target is o or inside it with every object on the way visible.
func shownIn(o, target fyne.CanvasObject) bool {
	if o == nil || !o.Visible() {
		return false
	}
	if o == target {
		return true
	}
	var children []fyne.CanvasObject
	switch c := o.(type) {
	case *fyne.Container:
		children = c.Objects
	case fyne.Widget:
		children = test.WidgetRenderer(c).Objects() // (fyne's renderer cache; no other public way)
	}
	for _, ch := range children {
		if shownIn(ch, target) {
			return true
		}
	}
	return false
}

// showTimeLeft writes the page's time left in the footer, as a warning in its last minute.
func (s *evalSession) showTimeLeft() {
	if s.countdown == nil {
		return
	}
	left, ok := s.core.Remaining()
	if !ok {
		s.countdown.SetText("")
		return
	}
	text := clock(left) + " left on this page"
	s.countdown.Importance = widget.MediumImportance
	switch {
	case s.core.Paused():
		text = "Paused while hidden: " + clock(left) + " left"
	case left <= warnBefore:
		text = "Less than a minute left: " + clock(left) + " (answers are kept)"
		s.countdown.Importance = widget.WarningImportance
	}
	s.countdown.SetText(text)
}

// clock writes a duration as m:ss (h:mm:ss from an hour), rounded up to the second.
func clock(d time.Duration) string {
	sec := int((d + time.Second - 1) / time.Second)
	if sec >= 3600 {
		return fmt.Sprintf("%d:%02d:%02d", sec/3600, sec/60%60, sec%60)
	}
	return fmt.Sprintf("%d:%02d", sec/60, sec%60)
}
