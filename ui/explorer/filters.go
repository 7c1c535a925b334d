package explorer

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/agentdesk/agentdesk/engine/episode"
	"github.com/agentdesk/agentdesk/ui/widgets"
	"github.com/agentdesk/agentdesk/ui/workspace"
)

// The filter row: source, split, facets, step counts and the search, remembered between
// sessions.

type splitOption struct {
	label       string
	split, part string
}

// setFilter replaces the filter, updates the filter widgets and reloads the listing.
func (x *Workspace) setFilter(f episode.Filter) {
	x.filter = f
	if episode.TextQuery(f.Text) == "" && x.sort.Key == episode.SortRelevance {
		x.sort = episode.Sort{Key: episode.SortID}
	}
	x.syncWidgets()
	x.savePrefs()
	x.reload()
}

// changeFilter applies a change made with one of the filter widgets.
func (x *Workspace) changeFilter(change func(f *episode.Filter)) {
	if x.quiet {
		return
	}
	f := x.filter
	change(&f)
	hadText := episode.TextQuery(x.filter.Text) != ""
	x.filter = f
	switch hasText := episode.TextQuery(f.Text) != ""; {
	case hasText && !hadText:
		x.sort = episode.Sort{Key: episode.SortRelevance}
	case !hasText && x.sort.Key == episode.SortRelevance:
		x.sort = episode.Sort{Key: episode.SortID}
	}
	x.refreshFilterButton()
	x.savePrefs()
	x.reload()
}

// searchPlaceholder is the search field's hint.
const searchPlaceholder = "Search episodes…"

func (x *Workspace) buildFilters() {
	x.search = widget.NewEntry()
	// short enough for the listing's column on a laptop screen (the long one was cut to
	// "Search task, instruction and meta-ta"); it searches tasks, instructions and meta-tasks,
	// every word, the last one as a prefix
	x.search.SetPlaceHolder(searchPlaceholder)
	// the search field's own button empties it (Clear filters, with the filters, clears all)
	x.search.ActionItem = widgets.NewTipButton("Empty the search", theme.ContentClearIcon(), func() {
		if x.search.Text != "" {
			x.search.SetText("")
			x.search.OnSubmitted("")
		}
	})
	x.search.OnChanged = func(s string) {
		if x.quiet {
			return
		}
		// Search as you type, once the typing pauses.
		if x.searchTimer != nil {
			x.searchTimer.Stop()
		}
		x.searchTimer = time.AfterFunc(180*time.Millisecond, func() {
			fyne.Do(func() { x.changeFilter(func(f *episode.Filter) { f.Text = s }) })
		})
	}
	x.search.OnSubmitted = func(s string) {
		if x.searchTimer != nil {
			x.searchTimer.Stop()
		}
		x.changeFilter(func(f *episode.Filter) { f.Text = s })
	}

	x.source = widget.NewSelect(nil, func(v string) {
		x.changeFilter(func(f *episode.Filter) { f.Source = optionValue(v, "All sources") })
	})
	x.split = widget.NewSelect(nil, func(v string) {
		x.changeFilter(func(f *episode.Filter) {
			f.Split, f.Part = "", ""
			for _, o := range x.splitOptions {
				if o.label == v {
					f.Split, f.Part = o.split, o.part
				}
			}
		})
	})
	for _, fc := range explorerFacets {
		facet, anyLabel := fc.facet, fc.any
		x.facets[facet] = widget.NewSelect(nil, func(v string) {
			x.changeFilter(func(f *episode.Filter) {
				if val := x.facetOptionValue(facet, v, anyLabel); val != "" {
					*f = f.WithFacet(facet, val)
				} else {
					*f = f.WithFacet(facet)
				}
			})
		})
	}
	steps := func(set func(f *episode.Filter, n int)) func(string) {
		return func(s string) {
			n, err := strconv.Atoi(strings.TrimSpace(s))
			if err != nil || n < 0 {
				n = 0
			}
			x.changeFilter(func(f *episode.Filter) { set(f, n) })
		}
	}
	x.minSteps = widget.NewEntry()
	x.minSteps.SetPlaceHolder("min")
	x.minSteps.OnChanged = steps(func(f *episode.Filter, n int) { f.MinSteps = n })
	x.maxSteps = widget.NewEntry()
	x.maxSteps.SetPlaceHolder("max")
	x.maxSteps.OnChanged = steps(func(f *episode.Filter, n int) { f.MaxSteps = n })
	x.refreshOptions()
}

// optionValue strips a select option's count suffix (" (123)"); the "any" option is "".
func optionValue(option, anyLabel string) string {
	if option == anyLabel || option == "" {
		return ""
	}
	if i := strings.LastIndex(option, " ("); i > 0 && strings.HasSuffix(option, ")") {
		return option[:i]
	}
	return option
}

func countOptions(anyLabel string, cs []episode.Count) []string {
	out := []string{anyLabel}
	for _, c := range cs {
		out = append(out, fmt.Sprintf("%s (%d)", c.Value, c.N))
	}
	return out
}

// metaTaskWidth is the width of the meta-task choice, and metaTaskLabel the length its options
// are cut to (in the middle: meta-tasks often differ only at the end).
const (
	metaTaskWidth = 280 // two of the other choices: it fits the listing column of a laptop
	metaTaskLabel = 36
)

// longCountOptions is countOptions for long values: each value shortened in the middle to
// metaTaskLabel characters, with the map from option to value.
func longCountOptions(anyLabel string, cs []episode.Count) ([]string, map[string]string) {
	out, values := []string{anyLabel}, map[string]string{}
	for _, c := range cs {
		label := fmt.Sprintf("%s (%d)", shortenMiddle(c.Value, metaTaskLabel), c.N)
		for values[label] != "" { // two values alike but for their middle
			label += " "
		}
		values[label] = c.Value
		out = append(out, label)
	}
	return out, values
}

// shortenMiddle cuts s to n characters by replacing its middle with "…".
func shortenMiddle(s string, n int) string {
	r := []rune(s)
	if len(r) <= n || n < 5 {
		return s
	}
	head := (n - 1) * 3 / 5
	tail := n - 1 - head
	return strings.TrimSpace(string(r[:head])) + "…" + strings.TrimSpace(string(r[len(r)-tail:]))
}

// facetOptionValue is the value a facet's option stands for ("" for the "any" option).
func (x *Workspace) facetOptionValue(facet, option, anyLabel string) string {
	if v, ok := x.optionValues[facet][option]; ok {
		return v
	}
	return optionValue(option, anyLabel)
}

// refreshOptions reads the sources, splits and facet values for the filter widgets.
func (x *Workspace) refreshOptions() {
	ctx := context.Background()
	st := x.st
	var sources []episode.Count
	var splits []episode.SplitSummary
	values := map[string][]episode.Count{}
	var errs []error
	workspace.Run(x.host, nil, func(context.Context) {
		var err error
		if sources, err = st.SourceCounts(ctx); err != nil {
			errs = append(errs, err)
		}
		if splits, err = st.SplitSummaries(ctx); err != nil {
			errs = append(errs, err)
		}
		for _, fc := range explorerFacets {
			if values[fc.facet], err = st.FacetValues(ctx, fc.facet); err != nil {
				errs = append(errs, err)
			}
		}
	}, func() {
		if len(errs) > 0 {
			x.status.SetText("Cannot read the store: " + errs[0].Error())
		}
		x.source.Options = countOptions("All sources", sources)
		x.splitOptions = []splitOption{{label: "All splits"}}
		for _, sp := range splits {
			x.splitOptions = append(x.splitOptions, splitOption{label: fmt.Sprintf("%s (%d)", sp.Name, sp.Size()), split: sp.Name})
			for _, p := range sp.Parts {
				x.splitOptions = append(x.splitOptions, splitOption{label: fmt.Sprintf("%s · %s (%d)", sp.Name, p.Value, p.N), split: sp.Name, part: p.Value})
			}
		}
		x.split.Options = nil
		for _, o := range x.splitOptions {
			x.split.Options = append(x.split.Options, o.label)
		}
		x.optionValues = map[string]map[string]string{}
		for _, fc := range explorerFacets {
			if fc.long {
				x.facets[fc.facet].Options, x.optionValues[fc.facet] = longCountOptions(fc.any, values[fc.facet])
			} else {
				x.facets[fc.facet].Options = countOptions(fc.any, values[fc.facet])
			}
		}
		x.syncWidgets()
	})
}

// syncWidgets shows the filter in the filter widgets.
func (x *Workspace) syncWidgets() {
	x.quiet = true
	defer func() { x.quiet = false }()
	f := x.filter
	if x.search.Text != f.Text {
		x.search.SetText(f.Text)
	}
	selectValue(x.source, f.Source, "All sources")
	label := "All splits"
	for _, o := range x.splitOptions {
		if o.split == f.Split && o.part == f.Part {
			label = o.label
		}
	}
	x.split.SetSelected(label)
	for _, fc := range explorerFacets {
		v := ""
		if vs := f.Facets[fc.facet]; len(vs) > 0 {
			v = vs[0]
		}
		x.selectFacetValue(fc.facet, v, fc.any)
	}
	setNumber(x.minSteps, f.MinSteps)
	setNumber(x.maxSteps, f.MaxSteps)
	x.refreshFilterButton()
}

func selectValue(s *widget.Select, value, anyLabel string) {
	if value == "" {
		s.SetSelected(anyLabel)
		return
	}
	for _, o := range s.Options {
		if optionValue(o, anyLabel) == value {
			s.SetSelected(o)
			return
		}
	}
	s.SetSelected(value) // not in the store (any more): shown as it is, selects nothing
}

// selectFacetValue shows value in a facet's choice (options that stand for another value
// included).
func (x *Workspace) selectFacetValue(facet, value, anyLabel string) {
	s := x.facets[facet]
	if value != "" {
		for _, o := range s.Options {
			if v, ok := x.optionValues[facet][o]; ok && v == value {
				s.SetSelected(o)
				return
			}
		}
	}
	selectValue(s, value, anyLabel)
}

func setNumber(e *widget.Entry, n int) {
	want := ""
	if n > 0 {
		want = strconv.Itoa(n)
	}
	if e.Text != want {
		e.SetText(want)
	}
}

// explorerPrefs is what the Explorer remembers between sessions.
type explorerPrefs struct {
	Filter episode.Filter
	Sort   episode.Sort
}

func (x *Workspace) loadPrefs() {
	prefs := fyne.CurrentApp().Preferences()
	var f episode.Filter
	if s := prefs.String(prefExplorerFilter); s != "" && json.Unmarshal([]byte(s), &f) == nil {
		x.filter = f
	}
	var srt episode.Sort
	if s := prefs.String(prefExplorerSort); s != "" && json.Unmarshal([]byte(s), &srt) == nil {
		x.sort = srt
	}
}

func (x *Workspace) savePrefs() {
	prefs := fyne.CurrentApp().Preferences()
	if b, err := json.Marshal(x.filter); err == nil {
		prefs.SetString(prefExplorerFilter, string(b))
	}
	if b, err := json.Marshal(x.sort); err == nil {
		prefs.SetString(prefExplorerSort, string(b))
	}
}
