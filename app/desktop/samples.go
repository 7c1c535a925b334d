package desktop

import (
	"context"
	"errors"
	"fmt"

	"github.com/agentdesk/agentdesk/app/workflow"
	"github.com/agentdesk/agentdesk/store"
	"github.com/agentdesk/agentdesk/ui"
	"github.com/agentdesk/agentdesk/ui/workspace"
)

// sampleData is the shell's SampleData over the open store, with the samples' files in dir
// (the data folder's samples/).
type sampleData struct {
	store func() *store.Store
	dir   string
}

var errNoStore = errors.New("no store is open")

func (d sampleData) Load(ctx context.Context, report workspace.Progress) (ui.SampleResult, error) {
	st := d.store()
	if st == nil {
		return ui.SampleResult{}, errNoStore
	}
	report(-1, "Writing the sample files and loading them into the store…")
	s, loaded, err := workflow.EnsureSamples(ctx, st, d.dir)
	if err != nil {
		return ui.SampleResult{}, err
	}
	summary := s.Summary()
	if !loaded {
		summary = s.AlreadyLoaded()
	}
	return ui.SampleResult{Summary: summary, Demonstrations: s.Demonstrations, Templates: s.Templates, Already: !loaded}, nil
}

func (d sampleData) Remove(ctx context.Context) (string, error) {
	st := d.store()
	if st == nil {
		return "", errNoStore
	}
	c, err := workflow.RemoveSamples(ctx, st, d.dir)
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("Removed the sample data: %d episodes, %d splits, %d scoring runs, %d evaluation projects, "+
		"%d template folders, and its files in %s.", c.Episodes, c.Splits, c.Runs, c.Projects, c.Folders, d.dir), nil
}

func (d sampleData) Loaded(ctx context.Context) (bool, error) {
	st := d.store()
	if st == nil {
		return false, nil
	}
	c, err := workflow.SampleContents(ctx, st, d.dir)
	return !c.Empty(), err
}
