package templates

import (
	"context"

	"fyne.io/fyne/v2/theme"

	"github.com/agentdesk/agentdesk/engine/episode"
	"github.com/agentdesk/agentdesk/ui/widgets"
	"github.com/agentdesk/agentdesk/ui/workspace"
)

// Store is what the Templates workspace needs of the store: the template folders opened.
type Store interface {
	AddTemplateFolder(ctx context.Context, path, name string) error
	TemplateFolders(ctx context.Context) ([]episode.RecentFile, error)
}

// NewRegistration describes the workspace to the shell; store returns the open store (nil:
// none) when the workspace is created.
func NewRegistration(store func() Store) workspace.Registration {
	return workspace.Registration{
		ID: workspace.Templates, Title: "Templates", Icon: theme.DocumentIcon(),
		Intro:   "Design Mobile-Env task-definition templates, fill their configs and preview the multi-step task live.",
		New:     func(h workspace.Host) workspace.Workspace { return New(h, workspace.Value(store)) },
		Summary: func(o episode.Overview) string { return widgets.Plural(o.TemplateFolders, "template folder") },
	}
}

var _ workspace.Unsaved = (*Workspace)(nil)
