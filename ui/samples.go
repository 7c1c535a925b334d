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
	// Load writes the samples and loads them into the store (replacing samples loaded before).
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
}

// LoadSamples implements workspace.Host: it loads the sample data (after asking about unsaved
// work, since the workspaces are made again on the new data), then shows the calling screen's
// sample: the demonstrations file in Demonstrations, the template folder in Templates; the
// store-backed workspaces show theirs once made again.
func (s *Shell) LoadSamples() {
	if s.deps.Samples == nil {
		workspace.Errorf(s.win, "Sample data cannot be loaded here (no store is open).")
		return
	}
	origin := s.Current()
	s.whenSettled("Loading the sample data", func() {
		workspace.StartWithProgress(s, "Loading the sample data", func(ctx context.Context, report workspace.Progress) (SampleResult, error) {
			return s.deps.Samples.Load(ctx, report)
		}, func(r SampleResult, err error) {
			if err != nil {
				return // shown by StartWithProgress
			}
			s.reload()
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
