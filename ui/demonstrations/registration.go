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
		Intro:   "Open Mobile-Env annotation pickles, scrub frames, and edit steps, instructions and rewards by pointing and clicking.",
		New:     func(h workspace.Host) workspace.Workspace { return New(h, workspace.Value(store)) },
		Summary: Summary,
	}
}

// Summary is the line on Home's card. Demonstration files are opened from disk, not read into
// the store, so the store's count of Mobile-Env trajectories alone says 0 while the sample
// file (or the user's own) was opened a minute ago: the recently opened files are counted too.
func Summary(o episode.Overview) string {
	files := 0
	for _, f := range o.Recent {
		if f.Kind == RecentKind {
			files++
		}
	}
	stored := o.EpisodesBySource[episode.SourceMobileEnv]
	switch {
	case files > 0 && stored > 0:
		return widgets.Plural(files, "demonstration file") + " opened recently\n" + widgets.Plural(stored, "Mobile-Env trajectory") + " in the store"
	case files > 0:
		return widgets.Plural(files, "demonstration file") + " opened recently"
	case stored > 0:
		return widgets.Plural(stored, "Mobile-Env trajectory") + " in the store"
	}
	return "No demonstration file opened yet"
}

// RecentKind is the kind of recent file the workspace records for a demonstration file.
const RecentKind = "pickle"

var (
	_ workspace.Unsaved = (*Workspace)(nil)
	_ workspace.Opener  = (*Workspace)(nil)
)
