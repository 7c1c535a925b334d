package explorer

import (
	"context"
	"fmt"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/widget"

	"github.com/agentdesk/agentdesk/engine/episode"
	"github.com/agentdesk/agentdesk/ui/widgets"
	"github.com/agentdesk/agentdesk/ui/workspace"
)

// explorerStats is the Statistics tab: charts of the current selection (episode lengths,
// action kinds, categories, apps, devices, split parts). The counts are grouped in SQLite, off
// the UI goroutine, when the tab is shown or the filter changes while it is on show. Tapping a
// category, app, device or action bar narrows the filter to it.
type explorerStats struct {
	x        *Workspace
	summary  *widget.Label
	busy     *widget.ProgressBarInfinite
	lengths  *widgets.BarChart
	actions  *widgets.BarChart
	category *widgets.BarChart
	apps     *widgets.BarChart
	devices  *widgets.BarChart
	splits   *widgets.BarChart
	content  fyne.CanvasObject
	shown    episode.Stats
}

// statsTopApps is how many apps the chart names (the rest are one "others" bar): nine rows
// share a laptop screen with the five other charts.
const statsTopApps = 8

func newExplorerStats(x *Workspace) *explorerStats {
	s := &explorerStats{x: x, summary: widget.NewLabel("")}
	s.summary.Wrapping = fyne.TextWrapWord
	s.busy = widget.NewProgressBarInfinite()
	s.busy.Stop()
	s.busy.Hide()
	s.lengths = widgets.NewBarChart("Episode length (steps)", nil, true)
	s.actions = widgets.NewBarChart("Steps per action type", nil, false)
	s.category = widgets.NewBarChart("Episodes per category", nil, false)
	s.apps = widgets.NewBarChart(fmt.Sprintf("Episodes per app (top %d)", statsTopApps), nil, false)
	s.devices = widgets.NewBarChart("Episodes per device", nil, false)
	s.splits = widgets.NewBarChart("Selected episodes per split part", nil, false)
	narrow := func(facet string, counts func() []episode.Count) func(int) {
		return func(i int) {
			cs := counts()
			if i >= len(cs) || cs[i].N == 0 || facet == "" {
				return
			}
			x.setFilter(x.filter.WithFacet(facet, cs[i].Value))
			x.tabs.SelectIndex(0)
		}
	}
	s.actions.OnTapped = narrow(episode.FacetAction, func() []episode.Count { return s.shown.Actions })
	s.category.OnTapped = narrow(episode.FacetCategory, func() []episode.Count { return s.shown.Facets[episode.FacetCategory] })
	s.apps.OnTapped = narrow(episode.FacetApp, func() []episode.Count { return s.shown.Facets[episode.FacetApp] })
	s.devices.OnTapped = narrow(episode.FacetDevice, func() []episode.Count { return s.shown.Facets[episode.FacetDevice] })
	s.lengths.OnTapped = func(i int) {
		bins := episode.LengthHistogram(s.shown.Lengths, 20)
		if i < len(bins) {
			f := x.filter
			f.MinSteps, f.MaxSteps = max(bins[i].Lo, 1), bins[i].Hi
			x.setFilter(f)
			x.tabs.SelectIndex(0)
		}
	}
	hint := widget.NewLabel("Tap a bar to narrow the filter to it.")
	hint.Importance = widget.LowImportance
	// three charts a row on a laptop screen, the rows sharing the height: two rows of two
	// put the third row below the fold at 1024x700
	grid := container.New(&chartGrid{colWidth: 300},
		container.NewPadded(s.lengths), container.NewPadded(s.actions), container.NewPadded(s.category),
		container.NewPadded(s.devices), container.NewPadded(s.apps), container.NewPadded(s.splits))
	// the summary and the hint on one line
	s.content = container.NewBorder(container.NewVBox(container.NewBorder(nil, nil, nil, hint, s.summary), s.busy),
		nil, nil, nil, container.NewVScroll(grid))
	return s
}

// refreshIfStale recomputes the statistics when the filter changed since they were drawn.
func (s *explorerStats) refreshIfStale() {
	if s.x.statsGen == s.x.gen {
		return
	}
	gen, f, st := s.x.gen, s.x.filter, s.x.st
	s.x.statsGen = gen
	s.summary.SetText("Counting " + f.Describe() + "…")
	s.busy.Show()
	s.busy.Start()
	var stats episode.Stats
	var err error
	workspace.Run(s.x.host, nil, func(context.Context) {
		stats, err = st.MatchingStats(context.Background(), f)
	}, func() {
		if gen != s.x.gen {
			return
		}
		s.busy.Stop()
		s.busy.Hide()
		if err != nil {
			s.summary.SetText("Cannot compute the statistics: " + err.Error())
			return
		}
		s.set(stats, f)
	})
}

func (s *explorerStats) set(st episode.Stats, f episode.Filter) {
	s.shown = st
	mean := 0.0
	if st.Episodes > 0 {
		mean = float64(st.Steps) / float64(st.Episodes)
	}
	s.summary.SetText(fmt.Sprintf("%s, %s (%.1f per episode) — %s.", widgets.Plural(st.Episodes, "episode"),
		widgets.Plural(st.Steps, "step"), mean, f.Describe()))
	var bars []widgets.Bar
	for _, b := range episode.LengthHistogram(st.Lengths, 20) {
		label := fmt.Sprint(b.Lo)
		if b.Hi > b.Lo {
			label = fmt.Sprintf("%d–%d", b.Lo, b.Hi)
		}
		bars = append(bars, widgets.Bar{Label: label, Value: float64(b.Episodes), Text: fmt.Sprint(b.Episodes)})
	}
	s.lengths.SetBars(bars)
	s.actions.SetBars(countBars(st.Actions, st.Steps))
	s.category.SetBars(countBars(st.Facets[episode.FacetCategory], st.Episodes))
	s.devices.SetBars(countBars(st.Facets[episode.FacetDevice], st.Episodes))
	apps := st.Facets[episode.FacetApp]
	s.apps.SetBars(countBars(episode.TopCounts(apps, statsTopApps), st.Episodes))
	if len(apps) > statsTopApps {
		s.shown.Facets[episode.FacetApp] = apps[:statsTopApps] // the "others" bar narrows nothing
	}
	var sb []widgets.Bar
	for _, c := range st.Splits {
		// the part first: a long split name is cut, not the part
		sb = append(sb, widgets.Bar{Label: c.Part + " · " + c.Split, Value: float64(c.N), Text: fmt.Sprint(c.N)})
	}
	s.splits.SetBars(sb)
}

// countBars makes bars of counts with their share of total.
func countBars(cs []episode.Count, total int) []widgets.Bar {
	out := make([]widgets.Bar, 0, len(cs))
	for _, c := range cs {
		text := fmt.Sprint(c.N)
		if total > 0 {
			text = fmt.Sprintf("%d (%.1f%%)", c.N, float64(c.N)*100/float64(total))
		}
		label := c.Value
		if label == "" {
			label = "(none)"
		}
		out = append(out, widgets.Bar{Label: label, Value: float64(c.N), Text: text})
	}
	return out
}

// chartGrid lays charts out in as many columns as fit at colWidth (at most three), the rows
// sharing the height left over beyond their charts' own; its minimum height follows the
// columns of the last layout (as widgets.NewFlow's does), so in a scroll it scrolls only when
// the charts need more than the window has.
type chartGrid struct {
	colWidth float32
	width    float32
}

func (g *chartGrid) cols(width float32, n int) int {
	return max(1, min(3, n, int(width/g.colWidth)))
}

func (g *chartGrid) Layout(objs []fyne.CanvasObject, size fyne.Size) {
	g.width = size.Width
	if len(objs) == 0 {
		return
	}
	c := g.cols(size.Width, len(objs))
	hs := widgets.RowHeights(objs, c)
	total := float32(0)
	for _, h := range hs {
		total += h
	}
	extra := max(0, size.Height-total) / float32(len(hs))
	w := size.Width / float32(c)
	y := float32(0)
	for r, h := range hs {
		for k := 0; k < c && r*c+k < len(objs); k++ {
			o := objs[r*c+k]
			o.Move(fyne.NewPos(float32(k)*w, y))
			o.Resize(fyne.NewSize(w, h+extra))
		}
		y += h + extra
	}
}

func (g *chartGrid) MinSize(objs []fyne.CanvasObject) fyne.Size {
	if len(objs) == 0 {
		return fyne.Size{}
	}
	width := g.width
	if width <= 0 {
		width = 3 * g.colWidth
	}
	c := g.cols(width, len(objs))
	w, h := float32(0), float32(0)
	for _, o := range objs {
		w = max(w, o.MinSize().Width)
	}
	for _, rh := range widgets.RowHeights(objs, c) {
		h += rh
	}
	return fyne.NewSize(w, h)
}
