package gridworld

import (
	"context"
	"fmt"

	"github.com/agentdesk/agentdesk/ui/workspace"
)

// Recording: a played episode is stored when it ends, is reset, or the workspace closes.

// saveRecording stores the episode played so far, if recording and anything was played.
func (g *Workspace) saveRecording() { g.save(false) }

// saveRecordingNow is saveRecording waiting for the store, for shutting down.
func (g *Workspace) saveRecordingNow() { g.save(true) }

func (g *Workspace) save(wait bool) {
	if g.rec == nil || g.rec.Len() == 0 || !g.recording {
		return
	}
	ep := g.rec.Episode()
	g.rec = nil
	st := g.store
	if st == nil {
		g.setStatus("Not saved: no store is open.")
		return
	}
	saved := func(_ struct{}, err error) {
		if err != nil {
			g.setStatus("Saving the recording failed: " + err.Error())
			return
		}
		g.setStatus(fmt.Sprintf("Saved %d steps as %s/%s.", len(ep.Steps), ep.Source, ep.ExternalID))
	}
	if wait {
		saved(struct{}{}, st.SaveEpisode(context.Background(), ep))
		return
	}
	workspace.Start(g.host, nil, func(ctx context.Context) (struct{}, error) {
		return struct{}{}, st.SaveEpisode(ctx, ep)
	}, saved)
}
