package explorer

import (
	"context"
	"errors"
	"fmt"

	"fyne.io/fyne/v2"

	"github.com/agentdesk/agentdesk/engine/episode"
	"github.com/agentdesk/agentdesk/engine/samples"
	"github.com/agentdesk/agentdesk/ui/workspace"
)

// taskEpisode is stepping through an episode's frames: the frame and its step controls.
const taskEpisode = "explorer.episode"

// TaskNames implements workspace.Tasks.
func (x *Workspace) TaskNames() []string { return []string{taskEpisode} }

// StartTask implements workspace.Tasks: the first sample episode is opened in the Episodes tab,
// listed (the filters are cleared) and selected.
func (x *Workspace) StartTask(name string) error {
	if name != taskEpisode {
		return fmt.Errorf("the Explorer has no task %q", name)
	}
	if x.st == nil {
		return errors.New("no store is open")
	}
	key := episode.Key{Source: episode.SourceOdyssey, ExternalID: samples.OdysseyEpisode(1)}
	id, err := x.st.EpisodeID(context.Background(), key)
	if err != nil {
		return fmt.Errorf("the sample episode %s/%s: %w (load the sample data first)", key.Source, key.ExternalID, err)
	}
	rows, err := x.st.EpisodeRows(context.Background(), []int64{id}, "")
	if err != nil || len(rows) == 0 {
		return fmt.Errorf("the sample episode %s/%s cannot be read: %v", key.Source, key.ExternalID, err)
	}
	x.tabs.SelectIndex(0)
	if !x.filter.IsZero() {
		x.setFilter(episode.Filter{})
	}
	if !x.detail.showing(id) {
		x.detail.open(rows[0])
	}
	x.followSelection()
	return nil
}

// TaskView implements workspace.Tasks.
func (x *Workspace) TaskView(name string) (workspace.TaskView, error) {
	if name != taskEpisode {
		return workspace.TaskView{}, fmt.Errorf("the Explorer has no task %q", name)
	}
	if x.detail == nil || x.detail.ep == nil {
		return workspace.TaskView{}, errors.New("no episode is on show")
	}
	v := x.detail.viewer
	return workspace.TaskView{Widgets: map[string]fyne.CanvasObject{
		"frame":         v.FrameArea(),
		"step-controls": v.StepControls(),
	}}, nil
}

var _ workspace.Tasks = (*Workspace)(nil)
