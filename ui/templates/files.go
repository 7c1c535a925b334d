package templates

import (
	"errors"
	"fmt"
	"path"
	"path/filepath"
	"strings"

	tpl "github.com/agentdesk/agentdesk/engine/template"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/widget"

	"github.com/agentdesk/agentdesk/engine/atomicfile"
	"github.com/agentdesk/agentdesk/ui/widgets"
	"github.com/agentdesk/agentdesk/ui/workspace"
)

// The folder's files as buffers: selecting one for the editor, saving, and making new
// templates, task files and confs.

// selectFile shows a file in the editor area: the template editor, the config form or the
// task composer.
func (w *Workspace) selectFile(f *tplFile) {
	w.cur = f
	w.ed, w.form, w.comp = nil, nil, nil
	var view fyne.CanvasObject
	switch f.kind {
	case kindTemplate:
		w.ed = newTemplateEditor(w, f)
		view = w.ed.root
	case kindConf:
		w.form = newConfForm(w, f)
		view = w.form.root
	case kindTask:
		w.comp = newTaskComposer(w, f)
		view = w.comp.root
		if w.pv != nil {
			w.pv.selectTask(f.rel)
		}
	}
	w.editorBox.Objects = []fyne.CanvasObject{view}
	w.editorBox.Refresh()
	for i, g := range w.files {
		if g == f {
			w.fileList.Select(i)
		}
	}
}

// edited is called after a buffer changed: it refreshes the file list and the preview.
func (w *Workspace) edited(f *tplFile) {
	if w.fileList != nil {
		w.fileList.Refresh()
	}
	w.schedulePreview()
}

func (w *Workspace) abs(rel string) string { return filepath.Join(w.dir, filepath.FromSlash(rel)) }

// saveFile writes a buffer to its file atomically, in the original format.
func (w *Workspace) saveFile(f *tplFile) error {
	if f == nil || w.dir == "" {
		return nil
	}
	p := w.abs(f.rel)
	if err := atomicfile.Write(p, []byte(f.buf), 0o644); err != nil {
		return fmt.Errorf("save %s: %w", f.rel, err)
	}
	f.saved, f.onDisk = f.buf, true
	w.fileList.Refresh()
	w.setStatus("Saved " + f.rel + ".")
	return nil
}

func (w *Workspace) saveAll() error {
	n := 0
	var errs []error
	for _, f := range w.files {
		if f.dirty() {
			if err := w.saveFile(f); err != nil {
				errs = append(errs, err)
			} else {
				n++
			}
		}
	}
	if len(errs) == 0 {
		w.setStatus(fmt.Sprintf("Saved %s.", widgets.Plural(n, "file")))
	}
	return errors.Join(errs...)
}

// addFile adds a new (unsaved) buffer, or returns the existing file of that path.
func (w *Workspace) addFile(rel string, kind tplKind, text string) *tplFile {
	if f := w.byRel[rel]; f != nil {
		return f
	}
	f := &tplFile{rel: rel, kind: kind, buf: text}
	w.files = append(w.files, f)
	w.byRel[rel] = f
	sortFiles(w.files)
	w.fileList.Refresh()
	return f
}

// validName accepts a file name part the original can use (no separators, no blanks).
func validName(s string) error {
	if s == "" || strings.ContainsAny(s, "/\\ \t\n") || s == "." || s == ".." {
		return fmt.Errorf("%q is not a usable name (no blanks or slashes)", s)
	}
	return nil
}

// newConf creates the config of a template for one step (the original init_conf), unsaved.
func (w *Workspace) newConf(class, step string) (*tplFile, error) {
	if err := validName(step); err != nil {
		return nil, err
	}
	rel := path.Join(w.tasksDir, class+"-"+step+".conf")
	text := ""
	if t := w.byRel[path.Join(w.templatesDir, class+templateSuffix)]; t != nil {
		text = tpl.InitConf(t.buf)
	}
	f := w.addFile(rel, kindConf, text)
	w.selectFile(f)
	w.edited(f)
	return f, nil
}

// newTask creates an empty task file, unsaved.
func (w *Workspace) newTask(name string) (*tplFile, error) {
	name = strings.TrimSuffix(name, ".task")
	if err := validName(name); err != nil {
		return nil, err
	}
	f := w.addFile(path.Join(w.tasksDir, name+".task"), kindTask, "")
	w.selectFile(f)
	w.pv.setTasks()
	w.pv.selectTask(f.rel)
	return f, nil
}

const newTemplateText = `# A Mobile-Env task definition; <identifier> slots are filled from <template>-<step>.conf files.
id: "<lower,url_title:name>"
name: "<name>"
description: "<description>"
max_num_steps: <max_steps>
event_sources: { log_event: { filters: "<log_tag>:I" pattern: "<regex_esc:done_message>" } id: 1 }
event_slots: {
  reward_listener: { type: SINGLE id: 2 events: { id: 1 } transformation: "y = 1" repeatability: NONE }
  episode_end_listener: { events: { id: 1 } transformation: "y = True" }
}
command: "<command>"
vocabulary: <no_quote,to_list:keywords>
`

// newTemplate creates a template with a small skeleton, unsaved.
func (w *Workspace) newTemplate(class string) (*tplFile, error) {
	class = strings.TrimSuffix(class, templateSuffix)
	if err := validName(class); err != nil {
		return nil, err
	}
	if strings.ContainsAny(class, "-.") {
		return nil, fmt.Errorf("a template name cannot contain %q or %q (token configs are named <template>-<step>.conf)", "-", ".")
	}
	f := w.addFile(path.Join(w.templatesDir, class+templateSuffix), kindTemplate, newTemplateText)
	w.selectFile(f)
	return f, nil
}

func (w *Workspace) askName(title, hint string, create func(string) error) {
	if w.host.Window() == nil {
		return
	}
	e := widget.NewEntry()
	e.SetPlaceHolder(hint)
	e.Validator = validName
	workspace.ShowForm(w.host.Window(), title, "Create", []*widget.FormItem{widget.NewFormItem("Name", e)}, func() {
		if err := create(strings.TrimSpace(e.Text)); err != nil {
			w.showError(err)
		}
	})
}

func (w *Workspace) chooseNewTask() {
	w.askName("New task file", "e.g. morning_routine", func(s string) error { _, err := w.newTask(s); return err })
}

func (w *Workspace) chooseNewTemplate() {
	w.askName("New template", "e.g. open_app", func(s string) error { _, err := w.newTemplate(s); return err })
}

// templateFor returns the template file of a class, nil when the folder has none.
func (w *Workspace) templateFor(class string) *tplFile {
	return w.byRel[path.Join(w.templatesDir, class+templateSuffix)]
}
