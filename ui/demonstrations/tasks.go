package demonstrations

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"fyne.io/fyne/v2"

	"github.com/agentdesk/agentdesk/engine/samples"
	"github.com/agentdesk/agentdesk/ui/workspace"
)

// taskEdit is editing a demonstration: its frame, the step controls and Save.
const taskEdit = "demonstrations.edit"

// TaskNames implements workspace.Tasks.
func (d *Workspace) TaskNames() []string { return []string{taskEdit} }

// StartTask implements workspace.Tasks: the sample demonstrations file (loading the sample data
// records it among the recent files) is opened at its first trajectory, unless it is open.
func (d *Workspace) StartTask(name string) error {
	if name != taskEdit {
		return fmt.Errorf("Demonstrations has no task %q", name)
	}
	if d.cur != nil && samples.IsDemonstrations(d.path) {
		if d.sel < 0 && len(d.curTraj) > 0 {
			d.trajList.Select(0)
		}
		return nil
	}
	if d.dirty {
		return fmt.Errorf("%s has unsaved edits: save or discard them first", filepath.Base(d.path))
	}
	if path := d.samplePath(); path != "" {
		return d.Open(path, 0)
	}
	return errors.New("the sample demonstrations file is not among the recent files: load the sample data first")
}

// samplePath is the sample demonstrations file when the sample data is loaded (loading it
// records the file among the recent files) and the file is there; "" otherwise.
func (d *Workspace) samplePath() string {
	if d.store == nil {
		return ""
	}
	recent, err := d.store.Recent(context.Background(), 100)
	if err != nil {
		return ""
	}
	for _, f := range recent {
		if f.Kind == "pickle" && samples.IsDemonstrations(f.Path) {
			if _, err := os.Stat(f.Path); err == nil {
				return f.Path
			}
		}
	}
	return ""
}

// TaskView implements workspace.Tasks.
func (d *Workspace) TaskView(name string) (workspace.TaskView, error) {
	if name != taskEdit {
		return workspace.TaskView{}, fmt.Errorf("Demonstrations has no task %q", name)
	}
	if d.cur == nil || d.viewer.Len() == 0 {
		return workspace.TaskView{}, errors.New("no demonstration is on show")
	}
	return workspace.TaskView{Widgets: map[string]fyne.CanvasObject{
		"frame":         d.viewer.FrameArea(),
		"step-controls": d.viewer.StepControls(),
		"save":          d.buttons["save"],
	}}, nil
}

var _ workspace.Tasks = (*Workspace)(nil)
