package templates

import (
	"fmt"
	"os"
	"path"
	"strings"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/agentdesk/agentdesk/ui/widgets"
	"github.com/agentdesk/agentdesk/ui/workspace"
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

// Workspace is the Templates workspace of one shell; it survives screen changes.
type Workspace struct {
	host  workspace.Host
	store Store  // nil when no store is open
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
	// sampleBtn offers the sample data while no folder was ever opened
	sampleBtn *widget.Button
	recentSel *widget.Select
	fileList  *widget.List
	editorBox *fyne.Container

	ed *templateEditor
	// filesHead heads the file list (with the beginning the names share)
	filesHead *widget.Label
	form      *confForm
	comp      *taskComposer
	pv        *previewPanel

	// debounce runs f after the preview delay (replacing a pending call); tests make it
	// synchronous.
	debounce func(f func())
	timer    *time.Timer
	gen      int
	preview  workspace.Latest // the preview being computed
	// openedAt is when the folder on show began to open, until its first preview shows;
	// logf reports how long that took (the app's log, on stderr).
	openedAt time.Time
	logf     func(format string, args ...any)
}

// New builds the workspace; store, when not nil, remembers the template folders opened.
func New(h workspace.Host, store Store) *Workspace {
	w := &Workspace{host: h, store: store, byRel: map[string]*tplFile{}, status: widget.NewLabel(""),
		folderLabel: widget.NewLabelWithStyle("", fyne.TextAlignLeading, fyne.TextStyle{Bold: true}),
		recentBox:   container.NewVBox()}
	w.sampleBtn = workspace.SampleButton(h)
	w.debounce = w.timerDebounce
	w.logf = func(format string, args ...any) { fmt.Fprintf(os.Stderr, "agentdesk: "+format+"\n", args...) }
	w.status.Wrapping = fyne.TextWrapWord
	w.folderLabel.Truncation = fyne.TextTruncateEllipsis
	w.recentSel = widget.NewSelect(nil, func(p string) {
		if p != "" && p != w.dir {
			w.open(p)
		}
	})
	w.recentSel.PlaceHolder = "Recent folders"
	w.root = container.NewStack(w.emptyView())
	w.loadRecent()
	return w
}

// Content implements workspace.Workspace.
func (w *Workspace) Content() fyne.CanvasObject { return w.root }

// Close implements workspace.Workspace: the preview's timer stops.
func (w *Workspace) Close() {
	if w.timer != nil {
		w.timer.Stop()
	}
	w.preview.Cancel()
}

// Do implements workspace.Commands: Open chooses a folder, Save saves the file on show, Undo
// and Redo go word by word in the template editor.
func (w *Workspace) Do(c workspace.Command) bool {
	switch c {
	case workspace.Open:
		w.chooseFolder()
		return true
	case workspace.Save:
		if w.cur != nil {
			if err := w.saveFile(w.cur); err != nil {
				w.showError(err)
			}
		}
		return true
	case workspace.Undo, workspace.Redo:
		if w.ed == nil {
			return false
		}
		w.ed.undo(c == workspace.Redo)
		return true
	}
	return false
}

// UnsavedWork implements workspace.Unsaved: the files whose buffers differ from the disk.
func (w *Workspace) UnsavedWork() string {
	var names []string
	for _, f := range w.files {
		if f.dirty() {
			names = append(names, f.rel)
		}
	}
	switch {
	case len(names) == 0:
		return ""
	case len(names) > 3:
		names = append(names[:3], "…")
	}
	return fmt.Sprintf("The template folder has %s not saved (%s)", widgets.Plural(len(names), "file"), strings.Join(names, ", "))
}

// SaveWork implements workspace.Unsaved: every changed file is saved.
func (w *Workspace) SaveWork() error { return w.saveAll() }

// DiscardWork implements workspace.Unsaved: the buffers go back to what is on disk (new files
// are dropped).
func (w *Workspace) DiscardWork() {
	kept := w.files[:0]
	for _, f := range w.files {
		if !f.onDisk {
			delete(w.byRel, f.rel)
			continue
		}
		f.buf = f.saved
		kept = append(kept, f)
	}
	w.files = kept
	if w.fileList != nil {
		w.fileList.Refresh()
	}
}

func (w *Workspace) timerDebounce(f func()) {
	if w.timer != nil {
		w.timer.Stop()
	}
	w.timer = time.AfterFunc(previewDelay, f)
}

func (w *Workspace) setStatus(msg string) { w.status.SetText(msg) }

func (w *Workspace) showError(err error) {
	w.setStatus(err.Error())
	if w.host.Window() != nil {
		dialog.ShowError(err, w.host.Window())
	}
}

// emptyView is shown until a folder is open.
func (w *Workspace) emptyView() fyne.CanvasObject {
	intro := widget.NewLabel("Open a folder of Mobile-Env task-definition templates (<step>.textproto.template), " +
		"token configs (<template>-<step>.conf) and task files (.task) to use the template editor, the config form, " +
		"the task composer and the live preview. Files stay in the original formats, so the Python toolkit can share the folder.")
	intro.Wrapping = fyne.TextWrapWord
	buttons := container.NewHBox(
		widget.NewButtonWithIcon("Open folder…", theme.FolderOpenIcon(), w.chooseFolder),
		widget.NewButtonWithIcon("Start from examples…", theme.ContentCopyIcon(), w.chooseExamplesTarget),
		w.sampleBtn)
	return container.NewVBox(intro, widgets.NewFlow(buttons.Objects...), w.status, widget.NewCard("Recent folders", "", w.recentBox))
}

// workspaceView is the open folder: files, editor and preview.
func (w *Workspace) workspaceView() fyne.CanvasObject {
	w.fileList = widget.NewList(
		func() int { return len(w.files) },
		func() fyne.CanvasObject {
			// the middle of a long name gives way: names differ at their ends
			l := newMidLabel("templates/settings_toggle.textproto.template")
			return container.NewBorder(nil, nil, widget.NewIcon(theme.FileIcon()), nil, l)
		},
		func(id widget.ListItemID, o fyne.CanvasObject) {
			if id >= len(w.files) {
				return
			}
			f := w.files[id]
			c := o.(*fyne.Container)
			name, keep := w.listName(f)
			c.Objects[0].(*midLabel).SetText(name, keep)
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
	// new files from one menu in the list's heading, so that the list keeps the height
	var newBtn *widgets.TipButton
	newBtn = widgets.NewTipButton("New task file or template", theme.ContentAddIcon(), func() {
		menu := fyne.NewMenu("", fyne.NewMenuItem("New task file…", w.chooseNewTask), fyne.NewMenuItem("New template…", w.chooseNewTemplate))
		widget.ShowPopUpMenuAtRelativePosition(menu, fyne.CurrentApp().Driver().CanvasForObject(newBtn), fyne.NewPos(0, newBtn.Size().Height), newBtn)
	})
	newBtn.Importance = widget.LowImportance
	w.filesHead = widget.NewLabelWithStyle("Files", fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	w.filesHead.Truncation = fyne.TextTruncateEllipsis
	files := container.NewBorder(container.NewBorder(nil, nil, nil, newBtn, w.filesHead), nil, nil, nil, w.fileList)

	w.editorBox = container.NewStack()
	w.pv = newPreviewPanel(w)
	inner := container.NewHSplit(w.editorBox, w.pv.root)
	inner.Offset = 0.52 // the preview's Output path in view at 1024 px
	split := container.NewHSplit(files, inner)
	split.Offset = 0.2

	// one toolbar line: the folder (what is open and where), then what acts on its files;
	// messages go to a status line under the work, as an editor's status bar
	w.status.Wrapping = fyne.TextWrapOff
	w.status.Truncation = fyne.TextTruncateEllipsis
	toolbar := container.NewBorder(nil, nil,
		container.NewHBox(
			widget.NewButtonWithIcon("Open…", theme.FolderOpenIcon(), w.chooseFolder),
			widget.NewButtonWithIcon("Examples…", theme.ContentCopyIcon(), w.chooseExamplesTarget),
			w.recentSel),
		container.NewHBox(
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
			})),
		w.folderLabel)
	return container.NewBorder(toolbar, w.status, nil, nil, split)
}

// listName is how the list shows f: its label without the beginning every file's name shares
// (the heading shows that), and how many characters of it tell it from the other names (a
// narrow list elides the middle after them: Sample_recipe_save-pancakes.conf and
// Sample_recipe_search-pancakes.conf had both become "Sample_recipe_sa…").
func (w *Workspace) listName(f *tplFile) (string, int) {
	const dot = "● " // an unsaved file's mark stays in front
	names := make([]string, len(w.files))
	for i, o := range w.files {
		names[i] = strings.TrimPrefix(w.fileLabel(o), dot)
	}
	prefix := sharedPrefix(names)
	head := "Files"
	if prefix != "" {
		head = "Files: " + prefix + "…"
	}
	if w.filesHead != nil && w.filesHead.Text != head {
		w.filesHead.SetText(head)
	}
	label := w.fileLabel(f)
	mark := ""
	if strings.HasPrefix(label, dot) {
		mark = dot
	}
	name := strings.TrimPrefix(strings.TrimPrefix(label, dot), prefix)
	keep := 0
	for _, o := range names {
		o = strings.TrimPrefix(o, prefix)
		if o != name {
			keep = max(keep, commonRunes(o, name)+1)
		}
	}
	if keep > 0 {
		keep += len([]rune(mark))
	}
	return mark + name, keep
}

// sharedPrefix is the beginning all of at least three names share, up to a separator (_ - . or
// space) and short of a whole name; "" when there is none.
func sharedPrefix(names []string) string {
	if len(names) < 3 {
		return ""
	}
	p := names[0]
	for _, n := range names[1:] {
		p = p[:min(len(p), len(n))]
		for !strings.HasPrefix(n, p) {
			p = p[:len(p)-1]
		}
	}
	i := strings.LastIndexAny(p, "_-. ")
	if i < 2 {
		return ""
	}
	p = p[:i+1]
	for _, n := range names {
		if n == p {
			return ""
		}
	}
	return p
}

// commonRunes is how many characters a and b share at their beginning.
func commonRunes(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	n := 0
	for n < len(ra) && n < len(rb) && ra[n] == rb[n] {
		n++
	}
	return n
}

// fileLabel names a file in the list: its base name in the templates and tasks folders (a
// template's without .textproto.template), its path elsewhere, with a dot when it has unsaved
// changes.
func (w *Workspace) fileLabel(f *tplFile) string {
	name := f.rel
	if d := path.Dir(f.rel); d == w.templatesDir || d == w.tasksDir {
		name = path.Base(f.rel)
		if f.kind == kindTemplate {
			// the icon says it is a template; the long suffix would hide the names' ends
			name = strings.TrimSuffix(name, templateSuffix)
		}
	}
	if f.dirty() {
		return "● " + name
	}
	return name
}

// --- folders -----------------------------------------------------------------------------
