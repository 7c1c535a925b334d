package ui

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/widget"

	"github.com/agentdesk/agentdesk/engine/episode"
)

func findExplorer(t *testing.T, w fyne.Window) (*widget.Table, *widget.Select, *FrameViewer) {
	t.Helper()
	var table *widget.Table
	var sel *widget.Select
	var viewer *FrameViewer
	walk(w.Content(), func(o fyne.CanvasObject) {
		switch o := o.(type) {
		case *widget.Table:
			table = o
		case *widget.Select:
			sel = o
		case *FrameViewer:
			viewer = o
		}
	})
	if table == nil || sel == nil || viewer == nil {
		t.Fatal("explorer widgets missing")
	}
	return table, sel, viewer
}

func TestExplorerListsFiltersAndOpens(t *testing.T) {
	s, g, _, w := openGridworld(t)
	typeKeys(w, g, fyne.KeyW, fyne.KeyW, fyne.KeyE)
	g.reset() // stores the played episode (3 steps, with thumbnails)

	s.Show(ScreenExplorer)
	table, sel, viewer := findExplorer(t, w)
	if !strings.Contains(texts(w.Content()), "7 episodes") {
		t.Fatalf("explorer status: %s", texts(w.Content()))
	}
	if len(sel.Options) != 4 { // all, gridworld, mobileenv, odyssey
		t.Fatalf("source filter options %v", sel.Options)
	}
	sel.SetSelected(episode.SourceGridworld)
	rows, _ := table.Length()
	if rows != 3 {
		t.Fatalf("gridworld rows %d", rows)
	}
	x := &explorer{shell: s, pages: map[int][]episode.Summary{}, query: episode.Query{Source: episode.SourceGridworld}}
	if e, _ := x.row(0); e.NumSteps != 3 || e.Task != "tower" {
		t.Fatalf("newest gridworld row: %+v", e)
	}
	table.Select(widget.TableCellID{Row: 0, Col: 2}) // the newest: the one just played
	if viewer.Len() != 3 {
		t.Fatalf("viewer shows %d steps", viewer.Len())
	}
	if b := viewer.image.Image.Bounds(); b.Dx() != 64 || b.Dy() != 64 {
		t.Fatalf("gridworld frame is %v, want the 64x64 pov thumbnail", b)
	}
}

func TestExplorerPagesThroughManyEpisodes(t *testing.T) {
	st := seededStore(t)
	ctx := context.Background()
	for i := 0; i < 450; i++ {
		st.SaveEpisode(ctx, &episode.Episode{Source: "bulk", ExternalID: fmt.Sprint(i)})
	}
	x := &explorer{shell: &Shell{deps: Deps{Store: st}}, pages: map[int][]episode.Summary{}}
	x.count, _ = st.CountEpisodes(ctx, x.query)
	if x.count != 456 {
		t.Fatalf("count %d", x.count)
	}
	e, ok := x.row(420)
	if !ok || e.Source != "bulk" || len(x.pages) != 1 {
		t.Fatalf("row 420: %+v ok=%v pages=%d", e, ok, len(x.pages))
	}
	if _, ok := x.row(455); !ok {
		t.Fatal("last row missing")
	}
	if _, ok := x.row(456); ok {
		t.Fatal("row past the end")
	}
}
