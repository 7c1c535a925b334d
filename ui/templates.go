package ui

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/agentdesk/agentdesk/engine/atomicfile"
	"github.com/agentdesk/agentdesk/engine/limits"
	tpl "github.com/agentdesk/agentdesk/engine/template"
)

// The Templates workspace edits a folder of Mobile-Env task-definition templates in the
// original formats: `<class>.textproto.template` files, `<class>-<step>.conf` token configs
// and `.task` lists. Every file is held in an in-memory buffer; the live preview instantiates
// the selected task over the buffers (saved or not), and saving writes one file atomically.

// templateFolderKind is the recent-files kind of a template folder (store.TemplateFolderKind).
const templateFolderKind = "template-folder"

// previewDelay is how long the preview waits after a keystroke before it recomputes.
const previewDelay = 50 * time.Millisecond

type tplKind int

const (
	kindTemplate tplKind = iota
	kindTask
	kindConf
)

const templateSuffix = ".textproto.template"

func kindOf(name string) (tplKind, bool) {
	switch {
	case strings.HasSuffix(name, templateSuffix):
		return kindTemplate, true
	case strings.HasSuffix(name, ".task"):
		return kindTask, true
	case strings.HasSuffix(name, ".conf"):
		return kindConf, true
	}
	return 0, false
}

// tplFile is one file of the open folder and its editor buffer.
type tplFile struct {
	rel    string // slash-separated, relative to the folder
	kind   tplKind
	saved  string // the content on disk
	onDisk bool
	buf    string
}

func (f *tplFile) dirty() bool { return !f.onDisk || f.buf != f.saved }

// templatesWS is the Templates workspace of one shell; it survives screen changes.
type templatesWS struct {
	shell *Shell
	dir   string // absolute folder path, "" when none is open
	files []*tplFile
	byRel map[string]*tplFile
	// templatesDir and tasksDir are the folders (relative, slash-separated, "." for the root)
	// holding the templates and the task files with their confs.
	templatesDir, tasksDir string
	cur                    *tplFile

	root        *fyne.Container
	status      *widget.Label
	folderLabel *widget.Label
	recent      []string
	recentBox   *fyne.Container
	recentSel   *widget.Select
	fileList    *widget.List
	editorBox   *fyne.Container

	ed   *templateEditor
	form *confForm
	comp *taskComposer
	pv   *previewPanel

	// debounce runs f after the preview delay (replacing a pending call); tests make it
	// synchronous.
	debounce func(f func())
	timer    *time.Timer
	gen      int
}

func templatesView(s *Shell) fyne.CanvasObject {
	w := s.templates
	if w == nil {
		w = newTemplatesWS(s)
		s.templates = w
	}
	w.loadRecent()
	return w.root
}

func newTemplatesWS(s *Shell) *templatesWS {
	w := &templatesWS{shell: s, byRel: map[string]*tplFile{}, status: widget.NewLabel(""),
		folderLabel: widget.NewLabelWithStyle("", fyne.TextAlignLeading, fyne.TextStyle{Bold: true}),
		recentBox:   container.NewVBox()}
	w.debounce = w.timerDebounce
	w.status.Wrapping = fyne.TextWrapWord
	w.folderLabel.Truncation = fyne.TextTruncateEllipsis
	w.recentSel = widget.NewSelect(nil, func(p string) {
		if p != "" && p != w.dir {
			w.open(p)
		}
	})
	w.recentSel.PlaceHolder = "Recent folders"
	w.root = container.NewStack(w.emptyView())
	return w
}

func (w *templatesWS) timerDebounce(f func()) {
	if w.timer != nil {
		w.timer.Stop()
	}
	w.timer = time.AfterFunc(previewDelay, f)
}

func (w *templatesWS) setStatus(msg string) { w.status.SetText(msg) }

func (w *templatesWS) showError(err error) {
	w.setStatus(err.Error())
	if w.shell.win != nil {
		dialog.ShowError(err, w.shell.win)
	}
}

// emptyView is shown until a folder is open.
func (w *templatesWS) emptyView() fyne.CanvasObject {
	intro := widget.NewLabel("Open a folder of Mobile-Env task-definition templates (<step>.textproto.template), " +
		"token configs (<template>-<step>.conf) and task files (.task) to use the template editor, the config form, " +
		"the task composer and the live preview. Files stay in the original formats, so the Python toolkit can share the folder.")
	intro.Wrapping = fyne.TextWrapWord
	buttons := container.NewHBox(
		widget.NewButtonWithIcon("Open folder…", theme.FolderOpenIcon(), w.chooseFolder),
		widget.NewButtonWithIcon("Start from examples…", theme.ContentCopyIcon(), w.chooseExamplesTarget))
	return container.NewVBox(intro, buttons, w.status, widget.NewCard("Recent folders", "", w.recentBox))
}

// workspaceView is the open folder: files, editor and preview.
func (w *templatesWS) workspaceView() fyne.CanvasObject {
	w.fileList = widget.NewList(
		func() int { return len(w.files) },
		func() fyne.CanvasObject {
			l := widget.NewLabel("templates/settings_toggle.textproto.template")
			l.Truncation = fyne.TextTruncateEllipsis
			return container.NewBorder(nil, nil, widget.NewIcon(theme.FileIcon()), nil, l)
		},
		func(id widget.ListItemID, o fyne.CanvasObject) {
			if id >= len(w.files) {
				return
			}
			f := w.files[id]
			c := o.(*fyne.Container)
			c.Objects[0].(*widget.Label).SetText(w.fileLabel(f))
			icon := theme.FileTextIcon()
			switch f.kind {
			case kindTemplate:
				icon = theme.DocumentIcon()
			case kindTask:
				icon = theme.ListIcon()
			}
			c.Objects[1].(*widget.Icon).SetResource(icon)
		})
	w.fileList.OnSelected = func(id widget.ListItemID) {
		if id < len(w.files) && w.files[id] != w.cur {
			w.selectFile(w.files[id])
		}
	}
	newMenu := container.NewGridWithColumns(2,
		widget.NewButtonWithIcon("Task…", theme.ContentAddIcon(), w.chooseNewTask),
		widget.NewButtonWithIcon("Template…", theme.ContentAddIcon(), w.chooseNewTemplate))
	files := container.NewBorder(widget.NewLabelWithStyle("Files", fyne.TextAlignLeading, fyne.TextStyle{Bold: true}),
		newMenu, nil, nil, w.fileList)

	w.editorBox = container.NewStack()
	w.pv = newPreviewPanel(w)
	inner := container.NewHSplit(w.editorBox, w.pv.root)
	inner.Offset = 0.58
	split := container.NewHSplit(files, inner)
	split.Offset = 0.17

	toolbar := container.NewHBox(
		widget.NewButtonWithIcon("Open folder…", theme.FolderOpenIcon(), w.chooseFolder),
		widget.NewButtonWithIcon("Start from examples…", theme.ContentCopyIcon(), w.chooseExamplesTarget),
		w.recentSel,
		widget.NewButtonWithIcon("Reload", theme.ViewRefreshIcon(), func() {
			if err := w.reload(); err != nil {
				w.showError(err)
			}
		}),
		widget.NewButtonWithIcon("Save", theme.DocumentSaveIcon(), func() {
			if err := w.saveFile(w.cur); err != nil {
				w.showError(err)
			}
		}),
		widget.NewButton("Save all", func() {
			if err := w.saveAll(); err != nil {
				w.showError(err)
			}
		}))
	top := container.NewVBox(container.NewBorder(nil, nil, toolbar, nil, w.folderLabel), w.status)
	return container.NewBorder(top, nil, nil, nil, split)
}

// fileLabel names a file in the list: its base name in the templates and tasks folders, its
// path elsewhere, with a dot when it has unsaved changes.
func (w *templatesWS) fileLabel(f *tplFile) string {
	name := f.rel
	if d := path.Dir(f.rel); d == w.templatesDir || d == w.tasksDir {
		name = path.Base(f.rel)
	}
	if f.dirty() {
		return "● " + name
	}
	return name
}

// --- folders -----------------------------------------------------------------------------

func (w *templatesWS) chooseFolder() {
	if w.shell.win == nil {
		return
	}
	dialog.ShowFolderOpen(func(l fyne.ListableURI, err error) {
		if err != nil || l == nil {
			return
		}
		w.open(l.Path())
	}, w.shell.win)
}

func (w *templatesWS) chooseExamplesTarget() {
	if w.shell.win == nil {
		return
	}
	dialog.ShowFolderOpen(func(l fyne.ListableURI, err error) {
		if err != nil || l == nil {
			return
		}
		if err := w.startFromExamples(l.Path()); err != nil {
			w.showError(err)
		}
	}, w.shell.win)
}

// open opens a folder and reports a failure to the user.
func (w *templatesWS) open(dir string) {
	if err := w.openFolder(dir); err != nil {
		w.showError(err)
	}
}

// startFromExamples copies the bundled example set into dir (files already there are kept)
// and opens it.
func (w *templatesWS) startFromExamples(dir string) error {
	n, kept, err := copyExamples(dir)
	if err != nil {
		return err
	}
	if err := w.openFolder(dir); err != nil {
		return err
	}
	msg := w.status.Text + fmt.Sprintf(" Copied %s of the example set into %s.", plural(n, "file"), dir)
	if kept > 0 {
		msg += fmt.Sprintf(" %s already there %s kept as they were.", plural(kept, "file"), map[bool]string{true: "was", false: "were"}[kept == 1])
	}
	w.setStatus(msg)
	return nil
}

func copyExamples(dir string) (copied, kept int, err error) {
	ex := tpl.Examples()
	err = fs.WalkDir(ex, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := fs.ReadFile(ex, p)
		if err != nil {
			return err
		}
		dst := filepath.Join(dir, filepath.FromSlash(p))
		if _, err := os.Stat(dst); err == nil {
			kept++
			return nil
		}
		if err := atomicfile.Write(dst, data, 0o644); err != nil {
			return err
		}
		copied++
		return nil
	})
	return copied, kept, err
}

// openFolder reads every template, conf and task file of dir (and of its sub-folders, two
// levels deep) into buffers and shows the workspace.
func (w *templatesWS) openFolder(dir string) error {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return err
	}
	if st, err := os.Stat(abs); err != nil {
		return fmt.Errorf("cannot open the template folder: %w", err)
	} else if !st.IsDir() {
		return fmt.Errorf("%s is not a folder", abs)
	}
	files, err := scanTemplateFolder(abs)
	if err != nil {
		return err
	}
	w.dir = abs
	w.files = files
	w.byRel = map[string]*tplFile{}
	for _, f := range files {
		w.byRel[f.rel] = f
	}
	w.templatesDir, w.tasksDir = layoutDirs(abs, files)
	w.cur = nil
	w.root.Objects = []fyne.CanvasObject{w.workspaceView()}
	w.root.Refresh()
	w.folderLabel.SetText(abs)
	counts := map[tplKind]int{}
	for _, f := range files {
		counts[f.kind]++
	}
	w.setStatus(fmt.Sprintf("%s, %s, %s.", plural(counts[kindTemplate], "template"),
		plural(counts[kindConf], "token config"), plural(counts[kindTask], "task file")))
	w.remember(abs)
	// Show the first template in the editor and the first task in the preview.
	for _, f := range w.files {
		if f.kind == kindTemplate {
			w.selectFile(f)
			break
		}
	}
	if w.cur == nil && len(w.files) > 0 {
		w.selectFile(w.files[0])
	}
	w.pv.setTasks()
	return nil
}

func scanTemplateFolder(root string) ([]*tplFile, error) {
	var files []*tplFile
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == root {
				return err
			}
			return nil // an unreadable sub-folder is skipped
		}
		rel, _ := filepath.Rel(root, p)
		if d.IsDir() {
			if p != root && (strings.HasPrefix(d.Name(), ".") || strings.Count(filepath.ToSlash(rel), "/") >= 2) {
				return filepath.SkipDir
			}
			return nil
		}
		kind, ok := kindOf(d.Name())
		if !ok || len(files) >= 5000 {
			return nil
		}
		data, err := limits.ReadFile(p, limits.TaskDefinition)
		if err != nil {
			return nil
		}
		files = append(files, &tplFile{rel: filepath.ToSlash(rel), kind: kind, saved: string(data), buf: string(data), onDisk: true})
		return nil
	})
	sortFiles(files)
	return files, err
}

func sortFiles(files []*tplFile) {
	sort.SliceStable(files, func(i, j int) bool {
		if files[i].kind != files[j].kind {
			return files[i].kind < files[j].kind
		}
		return files[i].rel < files[j].rel
	})
}

// layoutDirs finds the templates folder (where the templates are, preferring one named
// "templates") and the tasks folder (where the .task files, else the confs, are).
func layoutDirs(root string, files []*tplFile) (templatesDir, tasksDir string) {
	pick := func(kind tplKind, prefer string) string {
		found := ""
		for _, f := range files {
			if f.kind == kind {
				d := path.Dir(f.rel)
				if path.Base(d) == prefer {
					return d
				}
				if found == "" {
					found = d
				}
			}
		}
		return found
	}
	templatesDir = pick(kindTemplate, "templates")
	if templatesDir == "" {
		templatesDir = "."
		if st, err := os.Stat(filepath.Join(root, "templates")); err == nil && st.IsDir() {
			templatesDir = "templates"
		}
	}
	if tasksDir = pick(kindTask, "tasks"); tasksDir == "" {
		if tasksDir = pick(kindConf, "tasks"); tasksDir == "" {
			tasksDir = "."
			if st, err := os.Stat(filepath.Join(root, "tasks")); err == nil && st.IsDir() {
				tasksDir = "tasks"
			}
		}
	}
	return templatesDir, tasksDir
}

// reload reads the folder again (after the Python toolkit changed it); unsaved buffers are kept.
func (w *templatesWS) reload() error {
	if w.dir == "" {
		return nil
	}
	files, err := scanTemplateFolder(w.dir)
	if err != nil {
		return err
	}
	seen := map[string]bool{}
	kept := 0
	for _, nf := range files {
		seen[nf.rel] = true
		if old := w.byRel[nf.rel]; old != nil {
			if old.dirty() && old.onDisk {
				kept++
				old.saved = nf.saved
				continue
			}
			old.saved, old.buf, old.onDisk = nf.saved, nf.saved, true
			continue
		}
		w.files = append(w.files, nf)
		w.byRel[nf.rel] = nf
	}
	var out []*tplFile
	for _, f := range w.files {
		if seen[f.rel] || !f.onDisk {
			out = append(out, f)
		} else {
			delete(w.byRel, f.rel)
		}
	}
	w.files = out
	sortFiles(w.files)
	if w.cur != nil && w.byRel[w.cur.rel] == nil {
		w.cur = nil
	}
	cur := w.cur
	w.cur = nil
	if cur != nil {
		w.selectFile(cur)
	} else if len(w.files) > 0 {
		w.selectFile(w.files[0])
	}
	w.fileList.Refresh()
	w.pv.setTasks()
	msg := "Reloaded " + w.dir + "."
	if kept > 0 {
		msg += fmt.Sprintf(" %s with unsaved changes kept.", plural(kept, "file"))
	}
	w.setStatus(msg)
	return nil
}

func (w *templatesWS) remember(dir string) {
	ts := w.shell.deps.Store
	if ts == nil {
		w.addRecent(dir)
		return
	}
	w.shell.deps.Run(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		err := ts.AddTemplateFolder(ctx, dir, filepath.Base(dir))
		fyne.Do(func() {
			if err != nil {
				w.setStatus("Could not remember the folder in the store: " + err.Error())
			}
			w.loadRecent()
		})
	})
}

func (w *templatesWS) addRecent(dir string) {
	list := []string{dir}
	for _, p := range w.recent {
		if p != dir && len(list) < 10 {
			list = append(list, p)
		}
	}
	w.showRecent(list)
}

// loadRecent reads the remembered folders from the store.
func (w *templatesWS) loadRecent() {
	ts := w.shell.deps.Store
	if ts == nil {
		w.showRecent(w.recent)
		return
	}
	w.shell.deps.Run(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		rf, err := ts.TemplateFolders(ctx)
		var list []string
		for _, f := range rf {
			list = append(list, f.Path)
		}
		fyne.Do(func() {
			if err != nil {
				w.setStatus("Cannot read the recent folders: " + err.Error())
				return
			}
			w.showRecent(list)
		})
	})
}

func (w *templatesWS) showRecent(list []string) {
	w.recent = list
	w.recentSel.SetOptions(list)
	w.recentSel.ClearSelected()
	w.recentBox.Objects = nil
	for _, p := range list {
		p := p
		b := widget.NewButtonWithIcon(p, theme.FolderIcon(), func() { w.open(p) })
		b.Alignment = widget.ButtonAlignLeading
		w.recentBox.Add(b)
	}
	if len(list) == 0 {
		w.recentBox.Add(widget.NewLabel("No template folder opened yet."))
	}
	w.recentBox.Refresh()
}

// --- files -------------------------------------------------------------------------------

// selectFile shows a file in the editor area: the template editor, the config form or the
// task composer.
func (w *templatesWS) selectFile(f *tplFile) {
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
func (w *templatesWS) edited(f *tplFile) {
	if w.fileList != nil {
		w.fileList.Refresh()
	}
	w.schedulePreview()
}

func (w *templatesWS) abs(rel string) string { return filepath.Join(w.dir, filepath.FromSlash(rel)) }

// saveFile writes a buffer to its file atomically, in the original format.
func (w *templatesWS) saveFile(f *tplFile) error {
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

func (w *templatesWS) saveAll() error {
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
		w.setStatus(fmt.Sprintf("Saved %s.", plural(n, "file")))
	}
	return errors.Join(errs...)
}

// addFile adds a new (unsaved) buffer, or returns the existing file of that path.
func (w *templatesWS) addFile(rel string, kind tplKind, text string) *tplFile {
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
func (w *templatesWS) newConf(class, step string) (*tplFile, error) {
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
func (w *templatesWS) newTask(name string) (*tplFile, error) {
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
func (w *templatesWS) newTemplate(class string) (*tplFile, error) {
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

func (w *templatesWS) askName(title, hint string, create func(string) error) {
	if w.shell.win == nil {
		return
	}
	e := widget.NewEntry()
	e.SetPlaceHolder(hint)
	dialog.ShowForm(title, "Create", "Cancel", []*widget.FormItem{widget.NewFormItem("Name", e)}, func(ok bool) {
		if ok {
			if err := create(strings.TrimSpace(e.Text)); err != nil {
				w.showError(err)
			}
		}
	}, w.shell.win)
}

func (w *templatesWS) chooseNewTask() {
	w.askName("New task file", "e.g. morning_routine", func(s string) error { _, err := w.newTask(s); return err })
}

func (w *templatesWS) chooseNewTemplate() {
	w.askName("New template", "e.g. open_app", func(s string) error { _, err := w.newTemplate(s); return err })
}

// templateFor returns the template file of a class, nil when the folder has none.
func (w *templatesWS) templateFor(class string) *tplFile {
	return w.byRel[path.Join(w.templatesDir, class+templateSuffix)]
}
