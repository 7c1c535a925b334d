package evaluation

import (
	"context"
	"errors"
	"path/filepath"
	"strconv"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	ev "github.com/agentdesk/agentdesk/engine/evaluation"
	"github.com/agentdesk/agentdesk/ui/workspace"
)

// showCatalogueForm asks for a new project over the built-in ABC-Eval catalogue.
func (w *Workspace) showCatalogueForm() {
	if w.host.Window() == nil {
		return
	}
	name := widget.NewEntry()
	name.SetPlaceHolder("e.g. bots-october")
	data := widget.NewLabel("no file chosen")
	data.Truncation = fyne.TextTruncateEllipsis
	training := widget.NewLabel("none: no screening")
	training.Truncation = fyne.TextTruncateEllipsis
	var dataPath, trainingPath string
	pick := func(set func(string)) func() {
		return func() {
			dialog.ShowFileOpen(func(r fyne.URIReadCloser, err error) {
				if err != nil || r == nil {
					w.showError(err)
					return
				}
				r.Close()
				set(r.URI().Path())
			}, w.host.Window())
		}
	}
	var onData func()
	chooseData := func(p string) {
		dataPath = p
		data.SetText(p)
		if name.Text == "" {
			name.SetText(strings.TrimSuffix(filepath.Base(p), filepath.Ext(p)))
		}
		onData()
	}
	dataBtn := widget.NewButton("Choose…", pick(chooseData))
	trainBtn := widget.NewButton("Choose…", pick(func(p string) { trainingPath = p; training.SetText(p) }))
	clearTrain := widget.NewButton("None", func() { trainingPath = ""; training.SetText("none: no screening") })
	behaviours := widget.NewCheck("Behaviour labels on every chatbot turn (16 ABC-Eval behaviours)", nil)
	behaviours.SetChecked(true)
	dlg := widget.NewCheck("Dialogue ratings, 1-5 per quality dimension", nil)
	turn := widget.NewCheck("Turn ratings, 1-5 per quality dimension", nil)
	compare := widget.NewCheck("Compare consecutive dialogues (1 with 2, 3 with 4, …)", nil)
	k := widget.NewSelect([]string{"1", "2", "3", "4", "5"}, nil)
	k.SetSelected("2")
	form := widget.NewForm(
		widget.NewFormItem("Name", name),
		widget.NewFormItem("Dialogues (JSONL)", container.NewBorder(nil, nil, nil, dataBtn, data)),
		widget.NewFormItem("Ask", container.NewVBox(behaviours, dlg, turn, compare)),
		widget.NewFormItem("Annotators per item", k),
		widget.NewFormItem("Training (screening)", container.NewBorder(nil, nil, nil, container.NewHBox(trainBtn, clearTrain), training)),
	)
	help := widget.NewLabel("Dialogues are read in the original's data layout: one JSON object per line, {\"data\": [{\"dialogue_id\", \"turns\": [[speaker, text], …]}]}. " +
		"A training file (three dialogues with ground truth, the original's onboarding format) turns screening on.")
	// The form stays open until the project is made: an error (a file that does not read)
	// is shown over it with everything typed and chosen still there.
	var d *dialog.CustomDialog
	create := widget.NewButtonWithIcon("Create", theme.ConfirmIcon(), func() {
		n, _ := strconv.Atoi(k.Selected)
		c := ev.CatalogueChoice{Name: strings.TrimSpace(name.Text), DataFile: dataPath, TrainingFile: trainingPath,
			Behaviours: behaviours.Checked, DialogueLikert: dlg.Checked, TurnLikert: turn.Checked,
			CompareConsecutive: compare.Checked, Annotators: n}
		w.createFromCatalogue(c, func(_ int64, err error) {
			if err == nil {
				d.Hide()
			}
		})
	})
	create.Importance = widget.HighImportance
	refresh := func() {
		if dataPath == "" || strings.TrimSpace(name.Text) == "" {
			create.Disable()
		} else {
			create.Enable()
		}
	}
	name.OnChanged = func(string) { refresh() }
	onData = refresh
	refresh()
	cancel := widget.NewButtonWithIcon("Cancel", theme.CancelIcon(), func() { d.Hide() })
	d = dialog.NewCustomWithoutButtons("New project from the ABC-Eval catalogue", workspace.Scrolled(w.host.Window(), container.NewVBox(form, wrappedAt(help, form.MinSize().Width))), w.host.Window())
	d.SetButtons([]fyne.CanvasObject{cancel, create})
	w.catalogueForm = &catalogueForm{dialog: d, create: create, name: name, setData: chooseData, help: help}
	d.Show()
}

// catalogueForm is the new-project form on show (tests fill it in).
type catalogueForm struct {
	dialog  *dialog.CustomDialog
	create  *widget.Button
	name    *widget.Entry
	setData func(path string)
	// help says how the files are read
	help *widget.Label
}

// createFromCatalogue reads the chosen files off the UI goroutine and stores the project.
func (w *Workspace) createFromCatalogue(c ev.CatalogueChoice, done func(int64, error)) {
	if c.DataFile == "" {
		w.showError(errors.New("choose the dialogues to annotate"))
		return
	}
	workspace.Start(w.host, nil, func(context.Context) (*ev.Project, error) { return c.Project() }, func(p *ev.Project, err error) {
		if err != nil {
			if done != nil {
				done(0, err)
			}
			w.showError(err)
			return
		}
		w.create(c.Name, "created", "", p, "", done)
	})
}
