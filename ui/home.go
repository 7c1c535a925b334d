package ui

import (
	"context"
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/widget"

	"github.com/agentdesk/agentdesk/engine/episode"
	"github.com/agentdesk/agentdesk/engine/gridworld"
)

// home shows what is in the store: a card per workspace with its counts, the episodes by
// source and the recently opened files.
type home struct {
	shell  *Shell
	status *widget.Label
	cards  *fyne.Container
	recent *fyne.Container
}

func homeView(s *Shell) fyne.CanvasObject {
	h := &home{shell: s, status: widget.NewLabel(""), cards: container.NewGridWrap(fyne.NewSize(260, 150)),
		recent: container.NewVBox()}
	h.status.Wrapping = fyne.TextWrapWord
	refresh := widget.NewButton("Refresh", h.load)
	top := container.NewBorder(nil, nil, nil, refresh, h.status)
	recentCard := widget.NewCard("Recent files", "", h.recent)
	h.load()
	return container.NewBorder(top, nil, nil, nil,
		container.NewVScroll(container.NewVBox(h.cards, recentCard)))
}

func (h *home) load() {
	st := h.shell.deps.Store
	if st == nil {
		h.show(episode.Overview{}, h.shell.deps.StoreErr)
		return
	}
	h.status.SetText("Reading " + st.Path() + " …")
	h.shell.deps.Run(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		o, err := st.Overview(ctx)
		fyne.Do(func() { h.show(o, err) })
	})
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
			plural(o.Episodes(), "episode"), plural(o.Steps, "step"), plural(o.Splits, "split")))
	}
	by := o.EpisodesBySource
	h.cards.Objects = []fyne.CanvasObject{
		h.card("Gridworld", ScreenGridworld, plural(by[episode.SourceGridworld], "recorded build")+
			"\nTasks: "+gridworldTaskLine(s.gridworldTasks())),
		h.card("Demonstrations", ScreenDemonstrations, plural(by[episode.SourceMobileEnv], "Mobile-Env trajectory")),
		h.card("Templates", ScreenTemplates, plural(o.TemplateFolders, "template folder")),
		h.card("Evaluation", ScreenEvaluation, plural(o.EvalProjects, "evaluation project")),
		h.card("Explorer", ScreenExplorer, explorerLine(o)),
	}
	h.cards.Refresh()
	h.recent.Objects = nil
	for _, f := range o.Recent {
		l := widget.NewLabel(fmt.Sprintf("%s  ·  %s  ·  %s", filepath.Base(f.Path), f.Kind, f.OpenedAt.Local().Format("2006-01-02 15:04")))
		l.Truncation = fyne.TextTruncateEllipsis
		h.recent.Add(l)
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

// TaskSource is a set of gridworld tasks the Gridworld workspace can play, and where it came from.
type TaskSource struct {
	Name  string // "built-in samples", an IGLU dataset folder, ...
	Tasks int
}

// gridworldTasks lists the loaded gridworld task sources: the built-in samples, then the
// dataset files the user opened.
func (s *Shell) gridworldTasks() []TaskSource {
	return append([]TaskSource{{Name: "built-in samples", Tasks: len(gridworld.SampleTasks())}}, s.taskSources...)
}

func gridworldTaskLine(srcs []TaskSource) string {
	parts := make([]string, len(srcs))
	for i, src := range srcs {
		parts[i] = fmt.Sprintf("%d %s", src.Tasks, src.Name)
	}
	return strings.Join(parts, ", ")
}

// explorerLine sums up all episodes by source, e.g. "12 episodes: 10 odyssey, 2 gridworld".
func explorerLine(o episode.Overview) string {
	line := plural(o.Episodes(), "episode")
	srcs := make([]string, 0, len(o.EpisodesBySource))
	for src := range o.EpisodesBySource {
		srcs = append(srcs, src)
	}
	sort.Slice(srcs, func(i, j int) bool {
		a, b := o.EpisodesBySource[srcs[i]], o.EpisodesBySource[srcs[j]]
		return a > b || a == b && srcs[i] < srcs[j]
	})
	for i, src := range srcs {
		sep := ", "
		if i == 0 {
			sep = ": "
		}
		line += fmt.Sprintf("%s%d %s", sep, o.EpisodesBySource[src], src)
	}
	return line + "; " + plural(o.Splits, "split")
}

func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	if l := len(noun); l > 1 && noun[l-1] == 'y' && !strings.ContainsRune("aeiou", rune(noun[l-2])) {
		return fmt.Sprintf("%d %sies", n, noun[:l-1])
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
