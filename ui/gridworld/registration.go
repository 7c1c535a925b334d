package gridworld

import (
	"context"
	"fmt"
	"strings"
	"sync"

	"fyne.io/fyne/v2/theme"

	"github.com/agentdesk/agentdesk/engine/episode"
	"github.com/agentdesk/agentdesk/engine/gridworld"
	"github.com/agentdesk/agentdesk/ui/widgets"
	"github.com/agentdesk/agentdesk/ui/workspace"
)

// Store is what the Gridworld workspace needs of the store.
type Store interface {
	SaveEpisode(ctx context.Context, e *episode.Episode) error
	Episode(ctx context.Context, id int64) (*episode.Episode, error)
	Episodes(ctx context.Context, q episode.Query) ([]episode.Summary, error)
	TouchRecent(ctx context.Context, path, kind string) error
}

// Deps is what the GUI entry gives the workspace.
type Deps struct {
	// Store returns the open store (nil: none is open). It is called when the workspace is
	// created, after the start and after each store change.
	Store func() Store
	// World returns the 3D renderer, ErrRendererNotReady before the app runs, or why there is
	// none (no OpenGL); nil means this build has none.
	World func() (WorldRenderer, error)
	// WorldReady is closed once World can give its renderer (the app has started).
	WorldReady <-chan struct{}
	// Task is the task specification to play first ("" for the built-in samples).
	Task string
	// Sources are the task files opened in this session, kept across store changes.
	Sources *Sources
}

// TaskSource is a set of gridworld tasks the workspace can play, and where it came from.
type TaskSource struct {
	Name  string // "built-in samples", an IGLU dataset folder, ...
	Tasks int
}

// Sources are the IGLU datasets opened in this session.
type Sources struct {
	mu  sync.Mutex
	all []TaskSource
}

func (s *Sources) add(src TaskSource) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.all = append(s.all, src)
}

func (s *Sources) list() []TaskSource {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]TaskSource(nil), s.all...)
}

// Line sums up the task sources for Home: the built-in samples, then the opened datasets.
func (s *Sources) Line() string {
	srcs := append([]TaskSource{{Name: "built-in samples", Tasks: len(gridworld.SampleTasks())}}, s.list()...)
	parts := make([]string, len(srcs))
	for i, src := range srcs {
		parts[i] = fmt.Sprintf("%d %s", src.Tasks, src.Name)
	}
	return strings.Join(parts, ", ")
}

// NewRegistration describes the workspace to the shell.
func NewRegistration(deps Deps) workspace.Registration {
	if deps.Sources == nil {
		deps.Sources = &Sources{}
	}
	return workspace.Registration{
		ID: workspace.Gridworld, Title: "Gridworld", Icon: theme.GridIcon(),
		Intro: "Build in an IGLU-compatible 3D voxel world with a live reward overlay: play, record, replay and benchmark.",
		New:   func(h workspace.Host) workspace.Workspace { return New(h, deps) },
		Summary: func(o episode.Overview) string {
			return widgets.Plural(o.EpisodesBySource[episode.SourceGridworld], "recorded build") + "\nTasks: " + deps.Sources.Line()
		},
	}
}
