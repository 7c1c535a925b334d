package explorer

import (
	"context"
	"fmt"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/layout"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/agentdesk/agentdesk/engine/episode"
	"github.com/agentdesk/agentdesk/ui/widgets"
	"github.com/agentdesk/agentdesk/ui/workspace"
)

// explorerPage is the number of rows read at once (four screens or so: small pages keep each
// read within a few milliseconds); explorerKeepPages bounds the pages kept, so scrolling
// through 100k episodes holds a couple of thousand rows at most.
const (
	explorerPage      = 100
	explorerKeepPages = 20
)

// Preference keys of the Explorer.
const (
	prefExplorerFilter = "explorer.filter"
	prefExplorerSort   = "explorer.sort"
	prefExplorerTab    = "explorer.tab"
)

// Workspace is the Explorer workspace: every episode in the store, whatever its source, in a
// virtualised table (rows are read a page at a time, off the UI goroutine, as they scroll into
// view) with filters, full-text search and sortable columns; the selected episode's steps and
// frames; statistics of the selection; splits; and scoring of model predictions.
type Workspace struct {
	host workspace.Host
	st   Store
	root fyne.CanvasObject

	filter episode.Filter
	sort   episode.Sort
	count  int
	// gen counts filter and sort changes; results of an older generation are dropped.
	gen     int
	pages   map[int][]episode.Row
	loading map[int]bool
	// listing is the ids of the listing in order, read once for the filter and sort on show
	// when the table first needs a page after the first one; later pages are read by id.
	listing *listingOrder
	order   []int // pages by last use, for eviction
	// statsGen is the generation the statistics tab shows.
	statsGen int

	search   *widget.Entry
	source   *widget.Select
	split    *widget.Select
	facets   map[string]*widget.Select
	minSteps *widget.Entry
	maxSteps *widget.Entry
	status   *widget.Label
	// filterBtn folds the filter choices (filterPanel) out and in
	filterBtn   *widget.Button
	filterPanel *fyne.Container
	table       *widget.Table
	selected    int // the table's selected row (-1: none)
	columns     *widgets.Columns
	// sampleBtn offers the sample data while the store holds no episode
	sampleBtn *widget.Button
	tabs      *container.AppTabs
	detail    *explorerDetail
	stats     *explorerStats
	splits    *explorerSplits
	scoring   *explorerScoring

	// frames reads the frames of the episode and scoring viewers.
	frames *frameSource

	splitOptions []splitOption
	// optionValues maps the options of a facet's choice whose label is not the value
	// ("value (count)") to the value: shortened meta-tasks
	optionValues map[string]map[string]string
	searchTimer  *time.Timer
	// quiet is set while the filter widgets are being filled from the filter, so their
	// change callbacks do not re-apply it.
	quiet bool
}

var explorerFacets = []struct {
	facet string
	any   string
	// long values (meta-tasks are sentences) are shortened in the middle in the choice
	long bool
}{
	{episode.FacetCategory, "Any category", false},
	{episode.FacetApp, "Any app", false},
	{episode.FacetDevice, "Any device", false},
	{episode.FacetAction, "Any action", false},
	{episode.FacetMetaTask, "Any meta-task", true},
}

// New builds the workspace on st (nil: none is open, and the workspace says so).
func New(h workspace.Host, st Store) *Workspace {
	x := &Workspace{host: h, st: st, pages: map[int][]episode.Row{}, loading: map[int]bool{},
		facets: map[string]*widget.Select{}, status: widget.NewLabel(""), frames: newFrameSource(time.Minute)}
	if st == nil {
		l := widget.NewLabel("No store is open. Open or create one in Settings to explore its episodes.")
		l.Wrapping = fyne.TextWrapWord
		x.root = container.NewVBox(l)
		return x
	}
	x.status.Wrapping = fyne.TextWrapWord // the empty store's explanation is a long sentence
	x.sampleBtn = workspace.SampleButton(x.host)
	x.sampleBtn.Hide() // offered while the store holds no episode
	x.loadPrefs()
	x.detail = newExplorerDetail(x)
	x.buildTable()
	x.buildFilters()
	x.stats = newExplorerStats(x)
	x.splits = newExplorerSplits(x)
	x.scoring = newExplorerScoring(x)
	// Refresh the planner's statistics once the workspace opens (cheap when nothing changed),
	// then start the memory index that answers the listing at large sizes.
	h.Go(func() {
		st.OptimizeQueries(context.Background())
		st.StartExplorerIndex()
	})
	x.reload()
	x.root = x.content()
	return x
}

// Do implements workspace.Commands: Find goes to the search field, Open imports a dataset.
func (x *Workspace) Do(c workspace.Command) bool {
	if x.st == nil {
		return false
	}
	switch c {
	case workspace.Find:
		x.tabs.SelectIndex(0)
		if w := x.host.Window(); w != nil {
			workspace.Focus(w, x.search)
		}
	case workspace.Open:
		x.importDialog()
	default:
		return false
	}
	return true
}

// Content implements workspace.Workspace.
func (x *Workspace) Content() fyne.CanvasObject { return x.root }

// Close implements workspace.Workspace: the frame source's archives are let go.
func (x *Workspace) Close() {
	if x.frames != nil {
		x.frames.close()
	}
}

func (x *Workspace) content() fyne.CanvasObject {
	importB := widget.NewButtonWithIcon("Import dataset…", theme.DownloadIcon(), x.importDialog)
	exportB := widget.NewButtonWithIcon("Export…", theme.UploadIcon(), x.exportDialog)
	clear := widget.NewButtonWithIcon("Clear filters", theme.ContentClearIcon(), func() { x.setFilter(episode.Filter{}) })
	// The listing is a column of its own: the search line, the filters (folded away until asked
	// for: open, they take the listing's height, never the frame's), the table and its status.
	// The selected episode takes the rest of the width and the whole height.
	x.filterBtn = widget.NewButtonWithIcon("Filters", theme.MenuDropDownIcon(), x.toggleFilters)
	searchLine := container.NewBorder(nil, nil, nil, x.filterBtn, x.search)
	steps := container.NewHBox(widget.NewLabel("Steps"), widgets.Sized(x.minSteps, 64), widget.NewLabel("to"), widgets.Sized(x.maxSteps, 64))
	sel := func(s *widget.Select) fyne.CanvasObject { return widgets.Sized(s, 136) }
	x.filterPanel = widgets.NewFlow(sel(x.source), sel(x.split), sel(x.facets[episode.FacetCategory]),
		sel(x.facets[episode.FacetApp]), sel(x.facets[episode.FacetDevice]), sel(x.facets[episode.FacetAction]),
		widgets.Sized(x.facets[episode.FacetMetaTask], metaTaskWidth), steps, clear)
	x.filterPanel.Hide()
	x.refreshFilterButton()
	// the status wraps at the listing's width (the empty store's explanation is long)
	status := container.NewVBox(x.status, container.NewHBox(x.sampleBtn, layout.NewSpacer(), x.columns.Chooser(x.host.Window)))
	listing := container.NewBorder(container.NewVBox(searchLine, x.filterPanel), status, nil, nil, x.columns.Fit())
	split := container.NewHSplit(listing, x.detail.content)
	split.Offset = 0.38
	episodes := split

	x.tabs = container.NewAppTabs(
		container.NewTabItemWithIcon("Episodes", theme.ListIcon(), episodes),
		container.NewTabItemWithIcon("Statistics", theme.InfoIcon(), x.stats.content),
		container.NewTabItemWithIcon("Splits", theme.ViewRestoreIcon(), x.splits.content),
		container.NewTabItemWithIcon("Scoring", theme.ConfirmIcon(), x.scoring.content),
	)
	x.tabs.OnSelected = func(t *container.TabItem) {
		i := x.tabs.SelectedIndex()
		fyne.CurrentApp().Preferences().SetInt(prefExplorerTab, i)
		switch i {
		case 1:
			x.stats.refreshIfStale()
		case 2:
			x.splits.reload()
		case 3:
			x.scoring.refreshSplits()
		}
	}
	if i := fyne.CurrentApp().Preferences().IntWithFallback(prefExplorerTab, 0); i > 0 && i < len(x.tabs.Items) {
		x.tabs.SelectIndex(i)
	}
	// the dataset's import and export sit in the tab bar's empty end, not in a toolbar of
	// their own above the content
	return container.New(&tabBarActions{}, x.tabs, container.NewHBox(importB, exportB))
}

// toggleFilters shows or folds away the filter choices.
func (x *Workspace) toggleFilters() {
	if x.filterPanel.Visible() {
		x.filterPanel.Hide()
	} else {
		x.filterPanel.Show()
	}
	x.refreshFilterButton()
}

// refreshFilterButton says on the Filters button how many filters apply besides the search,
// and whether the choices are open.
func (x *Workspace) refreshFilterButton() {
	if x.filterBtn == nil {
		return
	}
	f := x.filter
	n := 0
	for _, on := range []bool{f.Source != "", f.Split != "", f.MinSteps > 0 || f.MaxSteps > 0} {
		if on {
			n++
		}
	}
	for _, vs := range f.Facets {
		if len(vs) > 0 {
			n++
		}
	}
	text := "Filters"
	if n > 0 {
		text = fmt.Sprintf("Filters (%d)", n)
	}
	icon := theme.MenuDropDownIcon()
	if x.filterPanel != nil && x.filterPanel.Visible() {
		icon = theme.MenuDropUpIcon()
	}
	x.filterBtn.SetText(text)
	x.filterBtn.SetIcon(icon)
}

// tabBarActions lays out the tabs over the whole area and a row of actions at the right end of
// the tab bar, which the tabs leave empty.
type tabBarActions struct{}

func (tabBarActions) Layout(objs []fyne.CanvasObject, size fyne.Size) {
	tabs, actions := objs[0], objs[1]
	tabs.Move(fyne.NewPos(0, 0))
	tabs.Resize(size)
	m := actions.MinSize()
	actions.Move(fyne.NewPos(size.Width-m.Width, 0))
	actions.Resize(m)
}

func (tabBarActions) MinSize(objs []fyne.CanvasObject) fyne.Size {
	t, a := objs[0].MinSize(), objs[1].MinSize()
	return fyne.NewSize(max(t.Width, a.Width), max(t.Height, a.Height))
}

// storeChanged re-reads everything after an import or a new split.
func (x *Workspace) storeChanged() {
	x.refreshOptions()
	x.statsGen = -1
	x.reload()
	switch x.tabs.SelectedIndex() { // the other tabs read the splits when they are selected
	case 2:
		x.splits.reload()
	case 3:
		x.scoring.refreshSplits()
	}
}
