package templates

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"time"

	tpl "github.com/agentdesk/agentdesk/engine/template"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/agentdesk/agentdesk/engine/atomicfile"
	"github.com/agentdesk/agentdesk/engine/limits"
	"github.com/agentdesk/agentdesk/ui/widgets"
	"github.com/agentdesk/agentdesk/ui/workspace"
)

// The template folder: opening it (or a copy of the bundled examples), finding its templates,
// task files and confs, reading it again, and remembering it among the recent folders.

func (w *Workspace) chooseFolder() {
	if w.host.Window() == nil {
		return
	}
	dialog.ShowFolderOpen(func(l fyne.ListableURI, err error) {
		if err != nil || l == nil {
			return
		}
		w.open(l.Path())
	}, w.host.Window())
}

func (w *Workspace) chooseExamplesTarget() {
	if w.host.Window() == nil {
		return
	}
	dialog.ShowFolderOpen(func(l fyne.ListableURI, err error) {
		if err != nil || l == nil {
			return
		}
		if err := w.startFromExamples(l.Path()); err != nil {
			w.showError(err)
		}
	}, w.host.Window())
}

// open opens a folder and reports a failure to the user.
func (w *Workspace) open(dir string) {
	if err := w.openFolder(dir); err != nil {
		w.showError(err)
	}
}

// startFromExamples copies the bundled example set into dir (files already there are kept)
// and opens it.
func (w *Workspace) startFromExamples(dir string) error {
	n, kept, err := copyExamples(dir)
	if err != nil {
		return err
	}
	if err := w.openFolder(dir); err != nil {
		return err
	}
	msg := w.status.Text + fmt.Sprintf(" Copied %s of the example set into %s.", widgets.Plural(n, "file"), dir)
	if kept > 0 {
		msg += fmt.Sprintf(" %s already there %s kept as they were.", widgets.Plural(kept, "file"), map[bool]string{true: "was", false: "were"}[kept == 1])
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

// Opens reports whether path is a template folder: a folder holding template files
// (*.textproto.template), directly or in its templates/ sub-folder (the sample data's, or one
// dropped on the window).
func (w *Workspace) Opens(path string) bool {
	st, err := os.Stat(path)
	if err != nil || !st.IsDir() {
		return false
	}
	for _, dir := range []string{path, filepath.Join(path, "templates")} {
		if m, _ := filepath.Glob(filepath.Join(dir, "*.textproto.template")); len(m) > 0 {
			return true
		}
	}
	return false
}

// Open opens the template folder path (workspace.Opener).
func (w *Workspace) Open(path string, _ int) error { return w.openFolder(path) }

// openFolder reads every template, conf and task file of dir (and of its sub-folders, two
// levels deep) into buffers and shows the workspace.
func (w *Workspace) openFolder(dir string) error {
	started := time.Now()
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
	w.openedAt = started
	w.files = files
	w.byRel = map[string]*tplFile{}
	for _, f := range files {
		w.byRel[f.rel] = f
	}
	w.templatesDir, w.tasksDir = layoutDirs(abs, files)
	w.cur = nil
	w.root.Objects = []fyne.CanvasObject{w.workspaceView()}
	w.folderLabel.SetText(abs)
	counts := map[tplKind]int{}
	for _, f := range files {
		counts[f.kind]++
	}
	w.setStatus(fmt.Sprintf("%s, %s, %s.", widgets.Plural(counts[kindTemplate], "template"),
		widgets.Plural(counts[kindConf], "token config"), widgets.Plural(counts[kindTask], "task file")))
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
	// laid out once, with the file and its preview in place
	w.root.Refresh()
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
func (w *Workspace) reload() error {
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
		msg += fmt.Sprintf(" %s with unsaved changes kept.", widgets.Plural(kept, "file"))
	}
	w.setStatus(msg)
	return nil
}

func (w *Workspace) remember(dir string) {
	ts := w.store
	if ts == nil {
		w.addRecent(dir)
		return
	}
	workspace.Start(w.host, nil, func(ctx context.Context) (struct{}, error) {
		ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		defer cancel()
		return struct{}{}, ts.AddTemplateFolder(ctx, dir, filepath.Base(dir))
	}, func(_ struct{}, err error) {
		if err != nil {
			w.setStatus("Could not remember the folder in the store: " + err.Error())
		}
		w.loadRecent()
	})
}

func (w *Workspace) addRecent(dir string) {
	list := []string{dir}
	for _, p := range w.recent {
		if p != dir && len(list) < 10 {
			list = append(list, p)
		}
	}
	w.showRecent(list)
}

// loadRecent reads the remembered folders from the store.
func (w *Workspace) loadRecent() {
	ts := w.store
	if ts == nil {
		w.showRecent(w.recent)
		return
	}
	workspace.Start(w.host, nil, func(ctx context.Context) ([]string, error) {
		ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		defer cancel()
		rf, err := ts.TemplateFolders(ctx)
		var list []string
		for _, f := range rf {
			list = append(list, f.Path)
		}
		return list, err
	}, func(list []string, err error) {
		if err != nil {
			w.setStatus("Cannot read the recent folders: " + err.Error())
			return
		}
		w.showRecent(list)
	})
}

func (w *Workspace) showRecent(list []string) {
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
		w.sampleBtn.Show() // a newcomer's one action
	} else {
		w.sampleBtn.Hide()
	}
	w.recentBox.Refresh()
}

// --- files -------------------------------------------------------------------------------
