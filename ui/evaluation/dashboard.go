package evaluation

import (
	"context"
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/layout"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	ev "github.com/agentdesk/agentdesk/engine/evaluation"
	"github.com/agentdesk/agentdesk/engine/evaluation/agreement"
	"github.com/agentdesk/agentdesk/engine/evaluation/session"
	"github.com/agentdesk/agentdesk/ui/widgets"
)

// evalDashboard is the Results tab: progress per participant with the screening outcome,
// agreement per label with confidence intervals, label rates per bot as a chart, and the
// exports.
type evalDashboard struct {
	ws   *Workspace
	op   *evalProject
	root *fyne.Container
	// peopleCols and agreeCols show the columns the tables have room for
	peopleCols, agreeCols *widgets.Columns

	summary      *widget.Label
	progress     *widget.ProgressBar
	people       *widget.Table
	participants []ev.ParticipantSummary
	agreement    *widget.Table
	stats        *ev.Stats
	chart        *fyne.Container
	chartNote    *widget.Label
	statsStatus  *widget.Label
	statsBar     *widget.ProgressBar
	computeBtn   *widget.Button
	// level is alpha's level of measurement; changing it recomputes.
	level *widget.Select
	// levelLabel names the level's dropdown, on its line
	levelLabel *widget.Label
	// cancelBtn stops a computation in progress; cancelStats is its cancel function (nil when
	// none runs), only touched on the UI goroutine.
	cancelBtn   *widget.Button
	cancelStats context.CancelFunc
	// statsRun numbers the computations, so that a superseded one leaves the screen alone.
	statsRun int
	// views are the tab's agreement, participants and label-rate views.
	views *container.AppTabs
	// model is "Annotate with a model…" and its run.
	model *modelRun
	// rows are the agreement table's rows: each label, then its agreements involving models.
	rows []ev.LabelStats
}

func newEvalDashboard(w *Workspace, op *evalProject) *evalDashboard {
	d := &evalDashboard{ws: w, op: op}
	d.summary = widget.NewLabel("")
	d.summary.Wrapping = fyne.TextWrapWord
	d.progress = widget.NewProgressBar()
	// the bar draws its text in the primary colour's foreground, white in both themes, which
	// is unreadable over the light theme's unfilled track: the summary beside it says it
	d.progress.TextFormatter = func() string { return "" }
	d.people = widget.NewTable(
		func() (int, int) { return len(d.participants) + 1, d.peopleCols.Len() },
		func() fyne.CanvasObject { return truncLabel() },
		func(id widget.TableCellID, o fyne.CanvasObject) {
			o.(*widget.Label).SetText(d.peopleCell(widget.TableCellID{Row: id.Row, Col: d.peopleCols.Index(id.Col)}))
		},
	)
	// every column the table has room for, the rest by Columns… (optional ones make way first)
	d.peopleCols = widgets.NewColumns(fitTitles([]widgets.Column{{Title: "participant", Min: 110, Weight: 1}, {Title: "units done", Min: 80},
		{Title: "in progress", Min: 84}, {Title: "screening", Min: 110, Weight: 1, Optional: true},
		{Title: "gold checks", Min: 100, Optional: true}, {Title: "qualifications", Min: 120, Weight: 1, Optional: true}}), d.people)
	d.people.OnSelected = func(id widget.TableCellID) {
		d.people.UnselectAll()
		if id.Row > 0 && id.Row-1 < len(d.participants) {
			d.participantActions(d.participants[id.Row-1])
		}
	}
	d.agreement = widget.NewTable(
		func() (int, int) {
			if d.stats == nil {
				return 1, d.agreeCols.Len()
			}
			return len(d.rows) + 1, d.agreeCols.Len()
		},
		func() fyne.CanvasObject { return truncLabel() },
		func(id widget.TableCellID, o fyne.CanvasObject) {
			o.(*widget.Label).SetText(d.agreementCell(widget.TableCellID{Row: id.Row, Col: d.agreeCols.Index(id.Col)}))
		},
	)
	agreeMin := []float32{200, 56, 60, 120, 72, 72, 84, 140}
	var agreeCols []widgets.Column
	for i, title := range ev.StatsColumns {
		c := widgets.Column{Title: title, Min: agreeMin[min(i, len(agreeMin)-1)]}
		switch title {
		case "label", "note":
			c.Weight = 1
		}
		c.Optional = i >= 4 // Fleiss κ, Cohen κ, agreement, note make way first
		agreeCols = append(agreeCols, c)
	}
	d.agreeCols = widgets.NewColumns(fitTitles(agreeCols), d.agreement)
	d.chart = container.NewVBox()
	d.chartNote = widget.NewLabel("")
	d.chartNote.Wrapping = fyne.TextWrapWord
	d.statsStatus = widget.NewLabel("")
	d.statsStatus.Wrapping = fyne.TextWrapWord
	d.statsBar = widget.NewProgressBar()
	d.statsBar.Hide()
	d.computeBtn = widget.NewButtonWithIcon("Recompute", theme.ViewRefreshIcon(), d.computeStats)
	d.level = widget.NewSelect([]string{agreement.Ordinal.String(), agreement.Nominal.String(), agreement.Interval.String()}, nil)
	d.level.SetSelected(agreement.Ordinal.String())
	d.level.OnChanged = func(string) { d.computeStats() }
	d.levelLabel = widget.NewLabel("α level")
	d.cancelBtn = widget.NewButtonWithIcon("Cancel", theme.CancelIcon(), d.stopStats)
	d.cancelBtn.Hide()

	importBtn := widget.NewButtonWithIcon("Import results…", theme.DownloadIcon(), d.chooseResults)
	var exportBtn *widget.Button
	exportBtn = widget.NewButtonWithIcon("Export…", theme.DocumentSaveIcon(), func() {
		menu := fyne.NewMenu("",
			fyne.NewMenuItem("Original results (runs folder)…", func() { d.export("original") }),
			fyne.NewMenuItem("CSV…", func() { d.export("csv") }),
			fyne.NewMenuItem("JSONL…", func() { d.export("jsonl") }))
		if win := d.ws.host.Window(); win != nil {
			widget.ShowPopUpMenuAtRelativePosition(menu, win.Canvas(), fyne.NewPos(0, exportBtn.Size().Height), exportBtn)
		}
	})
	note := func(s string) *widget.Label {
		l := widget.NewLabel(s)
		l.Wrapping = fyne.TextWrapWord
		l.Importance = widget.LowImportance
		return l
	}
	// Three views, each with the height of the tab: the agreement table (what a study is run
	// for), the participants, the label rates per bot. Stacking them in splits left each table
	// a strip without rows at 1024x700.
	agreeBox := container.NewBorder(container.NewVBox(
		container.NewBorder(nil, nil, container.NewCenter(container.NewHBox(d.computeBtn, d.levelLabel, d.level)),
			container.NewHBox(d.cancelBtn, d.agreeCols.Chooser(d.ws.host.Window)),
			container.NewVBox(d.statsBar, d.statsStatus)),
		note("First two annotations per item: Krippendorff's α with its 95% bootstrap interval, Fleiss' and Cohen's κ, percent agreement.")),
		nil, nil, nil, d.agreeCols.Fit())
	peopleBox := container.NewBorder(note("Select a participant for their actions (qualifications, unblock, return a unit)."), nil, nil, nil, d.peopleCols.Fit())
	chartBox := container.NewBorder(note("One annotation per item: bar = value, line = 95% interval."), d.chartNote, nil, nil, container.NewVScroll(d.chart))
	d.views = container.NewAppTabs(
		container.NewTabItem("Agreement", agreeBox),
		container.NewTabItem("Participants", peopleBox),
		container.NewTabItem("Label rates per bot", chartBox))
	d.summary.Wrapping = fyne.TextWrapOff
	d.summary.Truncation = fyne.TextTruncateEllipsis
	// One line above the views: the summary, the progress bar beside it, import and export.
	// a narrow bar: the summary beside it fits at 1024 px with the tab's three buttons
	bar := container.NewGridWrap(fyne.NewSize(96, importBtn.MinSize().Height), d.progress)
	d.model = newModelRun(d)
	top := container.NewBorder(nil, nil, nil, container.NewHBox(bar, d.model.btn, importBtn, exportBtn),
		container.NewVBox(layout.NewSpacer(), d.summary, layout.NewSpacer()))
	d.root = container.NewBorder(container.NewVBox(top, d.model.row), nil, nil, nil, d.views)
	d.reload()
	return d
}

// fitTitles widens columns to their titles, so that no header is cut ("units d…").
func fitTitles(cols []widgets.Column) []widgets.Column {
	pad := 2*theme.Padding() + 2*theme.InnerPadding() // the cell's label and the table's own
	for i, c := range cols {
		w := fyne.MeasureText(c.Title, theme.TextSize(), fyne.TextStyle{}).Width + pad
		cols[i].Min = max(c.Min, float32(math.Ceil(float64(w))))
	}
	return cols
}

// truncLabel is a table cell that ends long text with an ellipsis instead of overflowing.
func truncLabel() fyne.CanvasObject {
	l := widget.NewLabel("")
	l.Truncation = fyne.TextTruncateEllipsis
	return l
}

// reload reads progress and participants from the store.
func (d *evalDashboard) reload() {
	ctx := d.ws.ctx()
	info, err := d.ws.store.EvalProjectInfo(ctx, d.op.info.ID)
	if err != nil {
		d.summary.SetText(err.Error())
		return
	}
	d.op.info = info
	d.summary.SetText(fmt.Sprintf("%d of %d units done, %d in progress, %s.", info.Done, info.Units, info.Assigned,
		widgets.Plural(info.Participants, "participant")))
	d.progress.Max = float64(max(info.Units, 1))
	d.progress.SetValue(float64(info.Done))
	ps, err := d.ws.store.EvalParticipants(ctx, d.op.info.ID)
	if err != nil {
		d.summary.SetText(err.Error())
		return
	}
	d.participants = ps
	d.people.Refresh()
	if d.stats == nil && d.cancelStats == nil && info.Done == 0 {
		d.statsStatus.SetText("No unit is done yet: agreement shows here once two annotators have done the same items.")
	}
}

// peopleColumns head the participants table.
var peopleColumns = []string{"participant", "units done", "in progress", "screening", "gold checks", "qualifications"}

func (d *evalDashboard) peopleCell(id widget.TableCellID) string {
	if id.Row == 0 {
		return peopleColumns[id.Col]
	}
	p := d.participants[id.Row-1]
	switch id.Col {
	case 0:
		if p.IsModel() {
			return p.Name + " (model " + p.Model + ")"
		}
		return p.Name
	case 1:
		return fmt.Sprint(p.Done)
	case 2:
		return fmt.Sprint(p.Assigned)
	case 3:
		return d.screeningText(p)
	case 4:
		return d.goldText(p)
	default:
		var qs []string
		for _, k := range slices.Sorted(maps.Keys(p.Qualifications)) {
			q := fmt.Sprintf("%s=%d", k, p.Qualifications[k])
			if from := p.QualificationsFrom[k]; from != "" {
				q += " (from " + from + ")"
			}
			qs = append(qs, q)
		}
		return strings.Join(qs, ", ")
	}
}

// goldText is a participant's score on the gold units: right and wrong checks.
func (d *evalDashboard) goldText(p ev.ParticipantSummary) string {
	base := d.op.sp.GoldBase()
	right, wrong := p.Qualifications[base+session.GoldCorrectSuffix], p.Qualifications[base+session.GoldWrongSuffix]
	if right+wrong == 0 {
		if d.op.p.Settings.UseGolds {
			return "none yet"
		}
		return "—"
	}
	return fmt.Sprintf("%d right, %d wrong", right, wrong)
}

// qualificationNames are the project's passed and block qualifications.
func (d *evalDashboard) qualificationNames() (passed, block string) {
	return d.op.p.Settings.QualificationNames(d.op.info.Name)
}

func (d *evalDashboard) screeningText(p ev.ParticipantSummary) string {
	passed, block := d.qualificationNames()
	blocked := p.Qualifications[block] > 0
	switch {
	case p.Screening == "passed":
		return "passed"
	case p.Screening == "failed" && blocked:
		return "failed (blocked)"
	case p.Screening == "failed":
		return "failed (block lifted)"
	case p.Screening == "open":
		return "in training"
	case blocked && p.QualificationsFrom[block] != "":
		return "blocked in " + p.QualificationsFrom[block]
	case blocked:
		return "blocked"
	case p.Qualifications[passed] > 0 && p.QualificationsFrom[passed] != "":
		return "passed in " + p.QualificationsFrom[passed]
	case d.op.p.Settings.UseScreening && d.op.p.Training != nil:
		return "not started"
	}
	return "not required"
}

// participantActions offers the administrator's actions on a participant: lifting a block
// (quirk 6: the original had none), and giving back a unit left open (the original's timeout:
// the unit returns to the pool, its answers are dropped, the answer log is kept).
func (d *evalDashboard) participantActions(p ev.ParticipantSummary) {
	if d.ws.host.Window() == nil {
		return
	}
	_, block := d.qualificationNames()
	blocked := p.Qualifications[block] > 0
	text := fmt.Sprintf("%s has completed %s and holds %d in progress.", p.Name, widgets.Plural(p.Done, "unit"), p.Assigned)
	if blocked {
		text += " Blocked: the screening or the gold checks failed"
		if from := p.QualificationsFrom[block]; from != "" {
			text += " in project " + from + ", which shares the qualification " + block + " (qualifications are shared by name, as in the original)"
		}
		text += ". Lifting the block lifts it in every project that uses the name."
	}
	l := widget.NewLabel(text)
	l.Wrapping = fyne.TextWrapWord
	box := container.NewVBox(l)
	var dlg dialog.Dialog
	if blocked {
		box.Add(widget.NewButton("Lift the block", func() {
			dlg.Hide()
			d.ws.showError(d.unblock(p))
		}))
	}
	if p.Assigned > 0 {
		box.Add(widget.NewButton("Give the open unit back to the pool (drops its answers)", func() {
			dlg.Hide()
			d.ws.showError(d.returnUnit(p))
		}))
	}
	dlg = dialog.NewCustom(p.Name, "Close", container.NewGridWrap(fyne.NewSize(480, 220), container.NewVScroll(box)), d.ws.host.Window())
	dlg.Show()
}

// returnUnit gives a participant's open unit back, as the original's timeout did.
func (d *evalDashboard) returnUnit(p ev.ParticipantSummary) error {
	u, ok, err := d.ws.store.EvalOpenUnit(d.ws.ctx(), p.ID)
	if err != nil || !ok {
		return err
	}
	if err := d.ws.store.EvalReturnUnit(d.ws.ctx(), u.ID); err != nil {
		return err
	}
	d.reload()
	return nil
}

func (d *evalDashboard) unblock(p ev.ParticipantSummary) error {
	ctx := d.ws.ctx()
	_, block := d.qualificationNames()
	if err := d.ws.store.RevokeEvalQualification(ctx, p.ID, block); err != nil {
		return err
	}
	base := d.op.sp.GoldBase()
	if p.Qualifications[base+session.GoldWrongSuffix] > 0 {
		if err := d.ws.store.SetEvalQualification(ctx, p.ID, base+session.GoldWrongSuffix, 0); err != nil {
			return err
		}
	}
	d.reload()
	return nil
}

func (d *evalDashboard) agreementCell(id widget.TableCellID) string {
	if id.Row == 0 {
		return ev.StatsColumns[id.Col]
	}
	if d.stats == nil || id.Row-1 >= len(d.rows) {
		return ""
	}
	row := d.rows[id.Row-1]
	cell := row.Cell(id.Col)
	if id.Col == 0 && row.Kind != "group" {
		cell = readableLabel(cell)
	}
	return cell
}

// agreementRows are the table's rows: each label (the people's agreement when models
// annotated), then one row per agreement involving models ("  ↳ models and people").
func agreementRows(st *ev.Stats) []ev.LabelStats {
	var out []ev.LabelStats
	for _, l := range st.Labels {
		out = append(out, l)
		for _, g := range l.Groups {
			out = append(out, ev.LabelStats{Label: "  ↳ " + g.Group, Kind: "group", Items: g.Items, Alpha: g.Alpha, Low: g.Low, High: g.High,
				FleissKappa: g.FleissKappa, CohenKappa: math.NaN(), PercentAgreement: math.NaN(), Note: g.Note})
		}
	}
	return out
}

// readableLabel names a label's type as the pages do ("dialogue_ratings: Consistent" is
// "Dialogue ratings: Consistent", "quality_comparative" is "Quality: comparison"); the command
// line's stats keep the stored key.
func readableLabel(label string) string {
	if typ, rest, ok := strings.Cut(label, ": "); ok {
		return ev.DisplayName(typ) + ": " + rest
	}
	if !strings.ContainsAny(label, " ()") { // a type answered as a whole ("quality_comparative")
		return ev.DisplayName(label)
	}
	return label
}
