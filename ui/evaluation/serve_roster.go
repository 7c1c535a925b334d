package evaluation

import (
	"context"
	"fmt"
	"time"

	"github.com/agentdesk/agentdesk/ui/web"
	"github.com/agentdesk/agentdesk/ui/widgets"
)

// The Serve tab's roster: who came in since the study started, whether their browser is still
// there, where they are, their screening and units done; read off the UI goroutine on every
// change and each second.

// watchRoster reads the roster off the UI goroutine whenever a participant's page changes,
// and every second (connections come and go), and shows it.
func (t *serveTab) watchRoster(ctx context.Context, s *serving) {
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-s.changed:
		case <-tick.C:
		}
		roster, err := s.srv.Roster(ctx)
		if err != nil {
			continue
		}
		t.onUI(func() {
			if t.ws.serving != s {
				return
			}
			t.roster = roster
			t.rosterNote.SetText(rosterSummary(roster))
			showEmpty(t.rosterBody, t.rosterEmpty, len(roster) == 0)
			t.rosterTbl.Refresh()
		})
	}
}

func rosterSummary(r []web.RosterEntry) string {
	if len(r) == 0 {
		return "Nobody has opened a link yet."
	}
	connected := 0
	for _, e := range r {
		if e.Connected {
			connected++
		}
	}
	return fmt.Sprintf("%s since the study started, %d connected now.", widgets.Plural(len(r), "participant"), connected)
}

func (t *serveTab) rosterCell(row, col int) string {
	if row == 0 {
		return rosterColumns[col].Title
	}
	if row-1 >= len(t.roster) {
		return ""
	}
	e := t.roster[row-1]
	switch col {
	case 0:
		return e.Name
	case 1:
		if e.Connected {
			return "yes"
		}
		return "no"
	case 2:
		where := e.Where
		if e.Unit != 0 && where != "finished" && where != "blocked" {
			where = fmt.Sprintf("unit %d, %s", e.Unit, where)
		}
		if e.Error != "" {
			where += " (problem: " + e.Error + ")"
		}
		if e.Conflict != "" {
			where += " (" + e.Conflict + ")"
		}
		return where
	case 3:
		return e.Screening
	case 4:
		return fmt.Sprint(e.Done)
	case 5:
		return e.Via
	case 6:
		return e.LastSeen.Format("15:04:05")
	}
	return ""
}
