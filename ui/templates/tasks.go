package templates

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"fyne.io/fyne/v2"

	"github.com/agentdesk/agentdesk/engine/samples"
	"github.com/agentdesk/agentdesk/ui/workspace"
)

// taskEdit is the Templates workspace's main task: editing a template with its live preview.
const taskEdit = "templates.edit"

// TaskNames implements workspace.Tasks.
func (w *Workspace) TaskNames() []string { return []string{taskEdit} }

// StartTask implements workspace.Tasks: templates.edit opens the sample template folder (the
// first remembered folder when there is no sample) with a template in the editor.
func (w *Workspace) StartTask(name string) error {
	if name != taskEdit {
		return fmt.Errorf("the Templates workspace has no task %q", name)
	}
	dir := w.sampleFolder()
	if dir == "" {
		return fmt.Errorf("no template folder was opened yet: load the sample data first")
	}
	if w.dir != dir {
		if err := w.openFolder(dir); err != nil {
			return err
		}
	}
	if w.ed == nil {
		for _, f := range w.files {
			if f.kind == kindTemplate {
				w.selectFile(f)
				break
			}
		}
	}
	if w.ed == nil {
		return fmt.Errorf("%s holds no template", dir)
	}
	return nil
}

// sampleFolder is the sample template folder among the remembered ones, else the first of
// them ("" when none). The list is read from the store when it has not arrived yet.
func (w *Workspace) sampleFolder() string {
	list := w.recent
	if len(list) == 0 && w.store != nil {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if rf, err := w.store.TemplateFolders(ctx); err == nil {
			for _, f := range rf {
				list = append(list, f.Path)
			}
		}
	}
	for _, p := range list {
		if strings.HasPrefix(filepath.Base(p), samples.Marker) {
			return p
		}
	}
	if len(list) > 0 {
		return list[0]
	}
	return ""
}

// TaskView implements workspace.Tasks: the template editor and the preview.
func (w *Workspace) TaskView(name string) (workspace.TaskView, error) {
	if name != taskEdit {
		return workspace.TaskView{}, fmt.Errorf("the Templates workspace has no task %q", name)
	}
	if w.ed == nil || w.pv == nil {
		return workspace.TaskView{}, fmt.Errorf("no template is open")
	}
	return workspace.TaskView{Widgets: map[string]fyne.CanvasObject{"editor": w.ed.code, "preview": w.pv.body}}, nil
}

var _ workspace.Tasks = (*Workspace)(nil)
