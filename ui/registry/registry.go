// Package registry lists the workspaces the app shows, in navigation order, each wired to the
// open store: what the GUI entry registers with the shell (and the shell's tests too). The shell
// (package ui) never imports it, nor any workspace.
package registry

import (
	"github.com/agentdesk/agentdesk/ui/demonstrations"
	"github.com/agentdesk/agentdesk/ui/evaluation"
	"github.com/agentdesk/agentdesk/ui/explorer"
	"github.com/agentdesk/agentdesk/ui/gridworld"
	"github.com/agentdesk/agentdesk/ui/templates"
	"github.com/agentdesk/agentdesk/ui/workspace"
)

// Store is everything the workspaces need of the store: the union of their own Store
// interfaces (*store.Store is one).
type Store interface {
	gridworld.Store
	demonstrations.Store
	templates.Store
	evaluation.Store
	explorer.Store
}

// Options are the settings of the workspaces that are not the store.
type Options struct {
	// World, WorldReady and Task are the Gridworld workspace's (see gridworld.Deps).
	World      func() (gridworld.WorldRenderer, error)
	WorldReady <-chan struct{}
	Task       string
}

// Workspaces registers the five workspaces; store returns the open store (nil when none is),
// read each time a workspace is created.
func Workspaces(store func() Store, opts Options) []workspace.Registration {
	return []workspace.Registration{
		gridworld.NewRegistration(gridworld.Deps{Store: as[gridworld.Store](store),
			World: opts.World, WorldReady: opts.WorldReady, Task: opts.Task}),
		demonstrations.NewRegistration(as[demonstrations.Store](store)),
		templates.NewRegistration(as[templates.Store](store)),
		evaluation.NewRegistration(as[evaluation.Store](store)),
		explorer.NewRegistration(as[explorer.Store](store)),
	}
}

// as is store seen through a workspace's own Store interface, nil (not a nil pointer in an
// interface) when no store is open.
func as[T any](store func() Store) func() T {
	return func() T {
		var none T
		st := store()
		if st == nil {
			return none
		}
		return st.(T)
	}
}
