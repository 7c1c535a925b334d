package evaluation

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	ev "github.com/agentdesk/agentdesk/engine/evaluation"
	"github.com/agentdesk/agentdesk/ui/widgets"
	"github.com/agentdesk/agentdesk/ui/workspace"
)

// saveDefinition stores a changed copy of the open project's definition (from edited) and
// makes it the one sessions read; the served study picks it up on its next page.
func (w *Workspace) saveDefinition(p *ev.Project) error {
	if err := p.Validate(); err != nil {
		return err
	}
	config, err := ev.MarshalDefinition(p)
	if err != nil {
		return err
	}
	if err := w.store.SetEvalProjectConfig(w.ctx(), w.open.info.ID, string(config)); err != nil {
		return err
	}
	w.open.set(p)
	return nil
}

// personaEditor is the Project tab's editor of a collection project's personas
// (include_persona): whether bots get one, and the persona sets sessions draw from.
func (w *Workspace) personaEditor() fyne.CanvasObject {
	op := w.open
	include := widget.NewCheck("Give bots whose model key contains \"blender\" a persona (include_persona)", nil)
	include.SetChecked(op.p.Settings.IncludePersona)
	text := widget.NewMultiLineEntry()
	text.SetText(ev.FormatPersonas(op.p.Settings.Personas))
	text.SetPlaceHolder("One sentence per line, a blank line between persona sets, e.g.\ni like cats.\ni work as a nurse.")
	text.SetMinRowsVisible(5)
	text.Wrapping = fyne.TextWrapWord
	help := widget.NewLabel("Each session draws one set; its blender bots observe it as \"your persona: …\" lines ahead of the opening \"Hi!\", " +
		"as the original's ParlAI bots did. Participants never see it, as in the original. " +
		"(The original drew personas from ParlAI's blended_skill_talk data, which the app does not have.)")
	help.Wrapping = fyne.TextWrapWord
	help.Importance = widget.LowImportance
	status := widget.NewLabel("")
	status.Wrapping = fyne.TextWrapWord
	save := widget.NewButton("Save personas", func() {
		sets, err := ev.ParsePersonas([]byte(text.Text))
		if err == nil {
			p := w.open.edited()
			p.Settings.IncludePersona = include.Checked
			p.Settings.Personas = sets
			err = w.saveDefinition(p)
		}
		if err != nil {
			status.SetText(err.Error())
			return
		}
		status.SetText(fmt.Sprintf("Saved %s; new sessions use them.", widgets.Plural(len(sets), "persona set")))
	})
	w.personaForm = &personaForm{include: include, text: text, save: save, status: status}
	return container.NewVBox(include, text, help, container.NewHBox(save), status)
}

// personaForm is the persona editor on show (tests fill it in).
type personaForm struct {
	include *widget.Check
	text    *widget.Entry
	save    *widget.Button
	status  *widget.Label
}

// editableTypes is a copy of the project with its own copy of the type list (a type is
// changed by replacing it, never in place: served sessions read the old one meanwhile).
func (op *evalProject) editableTypes() *ev.Project {
	p := op.edited()
	p.Types = slices.Clone(op.p.Types)
	return p
}

// typesEditor is the Project tab's list of annotation types with the participants'
// instructions of each (shown beside every page of the type), each editable, and the
// reading of the original's task_descriptions.jsx.
func (w *Workspace) typesEditor() fyne.CanvasObject {
	box := container.NewVBox()
	for _, t := range w.open.p.Types {
		// the heading participants see; the project file's keys after it, for whoever edits it
		name := widget.NewLabelWithStyle(ev.DisplayName(t.Title), fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
		keys := widget.NewLabel(fmt.Sprintf("%s · %s · turns: %s", t.Name, t.Display, t.Indices))
		keys.Importance = widget.LowImportance
		keys.Truncation = fyne.TextTruncateEllipsis
		first := "No instructions: participants see \"This project gives no description of " + ev.DisplayName(t.Title) + ".\""
		if d := strings.TrimSpace(t.Instructions(w.open.p.Settings.CollectDialogue)); d != "" {
			first, _, _ = strings.Cut(d, "\n")
			if n := strings.Count(d, "\n") + 1; n > 1 {
				first += fmt.Sprintf(" (%d lines)", n)
			}
		}
		preview := widget.NewLabel(first)
		preview.Truncation = fyne.TextTruncateEllipsis
		preview.Importance = widget.LowImportance
		typeName := t.Name
		edit := widget.NewButtonWithIcon("Instructions…", theme.DocumentCreateIcon(), func() { w.editDescription(typeName) })
		box.Add(container.NewBorder(nil, nil, nil, edit, container.NewVBox(container.NewBorder(nil, nil, name, nil, keys), preview)))
	}
	read := widget.NewButtonWithIcon("Read instructions from task_descriptions.jsx…", theme.FolderOpenIcon(), w.chooseDescriptionsFile)
	box.Add(container.NewHBox(read))
	return box
}

// descForm is the instructions editor on show (tests fill it in).
type descForm struct {
	dialog   dialog.Dialog
	typeName string
	entry    *widget.Entry
	save     func()
}

// editDescription edits one type's instructions in a dialog.
func (w *Workspace) editDescription(typeName string) {
	t := w.open.p.Type(typeName)
	if t == nil {
		return
	}
	entry := widget.NewMultiLineEntry()
	entry.Wrapping = fyne.TextWrapWord
	entry.SetText(t.Description)
	entry.SetPlaceHolder("What participants read beside every page of " + ev.DisplayName(t.Title) + ": the labels and their definitions, with examples.")
	entry.SetMinRowsVisible(14)
	help := widget.NewLabel("Plain text; line breaks are kept. Participants read it beside every page of this type, on the desktop and in their browsers, " +
		"with SPEAKER_X and SPEAKER_Y replaced by the speakers' names.")
	help.Importance = widget.LowImportance
	help.Wrapping = fyne.TextWrapWord
	f := &descForm{typeName: typeName, entry: entry}
	f.save = func() {
		if err := w.setDescriptions(map[string]string{typeName: entry.Text}); err != nil {
			w.showError(err)
			return
		}
		w.refreshProjectTab()
	}
	w.descForm = f
	if w.host.Window() == nil {
		return
	}
	d := dialog.NewCustomConfirm("Instructions of "+ev.DisplayName(t.Title), "Save", "Cancel",
		container.NewBorder(nil, help, nil, nil, entry), func(ok bool) {
			if ok {
				f.save()
			}
		}, w.host.Window())
	f.dialog = d
	workspace.Resize(d, w.host.Window(), fyne.NewSize(760, 560))
	d.Show()
}

// setDescriptions stores new instructions of the types named (type name → text).
func (w *Workspace) setDescriptions(texts map[string]string) error {
	p := w.open.editableTypes()
	for i, t := range p.Types {
		if text, ok := texts[t.Name]; ok {
			c := *t
			c.Description = strings.TrimSpace(strings.ReplaceAll(text, "\r\n", "\n"))
			p.Types[i] = &c
		}
	}
	return w.saveDefinition(p)
}

// chooseDescriptionsFile asks for the original's task_descriptions.jsx.
func (w *Workspace) chooseDescriptionsFile() {
	if w.host.Window() == nil {
		return
	}
	dialog.ShowFileOpen(func(r fyne.URIReadCloser, err error) {
		if err != nil || r == nil {
			w.showError(err)
			return
		}
		r.Close()
		w.readDescriptions(r.URI().Path(), nil)
	}, w.host.Window())
}

// readDescriptions reads a task_descriptions.jsx off the UI goroutine and gives the types the
// instructions of their titles (replacing what they had), then says what it did. done (tests)
// receives the outcome.
func (w *Workspace) readDescriptions(path string, done func(string, error)) {
	op := w.open
	collection := op.p.Settings.CollectDialogue
	workspace.Start(w.host, nil, func(context.Context) (*ev.TaskDescriptions, error) {
		return ev.ReadTaskDescriptions(path, collection)
	}, func(d *ev.TaskDescriptions, err error) {
		msg := ""
		if err == nil && w.open == op {
			p := op.editableTypes()
			for i, t := range p.Types {
				c := *t
				p.Types[i] = &c
			}
			used, _, unused := ev.ApplyTaskDescriptions(p.Types, d, true)
			if len(used) == 0 {
				err = fmt.Errorf("%s has no instructions for any type of this project (it has: %s)", filepath.Base(path), strings.Join(d.Order, ", "))
			} else if err = w.saveDefinition(p); err == nil {
				msg = fmt.Sprintf("Read the instructions of %s (%s).", widgets.Plural(len(used), "type"), strings.Join(used, ", "))
				if len(unused) > 0 {
					msg += " Not in this project: " + strings.Join(unused, ", ") + "."
				}
				if len(d.Notes) > 0 {
					msg += fmt.Sprintf(" %s left out (%s).", widgets.Plural(len(d.Notes), "part"), d.Notes[0])
				}
				w.refreshProjectTab()
			}
		}
		if done != nil {
			done(msg, err)
		}
		if err != nil {
			w.showError(err)
			return
		}
		if w.host.Window() != nil {
			dialog.ShowInformation("Instructions read", msg, w.host.Window())
		}
	})
}

// refreshProjectTab rebuilds the open project's Project tab (after its definition changed).
func (w *Workspace) refreshProjectTab() {
	if w.tabs == nil || w.open == nil {
		return
	}
	for _, item := range w.tabs.Items {
		if item.Text == "Project" {
			item.Content = w.projectTab()
			w.tabs.Refresh()
		}
	}
}
