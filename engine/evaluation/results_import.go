package evaluation

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/agentdesk/agentdesk/engine/limits"
)

// ReadResults reads every state.json under dir (the original's
// runs/NO_PROJECT/<run>/<assignment>/<attempt>/state.json, or Agentdesk's export) and matches
// the finished attempts to project p, each to the bundle whose dialogues it showed. name is the
// project's name, for the default qualification names. It returns the attempts to store (in one
// transaction) and how many files were skipped (unfinished attempts, gold checks). A file that
// cannot be read or matched is an error naming it.
func ReadResults(p *Project, name, dir string) (attempts []ImportedAttempt, skipped int, err error) {
	var files []string
	err = filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && d.Name() == "state.json" {
			files = append(files, p)
		}
		return err
	})
	if err != nil {
		return nil, 0, err
	}
	if len(files) == 0 {
		return nil, 0, fmt.Errorf("%s holds no state.json files", dir)
	}
	sort.Strings(files)
	passed, block := p.Settings.QualificationNames(name)
	for _, f := range files {
		data, err := limits.ReadFile(f, limits.ProjectFile)
		if err != nil {
			return nil, 0, err
		}
		rel, _ := filepath.Rel(dir, f)
		sf, err := ReadStateFile(data, rel)
		if err != nil {
			return nil, 0, err
		}
		if sf.Final == nil {
			skipped++ // unfinished attempt
			continue
		}
		a, ok, err := importedAttempt(p, rel, sf, passed, block)
		if err != nil {
			return nil, 0, err
		}
		if !ok {
			skipped++
			continue
		}
		fi, _ := os.Stat(f)
		a.CompletedAt = sf.Final.LastPageEnd()
		if a.CompletedAt.IsZero() {
			a.CompletedAt = fi.ModTime()
		}
		attempts = append(attempts, a)
	}
	return attempts, skipped, nil
}

// importedAttempt matches one finished state file to the project: a screening, or the bundle
// whose dialogues it showed (in the order shown, with the types shown). ok is false for kinds
// that are not imported (gold checks).
func importedAttempt(p *Project, file string, sf *StateFile, passed, block string) (ImportedAttempt, bool, error) {
	a := ImportedAttempt{File: file, Participant: sf.Final.WorkerID}
	state, err := json.Marshal(sf.Final)
	if err != nil {
		return a, false, err
	}
	a.State = state
	type shown struct {
		IsScreen   bool     `json:"is_screen"`
		DialogueID string   `json:"dialogue_id"`
		Tasks      []string `json:"annotation_tasks"`
	}
	var inputs []shown
	for i, raw := range sf.Inputs {
		var in shown
		if err := json.Unmarshal(raw, &in); err != nil {
			return a, false, fmt.Errorf("%s: input %d: %v", file, i, err)
		}
		inputs = append(inputs, in)
	}
	if len(inputs) > 0 && inputs[0].IsScreen {
		success := sf.Success != nil && *sf.Success
		a.Kind, a.Position = UnitScreening, -1
		a.Result, _ = json.Marshal(map[string]any{"mistakes": sf.Mistakes, "success": success, "completed": true})
		a.Grant = map[string]int{passed: 1}
		if !success {
			a.Grant = map[string]int{block: 1}
		}
		return a, true, nil
	}
	if sf.GoldMistakes != nil {
		return a, false, nil
	}
	for b, bundle := range p.Bundles {
		if len(bundle.Datapoints) != len(inputs) {
			continue
		}
		order := UnitOrder{}
		for _, in := range inputs {
			idx := -1
			for k, dp := range bundle.Datapoints {
				if dp.DialogueID == in.DialogueID {
					idx = k
				}
			}
			if idx < 0 {
				break
			}
			order.Datapoints = append(order.Datapoints, idx)
			order.Tasks = append(order.Tasks, in.Tasks)
		}
		if len(order.Datapoints) == len(inputs) {
			a.Kind, a.Position = UnitTask, b
			a.Shown, _ = json.Marshal(order)
			a.Result = json.RawMessage(`{"completed":true}`)
			return a, true, nil
		}
	}
	ids := make([]string, len(inputs))
	for i, in := range inputs {
		ids[i] = in.DialogueID
	}
	return a, false, fmt.Errorf("%s: the dialogues %s are not a bundle of this project", file, strings.Join(ids, ", "))
}
