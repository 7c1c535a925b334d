package evaluation

import (
	"fmt"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/widget"

	ev "github.com/agentdesk/agentdesk/engine/evaluation"
)

// Recruitment through the study link: closing it refuses new ids and lets those in progress
// finish; evicting ends the study link for everyone who came through it, in progress or not.

func recruitHint() *widget.Label {
	l := widget.NewLabel("Unticked, the study link takes no new participant ids; those already in progress finish their work.")
	l.Wrapping = fyne.TextWrapWord
	l.Importance = widget.LowImportance
	return l
}

// setRecruiting stores the study link's recruitment (served or not).
func (t *serveTab) setRecruiting(open bool) {
	if err := t.ws.store.SetEvalRecruiting(t.ws.ctx(), t.op.info.ID, open); err != nil {
		t.ws.showError(fmt.Errorf("recruitment: %w", err))
		return
	}
	if open {
		t.status.SetText("Recruitment is open: the study link takes new participant ids.")
	} else {
		t.status.SetText("Recruitment is closed: the study link takes no new participant ids; those in progress finish.")
	}
}

// confirmEvict asks before evicting, saying what it does.
func (t *serveTab) confirmEvict() {
	win := t.ws.host.Window()
	if win == nil {
		t.evict()
		return
	}
	dialog.ShowConfirm("Evict everyone who came through the study link?",
		"Everyone who came in through the study link loses their session, those in the middle of a unit too: "+
			"the units they hold go back to the pool and their answers on them so far are dropped (the answer log keeps them). "+
			"A new study link replaces the current one. Participants with personal links are not affected.\n\n"+
			"To stop new people only, untick \"Take new participants\" instead.",
		func(ok bool) {
			if ok {
				t.evict()
			}
		}, win)
}

func (t *serveTab) evict() {
	var out ev.Eviction
	var err error
	if s := t.ws.serving; s != nil && s.op.info.ID == t.op.info.ID {
		out, err = s.srv.Evict(t.ws.ctx())
	} else {
		out, err = t.ws.store.EvictEvalStudy(t.ws.ctx(), t.op.info.ID)
	}
	if err != nil {
		t.ws.showError(fmt.Errorf("evicting: %w", err))
		return
	}
	t.refreshState()
	t.status.SetText(fmt.Sprintf("Evicted %d study-link participants; %d units they held went back to the pool. The study link is new.",
		out.Participants, out.Units))
}
