package gridworld

import (
	"fmt"

	"fyne.io/fyne/v2"

	"github.com/agentdesk/agentdesk/ui/workspace"
)

// The Gridworld's task for the UI tour: playing, with the 3D view and the reward overlay in view.

const taskPlay = "gridworld.play"

// TaskNames implements workspace.Tasks.
func (g *Workspace) TaskNames() []string { return []string{taskPlay} }

// StartTask shows the play view: it leaves a replay, starts a play session when there is none,
// and gives the view the keyboard.
func (g *Workspace) StartTask(name string) error {
	if name != taskPlay {
		return fmt.Errorf("gridworld: no task %q", name)
	}
	if g.replay != nil {
		g.exitReplay()
	}
	if g.env == nil {
		g.reset()
		if g.env == nil {
			return fmt.Errorf("gridworld: cannot start playing: %s", g.status.Text)
		}
	}
	g.view.focus()
	return nil
}

// TaskView implements workspace.Tasks: "view" is the 3D view, "reward-overlay" the panel with
// the total reward, the step and the reward flash.
func (g *Workspace) TaskView(name string) (workspace.TaskView, error) {
	if name != taskPlay {
		return workspace.TaskView{}, fmt.Errorf("gridworld: no task %q", name)
	}
	return workspace.TaskView{Widgets: map[string]fyne.CanvasObject{"view": g.view, "reward-overlay": g.rewardPanel}}, nil
}

var _ workspace.Tasks = (*Workspace)(nil)
