package web

import (
	"context"
	"net/http"
	"net/url"
	"strings"

	ev "github.com/agentdesk/agentdesk/engine/evaluation"
	"github.com/agentdesk/agentdesk/engine/evaluation/session"
)

// Crowd-site basics of the served study: the sites' ids are kept when a participant comes in,
// the completion page shows the participant's own completion code (beside the project's
// static code when it has one) and, for MTurk, the form that submits the assignment; a
// participant who failed screening sees the project's screen-out code and link.

// crowdStore is what keeping the sites' ids needs of the store (the app's store has it; a
// store without it keeps none).
type crowdStore interface {
	RecordEvalCrowd(ctx context.Context, participantID int64, c ev.CrowdIDs) error
	EvalCrowdIDsOf(ctx context.Context, participantID int64) ([]ev.CrowdIDs, error)
}

// noteCrowd keeps the sites' ids the link's query carries for the participant. A failure is
// logged: it does not stop the participant.
func (s *Server) noteCrowd(ctx context.Context, p *participant, q url.Values) {
	c := ev.CrowdIDsOf(q)
	cs, ok := s.opts.Store.(crowdStore)
	if c.Empty() || !ok {
		return
	}
	p.mu.Lock()
	var id int64
	if p.sess != nil {
		id = p.sess.Participant().ID
	}
	p.mu.Unlock()
	if id == 0 {
		return
	}
	if err := cs.RecordEvalCrowd(ctx, id, c); err != nil {
		s.opts.Logf("agentdesk eval serve: %s: keeping the site's ids: %v", p.name, err)
	}
}

// mturkSubmit is the completion page's form that submits an MTurk assignment.
type mturkSubmit struct {
	Origin, Action, AssignmentID, Code string
}

// endScreen fills the message that ends a participant's work: the completion (codes, link,
// MTurk's submit) for one who did some work and has no more, the screen-out code and link for
// one who failed screening or is not eligible. done is the participant's units done.
func (s *Server) endScreen(ctx context.Context, p *participant, v session.View, done int, m *messageData) {
	st := s.opts.Project.Def().Settings
	switch v.Refusal {
	case ev.RefuseNoMoreWork, ev.RefuseMaxUnits:
		if done > 0 { // the codes are for those who did some work
			m.Done, m.Code, m.URL = true, st.CompletionCode, st.CompletionURL
			own := ev.CompletionCode(s.sign.secret, s.opts.Project.ID, p.sess.Participant().Name)
			if m.Code == "" {
				m.Code = own
			} else {
				m.PersonalCode = own
			}
			m.MTurk = s.mturkForm(ctx, p, own)
		}
		if m.Title == "" {
			m.Title = "Thank you"
		}
		return
	}
	if v.Refusal == ev.RefuseNotEligible || s.screenedOut(ctx, p) {
		m.ScreenOut, m.Code, m.URL = true, st.ScreenOutCode, st.ScreenOutURL
	}
}

// screenedOut reports whether the participant holds the project's block qualification
// (failed screening).
func (s *Server) screenedOut(ctx context.Context, p *participant) bool {
	sum, err := s.opts.Store.EvalParticipant(ctx, s.opts.Project.ID, p.sess.Participant().ID)
	return err == nil && sum.Qualifications[s.opts.Project.BlockName()] > 0
}

// mturkForm is the MTurk submit form for the participant's latest assignment that came with
// MTurk's own turkSubmitTo, nil when there is none.
func (s *Server) mturkForm(ctx context.Context, p *participant, code string) *mturkSubmit {
	cs, ok := s.opts.Store.(crowdStore)
	if !ok {
		return nil
	}
	ids, err := cs.EvalCrowdIDsOf(ctx, p.sess.Participant().ID)
	if err != nil {
		s.opts.Logf("agentdesk eval serve: %s: reading the site's ids: %v", p.name, err)
		return nil
	}
	for i := len(ids) - 1; i >= 0; i-- {
		c := ids[i]
		if origin, ok := ev.MTurkSubmitOrigin(c.SubmitTo); ok && c.AssignmentID != "" {
			return &mturkSubmit{Origin: origin, Action: ev.MTurkSubmitURL(origin), AssignmentID: c.AssignmentID, Code: code}
		}
	}
	return nil
}

// crowdPage prepares a page holding an MTurk submit form: a whole page's policy lets its forms
// post to that MTurk origin (and no other); a fragment asks the page's script to load the
// whole page again, since the policy of the page it is shown in is the one that applies.
func crowdPage(w http.ResponseWriter, d *pageData, fragment bool) {
	if d.Message == nil || d.Message.MTurk == nil {
		return
	}
	if fragment {
		d.Reload = true
		return
	}
	h := w.Header()
	if csp := h.Get("Content-Security-Policy"); strings.Contains(csp, "form-action 'self'") {
		h.Set("Content-Security-Policy", strings.Replace(csp, "form-action 'self'", "form-action 'self' "+d.Message.MTurk.Origin, 1))
	}
}
