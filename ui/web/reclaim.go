package web

import (
	"context"
	"encoding/json"
	"time"

	ev "github.com/agentdesk/agentdesk/engine/evaluation"
)

// Reclaiming: a unit whose page time limit passed goes back to the pool on the server's own
// clock, whether or not its participant is still there, so that a participant who left (or a
// script that took units) does not keep work from the next one. A participant still on the
// page sees "Timed out" at once (their page asks every few seconds); one who left is told when
// they come back.

// defaultReclaimEvery is how often the server looks: a held unit is back in the pool at most
// this long after its limit passed.
const defaultReclaimEvery = 10 * time.Second

func (s *Server) reclaimLoop(every time.Duration) {
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-s.ctx.Done():
			return
		case <-t.C:
		}
		if _, err := s.Reclaim(s.ctx); err != nil && s.ctx.Err() == nil {
			s.opts.Logf("agentdesk eval serve: giving back units past their time limit: %v", err)
		}
	}
}

// Reclaim gives back every held unit whose time limit passed and returns how many it gave
// back: those of sessions on this server (their page then says they timed out), and those
// held by participants who came in through a link and are not here (a server restarted since,
// say). Units of the desk's annotators are theirs to give back.
func (s *Server) Reclaim(ctx context.Context) (int, error) {
	s.mu.Lock()
	people := make([]*participant, 0, len(s.people))
	for _, p := range s.people {
		people = append(people, p)
	}
	s.mu.Unlock()
	n := 0
	here := map[string]bool{}
	for _, p := range people {
		p.mu.Lock()
		expired := false
		if p.sess != nil {
			here[p.name] = true
			var err error
			if expired, err = p.sess.Expire(ctx); expired {
				n++
				p.version++
				if err != nil {
					p.err = err.Error()
				}
			}
		}
		p.mu.Unlock()
		if expired {
			s.changed()
		}
	}
	units, err := s.opts.Store.EvalAssignedUnits(ctx, s.opts.Project.ID)
	if err != nil {
		return n, err
	}
	settings := s.opts.Project.Def().Settings
	now := s.opts.Now()
	for _, u := range units {
		if here[u.Participant] || (u.Kind != ev.UnitTask && u.Kind != ev.UnitGold) {
			continue
		}
		due := heldDeadline(u, settings)
		if due.IsZero() || !now.After(due) {
			continue
		}
		link, err := s.opts.Store.EvalLink(ctx, s.opts.Project.ID, u.Participant)
		if err != nil {
			return n, err
		}
		if link.Browser == "" {
			continue // not a participant of the served study (the desk's, say)
		}
		if err := s.opts.Store.EvalReturnUnit(ctx, u.ID); err != nil {
			return n, err
		}
		n++
		s.mu.Lock()
		s.reclaimed[u.Participant] = true
		s.mu.Unlock()
	}
	return n, nil
}

// heldDeadline is when a held unit's page on show is due, from its saved answer state: the
// page limit after its last finished page, or after it started (zero: no limit).
func heldDeadline(u ev.UnitRecord, st ev.Settings) time.Time {
	prev := u.AssignedAt
	if len(u.State) > 0 {
		as := ev.NewAnswerState("")
		if json.Unmarshal(u.State, as) == nil {
			if t := as.LastPageEnd(); !t.IsZero() {
				prev = t
			} else if t := as.Started(); !t.IsZero() {
				prev = t
			}
		}
	}
	return ev.PageDeadline(prev, st)
}
