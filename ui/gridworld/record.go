package gridworld

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/agentdesk/agentdesk/ui/widgets"
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

// UnsavedWork implements workspace.Unsaved: a recording in progress not stored yet.
func (g *Workspace) UnsavedWork() string {
	if g.rec == nil || g.rec.Len() == 0 || !g.recording || g.store == nil {
		return ""
	}
	return fmt.Sprintf("The recording of %s on %s is not stored yet", widgets.Plural(g.rec.Len(), "step"), g.taskName)
}

// SaveWork implements workspace.Unsaved: the recording is stored now.
func (g *Workspace) SaveWork() error {
	g.saveRecordingNow()
	if strings.HasPrefix(g.status.Text, "Saving the recording failed") {
		return errors.New(strings.TrimPrefix(g.status.Text, "Saving the recording failed: "))
	}
	return nil
}

// DiscardWork implements workspace.Unsaved: the recording is dropped.
func (g *Workspace) DiscardWork() { g.rec = nil }
