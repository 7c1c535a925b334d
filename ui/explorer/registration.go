package explorer

import (
	"context"
	"fmt"
	"sort"

	"fyne.io/fyne/v2/theme"

	"github.com/agentdesk/agentdesk/engine/episode"
	"github.com/agentdesk/agentdesk/engine/modelclient"
	"github.com/agentdesk/agentdesk/engine/odyssey"
	"github.com/agentdesk/agentdesk/engine/odyssey/predict"
	"github.com/agentdesk/agentdesk/ui/widgets"
	"github.com/agentdesk/agentdesk/ui/workspace"
)

// Store is what the Explorer workspace reads from the store beyond the Store basics:
// filtered and sorted episode pages, facet values, full-text search, statistics and splits, and
// the GUI Odyssey import and exports. Every listing query reads one page or grouped counts, so
// a filter change never loads the selection into memory.
type Store interface {
	// Episode reads one episode with its steps.
	Episode(ctx context.Context, id int64) (*episode.Episode, error)
	// CountMatching counts the episodes a filter selects.
	CountMatching(ctx context.Context, f episode.Filter) (int, error)
	// MatchingPage reads limit rows of the sorted listing from offset, search matches marked.
	MatchingPage(ctx context.Context, f episode.Filter, s episode.Sort, offset, limit int) ([]episode.Row, error)
	// SortedIDs lists the ids of the whole sorted listing (8 bytes an episode).
	SortedIDs(ctx context.Context, f episode.Filter, s episode.Sort) ([]int64, error)
	// EpisodeRows reads listing rows by id, in that order, matches of text marked.
	EpisodeRows(ctx context.Context, ids []int64, text string) ([]episode.Row, error)
	// MatchingStats describes the selection: lengths, actions, categories/apps/devices, splits.
	MatchingStats(ctx context.Context, f episode.Filter) (episode.Stats, error)
	// FacetValues lists a facet's values over the store with their episode counts.
	FacetValues(ctx context.Context, facet string) ([]episode.Count, error)
	// SourceCounts lists the sources with their episode counts.
	SourceCounts(ctx context.Context) ([]episode.Count, error)
	// OptimizeQueries refreshes the query planner's statistics (cheap when nothing changed).
	OptimizeQueries(ctx context.Context) error
	// StartExplorerIndex starts making the memory index that answers the queries above at large
	// sizes (SQL answers until it is ready).
	StartExplorerIndex()
	// RelevanceRanked says whether a listing of a search by relevance is ranked, with how many
	// episodes the search matches (too common a search is listed in store order).
	RelevanceRanked(ctx context.Context, f episode.Filter) (ranked bool, matches int, err error)

	// SplitSummaries lists the splits with their part sizes.
	SplitSummaries(ctx context.Context) ([]episode.SplitSummary, error)
	// CreateSplitFromFilter makes a user split whose one part holds the selection.
	CreateSplitFromFilter(ctx context.Context, name, part string, f episode.Filter) (int, error)
	// CreateRandomSplit makes a seeded random train/test user split of the selection.
	CreateRandomSplit(ctx context.Context, name string, f episode.Filter, trainRatio float64, seed uint64) (train, test int, err error)
	// DeleteUserSplit removes a split made in the app (not an official one).
	DeleteUserSplit(ctx context.Context, name string) error
	// ExportSplitFile writes a split in the official split-file format.
	ExportSplitFile(ctx context.Context, name, path string) error

	// ImportOdysseyFolder imports a GUI Odyssey dataset folder (in one transaction, or in chunks when it is large), reporting
	// progress; it returns a summary and the warnings.
	ImportOdysseyFolder(ctx context.Context, dir string, progress func(phase string, done, total int)) (string, []string, error)
	// ExportEpisodes writes the selection's GUI Odyssey episodes as JSONL or original files.
	ExportEpisodes(ctx context.Context, f episode.Filter, format, dest string, progress func(done, total int)) (written, skipped int, err error)
	// ExportDatasetFolder writes the selection's episodes, every source, to a folder as a
	// Hugging Face dataset ("parquet") or training chats ("sharegpt"), and says what it wrote.
	ExportDatasetFolder(ctx context.Context, f episode.Filter, format, dest string, frames bool, progress func(done, total int)) (string, error)
	// ImportDatasetFolder reads a Hugging Face dataset folder written by that export back, in
	// one transaction, and says what it stored.
	ImportDatasetFolder(ctx context.Context, dir string, progress func(phase string, done int)) (string, error)
	// ScorePredictionsFile scores a prediction file against a split ("official", "lenient" or
	// "strict" mode) as the official evaluator does and saves the run, labelled with the prompt
	// level ("high", "low"); metric overrides the split's (user splits; "" keeps it). It returns
	// the result, the breakdowns by category, app, device and action, the failing steps and notes.
	ScorePredictionsFile(ctx context.Context, path, split, mode, level string, metric odyssey.Branch) (*odyssey.Result, map[string][]odyssey.Group, []odyssey.Failure, []string, error)
	// SavedOdysseyRuns lists the saved scoring runs, newest first.
	SavedOdysseyRuns(ctx context.Context) ([]odyssey.SavedRun, error)
	// OpenSavedRun scores a saved run's samples again: the same numbers, with breakdowns and
	// failing steps.
	OpenSavedRun(ctx context.Context, runID int64) (*odyssey.Result, map[string][]odyssey.Group, []odyssey.Failure, odyssey.SavedRun, error)
	// DeleteOdysseyRun removes a saved run.
	DeleteOdysseyRun(ctx context.Context, runID int64) error
	// PredictSplit runs a model (an OpenAI-compatible server, client) over a split's test
	// records and writes the predictions file out, keeping each answer in the store (the same
	// call again resumes); progress hears each record. It returns what the run did, in a sentence.
	PredictSplit(ctx context.Context, split, level string, hisLen int, out string, client modelclient.Config, progress func(predict.Progress)) (string, error)
	// EpisodeID finds an episode by its source and external id.
	EpisodeID(ctx context.Context, key episode.Key) (int64, error)
}

// NewRegistration describes the workspace to the shell; store returns the open store (nil:
// none) when the workspace is created.
func NewRegistration(store func() Store) workspace.Registration {
	return workspace.Registration{
		ID: workspace.Explorer, Title: "Explorer", Icon: theme.SearchIcon(),
		Intro:   "Browse every episode in the store by split; filter, search, and score model predictions.",
		New:     func(h workspace.Host) workspace.Workspace { return New(h, workspace.Value(store)) },
		Summary: Summary,
	}
}

// Summary sums up all episodes by source for Home, e.g. "12 episodes: 10 odyssey, 2 gridworld;
// 1 split".
func Summary(o episode.Overview) string {
	line := widgets.Plural(o.Episodes(), "episode")
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
	return line + "; " + widgets.Plural(o.Splits, "split")
}

var _ workspace.Opener = (*Workspace)(nil)
