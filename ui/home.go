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
	h := &home{shell: s, status: widget.NewLabel(""), cards: container.NewGridWrap(fyne.NewSize(260, 150)),
		recent: container.NewVBox(), samples: container.NewVBox()}
	h.status.Wrapping = fyne.TextWrapWord
	refresh := widget.NewButton("Refresh", h.load)
	top := container.NewBorder(nil, nil, nil, refresh, h.status)
	recentCard := widget.NewCard("Recent files", "", h.recent)
	h.load()
	return container.NewBorder(top, nil, nil, nil,
		container.NewVScroll(container.NewVBox(h.samples, h.cards, recentCard)))
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
		h.samples.Add(widget.NewCard("Sample data", "", container.NewBorder(nil, nil, nil, remove, text)))
	case o.Episodes() == 0 && len(o.Recent) == 0:
		text := widget.NewLabel("New here? Load sample data made for Agentdesk (demonstrations with their screens, a template " +
			"folder, an evaluation project over a few chats, a small GUI Odyssey style dataset with model predictions to score) " +
			"and see every workspace at work. It is marked Sample and can be removed here at any time.")
		text.Wrapping = fyne.TextWrapWord
		h.samples.Add(widget.NewCard("Getting started", "", container.NewBorder(nil, nil, nil, workspace.SampleButton(h.shell), text)))
	}
	h.samples.Refresh()
}

func (h *home) show(o episode.Overview, err error) {
	s := h.shell
	switch {
	case s.deps.Store == nil && err != nil:
		h.status.SetText(fmt.Sprintf("No store is open: %v", err))
	case s.deps.Store == nil:
		h.status.SetText("No store is open.")
	case err != nil:
		h.status.SetText(fmt.Sprintf("Store %s could not be read: %v", s.deps.Store.Path(), err))
	default:
		h.status.SetText(fmt.Sprintf("Store %s: %s, %s, %s.", s.deps.Store.Path(),
			widgets.Plural(o.Episodes(), "episode"), widgets.Plural(o.Steps, "step"), widgets.Plural(o.Splits, "split")))
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
	return widget.NewCard(title, "", container.NewBorder(nil, open, nil, nil, body))
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
