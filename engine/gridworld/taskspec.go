package gridworld

import (
	"fmt"
	"sort"
	"strings"
)

// TaskSpecHelp describes the task specifications ResolveTaskSpec accepts.
const TaskSpecHelp = `samples (a random built-in sample per episode), a sample's name (` +
	`e.g. tower), random (random structures), or iglu:DIR (an IGLU multi-turn dataset folder ` +
	`with dialogs.csv and builder-data/)`

// ResolveTaskSpec turns a task specification into a task source and a display name.
func ResolveTaskSpec(spec string) (TaskSource, string, error) {
	switch {
	case spec == "" || spec == "samples":
		return SampleTaskSource(), "samples", nil
	case spec == "random":
		return DefaultRandomTasks(), "random", nil
	case strings.HasPrefix(spec, "iglu:"):
		dir := strings.TrimPrefix(spec, "iglu:")
		ds, err := LoadIGLUDatasetDir(dir, LoadOptions{})
		if err != nil {
			return nil, "", fmt.Errorf("%s: %w", dir, err)
		}
		if ds.NumSessions() == 0 {
			return nil, "", fmt.Errorf("%s: the dataset has no sessions", dir)
		}
		return ds, spec, nil
	}
	var names []string
	for _, nt := range SampleTasks() {
		if nt.Name == spec {
			return FixedTask{Task: nt.Task}, nt.Name, nil
		}
		names = append(names, nt.Name)
	}
	sort.Strings(names)
	return nil, "", fmt.Errorf("unknown task %q: use %s; samples are %s", spec, "samples, random or iglu:DIR", strings.Join(names, ", "))
}
