package workflow

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/agentdesk/agentdesk/engine/evaluation"
	"github.com/agentdesk/agentdesk/engine/odyssey"
	"github.com/agentdesk/agentdesk/engine/samples"
	"github.com/agentdesk/agentdesk/store"
)

// SamplesFolder is where the bundled samples are written, inside the data folder.
const SamplesFolder = "samples"

// Samples is the bundled sample data as loaded into a store: the files (for the workspaces
// that open files: Demonstrations, Templates) and what went into the store.
type Samples struct {
	samples.Set
	// Dataset, Run and Project say what the store received.
	Dataset   Import
	RunName   string
	ProjectID int64
	Project   string
	// Contents is what of the samples was in the store already (EnsureSamples).
	Contents store.SampleContents
}

// Summary says in a sentence what loading the samples did.
func (s Samples) Summary() string {
	return fmt.Sprintf("Sample data loaded: %d GUI Odyssey episodes with their splits and a scored prediction file (Explorer), "+
		"the evaluation project %q (Evaluation), a demonstrations file (Demonstrations) and a template folder (Templates), in %s. "+
		"Remove them from Home when you no longer need them.", s.Dataset.Episodes, s.Project, s.Dir)
}

// sampleSplits are the split names of the sample dataset in dir (its splits/ folder).
func sampleSplits(dir string) []string {
	entries, _ := os.ReadDir(filepath.Join(dir, "SampleOdyssey", "splits"))
	var names []string
	for _, e := range entries {
		if name, ok := strings.CutSuffix(e.Name(), ".json"); ok && strings.HasPrefix(name, samples.Marker) {
			names = append(names, name)
		}
	}
	sort.Strings(names)
	return names
}

// LoadSamples writes the bundled samples into dir (a folder of their own, replaced) and loads
// them into st: the sample dataset is imported and its prediction file scored (a saved run),
// the evaluation project and the template folder are added. Samples loaded before are removed
// first, so loading twice leaves one copy. The samples are told from the user's data by coming
// from dir (store.SampleContents); nothing of the user's is touched.
func LoadSamples(ctx context.Context, st *store.Store, dir string) (Samples, error) {
	var out Samples
	dir, err := filepath.Abs(dir)
	if err != nil {
		return out, err
	}
	if _, err := RemoveSamples(ctx, st, dir); err != nil {
		return out, err
	}
	set, err := samples.Write(dir)
	if err != nil {
		return out, fmt.Errorf("writing the samples: %w", err)
	}
	out.Set = set
	if out.Dataset, err = ImportDataset(ctx, st, set.Odyssey, ImportOptions{}); err != nil {
		return out, fmt.Errorf("importing the sample dataset: %w", err)
	}
	w := Workflows{Store: st}
	if _, _, _, _, err := w.ScorePredictionsFile(ctx, set.OdysseyPredictions, set.OdysseySplit, store.ScoreOfficial,
		odyssey.LevelHigh, ""); err != nil {
		return out, fmt.Errorf("scoring the sample predictions: %w", err)
	}
	out.RunName = strings.TrimSuffix(filepath.Base(set.OdysseyPredictions), filepath.Ext(set.OdysseyPredictions))
	projectFile := filepath.Join(set.Evaluation, samples.EvaluationFile)
	p, err := evaluation.LoadProject(projectFile)
	if err != nil {
		return out, fmt.Errorf("the sample evaluation project: %w", err)
	}
	if out.ProjectID, err = st.SaveEvalProject(ctx, p.Name, "imported", projectFile, p, ""); err != nil {
		return out, fmt.Errorf("storing the sample evaluation project: %w", err)
	}
	out.Project = p.Name
	passed, _ := p.Settings.QualificationNames(p.Name)
	answers, err := samples.EvalAnswers(p, passed)
	if err != nil {
		return out, fmt.Errorf("the sample evaluation answers: %w", err)
	}
	if _, err := st.ImportEvalAttempts(ctx, out.ProjectID, answers); err != nil {
		return out, fmt.Errorf("storing the sample evaluation answers: %w", err)
	}
	if err := st.AddTemplateFolder(ctx, set.Templates, "Sample templates"); err != nil {
		return out, err
	}
	if err := st.TouchRecent(ctx, set.Demonstrations, "pickle"); err != nil {
		return out, err
	}
	return out, nil
}

// EnsureSamples loads the samples in dir into st (LoadSamples) unless some are there already:
// then it changes nothing in the store, writes the samples' files again only when one is
// missing (they are the same bytes), and returns what is there with loaded false. So loading
// twice never imports twice (the Explorer's episode ids stay as they are).
func EnsureSamples(ctx context.Context, st *store.Store, dir string) (s Samples, loaded bool, err error) {
	c, err := SampleContents(ctx, st, dir)
	if err != nil {
		return s, false, err
	}
	if c.Empty() {
		s, err = LoadSamples(ctx, st, dir)
		return s, err == nil, err
	}
	set, err := samples.Paths(dir)
	if err != nil {
		return s, false, err
	}
	if set.Missing() {
		if set, err = samples.Write(dir); err != nil {
			return s, false, fmt.Errorf("writing the samples: %w", err)
		}
	}
	s.Set = set
	s.Contents = c
	s.RunName = strings.TrimSuffix(filepath.Base(set.OdysseyPredictions), filepath.Ext(set.OdysseyPredictions))
	projects, err := st.EvalProjects(ctx)
	if err != nil {
		return s, false, err
	}
	projectFile := filepath.Join(set.Evaluation, samples.EvaluationFile)
	for _, p := range projects {
		if p.Source == projectFile {
			s.ProjectID, s.Project = p.ID, p.Name
		}
	}
	return s, false, nil
}

// AlreadyLoaded says in a sentence that the samples were in the store already.
func (s Samples) AlreadyLoaded() string {
	return fmt.Sprintf("The sample data is already loaded (%d episodes, %d splits, %d scoring runs, %d evaluation projects, "+
		"%d template folders, files in %s); nothing was imported again. Remove it from Home or with `agentdesk samples remove`.",
		s.Contents.Episodes, s.Contents.Splits, s.Contents.Runs, s.Contents.Projects, s.Contents.Folders, s.Dir)
}

// SampleContents says what of the samples in dir is in st.
func SampleContents(ctx context.Context, st *store.Store, dir string) (store.SampleContents, error) {
	dir, err := filepath.Abs(dir)
	if err != nil {
		return store.SampleContents{}, err
	}
	return st.SampleContents(ctx, dir, sampleSplits(dir))
}

// RemoveSamples removes what the samples in dir put into st (one transaction) and then the
// samples' own files in dir (only those: the folder is the samples' own, but a user may have
// saved something there). It returns what was removed from the store.
func RemoveSamples(ctx context.Context, st *store.Store, dir string) (store.SampleContents, error) {
	dir, err := filepath.Abs(dir)
	if err != nil {
		return store.SampleContents{}, err
	}
	c, err := st.RemoveSamples(ctx, dir, sampleSplits(dir))
	if err != nil {
		return c, err
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), samples.Marker) {
			if err := os.RemoveAll(filepath.Join(dir, e.Name())); err != nil {
				return c, err
			}
		}
	}
	if rest, err := os.ReadDir(dir); err == nil && len(rest) == 0 {
		_ = os.Remove(dir)
	}
	return c, nil
}
