package evaluation

import (
	"context"
	"fmt"
	"maps"
	"path/filepath"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	ev "github.com/agentdesk/agentdesk/engine/evaluation"
	"github.com/agentdesk/agentdesk/engine/evaluation/session"
	"github.com/agentdesk/agentdesk/ui/widgets"
	"github.com/agentdesk/agentdesk/ui/workspace"
)

// Workspace is the Evaluation workspace: the project list, and an open project with its session,
// results and setup tabs. Everything it shows is read back from the store, so leaving the
// workspace and coming back (or a crash) resumes where the participant was.
type Workspace struct {
	host  workspace.Host
	store Store
	root  *fyne.Container
	// sampleBtn offers the sample data while there is no project
	sampleBtn *widget.Button
	body      *fyne.Container

	projects []ev.ProjectSummary
	list     *widget.List
	status   *widget.Label

	// The open project.
	open    *evalProject
	session *evalSession
	dash    *evalDashboard
	tabs    *container.AppTabs
	// catalogueForm is the new-project form last shown.
	catalogueForm *catalogueForm
	// personaForm is the open project's persona editor (collection projects).
	personaForm *personaForm
	// descForm is the instructions editor last shown.
	descForm *descForm
	// collectionForm is the new collection project form last shown.
	collectionForm *collectionForm
	// serving is the study served to browsers (nil: none); serve the open project's Serve tab.
	serving *serving
	serve   *serveTab
	// every runs f on the UI goroutine every d until stopped (the desk page clock's ticker;
	// tests tick by hand).
	every func(d time.Duration, f func()) (stop func())
}

// evalProject is a project loaded from the store.
type evalProject struct {
	info ev.ProjectSummary
	p    *ev.Project
	// sp is the project as study sessions share it.
	sp *session.Project
}

// edited is a copy of the project's definition to change (sessions, the served study among
// them, read the current one at the same time); set makes it the definition.
func (op *evalProject) edited() *ev.Project {
	c := *op.p
	c.Bots = maps.Clone(op.p.Bots)
	if c.Bots == nil {
		c.Bots = map[string]ev.BotSpec{}
	}
	return &c
}

func (op *evalProject) set(p *ev.Project) {
	op.p = p
	op.sp.SetDef(p)
}

// New builds the workspace on store (nil: none is open, and the workspace says so).
func New(h workspace.Host, store Store) *Workspace {
	w := &Workspace{host: h, store: store, every: newTicker}
	w.body = container.NewStack()
	w.root = container.NewStack(w.body)
	if store == nil {
		l := widget.NewLabel("The Evaluation workspace needs a store; open or create one in Settings.")
		l.Wrapping = fyne.TextWrapWord
		w.body.Objects = []fyne.CanvasObject{container.NewVBox(l)}
		return w
	}
	w.showProjects()
	return w
}

// Do implements workspace.Commands: Open imports a project folder.
func (w *Workspace) Do(c workspace.Command) bool {
	if c != workspace.Open || w.store == nil {
		return false
	}
	w.chooseImportFolder()
	return true
}

// Content implements workspace.Workspace.
func (w *Workspace) Content() fyne.CanvasObject { return w.root }

// Close stops the workspace's background work when the window closes or the store changes:
// the session's bot call, its exec bots' processes and its deadline timer, and a statistics
// computation. The participant's session is in the store and resumes when they sign in again.
func (w *Workspace) Close() {
	w.stopServing()
	if w.session != nil {
		w.session.close()
	}
	if w.dash != nil {
		w.dash.stopStats()
	}
}

func (w *Workspace) ctx() context.Context { return context.Background() }

func (w *Workspace) showError(err error) {
	if err == nil {
		return
	}
	if w.status != nil {
		w.status.SetText(err.Error())
	}
	if w.host.Window() != nil {
		dialog.ShowError(err, w.host.Window())
	}
}

func (w *Workspace) setBody(o fyne.CanvasObject) {
	w.body.Objects = []fyne.CanvasObject{o}
	w.body.Refresh()
}

// showProjects shows the project list with the import and create actions.
func (w *Workspace) showProjects() {
	if w.session != nil {
		w.session.close()
	}
	w.open, w.session, w.dash, w.tabs = nil, nil, nil, nil
	w.status = widget.NewLabel("")
	w.status.Wrapping = fyne.TextWrapWord
	w.list = widget.NewList(
		func() int { return len(w.projects) },
		func() fyne.CanvasObject {
			name := widget.NewLabelWithStyle("project", fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
			name.Truncation = fyne.TextTruncateEllipsis
			detail := widget.NewLabel("detail")
			detail.Truncation = fyne.TextTruncateEllipsis
			bar := widget.NewProgressBar()
			return container.NewBorder(nil, nil, nil, container.NewGridWrap(fyne.NewSize(180, 36), bar), container.NewVBox(name, detail))
		},
		func(id widget.ListItemID, o fyne.CanvasObject) {
			p := w.projects[id]
			row := o.(*fyne.Container)
			texts := row.Objects[0].(*fyne.Container)
			texts.Objects[0].(*widget.Label).SetText(p.Name)
			texts.Objects[1].(*widget.Label).SetText(projectLine(p))
			bar := row.Objects[1].(*fyne.Container).Objects[0].(*widget.ProgressBar)
			bar.Max = float64(max(p.Units, 1))
			bar.SetValue(float64(p.Done))
		},
	)
	w.list.OnSelected = func(id widget.ListItemID) {
		w.list.UnselectAll()
		if id < len(w.projects) {
			w.openProject(w.projects[id].ID)
		}
	}
	importBtn := widget.NewButtonWithIcon("Import original project…", theme.FolderOpenIcon(), w.chooseImportFolder)
	importBtn.Importance = widget.HighImportance
	createBtn := widget.NewButtonWithIcon("New from the ABC-Eval catalogue…", theme.ContentAddIcon(), w.showCatalogueForm)
	collectBtn := widget.NewButtonWithIcon("New dialogue collection…", theme.MailComposeIcon(), w.showCollectionForm)
	w.sampleBtn = workspace.SampleButton(w.host)
	w.sampleBtn.Importance = widget.MediumImportance
	w.sampleBtn.Hide() // offered while there is no project
	top := container.NewVBox(widgets.NewFlow(importBtn, createBtn, collectBtn, w.sampleBtn), w.status)
	w.setBody(container.NewBorder(top, nil, nil, nil, w.list))
	w.reloadProjects()
}

func projectLine(p ev.ProjectSummary) string {
	how := "created in the app"
	if p.Origin == "imported" {
		how = "imported from " + filepath.Base(p.Source)
	}
	return fmt.Sprintf("%d of %d units done · %d in progress · %s · %s", p.Done, p.Units, p.Assigned,
		widgets.Plural(p.Participants, "participant"), how)
}

func (w *Workspace) reloadProjects() {
	ps, err := w.store.EvalProjects(w.ctx())
	if err != nil {
		w.showError(err)
		return
	}
	w.projects = ps
	if len(ps) == 0 {
		w.status.SetText("No evaluation projects yet. Import a ChatEvaluationPlatform project folder, create one from the built-in ABC-Eval catalogue over your own dialogues, make a dialogue collection with your bots, or load the sample data to try one.")
		w.sampleBtn.Show()
	} else {
		w.status.SetText("")
		w.sampleBtn.Hide()
	}
	w.list.Refresh()
}

// loadEvalProject reads a project and its summary from the store.
func loadEvalProject(ctx context.Context, st Store, id int64) (*evalProject, error) {
	info, err := st.EvalProjectInfo(ctx, id)
	if err != nil {
		return nil, err
	}
	p, err := st.EvalProject(ctx, id)
	if err != nil {
		return nil, err
	}
	return &evalProject{info: info, p: p, sp: session.NewProject(info.ID, info.Name, p)}, nil
}

// openProject shows a project: its session (sign in and annotate), results and setup.
func (w *Workspace) openProject(id int64) {
	op, err := loadEvalProject(w.ctx(), w.store, id)
	if err != nil {
		w.showError(err)
		return
	}
	w.open = op
	w.session = newEvalSession(w, op)
	w.dash = newEvalDashboard(w, op)
	w.serve = newServeTab(w, op)
	back := widget.NewButtonWithIcon("Projects", theme.NavigateBackIcon(), w.showProjects)
	title := widget.NewLabelWithStyle(op.info.Name, fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	w.tabs = container.NewAppTabs(
		container.NewTabItemWithIcon("Annotate", theme.DocumentCreateIcon(), w.session.root),
		container.NewTabItemWithIcon("Results", theme.GridIcon(), w.dash.root),
		container.NewTabItemWithIcon("Serve", theme.MailSendIcon(), w.serve.root),
		container.NewTabItemWithIcon("Project", theme.InfoIcon(), w.projectTab()),
	)
	w.tabs.OnSelected = func(t *container.TabItem) {
		if w.session.stopTicks != nil {
			w.session.tick() // the page clock pauses at once when the Annotate tab is left
		}
		if t.Text == "Results" {
			w.dash.reload()
			if w.dash.stats == nil && w.dash.op.info.Done > 0 {
				w.dash.computeStats() // off the UI goroutine, with progress
			}
		}
		if t.Text == "Annotate" {
			w.session.focusKeys()
		}
	}
	title.Truncation = fyne.TextTruncateEllipsis
	w.setBody(container.New(&tabsHeading{tabs: w.tabs, back: back, title: title}, w.tabs, container.NewBorder(nil, nil, back, nil, title)))
	w.session.focusKeys()
}

// tabsHeading lays an open project out: its tabs, with the way back and the project's name at
// the right end of the tab bar when they fit there (a row of its own on a narrow window), so
// that the tabs' content gets the height.
type tabsHeading struct {
	tabs  *container.AppTabs
	back  *widget.Button
	title *widget.Label
}

// barWidth is about how wide the tab bar's buttons are.
func (l *tabsHeading) barWidth() float32 {
	w := float32(0)
	for _, it := range l.tabs.Items {
		w += fyne.MeasureText(it.Text, theme.TextSize(), fyne.TextStyle{Bold: true}).Width +
			theme.IconInlineSize() + 2*theme.InnerPadding() + theme.Padding()
	}
	return w + 2*theme.Padding()
}

// heading is the width the way back and the whole name want, and the width they get beside the
// tabs (0: not enough room).
func (l *tabsHeading) heading(width float32) (want, room float32) {
	want = l.back.MinSize().Width + fyne.MeasureText(l.title.Text, theme.TextSize(), l.title.TextStyle).Width +
		2*theme.InnerPadding() + 3*theme.Padding()
	room = width - l.barWidth() - 2*theme.Padding()
	if room < l.back.MinSize().Width+120 {
		return want, 0
	}
	return want, min(want, room)
}

func (l *tabsHeading) MinSize(objs []fyne.CanvasObject) fyne.Size {
	t, h := objs[0].MinSize(), objs[1].MinSize()
	return fyne.NewSize(max(t.Width, h.Width), t.Height+h.Height) // room for the narrow layout
}

func (l *tabsHeading) Layout(objs []fyne.CanvasObject, size fyne.Size) {
	tabs, head := objs[0], objs[1]
	h := head.MinSize().Height
	if _, w := l.heading(size.Width); w > 0 {
		tabs.Move(fyne.NewPos(0, 0))
		tabs.Resize(size)
		head.Move(fyne.NewPos(size.Width-w, 0))
		head.Resize(fyne.NewSize(w, h))
		return
	}
	head.Move(fyne.NewPos(0, 0))
	head.Resize(fyne.NewSize(size.Width, h))
	tabs.Move(fyne.NewPos(0, h))
	tabs.Resize(fyne.NewSize(size.Width, size.Height-h))
}

// projectTab shows what the project holds, the import report, and deletion.
func (w *Workspace) projectTab() fyne.CanvasObject {
	op := w.open
	summary := widget.NewLabel(projectSummary(op.p))
	summary.Wrapping = fyne.TextWrapWord
	rep := widget.NewLabel(op.info.Report)
	rep.TextStyle.Monospace = true
	rep.Wrapping = fyne.TextWrapWord
	del := widget.NewButtonWithIcon("Delete project…", theme.DeleteIcon(), func() {
		msg := widget.NewLabel("The project, its participants and every answer are removed from the store. Export the results first if you need them.")
		msg.Wrapping = fyne.TextWrapWord
		d := dialog.NewCustomConfirm("Delete "+op.info.Name+"?", "Delete", "Cancel",
			container.NewGridWrap(fyne.NewSize(420, 64), msg),
			func(ok bool) {
				if !ok {
					return
				}
				if err := w.store.DeleteEvalProject(w.ctx(), op.info.ID); err != nil {
					w.showError(err)
					return
				}
				w.showProjects()
			}, w.host.Window())
		d.SetConfirmImportance(widget.DangerImportance)
		d.Show()
	})
	del.Importance = widget.DangerImportance
	items := []fyne.CanvasObject{summary}
	if op.p.Settings.CollectDialogue {
		items = append(items, widget.NewLabelWithStyle("Bots", fyne.TextAlignLeading, fyne.TextStyle{Bold: true}), w.botsEditor())
		items = append(items, widget.NewLabelWithStyle("Personas", fyne.TextAlignLeading, fyne.TextStyle{Bold: true}), w.personaEditor())
	}
	items = append(items, widget.NewLabelWithStyle("Annotation types and their instructions", fyne.TextAlignLeading, fyne.TextStyle{Bold: true}), w.typesEditor())
	if op.info.Report != "" {
		acc := widget.NewAccordion(widget.NewAccordionItem("Import report: what was understood and what was ignored", rep))
		items = append(items, acc)
	}
	items = append(items, container.NewHBox(del))
	return container.NewVScroll(container.NewVBox(items...))
}
