package demonstrations

import (
	"encoding/json"
	"errors"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/storage"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/agentdesk/agentdesk/ui/workspace"
)

// What the export and resave dialogs share: a path field with a Choose… button, the options
// remembered from one export to the next, and the dialog that says how an export ended.

// pathField is an entry for a path with a "Choose…" button beside it. It is Validatable
// through its entry, so a form's confirm button stays off while the path is rejected.
type pathField struct {
	widget.BaseWidget
	entry  *widget.Entry
	choose *widget.Button
}

// newPathField makes a field holding text; choose, when the button is tapped, is given the
// current text and a function setting a new one.
func newPathField(text string, validator fyne.StringValidator, choose func(cur string, set func(string))) *pathField {
	p := &pathField{entry: widget.NewEntry()}
	p.entry.Validator = validator
	p.entry.SetText(text)
	p.choose = widget.NewButtonWithIcon("Choose…", theme.FolderOpenIcon(), func() {
		choose(p.entry.Text, p.entry.SetText)
	})
	p.ExtendBaseWidget(p)
	return p
}

func (p *pathField) CreateRenderer() fyne.WidgetRenderer {
	return widget.NewSimpleRenderer(container.NewBorder(nil, nil, nil, p.choose, p.entry))
}

// Validate implements fyne.Validatable.
func (p *pathField) Validate() error { return p.entry.Validate() }

// SetOnValidationChanged implements fyne.Validatable.
func (p *pathField) SetOnValidationChanged(f func(error)) { p.entry.SetOnValidationChanged(f) }

// Text is the path as typed, trimmed.
func (p *pathField) Text() string { return strings.TrimSpace(p.entry.Text) }

// chooseFolder shows the folder dialog on w, starting in start (or the nearest folder above it
// that exists), and gives then the folder chosen.
func chooseFolder(w fyne.Window, start string, then func(string)) {
	if w == nil {
		return
	}
	fd := dialog.NewFolderOpen(func(l fyne.ListableURI, err error) {
		if err == nil && l != nil {
			then(l.Path())
		}
	}, w)
	if dir := existingFolder(start); dir != "" {
		if l, err := storage.ListerForURI(storage.NewFileURI(dir)); err == nil {
			fd.SetLocation(l)
		}
	}
	fd.Show()
}

// existingFolder is dir, or the nearest folder above it that exists ("" when none does).
func existingFolder(dir string) string {
	if dir == "" {
		return ""
	}
	for d := filepath.Clean(dir); ; d = filepath.Dir(d) {
		if st, err := os.Stat(d); err == nil && st.IsDir() {
			return d
		}
		if filepath.Dir(d) == d {
			return ""
		}
	}
}

// isFolder reports whether path is an existing folder.
func isFolder(path string) bool {
	st, err := os.Stat(path)
	return err == nil && st.IsDir()
}

// absolute makes a typed path absolute: "~/" is the home folder, a relative path is taken
// from base (the open file's folder), not from wherever the app was started.
func absolute(p, base string) string {
	p = strings.TrimSpace(p)
	if rest, ok := strings.CutPrefix(p, "~"+string(filepath.Separator)); ok || p == "~" {
		if home, err := os.UserHomeDir(); err == nil {
			p = filepath.Join(home, rest)
		}
	}
	if p != "" && !filepath.IsAbs(p) && base != "" {
		p = filepath.Join(base, p)
	}
	return p
}

// exportPrefs are the export and resave dialogs' last choices, kept in the app's preferences.
type exportPrefs struct {
	NoMarks, NoDescp, PNG, SafeNames, NumericLabels bool
	FPS                                             int
	Format                                          string // "mp4" or "gif"

	ResavePattern         string
	ResaveFrom, ResaveTo  int
	ResaveOut, ResaveDefs string
	ResaveMerge           bool // merge into existing files
}

const prefExport = "demonstrations.export"

func loadExportPrefs() exportPrefs {
	// Windows cannot store the original folder names (":" and "%"): portable ones by default
	p := exportPrefs{FPS: 2, SafeNames: runtime.GOOS == "windows"}
	if s := fyne.CurrentApp().Preferences().String(prefExport); s != "" {
		_ = json.Unmarshal([]byte(s), &p)
	}
	p.FPS = max(p.FPS, 1)
	return p
}

func saveExportPrefs(p exportPrefs) {
	if b, err := json.Marshal(p); err == nil {
		fyne.CurrentApp().Preferences().SetString(prefExport, string(b))
	}
}

// outcome is how an export or resave ended, as the dialog after it says.
type outcome struct {
	title  string
	msg    string
	failed bool
	// folder, when it exists, is offered to be opened (the system's file manager)
	folder string
	// open, when set, is a further action offered: its label and what it does
	openLabel string
	open      func()
}

// showOutcome says how work ended: in the status line, and in a dialog (a failure with the
// error icon) offering to open the output folder.
func (d *Workspace) showOutcome(o outcome) {
	d.setStatus(o.msg)
	d.lastOutcome = &o
	w := d.host.Window()
	if w == nil {
		return
	}
	msg := widget.NewLabel(o.msg)
	msg.Wrapping = fyne.TextWrapWord
	var content fyne.CanvasObject = msg
	if o.failed {
		icon := widget.NewIcon(theme.ErrorIcon())
		content = container.NewBorder(nil, nil, container.NewVBox(icon), nil, msg)
	}
	// wide enough to read a path, as tall as the text, scrolling past half the window
	room := w.Canvas().Size()
	width := min(float32(560), room.Width-80)
	content.Resize(fyne.NewSize(width, content.MinSize().Height))
	box := container.NewVScroll(content)
	box.SetMinSize(fyne.NewSize(width, min(content.MinSize().Height, room.Height/2)))
	dlg := dialog.NewCustomWithoutButtons(o.title, box, w)
	ok := widget.NewButton("OK", dlg.Hide)
	ok.Importance = widget.HighImportance
	buttons := []fyne.CanvasObject{}
	if o.folder != "" && isFolder(o.folder) {
		folder := o.folder
		buttons = append(buttons, widget.NewButtonWithIcon("Open folder", theme.FolderOpenIcon(), func() {
			if err := openFolder(folder); err != nil {
				workspace.ShowError(w, err)
			}
		}))
	}
	if o.open != nil {
		open := o.open
		buttons = append(buttons, widget.NewButtonWithIcon(o.openLabel, theme.DocumentIcon(), func() {
			dlg.Hide()
			open()
		}))
	}
	dlg.SetButtons(append(buttons, ok))
	dlg.Show()
}

// openFolder shows dir in the system's file manager.
func openFolder(dir string) error {
	u, err := url.Parse(storage.NewFileURI(dir).String())
	if err != nil {
		return err
	}
	if a := fyne.CurrentApp(); a != nil {
		return a.OpenURL(u)
	}
	return errors.New("no app to open the folder with")
}
