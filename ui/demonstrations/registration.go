package demonstrations

import (
	"context"

	"fyne.io/fyne/v2/theme"

	"github.com/agentdesk/agentdesk/engine/episode"
	"github.com/agentdesk/agentdesk/ui/widgets"
	"github.com/agentdesk/agentdesk/ui/workspace"
)

// Store is what the Demonstrations workspace needs of the store.
type Store interface {
	SaveEpisode(ctx context.Context, e *episode.Episode) error
	TouchRecent(ctx context.Context, path, kind string) error
	// Recent lists recently opened files, newest first (the sample file is among them).
	Recent(ctx context.Context, limit int) ([]episode.RecentFile, error)
}

// NewRegistration describes the workspace to the shell; store returns the open store (nil:
// none) when the workspace is created.
func NewRegistration(store func() Store) workspace.Registration {
	return workspace.Registration{
		ID: workspace.Demonstrations, Title: "Demonstrations", Icon: theme.MediaVideoIcon(),
		Intro: "Open Mobile-Env annotation pickles, scrub frames, and edit steps, instructions and rewards by pointing and clicking.",
		New:   func(h workspace.Host) workspace.Workspace { return New(h, workspace.Value(store)) },
		Summary: func(o episode.Overview) string {
			return widgets.Plural(o.EpisodesBySource[episode.SourceMobileEnv], "Mobile-Env trajectory")
		},
	}
}

var (
	_ workspace.Unsaved = (*Workspace)(nil)
	_ workspace.Opener  = (*Workspace)(nil)
)
