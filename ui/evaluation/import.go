package evaluation

import (
	"bytes"
	"context"
	"fmt"
	"image/color"
	"path/filepath"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/widget"

	ev "github.com/agentdesk/agentdesk/engine/evaluation"
	"github.com/agentdesk/agentdesk/ui/widgets"
	"github.com/agentdesk/agentdesk/ui/workspace"
)

// Importing the original's project: choose its folder (and a configuration when it holds several), read it off the UI goroutine, show the report in a form, create the project.

func (w *Workspace) chooseImportFolder() {
	if w.host.Window() == nil {
		return
	}
	dialog.ShowFolderOpen(func(l fyne.ListableURI, err error) {
		if err != nil || l == nil {
			w.showError(err)
			return
		}
		w.chooseConfig(l.Path())
	}, w.host.Window())
}

// chooseConfig asks which configuration to import when the folder has several.
func (w *Workspace) chooseConfig(dir string) {
	configs, err := ev.OriginalConfigs(dir)
	if err != nil {
		w.showError(err)
		return
	}
	if len(configs) <= 1 || w.host.Window() == nil {
		cfg := ""
		if len(configs) == 1 {
			cfg = configs[0]
		}
		w.importFolder(dir, cfg, nil)
		return
	}
	// what each configuration is (a study of which data, or a collection), shown for the one
	// selected
	about := map[string]string{}
	if sums, err := ev.DescribeOriginalConfigs(dir); err == nil {
		for _, s := range sums {
			about[s.Name] = s.String()
		}
	}
	what := widget.NewLabel("")
	what.Wrapping = fyne.TextWrapWord
	sel := widget.NewRadioGroup(configs, func(name string) { what.SetText(name + ": " + about[name]) })
	sel.SetSelected(configs[0])
	intro := widget.NewLabel(dir + " has several configurations, one per study (hydra_configs/conf). Choose the one to import; the import report then says which files belong to the others.")
	intro.Wrapping = fyne.TextWrapWord
	d := dialog.NewCustomConfirm("Which configuration?", "Import", "Cancel",
		container.NewStack(minWidth(min(460, w.host.Window().Canvas().Size().Width-80)), container.NewBorder(intro, what, nil, nil, container.NewVScroll(sel))),
		func(ok bool) {
			if ok {
				w.importFolder(dir, sel.Selected, nil)
			}
		}, w.host.Window())
	workspace.Resize(d, w.host.Window(), fyne.NewSize(600, 480))
	d.Show()
}

// minWidth is an invisible object that keeps a dialog's wrapped text from a narrow column.
func minWidth(w float32) fyne.CanvasObject {
	r := canvas.NewRectangle(color.Transparent)
	r.SetMinSize(fyne.NewSize(w, 0))
	return r
}

// importFolder reads an original project folder off the UI goroutine, then shows what was
// understood and ignored and asks for the project's name and options. done (tests) receives the
// pending import instead of a dialog.
func (w *Workspace) importFolder(dir, config string, done func(*evalImport, error)) {
	prog := w.busy("Reading " + filepath.Base(dir) + "…")
	type read struct {
		p   *ev.Project
		rep *ev.ImportReport
	}
	workspace.Start(w.host, nil, func(context.Context) (read, error) {
		p, rep, err := ev.ImportOriginal(dir, ev.ImportOptions{Config: config})
		return read{p, rep}, err
	}, func(r read, err error) {
		prog()
		if err != nil {
			err = fmt.Errorf("import %s: %w (nothing was imported)", dir, err)
		}
		imp := &evalImport{ws: w, dir: dir, project: r.p, report: r.rep}
		if done != nil {
			done(imp, err)
			return
		}
		if err != nil {
			w.showError(err)
			return
		}
		imp.showForm()
	})
}

// busy shows an indefinite progress dialog and returns the function that hides it.
func (w *Workspace) busy(msg string) func() {
	if w.host.Window() == nil {
		return func() {}
	}
	bar := widget.NewProgressBarInfinite()
	d := dialog.NewCustomWithoutButtons(msg, container.NewGridWrap(fyne.NewSize(320, 40), bar), w.host.Window())
	d.Show()
	return func() { bar.Stop(); d.Hide() }
}

// evalImport is an import read from disk, waiting for the user's confirmation.
type evalImport struct {
	ws      *Workspace
	dir     string
	project *ev.Project
	report  *ev.ImportReport
}

func (imp *evalImport) defaultName() string {
	if n := strings.TrimSpace(imp.project.Settings.TaskName); n != "" {
		return n
	}
	if n := strings.TrimSpace(imp.project.Name); n != "" {
		return n
	}
	return filepath.Base(imp.dir)
}

func reportText(rep *ev.ImportReport) string {
	if rep == nil {
		return ""
	}
	var b bytes.Buffer
	rep.WriteTo(&b)
	return b.String()
}

func (imp *evalImport) showForm() {
	w := imp.ws
	name := widget.NewEntry()
	name.SetText(imp.defaultName())
	screening := widget.NewCheck("Screen participants with the training dialogues", nil)
	screening.Checked = imp.project.Settings.UseScreening
	if imp.project.Training == nil {
		screening.Checked = false
		screening.Disable()
	}
	summary := widget.NewLabel(projectSummary(imp.project))
	summary.Wrapping = fyne.TextWrapWord
	form := widget.NewForm(widget.NewFormItem("Name", name), widget.NewFormItem("", screening))
	content := container.NewBorder(container.NewVBox(summary, form,
		widget.NewLabelWithStyle("What was read, what belongs to other configurations, what was ignored", fyne.TextAlignLeading, fyne.TextStyle{Bold: true})),
		nil, nil, nil, importReportList(imp.report))
	d := dialog.NewCustomConfirm("Import "+filepath.Base(imp.dir), "Import", "Cancel", workspace.Scrolled(imp.ws.host.Window(), content), func(ok bool) {
		if !ok {
			return
		}
		imp.project.Settings.UseScreening = screening.Checked
		src, _ := filepath.Abs(imp.dir)
		w.create(name.Text, "imported", src, imp.project, reportText(imp.report), nil)
	}, w.host.Window())
	workspace.Resize(d, w.host.Window(), fyne.NewSize(860, 640))
	d.Show()
}

// projectSummary says in one paragraph what a project holds.
func projectSummary(p *ev.Project) string {
	units := 0
	for _, b := range p.Bundles {
		n, _ := p.UnitsFor(b)
		units += n
	}
	s := fmt.Sprintf("%s, %s and %s (%s).", widgets.Plural(len(p.Types), "annotation type"), widgets.Plural(len(p.Bundles), "bundle"),
		widgets.Plural(units, "unit"), "units are annotator slots")
	if p.Settings.CollectDialogue {
		s = fmt.Sprintf("Dialogue collection with %s per session: %s.", widgets.Plural(max(p.Settings.NumBots, 1), "bot"), p.Settings.ConversationsNeeded)
	}
	if p.Training != nil {
		s += fmt.Sprintf(" Training: three dialogues of %q.", p.Training.TypeName)
	}
	return s
}

// create stores a project with its assignments in one transaction, off the UI goroutine, and
// opens it.
func (w *Workspace) create(name, origin, source string, p *ev.Project, report string, done func(int64, error)) {
	name = strings.TrimSpace(name)
	workspace.Start(w.host, nil, func(ctx context.Context) (int64, error) {
		return w.store.SaveEvalProject(ctx, name, origin, source, p, report)
	}, func(id int64, err error) {
		if done != nil {
			done(id, err)
		}
		if err != nil {
			w.showError(err)
			return
		}
		w.openProject(id)
	})
}
