package evaluation

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	ev "github.com/agentdesk/agentdesk/engine/evaluation"
	"github.com/agentdesk/agentdesk/engine/evaluation/agreement"
	"github.com/agentdesk/agentdesk/ui/widgets"
	"github.com/agentdesk/agentdesk/ui/workspace"
)

// computeStats computes agreement and rates off the UI goroutine, with progress.
func (d *evalDashboard) computeStats() {
	d.stopStats()
	d.statsRun++
	run := d.statsRun
	d.computeBtn.Disable()
	d.statsBar.SetValue(0)
	d.statsBar.Show()
	d.cancelBtn.Show()
	d.statsStatus.SetText("Reading the answers…")
	level, err := agreement.ParseLevel(d.level.Selected)
	if err != nil {
		level = agreement.Ordinal
	}
	models := map[string]string{}
	for _, p := range d.participants {
		if p.IsModel() {
			models[p.Name] = p.Model
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	d.cancelStats = cancel // before the work starts: Cancel (or closing) may come at once
	workspace.Start(d.ws.host, nil, func(context.Context) (ev.Stats, error) {
		defer cancel()
		p, results, err := d.ws.store.EvalResults(ctx, d.op.info.ID)
		if err != nil {
			return ev.Stats{}, err
		}
		return ev.ComputeStatsWithModels(ctx, p, results, level, models, func(done, total int) {
			fyne.Do(func() {
				if d.statsRun == run {
					d.statsBar.SetValue(float64(done) / float64(total))
					d.statsStatus.SetText(fmt.Sprintf("Bootstrapping label %d of %d…", done, total))
				}
			})
		})
	}, func(st ev.Stats, err error) {
		if d.statsRun != run {
			return // a newer computation took over
		}
		d.cancelStats = nil
		d.computeBtn.Enable()
		d.statsBar.Hide()
		d.cancelBtn.Hide()
		if errors.Is(err, context.Canceled) {
			d.statsStatus.SetText("Cancelled; Recompute starts again.")
			return
		}
		if err != nil {
			d.statsStatus.SetText(err.Error())
			return
		}
		d.stats = &st
		d.rows = agreementRows(&st)
		text := fmt.Sprintf("%s, %s α. Items are dialogues (or turns) annotated by at least two participants.", widgets.Plural(len(st.Labels), "label"), level)
		if len(models) > 0 {
			text += " With models annotating, a label's row is the people's agreement; the ↳ rows compare models with people."
		}
		d.statsStatus.SetText(text)
		d.agreement.Refresh()
		d.drawChart()
	})
}

// stopStats cancels the computation in progress, if any.
func (d *evalDashboard) stopStats() {
	if d.cancelStats != nil {
		d.cancelStats()
		d.cancelStats = nil
	}
}

// drawChart draws each label's rate per bot as a bar with its interval as a line.
func (d *evalDashboard) drawChart() {
	var rows []fyne.CanvasObject
	for _, l := range d.stats.Labels {
		if len(l.Rates) == 0 {
			continue
		}
		scale := 1.0
		unit := "rate"
		switch l.Kind {
		case "scale":
			scale, unit = 5, "mean of 1-5"
		case "comparison":
			unit = "left bot's win share"
		}
		title := widget.NewLabelWithStyle(fmt.Sprintf("%s (%s)", l.Label, unit), fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
		title.Truncation = fyne.TextTruncateEllipsis
		rows = append(rows, title)
		for _, r := range l.Rates {
			bot := truncLabel().(*widget.Label)
			bot.SetText(r.Bot)
			rows = append(rows, container.NewBorder(nil, nil,
				container.NewGridWrap(fyne.NewSize(140, 28), bot),
				container.NewGridWrap(fyne.NewSize(150, 28), widget.NewLabel(r.Text())),
				newRateBar(r, scale)))
		}
	}
	if len(rows) == 0 {
		d.chartNote.SetText("No label has submitted answers yet.")
	} else {
		d.chartNote.SetText("Bots are the conversation's model, or the end of the dialogue id after its last underscore; a comparison is rated per pair, left vs right.")
	}
	d.chart.Objects = rows
	d.chart.Refresh()
}

// rateBar is a horizontal bar for a value on [0, scale] with its interval drawn over it.
type rateBar struct {
	widget.BaseWidget
	r     ev.BotRate
	scale float64
}

func newRateBar(r ev.BotRate, scale float64) *rateBar {
	b := &rateBar{r: r, scale: scale}
	b.ExtendBaseWidget(b)
	return b
}

func (b *rateBar) CreateRenderer() fyne.WidgetRenderer {
	track := canvas.NewRectangle(theme.Color(theme.ColorNameInputBackground))
	bar := canvas.NewRectangle(theme.Color(theme.ColorNamePrimary))
	ci := canvas.NewLine(theme.Color(theme.ColorNameForeground))
	ci.StrokeWidth = 2
	return &rateBarRenderer{b: b, track: track, bar: bar, ci: ci}
}

type rateBarRenderer struct {
	b     *rateBar
	track *canvas.Rectangle
	bar   *canvas.Rectangle
	ci    *canvas.Line
}

func (r *rateBarRenderer) frac(v float64) float32 {
	if math.IsNaN(v) {
		return 0
	}
	return float32(math.Max(0, math.Min(1, v/r.b.scale)))
}

func (r *rateBarRenderer) Layout(size fyne.Size) {
	h := size.Height * 0.6
	y := (size.Height - h) / 2
	r.track.Move(fyne.NewPos(0, y))
	r.track.Resize(fyne.NewSize(size.Width, h))
	r.bar.Move(fyne.NewPos(0, y))
	r.bar.Resize(fyne.NewSize(size.Width*r.frac(r.b.r.Value), h))
	if math.IsNaN(r.b.r.Low) {
		r.ci.Hide()
		return
	}
	r.ci.Show()
	r.ci.Position1 = fyne.NewPos(size.Width*r.frac(r.b.r.Low), size.Height/2)
	r.ci.Position2 = fyne.NewPos(size.Width*r.frac(r.b.r.High), size.Height/2)
}

func (r *rateBarRenderer) MinSize() fyne.Size { return fyne.NewSize(120, 28) }
func (r *rateBarRenderer) Refresh() {
	r.track.FillColor = theme.Color(theme.ColorNameInputBackground)
	r.bar.FillColor = theme.Color(theme.ColorNamePrimary)
	r.ci.StrokeColor = theme.Color(theme.ColorNameForeground)
	r.Layout(r.b.Size())
	canvas.Refresh(r.b)
}
func (r *rateBarRenderer) Objects() []fyne.CanvasObject {
	return []fyne.CanvasObject{r.track, r.bar, r.ci}
}
func (r *rateBarRenderer) Destroy() {}

// chooseResults asks for a folder of result files collected with the original platform.
func (d *evalDashboard) chooseResults() {
	if d.ws.host.Window() == nil {
		return
	}
	dialog.ShowFolderOpen(func(l fyne.ListableURI, err error) {
		if err != nil || l == nil {
			d.ws.showError(err)
			return
		}
		d.importResults(l.Path(), nil)
	}, d.ws.host.Window())
}

// importResults stores the finished attempts of a results folder off the UI goroutine, then
// shows the new progress and statistics; done (tests) gets the outcome.
func (d *evalDashboard) importResults(dir string, done func(n, skipped int, err error)) {
	hide := d.ws.busy("Importing results…")
	type imported struct{ n, skipped int }
	workspace.Start(d.ws.host, nil, func(ctx context.Context) (imported, error) {
		n, skipped, err := importResults(ctx, d.ws.store, d.op.info, dir)
		return imported{n, skipped}, err
	}, func(r imported, err error) {
		hide()
		if done != nil {
			done(r.n, r.skipped, err)
		}
		if err != nil {
			d.ws.showError(err)
			return
		}
		d.reload()
		d.statsStatus.SetText(fmt.Sprintf("Imported %s from %s (%d skipped: unfinished or gold).", widgets.Plural(r.n, "finished attempt"), dir, r.skipped))
		d.computeStats()
	})
}

// export asks where to write the results and writes them off the UI goroutine.
func (d *evalDashboard) export(format string) {
	if d.ws.host.Window() == nil {
		return
	}
	pseudo := widget.NewCheck("Pseudonymise participants (worker-01, worker-02, …)", nil)
	dialog.ShowCustomConfirm("Export "+exportTitle(format), "Choose where…", "Cancel", pseudo, func(ok bool) {
		if !ok {
			return
		}
		if format == "original" {
			dialog.ShowFolderOpen(func(l fyne.ListableURI, err error) {
				if err != nil || l == nil {
					d.ws.showError(err)
					return
				}
				d.exportTo(format, l.Path(), pseudo.Checked, nil)
			}, d.ws.host.Window())
			return
		}
		d.ws.askSavePath(fileSafe(d.op.info.Name)+"."+format, func(path string) {
			d.exportTo(format, path, pseudo.Checked, nil)
		})
	}, d.ws.host.Window())
}

func exportTitle(format string) string {
	switch format {
	case "csv":
		return "answers as CSV"
	case "jsonl":
		return "answers as JSON lines"
	}
	return "results in the original's layout"
}

// askSavePath asks where to save a file (name proposed) and gives then the path chosen; the
// caller writes the file itself (atomically).
func (w *Workspace) askSavePath(name string, then func(path string)) {
	save := dialog.NewFileSave(func(u fyne.URIWriteCloser, err error) {
		if err != nil || u == nil {
			w.showError(err)
			return
		}
		path := u.URI().Path()
		u.Close()
		then(path)
	}, w.host.Window())
	save.SetFileName(name)
	save.Show()
}

func fileSafe(s string) string {
	return strings.Map(func(r rune) rune {
		if r == '/' || r == '\\' || r == ':' || r < ' ' {
			return '_'
		}
		return r
	}, s)
}

// exportTo writes the export and reports what was written; done (tests) gets the outcome.
func (d *evalDashboard) exportTo(format, path string, pseudonymise bool, done func([]string, error)) {
	hide := d.ws.busy("Exporting…")
	workspace.Start(d.ws.host, nil, func(ctx context.Context) ([]string, error) {
		p, results, err := d.ws.store.EvalResults(ctx, d.op.info.ID)
		if err != nil {
			return nil, err
		}
		return ev.ExportResults(p, results, format, path, pseudonymise)
	}, func(files []string, err error) {
		hide()
		if done != nil {
			done(files, err)
		}
		if err != nil {
			d.ws.showError(err)
			return
		}
		d.statsStatus.SetText(fmt.Sprintf("Exported %s to %s.", widgets.Plural(len(files), "file"), path))
	})
}

// importResults reads a folder of result files and stores its finished attempts in project
// info in one transaction; it returns how many were stored and how many files were skipped.
func importResults(ctx context.Context, st Store, info ev.ProjectSummary, dir string) (n, skipped int, err error) {
	p, err := st.EvalProject(ctx, info.ID)
	if err != nil {
		return 0, 0, err
	}
	attempts, skipped, err := ev.ReadResults(p, info.Name, dir)
	if err != nil {
		return 0, 0, err
	}
	if n, err = st.ImportEvalAttempts(ctx, info.ID, attempts); err != nil {
		return 0, 0, fmt.Errorf("%w (nothing was imported)", err)
	}
	return n, skipped, nil
}
