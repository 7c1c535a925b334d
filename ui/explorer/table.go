package explorer

import (
	"context"
	"fmt"
	"math"
	"strconv"
	"strings"
	"sync"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/agentdesk/agentdesk/engine/episode"
	"github.com/agentdesk/agentdesk/ui/widgets"
	"github.com/agentdesk/agentdesk/ui/workspace"
)

// The listing: a virtualised table whose rows are read a page at a time, off the UI goroutine,
// as they scroll into view; search matches marked; columns sorted by the store's indexes.

type explorerColumn struct {
	widgets.Column
	sort episode.SortKey
	// sortable columns are ordered by an index of the store
	sortable bool
}

// explorerColumns: the table shows every column it has room for (optional ones make way from
// the right when it is narrow; Columns… chooses) and gives the extra width to the text columns.
var explorerColumns = []explorerColumn{
	{widgets.Column{Title: "ID", Min: 56}, episode.SortID, true},
	{widgets.Column{Title: "Source", Min: 80, Optional: true}, episode.SortSource, true},
	{widgets.Column{Title: "Episode", Min: 110, Weight: 1, Optional: true}, episode.SortEpisode, true},
	{widgets.Column{Title: "Task", Min: 150, Weight: 4}, episode.SortTask, true},
	{widgets.Column{Title: "Category", Min: 110, Weight: 1, Optional: true}, 0, false},
	{widgets.Column{Title: "Meta-task", Min: 160, Weight: 2, Optional: true}, 0, false},
	{widgets.Column{Title: "Device", Min: 100, Optional: true}, 0, false},
	{widgets.Column{Title: "Apps", Min: 110, Weight: 1, Optional: true}, 0, false},
	{widgets.Column{Title: "Steps", Min: 64}, episode.SortSteps, true},
	{widgets.Column{Title: "Reward", Min: 72, Optional: true}, episode.SortReward, true},
	{widgets.Column{Title: "Stored", Min: 130, Optional: true}, episode.SortCreated, true},
}

func columnsOf(cols []explorerColumn) []widgets.Column {
	out := make([]widgets.Column, len(cols))
	for i, c := range cols {
		out[i] = c.Column
	}
	return out
}

const ( // columns
	colID = iota
	colSource
	colEpisode
	colTask
	colCategory
	colMetaTask
	colDevice
	colApps
	colSteps
	colReward
	colStored
)

func (x *Workspace) buildTable() {
	x.table = widget.NewTableWithHeaders(
		func() (int, int) { return x.count, x.columns.Len() },
		func() fyne.CanvasObject {
			l := widget.NewLabel("")
			l.Truncation = fyne.TextTruncateEllipsis
			rt := widgets.NewLineText() // marked matches, cut to the cell
			rt.Hide()
			return container.NewStack(l, rt)
		},
		func(id widget.TableCellID, o fyne.CanvasObject) { x.updateCell(id, o.(*fyne.Container)) },
	)
	x.table.ShowHeaderColumn = false
	x.table.CreateHeader = func() fyne.CanvasObject {
		b := widget.NewButton("", nil)
		b.Importance = widget.LowImportance
		b.Alignment = widget.ButtonAlignLeading
		return b
	}
	x.table.UpdateHeader = func(id widget.TableCellID, o fyne.CanvasObject) {
		b := o.(*widget.Button)
		if id.Col < 0 {
			return
		}
		k := x.columns.Index(id.Col)
		if k < 0 {
			return
		}
		c := explorerColumns[k]
		b.SetText(c.Title + x.sortMark(c))
		b.OnTapped = nil
		if c.sortable {
			b.OnTapped = func() { x.sortBy(c.sort) }
		}
	}
	x.columns = widgets.NewColumns(columnsOf(explorerColumns), x.table)
	x.selected = -1
	x.table.OnUnselected = func(widget.TableCellID) { x.selected = -1 }
	x.table.OnSelected = func(id widget.TableCellID) {
		x.selected = id.Row
		if r, ok := x.row(id.Row); ok && !x.detail.showing(r.ID) {
			x.detail.open(r)
		}
	}
}

func (x *Workspace) sortMark(c explorerColumn) string {
	if !c.sortable || c.sort != x.sort.Key || (x.sort.Key == episode.SortRelevance) {
		return ""
	}
	if x.sort.Desc {
		return " ▼"
	}
	return " ▲"
}

// sortBy orders the listing by a column; a second tap on the same column reverses it.
func (x *Workspace) sortBy(k episode.SortKey) {
	if x.sort.Key == k {
		x.sort.Desc = !x.sort.Desc
	} else {
		x.sort = episode.Sort{Key: k, Desc: k == episode.SortSteps || k == episode.SortReward || k == episode.SortCreated}
	}
	x.savePrefs()
	x.reload()
}

func (x *Workspace) updateCell(id widget.TableCellID, c *fyne.Container) {
	l := c.Objects[0].(*widget.Label)
	rt := c.Objects[1].(*widgets.LineText)
	r, ok := x.row(id.Row)
	if !ok {
		l.SetText("…")
		l.Show()
		rt.Hide()
		return
	}
	col := x.columns.Index(id.Col)
	marked := ""
	switch col {
	case colTask:
		marked = r.TaskMarked
	case colMetaTask:
		marked = r.MetaTaskMarked
	}
	if marked != "" {
		rt.SetSegments(markedSegments(marked, false))
		rt.Show()
		l.Hide()
		return
	}
	rt.Hide()
	l.Show()
	l.SetText(explorerCell(r, col))
}

func explorerCell(r episode.Row, col int) string {
	switch col {
	case colID:
		return strconv.FormatInt(r.ID, 10)
	case colSource:
		return r.Source
	case colEpisode:
		return r.ExternalID
	case colTask:
		if r.Task == "" {
			return r.Instruction
		}
		return r.Task
	case colCategory:
		return strings.Join(r.Facets[episode.FacetCategory], ", ")
	case colDevice:
		return strings.Join(r.Facets[episode.FacetDevice], ", ")
	case colApps:
		return strings.Join(r.Facets[episode.FacetApp], ", ")
	case colMetaTask:
		return r.MetaTask
	case colSteps:
		return strconv.Itoa(r.NumSteps)
	case colReward:
		return strconv.FormatFloat(r.TotalReward, 'g', 4, 64)
	case colStored:
		return r.CreatedAt.Local().Format("2006-01-02 15:04")
	}
	return ""
}

// markedSegments turns text marked by the store into rich-text segments with the matches in
// bold primary colour.
func markedSegments(marked string, wrap bool) []widget.RichTextSegment {
	var segs []widget.RichTextSegment
	for _, sp := range episode.SplitMarked(marked) {
		seg := &widget.TextSegment{Text: sp.Text, Style: widget.RichTextStyleInline}
		if sp.Match {
			seg.Style.ColorName = theme.ColorNamePrimary
			seg.Style.TextStyle = fyne.TextStyle{Bold: true}
		}
		segs = append(segs, seg)
	}
	if len(segs) == 0 {
		segs = append(segs, &widget.TextSegment{Text: "", Style: widget.RichTextStyleInline})
	}
	return segs
}

// row returns a table row, asking for its page when it is not loaded (the cell shows "…"
// until the page arrives).
func (x *Workspace) row(r int) (episode.Row, bool) {
	page := r / explorerPage
	if rows, ok := x.pages[page]; ok {
		x.touch(page)
		if i := r - page*explorerPage; i < len(rows) {
			return rows[i], true
		}
		return episode.Row{}, false
	}
	x.loadPage(page)
	if rows, ok := x.pages[page]; ok { // read at once
		if i := r - page*explorerPage; i < len(rows) {
			return rows[i], true
		}
	}
	return episode.Row{}, false
}

func (x *Workspace) touch(page int) {
	for i, p := range x.order {
		if p == page {
			x.order = append(x.order[:i], x.order[i+1:]...)
			break
		}
	}
	x.order = append(x.order, page)
}

// listingOrder reads the ids of a listing once, for the page loads of one filter and sort
// (which run on several goroutines).
type listingOrder struct {
	mu  sync.Mutex
	ids []int64
	err error
	got bool
}

func (o *listingOrder) get(st Store, f episode.Filter, srt episode.Sort) ([]int64, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if !o.got {
		o.ids, o.err = st.SortedIDs(context.Background(), f, srt)
		o.got = true
	}
	return o.ids, o.err
}

// loadPage reads a page of the listing off the UI goroutine. The first page is read on its own
// (a filter change shows it at once); any other page comes from the listing's ids, read once.
func (x *Workspace) loadPage(page int) {
	if x.loading[page] || page*explorerPage >= x.count {
		return
	}
	x.loading[page] = true
	gen, f, srt, st, listing := x.gen, x.filter, x.sort, x.st, x.listing
	var rows []episode.Row
	var err error
	returned := false // a page read at once is drawn by the table update that asked for it
	workspace.Run(x.host, nil, func(context.Context) {
		if page == 0 {
			rows, err = st.MatchingPage(context.Background(), f, srt, 0, explorerPage)
			return
		}
		var ids []int64
		if ids, err = listing.get(st, f, srt); err == nil {
			from := min(page*explorerPage, len(ids))
			rows, err = st.EpisodeRows(context.Background(), ids[from:min(from+explorerPage, len(ids))], f.Text)
		}
	}, func() {
		if gen != x.gen {
			return
		}
		delete(x.loading, page)
		if err != nil {
			x.status.SetText("Cannot read the store: " + err.Error())
			return
		}
		x.pages[page] = rows
		x.fitIDs(rows)
		x.touch(page)
		for len(x.order) > explorerKeepPages {
			delete(x.pages, x.order[0])
			x.order = x.order[1:]
		}
		if returned {
			x.table.Refresh()
		}
	})
	returned = true
}

// followSelection keeps the detail pane on the listing after the listing changed (a filter
// cleared or changed, a new sort): the episode on show stays, selected, where the new listing
// still has it, and the pane empties where it does not: it never shows an episode the listing
// does not.
func (x *Workspace) followSelection() {
	id := x.detail.row.ID
	if id == 0 {
		return
	}
	gen, st, f, srt, listing := x.gen, x.st, x.filter, x.sort, x.listing
	var ids []int64
	var err error
	workspace.Run(x.host, nil, func(context.Context) {
		ids, err = listing.get(st, f, srt)
	}, func() {
		if gen != x.gen || x.detail.row.ID != id {
			return // the listing or the selection changed meanwhile
		}
		if err == nil {
			for i, got := range ids {
				if got == id {
					cell := widget.TableCellID{Row: i, Col: 0}
					x.table.Select(cell) // (scrolled to) the pane shows it already: not read again
					x.table.Refresh()    // the rows scrolled to are drawn
					return
				}
			}
		}
		x.detail.clear()
	})
}

// fitIDs widens the ID column when a page holds ids longer than it shows (a store of 200,000
// episodes has six-digit ids; the column starts sized for five).
func (x *Workspace) fitIDs(rows []episode.Row) {
	var widest int64
	for _, r := range rows {
		widest = max(widest, r.ID)
	}
	if widest == 0 {
		return
	}
	// every digit as wide as the widest one, plus the label's padding on both sides
	text := strings.Repeat("8", len(strconv.FormatInt(widest, 10)))
	w := fyne.MeasureText(text, theme.TextSize(), fyne.TextStyle{}).Width + 2*theme.InnerPadding()
	x.columns.Widen(colID, float32(math.Ceil(float64(w))))
}

// reload counts the selection and shows it from the top.
func (x *Workspace) reload() {
	x.gen++
	gen, f, st := x.gen, x.filter, x.st
	x.pages, x.loading, x.order, x.listing = map[int][]episode.Row{}, map[int]bool{}, nil, &listingOrder{}
	x.status.SetText("Counting…")
	var n, textMatches int
	var err error
	ranked := true
	start := time.Now()
	relevance := x.sort.Key == episode.SortRelevance
	workspace.Run(x.host, nil, func(context.Context) {
		n, err = st.CountMatching(context.Background(), f)
		if err == nil && relevance {
			ranked, textMatches, err = st.RelevanceRanked(context.Background(), f)
		}
	}, func() {
		if gen != x.gen {
			return
		}
		if err != nil {
			x.count = 0
			x.status.SetText("Cannot read the store: " + err.Error())
			x.table.Refresh()
			return
		}
		x.count = n
		took := time.Since(start)
		if empty := f.IsZero() && n == 0; empty != x.sampleBtn.Visible() {
			if empty {
				x.sampleBtn.Show()
			} else {
				x.sampleBtn.Hide()
			}
		}
		switch {
		case f.IsZero() && n == 0:
			x.status.SetText("The store holds no episode yet: import a GUI Odyssey folder (above), record in Gridworld, import a pickle in Demonstrations, or load the sample data.")
		case f.IsZero():
			x.status.SetText(fmt.Sprintf("%s in the store", widgets.Plural(n, "episode")))
		default:
			order := ""
			switch {
			case relevance && !ranked:
				order = fmt.Sprintf(", in store order: the search matches %s, too many to rank by relevance (narrow it, or tap a column to sort by it)",
					widgets.Plural(textMatches, "episode"))
			case relevance:
				order = ", best matches first (tap a column to sort by it)"
			}
			x.status.SetText(fmt.Sprintf("%s match (%s)%s · %d ms", widgets.Plural(n, "episode"), f.Describe(), order, took.Milliseconds()))
		}
		x.table.UnselectAll()
		x.table.ScrollToTop()
		x.table.Refresh()
		x.followSelection()
		if x.stats != nil && x.tabs != nil && x.tabs.SelectedIndex() == 1 {
			x.stats.refreshIfStale()
		}
	})
}
