package ui

import (
	"context"
	"fmt"
	"sort"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/widget"

	"github.com/agentdesk/agentdesk/engine/episode"
)

const explorerPage = 200

var explorerColumns = []struct {
	title string
	width float32
}{{"ID", 70}, {"Source", 100}, {"Episode", 260}, {"Task", 160}, {"Steps", 70}, {"Reward", 80}, {"Stored", 150}}

// explorer lists every episode in the store, whatever its source, in a virtualised table
// (rows are read a page at a time as they scroll into view) and opens the selected one in the
// frame viewer.
type explorer struct {
	shell  *Shell
	query  episode.Query
	count  int
	pages  map[int][]episode.Summary
	table  *widget.Table
	status *widget.Label
	viewer *FrameViewer
	title  *widget.Label
}

func explorerView(s *Shell) fyne.CanvasObject {
	x := &explorer{shell: s, pages: map[int][]episode.Summary{}, status: widget.NewLabel(""),
		viewer: NewFrameViewer(), title: widget.NewLabel("Select an episode to see its steps.")}
	x.title.Wrapping = fyne.TextWrapWord
	x.table = widget.NewTableWithHeaders(
		func() (int, int) { return x.count, len(explorerColumns) },
		func() fyne.CanvasObject {
			l := widget.NewLabel("")
			l.Truncation = fyne.TextTruncateEllipsis
			return l
		},
		func(id widget.TableCellID, o fyne.CanvasObject) { o.(*widget.Label).SetText(x.cell(id)) },
	)
	x.table.ShowHeaderColumn = false
	x.table.UpdateHeader = func(id widget.TableCellID, o fyne.CanvasObject) {
		if id.Col >= 0 {
			o.(*widget.Label).SetText(explorerColumns[id.Col].title)
		}
	}
	for i, c := range explorerColumns {
		x.table.SetColumnWidth(i, c.width)
	}
	x.table.OnSelected = func(id widget.TableCellID) { x.open(id.Row) }

	sources := []string{"All sources"}
	if st := s.deps.Store; st != nil {
		if o, err := st.Overview(context.Background()); err == nil {
			names := make([]string, 0, len(o.EpisodesBySource))
			for src := range o.EpisodesBySource {
				names = append(names, src)
			}
			sort.Strings(names)
			sources = append(sources, names...)
		}
	}
	filter := widget.NewSelect(sources, func(v string) {
		x.query.Source = ""
		if v != "All sources" {
			x.query.Source = v
		}
		x.reload()
	})
	filter.SetSelected("All sources") // loads the first page
	top := container.NewBorder(nil, nil, container.NewHBox(widget.NewLabel("Source"), filter), nil, x.status)
	detail := container.NewBorder(x.title, nil, nil, nil, x.viewer)
	split := container.NewHSplit(x.table, detail)
	split.Offset = 0.55
	return container.NewBorder(top, nil, nil, nil, split)
}

func (x *explorer) reload() {
	x.pages = map[int][]episode.Summary{}
	x.count = 0
	st := x.shell.deps.Store
	if st == nil {
		x.status.SetText("No store is open.")
		x.table.Refresh()
		return
	}
	n, err := st.CountEpisodes(context.Background(), x.query)
	if err != nil {
		x.status.SetText("Cannot read the store: " + err.Error())
		return
	}
	x.count = n
	x.status.SetText(plural(n, "episode"))
	x.table.UnselectAll()
	x.table.Refresh()
	x.table.ScrollToTop()
}

// row returns the summary of a table row, reading its page on first use.
func (x *explorer) row(r int) (episode.Summary, bool) {
	page := r / explorerPage
	rows, ok := x.pages[page]
	if !ok {
		q := x.query
		q.Limit, q.Offset = explorerPage, page*explorerPage
		var err error
		if rows, err = x.shell.deps.Store.Episodes(context.Background(), q); err != nil {
			x.status.SetText("Cannot read the store: " + err.Error())
			return episode.Summary{}, false
		}
		x.pages[page] = rows
	}
	if i := r - page*explorerPage; i < len(rows) {
		return rows[i], true
	}
	return episode.Summary{}, false
}

func (x *explorer) cell(id widget.TableCellID) string {
	e, ok := x.row(id.Row)
	if !ok {
		return ""
	}
	switch id.Col {
	case 0:
		return fmt.Sprint(e.ID)
	case 1:
		return e.Source
	case 2:
		return e.ExternalID
	case 3:
		return e.Task
	case 4:
		return fmt.Sprint(e.NumSteps)
	case 5:
		return fmt.Sprintf("%.3g", e.TotalReward)
	case 6:
		return e.CreatedAt.Local().Format("2006-01-02 15:04")
	}
	return ""
}

// open shows an episode's steps in the frame viewer.
func (x *explorer) open(r int) {
	sum, ok := x.row(r)
	if !ok {
		return
	}
	e, err := x.shell.deps.Store.Episode(context.Background(), sum.ID)
	if err != nil {
		x.status.SetText("Cannot open the episode: " + err.Error())
		return
	}
	x.title.SetText(fmt.Sprintf("%s/%s · %s · %s · reward %.3g", e.Source, e.ExternalID, e.Task,
		plural(len(e.Steps), "step"), e.TotalReward()))
	x.viewer.SetEpisode(e, nil)
}
