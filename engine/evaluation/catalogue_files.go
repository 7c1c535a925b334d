package evaluation

import (
	"fmt"
	"path/filepath"

	"github.com/agentdesk/agentdesk/engine/limits"
)

// CatalogueChoice is what a new project over the built-in catalogue needs (the app's form
// and `agentdesk eval create`): the dialogues (a data file in the original's JSONL layout),
// what to ask about them, annotators per item, and optionally a training file that turns
// screening on.
type CatalogueChoice struct {
	Name           string
	DataFile       string
	TrainingFile   string
	Behaviours     bool
	DialogueLikert bool
	TurnLikert     bool
	// CompareConsecutive pairs dialogue 1 with 2, 3 with 4, … for the comparative types.
	CompareConsecutive bool
	Annotators         int
}

// Project builds the project of a catalogue choice, reading its files.
func (c CatalogueChoice) Project() (*Project, error) {
	f, _, err := limits.Open(c.DataFile, limits.ProjectFile)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	bundles, err := ReadBundles(f, filepath.Base(c.DataFile))
	if err != nil {
		return nil, err
	}
	var dialogues []Datapoint
	for _, b := range bundles {
		dialogues = append(dialogues, b.Datapoints...)
	}
	opts := CatalogueOptions{Behaviours: c.Behaviours, DialogueLikert: c.DialogueLikert, TurnLikert: c.TurnLikert,
		Annotators: c.Annotators}
	if c.CompareConsecutive {
		for i := 0; i+1 < len(dialogues); i += 2 {
			opts.Pairs = append(opts.Pairs, [2]int{i, i + 1})
		}
	}
	p, err := CatalogueProject(c.Name, dialogues, opts)
	if err != nil {
		return nil, err
	}
	if c.TrainingFile != "" {
		data, err := limits.ReadFile(c.TrainingFile, limits.ProjectFile)
		if err != nil {
			return nil, err
		}
		tr, err := ReadTraining(data, filepath.Base(c.TrainingFile))
		if err != nil {
			return nil, err
		}
		if p.Type(tr.TypeName) == nil {
			return nil, fmt.Errorf("%s trains %q, which is not among the chosen annotation types", c.TrainingFile, tr.TypeName)
		}
		p.Training = tr
		p.Settings.UseScreening = true
		p.Settings.PassedQualification, _ = p.Settings.QualificationNames(p.Settings.TaskName)
	}
	return p, nil
}
