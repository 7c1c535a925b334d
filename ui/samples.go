package ui

import (
	"context"

	"fyne.io/fyne/v2/dialog"

	"github.com/agentdesk/agentdesk/ui/widgets"
	"github.com/agentdesk/agentdesk/ui/workspace"
)

// SampleData loads and removes the bundled sample data in the open store (the GUI entry
// implements it over app/workflow).
type SampleData interface {
	// Load writes the samples and loads them into the store, unless they are loaded already:
	// then it changes nothing in the store and returns what is there (Already set).
	Load(ctx context.Context, report workspace.Progress) (SampleResult, error)
	// Remove takes them out of the store and deletes their files; it says what it removed.
	Remove(ctx context.Context) (string, error)
	// Loaded reports whether samples are in the store.
	Loaded(ctx context.Context) (bool, error)
}

// SampleResult is loaded sample data: a summary for people and the files the file-based
// workspaces open.
type SampleResult struct {
	Summary        string
	Demonstrations string // a Mobile-Env annotation file
	Templates      string // a template folder
	// Already is set when the samples were in the store before: nothing was imported.
	Already bool
}

// LoadSamples implements workspace.Host: it loads the sample data (after asking about unsaved
// work, since the workspaces are made again on the new data), then shows the calling screen's
// sample: the demonstrations file in Demonstrations, the template folder in Templates; the
// store-backed workspaces show theirs once made again. When the samples are loaded already it
// imports nothing (the Explorer's episodes keep their ids) and shows what is there.
func (s *Shell) LoadSamples() {
	if s.deps.Samples == nil {
		workspace.Errorf(s.win, "Sample data cannot be loaded here (no store is open).")
		return
	}
	origin := s.Current()
	load := func() {
		workspace.StartWithProgress(s, "Loading the sample data", func(ctx context.Context, report workspace.Progress) (SampleResult, error) {
			return s.deps.Samples.Load(ctx, report)
		}, func(r SampleResult, err error) {
			if err != nil {
				return // shown by StartWithProgress
			}
			if !r.Already {
				s.reload()
			}
			switch origin {
			case workspace.Demonstrations:
				_ = s.OpenFile(r.Demonstrations, -1)
			case workspace.Templates:
				_ = s.OpenFile(r.Templates, -1)
			}
			if s.win != nil {
				widgets.ShowMessage("Sample data", r.Summary, s.win)
			}
		})
	}
	workspace.Start(s, nil, func(ctx context.Context) (bool, error) {
		return s.deps.Samples.Loaded(ctx)
	}, func(loaded bool, err error) {
		switch {
		case err != nil:
			workspace.ShowError(s.win, err)
		case loaded:
			load() // opens what is there: the workspaces stay as they are
		default:
			s.whenSettled("Loading the sample data", load)
		}
	})
}

// removeSamples asks, then removes the sample data and makes the workspaces again.
func (s *Shell) removeSamples(done func()) {
	if s.deps.Samples == nil || s.win == nil {
		return
	}
	d := dialog.NewConfirm("Remove the sample data?",
		"The sample dataset, its splits and scoring run, the sample evaluation project with any answers given in it, "+
			"the sample template folder and demonstrations file are removed. Your own data stays as it is.",
		func(ok bool) {
			if !ok {
				return
			}
			s.whenSettled("Removing the sample data", func() {
				workspace.Start(s, nil, func(ctx context.Context) (string, error) {
					return s.deps.Samples.Remove(ctx)
				}, func(msg string, err error) {
					if err != nil {
						workspace.ShowError(s.win, err)
						return
					}
					s.reload()
					widgets.ShowMessage("Sample data removed", msg, s.win)
					if done != nil {
						done()
					}
				})
			})
		}, s.win)
	d.SetConfirmText("Remove")
	d.SetDismissText("Cancel")
	d.Show()
}

var _ workspace.Host = (*Shell)(nil)
