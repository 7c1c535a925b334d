package explorer

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/layout"
	"fyne.io/fyne/v2/storage"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/agentdesk/agentdesk/engine/episode"
	"github.com/agentdesk/agentdesk/engine/odyssey"
	"github.com/agentdesk/agentdesk/ui/widgets"
	"github.com/agentdesk/agentdesk/ui/workspace"
)

// Scoring modes offered, with the store's names.
var scoringModes = []struct{ label, mode, help string }{
	{"Official", "official", "Exactly the official evaluation (it aborts on some inputs)."},
	{"Lenient", "lenient", "Numbers even when the official evaluation aborts; not official."},
	{"Strict", "strict", "A test step without a prediction is wrong; not official."},
}

// scoringMetrics are the metric choices; a split's own is the official one, the others are
// offered for user splits (the CLI's --metric).
var scoringMetrics = []struct {
	label  string
	branch odyssey.Branch
}{
	{"The split's own", ""},
	{"Category mean (micro)", odyssey.BranchMicro},
	{"Step accuracy (macro)", odyssey.BranchMacro},
}

// breakdownDims are the breakdowns, in the order shown.
var breakdownDims = []struct{ label, dim string }{
	{"Category", odyssey.ByCategory}, {"App", odyssey.ByApp}, {"Device", odyssey.ByDevice}, {"Action type", odyssey.ByAction},
}

// explorerScoring is the Scoring tab: pick a prediction file and a split, score it exactly as
// the official GUI Odyssey evaluation does (AMS and success rate, labelled with the branch the
// split implies), see breakdowns by category, app, device and action type, and walk through the
// failing steps in the frame viewer with the predicted and the true action on the screenshot.
type explorerScoring struct {
	x        *Workspace
	path     string
	pathL    *widget.Label
	split    *widget.Select
	level    *widget.Select
	metric   *widget.Select
	mode     *widget.Select
	modeHelp *widget.Label
	runSel   *widget.Select
	openRunB *widget.Button
	delRunB  *widget.Button
	scoreB   *widget.Button
	headline *widget.Label
	details  *widget.Label
	// outcome says under the Score button what the last scoring came to
	outcome  *widget.Label
	dim      *widget.Select
	table    *widget.Table
	columns  *widgets.Columns
	results  *container.AppTabs
	failList *widget.List
	failL    *widget.Label
	viewer   *widgets.FrameViewer
	content  fyne.CanvasObject

	kinds      map[string]string // split kinds by name
	runs       []odyssey.SavedRun
	result     *odyssey.Result
	breakdowns map[string][]odyssey.Group
	failures   []odyssey.Failure
	groups     []odyssey.Group

	mu       sync.Mutex
	episodes map[string]*episode.Episode // failing steps' episodes, by external id

	// Run a model… and Compare (modelrun.go, compare.go)
	modelB     *widget.Button
	compareB   *widget.Button
	lastForm   *modelForm
	modelRunB  *widget.Button
	compareOut *widget.Label
	comparison *comparison
	comparing  workspace.Latest // the comparison being opened
	// lenientOnAbort: the next score() falls back to lenient mode where the official one aborts
	lenientOnAbort bool
}

var breakdownColumns = []widgets.Column{{Title: "Value", Min: 120, Weight: 1}, {Title: "Steps", Min: 60}, {Title: "Correct", Min: 68},
	{Title: "AMS", Min: 60}, {Title: "Episodes", Min: 76, Optional: true}, {Title: "SR", Min: 60},
	{Title: "Wrong action", Min: 100, Optional: true}, {Title: "Invalid", Min: 64, Optional: true}}

func newExplorerScoring(x *Workspace) *explorerScoring {
	s := &explorerScoring{x: x, episodes: map[string]*episode.Episode{}}
	s.pathL = widget.NewLabel("No prediction file chosen.")
	s.pathL.Truncation = fyne.TextTruncateEllipsis
	pick := widget.NewButtonWithIcon("Predictions file…", theme.FolderOpenIcon(), s.pickDialog)
	s.split = widget.NewSelect(nil, func(string) { s.refreshMetric(); s.refreshScoreButton() })
	s.split.PlaceHolder = "split to score against"
	s.level = widget.NewSelect([]string{odyssey.LevelHigh, odyssey.LevelLow}, nil)
	s.level.SetSelected(odyssey.LevelHigh)
	var metricLabels []string
	for _, m := range scoringMetrics {
		metricLabels = append(metricLabels, m.label)
	}
	s.metric = widget.NewSelect(metricLabels, nil)
	s.metric.SetSelected(metricLabels[0])
	s.metric.Disable()
	s.runSel = widget.NewSelect(nil, func(string) { s.refreshRunButtons() })
	s.runSel.PlaceHolder = "no saved run"
	s.openRunB = widget.NewButtonWithIcon("Open", theme.FolderOpenIcon(), func() { s.openRun() })
	s.delRunB = widget.NewButtonWithIcon("Delete", theme.DeleteIcon(), s.deleteRunDialog)
	s.modelB = widget.NewButtonWithIcon("Run a model…", theme.MediaPlayIcon(), s.modelDialog)
	s.compareB = widget.NewButtonWithIcon("Compare…", theme.ViewRestoreIcon(), s.compareDialog)
	s.refreshRunButtons()
	var labels []string
	for _, m := range scoringModes {
		labels = append(labels, m.label)
	}
	s.modeHelp = widget.NewLabel("")
	s.modeHelp.Wrapping = fyne.TextWrapWord
	s.mode = widget.NewSelect(labels, func(label string) {
		for _, m := range scoringModes {
			if m.label == label {
				s.modeHelp.SetText(m.help)
			}
		}
	})
	s.mode.SetSelected(labels[0])
	s.scoreB = widget.NewButtonWithIcon("Score", theme.ConfirmIcon(), func() { s.score() })
	s.scoreB.Importance = widget.HighImportance
	s.scoreB.Disable() // until a prediction file and a split are chosen
	s.headline = widget.NewLabelWithStyle("", fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	s.headline.SizeName = theme.SizeNameSubHeadingText
	s.headline.Wrapping = fyne.TextWrapWord
	s.outcome = widget.NewLabel("")
	s.outcome.Wrapping = fyne.TextWrapWord
	s.outcome.Hide()
	s.details = widget.NewLabel("Choose a prediction file (the official evaluator's input: question, pred, gt, more_info) and the split it was made for.")
	s.details.Wrapping = fyne.TextWrapWord

	var dimLabels []string
	for _, d := range breakdownDims {
		dimLabels = append(dimLabels, d.label)
	}
	s.dim = widget.NewSelect(dimLabels, func(string) { s.showBreakdown() })
	s.table = widget.NewTableWithHeaders(
		func() (int, int) { return len(s.groups), s.columns.Len() },
		func() fyne.CanvasObject {
			l := widget.NewLabel("")
			l.Truncation = fyne.TextTruncateEllipsis
			return l
		},
		func(id widget.TableCellID, o fyne.CanvasObject) { o.(*widget.Label).SetText(s.breakdownCell(id)) },
	)
	s.table.ShowHeaderColumn = false
	s.table.UpdateHeader = func(id widget.TableCellID, o fyne.CanvasObject) {
		if id.Col >= 0 {
			if k := s.columns.Index(id.Col); k >= 0 {
				o.(*widget.Label).SetText(breakdownColumns[k].Title)
			}
		}
	}
	s.columns = widgets.NewColumns(breakdownColumns, s.table)

	s.failL = widget.NewLabel("Failing steps")
	s.failList = widget.NewList(
		func() int { return len(s.failures) },
		func() fyne.CanvasObject {
			l := widget.NewLabel("")
			l.Truncation = fyne.TextTruncateEllipsis
			l.TextStyle.Bold = true
			d := widget.NewLabel("")
			d.Truncation = fyne.TextTruncateEllipsis
			return container.NewVBox(l, d)
		},
		func(i widget.ListItemID, o fyne.CanvasObject) {
			f := s.failures[i]
			lines := o.(*fyne.Container).Objects
			lines[0].(*widget.Label).SetText(fmt.Sprintf("%s step %d · %s", f.EpisodeID, f.Step+1, f.Info))
			lines[1].(*widget.Label).SetText(fmt.Sprintf("predicted %s · true %s", f.Pred, f.GT))
		},
	)
	s.viewer = widgets.NewFrameViewer()
	s.viewer.SetRun(x.host.Go)
	s.failList.OnSelected = func(i widget.ListItemID) {
		if i != s.viewer.Index() {
			s.viewer.Seek(i)
		}
	}
	s.viewer.OnStep(func(i int) {
		s.failList.Select(i)
		s.failList.ScrollTo(i)
	})
	legend := widget.NewRichText(
		&widget.TextSegment{Text: "True action: ", Style: widget.RichTextStyle{Inline: true, TextStyle: fyne.TextStyle{Bold: true}}},
		&widget.TextSegment{Text: "the viewer's rings and arrows in the accent colour. ", Style: widget.RichTextStyleInline},
		&widget.TextSegment{Text: "Predicted action: ", Style: widget.RichTextStyle{Inline: true, TextStyle: fyne.TextStyle{Bold: true}}},
		&widget.TextSegment{Text: "a red cross (and arrow for a scroll) drawn on the screenshot.", Style: widget.RichTextStyleInline},
	)
	legend.Wrapping = fyne.TextWrapWord

	// the choices and the headline on the left (scrolling on short windows), the results on the
	// right in two tabs: the breakdown table at full width, the failing steps beside a frame
	// viewer as large as the window allows
	controls := container.NewVBox(
		container.NewBorder(nil, nil, pick, nil, s.pathL),
		container.NewBorder(nil, nil, widget.NewLabel("Split"), nil, s.split),
		container.NewBorder(nil, nil, widget.NewLabel("Prompt level"), nil, s.level),
		container.NewBorder(nil, nil, widget.NewLabel("Metric"), nil, s.metric),
		container.NewBorder(nil, nil, widget.NewLabel("Mode"), nil, s.mode), s.modeHelp,
		container.NewHBox(layout.NewSpacer(), s.modelB, s.scoreB), s.outcome,
		widget.NewSeparator(),
		container.NewBorder(nil, nil, widget.NewLabel("Saved runs"), nil, s.runSel),
		container.NewHBox(layout.NewSpacer(), s.compareB, s.openRunB, s.delRunB))
	// room on the right for the scroll bar and the splitter: the buttons touched the handle
	pad := theme.Padding()
	left := container.NewVScroll(container.New(layout.NewCustomPaddedLayout(0, 0, 0, 3*pad), controls))
	// the run's summary heads its breakdown, over the table at full width: in the choices'
	// column it was cut at the window's foot while the table left half its height blank
	summary := container.NewVBox(s.headline, s.details, widget.NewSeparator())
	breakdown := container.NewBorder(
		container.NewVBox(summary,
			container.NewBorder(nil, nil, widget.NewLabel("Breakdown by"), s.columns.Chooser(x.host.Window), s.dim)),
		nil, nil, nil, s.columns.Fit())
	// the frame takes the height, its step controls under it; the step's captions and the
	// legend go under the list of failing steps
	s.viewer.SetMinFrameSize(fyne.NewSize(120, 160))
	captions := s.viewer.SetCaptionsApart()
	list := container.NewVSplit(container.NewBorder(s.failL, nil, nil, nil, s.failList),
		container.NewVScroll(container.NewVBox(captions, widget.NewSeparator(), legend)))
	list.Offset = 0.6
	failing := container.NewHSplit(list, s.viewer)
	failing.Offset = 0.4
	s.results = container.NewAppTabs(
		container.NewTabItem("Breakdown", breakdown),
		container.NewTabItem("Failing steps", failing))
	split := container.NewHSplit(left, s.results)
	split.Offset = 0.34
	s.content = split
	s.dim.SetSelected(dimLabels[0])
	return s
}

// refreshSplits lists the store's splits in the split choice.
func (s *explorerScoring) refreshSplits() {
	st := s.x.st
	var list []episode.SplitSummary
	var err error
	workspace.Run(s.x.host, nil, func(context.Context) {
		list, err = st.SplitSummaries(context.Background())
	}, func() {
		if err != nil {
			return
		}
		cur := s.split.Selected
		s.split.Options = nil
		s.kinds = map[string]string{}
		for _, sp := range list {
			s.split.Options = append(s.split.Options, sp.Name)
			s.kinds[sp.Name] = sp.Kind
		}
		s.split.Refresh()
		switch {
		case cur != "":
			s.split.SetSelected(cur)
		case len(list) > 0:
			s.split.SetSelected(list[0].Name)
		}
		s.refreshMetric()
	})
	s.refreshRuns(false)
}

// refreshMetric offers the metric choice for user splits; an official split's metric is fixed.
func (s *explorerScoring) refreshMetric() {
	if s.kinds[s.split.Selected] == episode.SplitUser {
		s.metric.Enable()
		return
	}
	s.metric.SetSelected(scoringMetrics[0].label)
	s.metric.Disable()
}

func (s *explorerScoring) metricBranch() odyssey.Branch {
	for _, m := range scoringMetrics {
		if m.label == s.metric.Selected {
			return m.branch
		}
	}
	return ""
}

func (s *explorerScoring) pickDialog() {
	w := s.x.host.Window()
	if w == nil {
		return
	}
	d := dialog.NewFileOpen(func(r fyne.URIReadCloser, err error) {
		if err != nil || r == nil {
			return
		}
		r.Close()
		s.setPath(r.URI().Path())
	}, w)
	d.SetFilter(storage.NewExtensionFileFilter([]string{".json", ".jsonl"}))
	d.Show()
}

func (s *explorerScoring) setPath(p string) {
	s.path = p
	s.pathL.SetText(p)
	defer s.refreshScoreButton()
	// A file named after its split (predictions_high_random_split.json) picks that split.
	base, best := filepath.Base(p), ""
	for _, o := range s.split.Options {
		if strings.Contains(base, o) && len(o) > len(best) {
			best = o
		}
	}
	if best != "" {
		s.split.SetSelected(best)
	}
}

// refreshScoreButton turns Score on once a prediction file and a split are chosen.
func (s *explorerScoring) refreshScoreButton() {
	if s.path != "" && s.split.Selected != "" {
		s.scoreB.Enable()
	} else {
		s.scoreB.Disable()
	}
}

func (s *explorerScoring) modeName() string {
	for _, m := range scoringModes {
		if m.label == s.mode.Selected {
			return m.mode
		}
	}
	return "official"
}

// score runs the scoring off the UI goroutine with a progress dialog, then says under the
// Score button what came of it (the numbers and the run they are saved as, or why there are
// none), shows the result and selects its run in the saved runs.
func (s *explorerScoring) score() *workspace.Task {
	if s.path == "" || s.split.Selected == "" {
		s.details.SetText("Choose a prediction file and a split first.")
		return nil
	}
	path, split, mode, st := s.path, s.split.Selected, s.modeName(), s.x.st
	level, metric := s.level.Selected, s.metricBranch()
	lenientOnAbort := s.lenientOnAbort // a model's run: scored in lenient mode where the official evaluation aborts
	s.lenientOnAbort = false
	var res *odyssey.Result
	var groups map[string][]odyssey.Group
	var fails []odyssey.Failure
	var notes []string
	var scoreErr error
	var run scoredRun
	s.setOutcome(fmt.Sprintf("Scoring %s against %s…", filepath.Base(path), split), widget.MediumImportance)
	return s.x.runJob("Score "+filepath.Base(path), func(ctx context.Context, report func(float64, string)) (string, error) {
		report(-1, fmt.Sprintf("Scoring against %s…", split))
		before, err := st.SavedOdysseyRuns(ctx)
		if err != nil {
			return "", err
		}
		res, groups, fails, notes, scoreErr = st.ScorePredictionsFile(ctx, path, split, mode, level, metric)
		var abort *odyssey.AbortError
		if lenientOnAbort && mode == "official" && errors.As(scoreErr, &abort) {
			why := scoreErr.Error()
			mode = "lenient"
			res, groups, fails, notes, scoreErr = st.ScorePredictionsFile(ctx, path, split, mode, level, metric)
			notes = append(notes, "The official evaluation aborts on these predictions ("+why+"): scored in lenient mode.")
		}
		if scoreErr != nil && !errors.As(scoreErr, &abort) {
			return "", scoreErr
		}
		if scoreErr == nil {
			after, err := st.SavedOdysseyRuns(ctx)
			if err != nil {
				return "", err
			}
			run = findScoredRun(before, after, path, split, mode, level, res.Branch)
		}
		return "", nil // the tab shows the result
	}, func(_ string, err error) {
		if err != nil {
			s.headline.SetText("")
			s.details.SetText("Cannot score: " + err.Error())
			s.setOutcome("Cannot score: "+err.Error(), widget.DangerImportance)
			return
		}
		s.show(res, groups, fails, notes, scoreErr, split, mode)
		var abort *odyssey.AbortError
		switch {
		case errors.As(scoreErr, &abort):
			s.setOutcome("The official evaluation aborts on this file: no numbers, no run saved (see below). Lenient mode scores it.", widget.WarningImportance)
		case run.ID != 0 && run.added:
			s.setOutcome(fmt.Sprintf("Scored: AMS %s · SR %s. Saved as run #%d (selected below).", res.Info.AMS, res.Info.SR, run.ID), widget.SuccessImportance)
		case run.ID != 0:
			s.setOutcome(fmt.Sprintf("Scored: AMS %s · SR %s, the same as saved run #%d: this file was scored with these settings before (selected below).",
				res.Info.AMS, res.Info.SR, run.ID), widget.SuccessImportance)
		default:
			s.setOutcome(fmt.Sprintf("Scored: AMS %s · SR %s.", res.Info.AMS, res.Info.SR), widget.SuccessImportance)
		}
		s.refreshRunsSelecting(run.ID)
	})
}

// setOutcome says under the Score button what the last scoring came to.
func (s *explorerScoring) setOutcome(text string, imp widget.Importance) {
	s.outcome.Importance = imp
	s.outcome.SetText(text)
	s.outcome.Show()
}

// scoredRun is the saved run a scoring went to: added by it, or saved before (scoring the same
// file with the same split, mode and level again returns the run saved the first time).
type scoredRun struct {
	ID    int64
	added bool
}

// findScoredRun finds the run a scoring saved from the runs listed before and after it: the
// one that is new, or else the run saved before from the same file with the same settings.
func findScoredRun(before, after []odyssey.SavedRun, path, split, mode, level string, branch odyssey.Branch) scoredRun {
	known := map[int64]bool{}
	for _, r := range before {
		known[r.ID] = true
	}
	for _, r := range after {
		if !known[r.ID] {
			return scoredRun{ID: r.ID, added: true}
		}
	}
	for _, r := range after { // newest first
		if r.PredictionsPath == path && r.Split == split && r.Mode == mode && r.Level == level && r.Branch == branch {
			return scoredRun{ID: r.ID}
		}
	}
	return scoredRun{}
}
