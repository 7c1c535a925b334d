package explorer

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/widget"

	"github.com/agentdesk/agentdesk/engine/odyssey"
	"github.com/agentdesk/agentdesk/ui/workspace"
)

// Comparing two saved runs side by side: step accuracy per action kind and per category, and the
// episodes where the two runs fail on different steps.

// compareRow is one line of the comparison.
type compareRow struct {
	Dim, Value string
	A, B       *odyssey.Group // nil: the run has no step of this value
}

// episodeDiff is an episode the two runs fail on different steps of (steps 1-based).
type episodeDiff struct {
	EpisodeID  string
	OnlyA      []int // failing in A only
	OnlyB      []int // failing in B only
	FailsBoth  int
	StepsCount int
}

// comparison is two runs side by side.
type comparison struct {
	A, B     odyssey.SavedRun
	ResA     *odyssey.Result
	ResB     *odyssey.Result
	Rows     []compareRow
	Episodes []episodeDiff
}

// compareRuns lines up two runs' breakdowns by action kind and category and finds the episodes
// whose failing steps differ.
func compareRuns(a, b odyssey.SavedRun, resA, resB *odyssey.Result, groupsA, groupsB map[string][]odyssey.Group, failsA, failsB []odyssey.Failure) comparison {
	c := comparison{A: a, B: b, ResA: resA, ResB: resB}
	for _, dim := range []string{odyssey.ByAction, odyssey.ByCategory} {
		byA, byB := map[string]*odyssey.Group{}, map[string]*odyssey.Group{}
		var values []string
		for i := range groupsA[dim] {
			g := &groupsA[dim][i]
			byA[g.Value] = g
			values = append(values, g.Value)
		}
		for i := range groupsB[dim] {
			g := &groupsB[dim][i]
			byB[g.Value] = g
			if byA[g.Value] == nil {
				values = append(values, g.Value)
			}
		}
		slices.Sort(values)
		for _, v := range values {
			c.Rows = append(c.Rows, compareRow{Dim: dim, Value: v, A: byA[v], B: byB[v]})
		}
	}
	type key struct {
		ep   string
		step int
	}
	fa, fb := map[key]bool{}, map[key]bool{}
	for _, f := range failsA {
		fa[key{f.EpisodeID, f.Step}] = true
	}
	for _, f := range failsB {
		fb[key{f.EpisodeID, f.Step}] = true
	}
	eps := map[string]*episodeDiff{}
	get := func(ep string) *episodeDiff {
		if eps[ep] == nil {
			eps[ep] = &episodeDiff{EpisodeID: ep}
		}
		return eps[ep]
	}
	for k := range fa {
		if fb[k] {
			get(k.ep).FailsBoth++
		} else {
			d := get(k.ep)
			d.OnlyA = append(d.OnlyA, k.step+1)
		}
	}
	for k := range fb {
		if !fa[k] {
			d := get(k.ep)
			d.OnlyB = append(d.OnlyB, k.step+1)
		}
	}
	for _, d := range eps {
		if len(d.OnlyA)+len(d.OnlyB) == 0 {
			continue
		}
		slices.Sort(d.OnlyA)
		slices.Sort(d.OnlyB)
		c.Episodes = append(c.Episodes, *d)
	}
	slices.SortFunc(c.Episodes, func(x, y episodeDiff) int { return strings.Compare(x.EpisodeID, y.EpisodeID) })
	return c
}

func groupCell(g *odyssey.Group) string {
	if g == nil {
		return "—"
	}
	return fmt.Sprintf("%.2f (%d/%d)", g.AMS, g.Correct, g.Steps)
}

func steps(s []int) string {
	if len(s) == 0 {
		return "none"
	}
	var out []string
	for _, v := range s {
		out = append(out, fmt.Sprint(v))
	}
	return strings.Join(out, ", ")
}

// Text is the comparison as the dialog shows it.
func (c comparison) Text() string {
	var b strings.Builder
	fmt.Fprintf(&b, "A: %s\nB: %s\n", runLabel(c.A), runLabel(c.B))
	if c.ResA != nil && c.ResB != nil {
		fmt.Fprintf(&b, "AMS  A %s · B %s    SR  A %s · B %s\n", c.ResA.Info.AMS, c.ResB.Info.AMS, c.ResA.Info.SR, c.ResB.Info.SR)
	}
	dim := ""
	for _, r := range c.Rows {
		if r.Dim != dim {
			dim = r.Dim
			title := "Per action kind"
			if dim == odyssey.ByCategory {
				title = "Per category"
			}
			fmt.Fprintf(&b, "\n%s (step accuracy, correct/steps)\n%-24s %-20s %-20s\n", title, "", "A", "B")
		}
		fmt.Fprintf(&b, "%-24s %-20s %-20s\n", r.Value, groupCell(r.A), groupCell(r.B))
	}
	fmt.Fprintf(&b, "\nEpisodes where the runs differ: %d\n", len(c.Episodes))
	for _, d := range c.Episodes {
		fmt.Fprintf(&b, "%s: wrong in A only at steps %s; in B only at %s; in both: %d\n", d.EpisodeID, steps(d.OnlyA), steps(d.OnlyB), d.FailsBoth)
	}
	return b.String()
}

// compareDialog asks for two saved runs and shows them side by side.
func (s *explorerScoring) compareDialog() {
	w := s.x.host.Window()
	if w == nil || len(s.runs) < 2 {
		return
	}
	a := widget.NewSelect(s.runSel.Options, nil)
	b := widget.NewSelect(s.runSel.Options, nil)
	a.SetSelectedIndex(0)
	b.SetSelectedIndex(1)
	if i := s.runSel.SelectedIndex(); i >= 0 {
		a.SetSelectedIndex(i)
		b.SetSelectedIndex((i + 1) % len(s.runs))
	}
	out := widget.NewLabel("")
	out.TextStyle.Monospace = true
	s.compareOut = out
	var d *dialog.CustomDialog
	cmp := widget.NewButton("Compare", func() {
		ia, ib := a.SelectedIndex(), b.SelectedIndex()
		if ia < 0 || ib < 0 {
			return
		}
		s.compare(s.runs[ia], s.runs[ib], out)
	})
	cmp.Importance = widget.HighImportance
	top := container.NewVBox(container.NewBorder(nil, nil, widget.NewLabel("Run A"), nil, a),
		container.NewBorder(nil, nil, widget.NewLabel("Run B"), nil, b), container.NewHBox(cmp))
	d = dialog.NewCustom("Compare two runs", "Close", container.NewBorder(top, nil, nil, nil, container.NewScroll(out)), w)
	d.Resize(fyne.NewSize(900, 620))
	d.Show()
	cmp.OnTapped()
}

// compare opens both runs off the UI goroutine and shows them side by side in out.
func (s *explorerScoring) compare(a, b odyssey.SavedRun, out *widget.Label) {
	st := s.x.st
	var c comparison
	var err error
	out.SetText("Opening both runs…")
	// a second Compare cancels the first, whose result is dropped
	workspace.Run(s.x.host, &s.comparing, func(ctx context.Context) {
		resA, gA, fA, runA, e := st.OpenSavedRun(ctx, a.ID)
		if e != nil {
			err = e
			return
		}
		resB, gB, fB, runB, e := st.OpenSavedRun(ctx, b.ID)
		if e != nil {
			err = e
			return
		}
		c = compareRuns(runA, runB, resA, resB, gA, gB, fA, fB)
	}, func() {
		if err != nil {
			out.SetText("Cannot open the runs: " + err.Error())
			return
		}
		s.comparison = &c
		out.SetText(c.Text())
	})
}
