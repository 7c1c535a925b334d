package ui

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/agentdesk/agentdesk/engine/episode"
	"github.com/agentdesk/agentdesk/ui/widgets"
	"github.com/agentdesk/agentdesk/ui/workspace"
)

// home shows what is in the store: a card per workspace with its counts, the episodes by
// source and the recently opened files.
type home struct {
	shell   *Shell
	status  *widget.Label
	cards   *fyne.Container
	recent  *fyne.Container
	samples *fyne.Container
	// reading is the overview being read (Refresh reads it again).
	reading workspace.Latest
}

func homeView(s *Shell) fyne.CanvasObject {
	h := &home{shell: s, status: widget.NewLabel(""), cards: container.New(&cardGrid{minWidth: 170}),
		recent: container.NewVBox(), samples: container.NewVBox()}
	// one line while the window is first laid out: a wrapping label asks for its height at
	// the width it has, and before the first layout that is none, a character a line (the
	// window grew to 1024x1601 on a 1024x700 screen); errors wrap (home.show)
	h.status.Truncation = fyne.TextTruncateEllipsis
	refresh := widget.NewButton("Refresh", h.load)
	top := container.NewBorder(nil, nil, nil, refresh, h.status)
	recentTitle := widget.NewLabelWithStyle("Recent files", fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	h.load()
	// The scroll is for windows smaller than a laptop's: at 1024x670 the cards, the sample
	// data line and the recent files are all in view (cards share the width, compact boxes).
	return container.NewBorder(top, nil, nil, nil,
		container.NewVScroll(container.NewVBox(h.samples, h.cards, recentTitle, h.recent)))
}

func (h *home) load() {
	st := h.shell.deps.Store
	if st == nil {
		h.show(episode.Overview{}, h.shell.deps.StoreErr)
		return
	}
	h.status.SetText("Reading " + st.Path() + " …")
	samples := h.shell.deps.Samples
	type read struct {
		o             episode.Overview
		samplesLoaded bool
	}
	workspace.Start(h.shell, &h.reading, func(ctx context.Context) (read, error) {
		ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
		defer cancel()
		o, err := st.Overview(ctx)
		r := read{o: o}
		if err == nil && samples != nil {
			r.samplesLoaded, err = samples.Loaded(ctx)
		}
		return r, err
	}, func(r read, err error) {
		h.show(r.o, err)
		h.showSamples(r.o, r.samplesLoaded, err)
	})
}

// showSamples offers the sample data on a store with nothing in it yet, and its removal once
// it is loaded.
func (h *home) showSamples(o episode.Overview, loaded bool, err error) {
	h.samples.Objects = nil
	switch {
	case h.shell.deps.Samples == nil || err != nil:
	case loaded:
		text := widget.NewLabel("Sample data is loaded: the episodes, splits, scoring run, evaluation project and files " +
			"named Sample… were made for Agentdesk to show each workspace working. Remove them when you no longer need them.")
		text.Wrapping = fyne.TextWrapWord
		remove := widget.NewButtonWithIcon("Remove sample data…", theme.DeleteIcon(), func() { h.shell.removeSamples(h.load) })
		h.samples.Add(box(container.NewBorder(nil, nil, widget.NewIcon(theme.InfoIcon()), remove, text)))
	case o.Episodes() == 0 && len(o.Recent) == 0:
		text := widget.NewLabel("New here? Load sample data made for Agentdesk (demonstrations with their screens, a template " +
			"folder, an evaluation project over a few chats, a small GUI Odyssey style dataset with model predictions to score) " +
			"and see every workspace at work. It is marked Sample and can be removed here at any time.")
		text.Wrapping = fyne.TextWrapWord
		title := widget.NewLabelWithStyle("Getting started", fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
		h.samples.Add(box(container.NewBorder(title, nil, nil, workspace.SampleButton(h.shell), text)))
	}
	h.samples.Refresh()
}

func (h *home) show(o episode.Overview, err error) {
	s := h.shell
	h.status.Wrapping, h.status.Truncation = fyne.TextWrapOff, fyne.TextTruncateEllipsis
	if err != nil {
		h.status.Wrapping, h.status.Truncation = fyne.TextWrapWord, fyne.TextTruncateOff
	}
	switch {
	case s.deps.Store == nil && err != nil:
		h.status.SetText(fmt.Sprintf("No store is open: %v", err))
	case s.deps.Store == nil:
		h.status.SetText("No store is open.")
	case err != nil:
		h.status.SetText(fmt.Sprintf("Store %s could not be read: %v", s.deps.Store.Path(), err))
	default:
		// the counts first: a long path is what the line cuts
		h.status.SetText(fmt.Sprintf("%s, %s, %s in %s.",
			widgets.Plural(o.Episodes(), "episode"), widgets.Plural(o.Steps, "step"), widgets.Plural(o.Splits, "split"), s.deps.Store.Path()))
	}
	h.cards.Objects = nil
	for _, sc := range s.screens {
		if r := sc.Workspace; r != nil {
			line := ""
			if r.Summary != nil {
				line = r.Summary(o)
			}
			h.cards.Add(h.card(r.Title, r.ID, line))
		}
	}
	h.cards.Refresh()
	h.recent.Objects = nil
	for _, f := range o.Recent {
		name := filepath.Base(f.Path)
		if r := []rune(name); len(r) > 60 {
			name = string(r[:59]) + "…"
		}
		b := widgets.NewTipTextButton(fmt.Sprintf("%s  ·  %s  ·  %s", name, f.Kind, f.OpenedAt.Local().Format("2006-01-02 15:04")),
			"Open "+f.Path, recentIcon(f.Kind), func() { h.openRecent(f) })
		b.Alignment = widget.ButtonAlignLeading
		b.Importance = widget.LowImportance
		h.recent.Add(b)
	}
	if len(o.Recent) == 0 {
		h.recent.Add(widget.NewLabel("Nothing opened yet."))
	}
	h.recent.Refresh()
}

func (h *home) card(title, screen, line string) fyne.CanvasObject {
	open := widget.NewButton("Open "+title, func() { h.shell.Show(screen) })
	body := widget.NewLabel(line)
	body.Wrapping = fyne.TextWrapWord
	head := widget.NewLabelWithStyle(title, fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	return box(container.NewBorder(head, open, nil, nil, body))
}

// box is a compact card: the content on a panel in the theme's input background, which
// follows a theme switch. widget.Card's heading takes about 60 px a card; Home has five.
func box(content fyne.CanvasObject) fyne.CanvasObject {
	fill := widgets.NewThemeFill(theme.ColorNameInputBackground, theme.InputRadiusSize())
	return container.NewStack(fill, container.NewPadded(content))
}

// cardGrid lays cards out in as many equal columns as fit cards of at least minWidth, each
// card as wide as its column (no empty band at the right) and each row as tall as its
// tallest card.
type cardGrid struct {
	minWidth float32
	// cols is the number of columns of the last layout (MinSize gives the height for it).
	cols int
}

func (g *cardGrid) columns(width float32, objs []fyne.CanvasObject) int {
	pad, cell := theme.Padding(), g.minWidth
	for _, o := range objs {
		cell = max(cell, o.MinSize().Width)
	}
	n := len(objs)
	fit := max(1, min(int((width+pad)/(cell+pad)), n))
	// as few rows as fit, shared out evenly: 3+2 cards rather than 4+1
	rows := (n + fit - 1) / fit
	return (n + rows - 1) / rows
}

func (g *cardGrid) Layout(objs []fyne.CanvasObject, size fyne.Size) {
	objs = visibleObjects(objs)
	if len(objs) == 0 {
		return
	}
	pad := theme.Padding()
	g.cols = g.columns(size.Width, objs)
	w := (size.Width - pad*float32(g.cols-1)) / float32(g.cols)
	rows := widgets.RowHeights(objs, g.cols)
	y := float32(0)
	for i, o := range objs {
		r, c := i/g.cols, i%g.cols
		if c == 0 && r > 0 {
			y += rows[r-1] + pad
		}
		o.Move(fyne.NewPos(float32(c)*(w+pad), y))
		o.Resize(fyne.NewSize(w, rows[r]))
	}
}

func (g *cardGrid) MinSize(objs []fyne.CanvasObject) fyne.Size {
	objs = visibleObjects(objs)
	if len(objs) == 0 {
		return fyne.Size{}
	}
	cols := g.cols
	if cols == 0 {
		cols = len(objs) // not laid out yet: one row, as the widest screens show it
	}
	cols = min(cols, len(objs))
	h := float32(0)
	for _, r := range widgets.RowHeights(objs, cols) {
		h += r
	}
	h += theme.Padding() * float32(len(widgets.RowHeights(objs, cols))-1)
	minW := g.minWidth
	for _, o := range objs {
		minW = max(minW, o.MinSize().Width)
	}
	return fyne.NewSize(minW, h)
}

func visibleObjects(objs []fyne.CanvasObject) []fyne.CanvasObject {
	var v []fyne.CanvasObject
	for _, o := range objs {
		if o.Visible() {
			v = append(v, o)
		}
	}
	return v
}

// openRecent opens a recently opened file or folder again: in the workspace that opens it, or,
// for what was read into the store (a dataset, an evaluation project), the workspace that shows
// it. A file that is gone says so.
func (h *home) openRecent(f episode.RecentFile) {
	s := h.shell
	if _, err := os.Stat(f.Path); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			workspace.Errorf(s.win, "%s is no longer there: it was moved or deleted since it was opened.", f.Path)
		} else {
			workspace.ShowError(s.win, err)
		}
		return
	}
	switch f.Kind {
	case recentDataset:
		s.Show(workspace.Explorer) // imported: its episodes are in the Explorer
	case recentEvalProject:
		s.Show(workspace.Evaluation)
	case recentGridworldTasks:
		s.Show(workspace.Gridworld)
	default:
		if err := s.OpenFile(f.Path, -1); err != nil {
			workspace.ShowError(s.win, err)
		}
	}
}

// Kinds of recent files that are not opened again but shown where they went.
const (
	recentDataset        = "odyssey"
	recentEvalProject    = "eval-project"
	recentGridworldTasks = "gridworld-tasks"
)

func recentIcon(kind string) fyne.Resource {
	switch kind {
	case recentDataset, "template-folder", recentGridworldTasks:
		return theme.FolderIcon()
	}
	return theme.FileIcon()
}
