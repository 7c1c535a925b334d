// Package episode holds the vocabulary every workspace shares: an Episode is a sequence of
// Steps (an observation frame, the action taken, the reward received, the instruction in force
// and source-specific extras), and a Split names groups of episodes (train/test parts).
//
// A gridworld play session, a Mobile-Env trajectory and a GUI Odyssey episode are all Episodes,
// so the Explorer lists them together and the frame viewer opens any of them. The package knows
// nothing of storage or widgets.
package episode

import (
	"encoding/json"
	"errors"
	"fmt"
	"time"
)

// Sources of episodes known to the app. Source is a free string so that imported data of
// other kinds can be stored too; these are the ones the workspaces produce.
const (
	SourceGridworld = "gridworld"
	SourceMobileEnv = "mobileenv"
	SourceOdyssey   = "odyssey"
)

// Facets the Explorer filters by.
const (
	FacetCategory = "category"
	FacetApp      = "app"
	FacetDevice   = "device"
	FacetAction   = "action"
	// FacetMetaTask is the task template an episode instantiates (GUI Odyssey's meta_task);
	// the store adds it itself, from Episode.MetaTask.
	FacetMetaTask = "meta_task"
)

// Episode is one recorded attempt at a task.
type Episode struct {
	// ID is the store's identifier; 0 for an episode not stored yet.
	ID int64
	// Source names where the episode comes from (SourceGridworld, ...).
	Source string
	// ExternalID identifies the episode inside its source (a file name, a dataset id).
	// Source and ExternalID together are unique in a store.
	ExternalID string
	// Task is the task's name or definition file; Instruction the task's natural-language goal.
	Task        string
	Instruction string
	// MetaTask is the task template the task instantiates (GUI Odyssey's task_info.meta_task,
	// with a "{}" where the task fills in a value); "" when the source has none.
	MetaTask string
	// Metadata holds source-specific fields (device, category, app, ...), stored as JSON.
	Metadata map[string]any
	// Facets are the attributes the Explorer filters by (FacetCategory, FacetApp, ...), each
	// with one or more values. The store adds FacetAction itself, from the steps' action kinds,
	// and FacetMetaTask from MetaTask.
	Facets map[string][]string
	// Steps in order; Step.Index equals the position in this slice.
	Steps []Step
	// CreatedAt is when the episode was stored.
	CreatedAt time.Time
}

// Step is one observation/action pair of an episode.
type Step struct {
	Index       int
	Action      Action
	Reward      float64
	Instruction string
	// ObservationRef points to a frame kept outside the store (a file path), read lazily.
	ObservationRef string
	// Observation is an encoded image (PNG or JPEG) kept inside the store, when present.
	Observation []byte
	// Extra holds source-specific fields (view hierarchy, grid, info, ...), stored as JSON.
	Extra map[string]any
}

// Action is what the agent did at a step, in a form the frame viewer can draw.
type Action struct {
	// Kind is the action's name: "click", "long_press", "scroll", "type", "touch", "lift",
	// "press_back", a gridworld action name, ...
	Kind string `json:"kind"`
	// Points are positions on the frame as fractions of its width and height (0..1), in the
	// order the action visits them (a scroll has a start and an end).
	Points []Point `json:"points,omitempty"`
	// Text is typed text or a key name.
	Text string `json:"text,omitempty"`
	// Raw is the source's own encoding of the action, kept verbatim.
	Raw json.RawMessage `json:"raw,omitempty"`
}

// Point is a position on a frame as fractions of its width (X) and height (Y).
type Point struct {
	X float64 `json:"x"`
	Y float64 `json:"y"`
}

// TotalReward sums the rewards of all steps.
func (e *Episode) TotalReward() float64 {
	var sum float64
	for _, s := range e.Steps {
		sum += s.Reward
	}
	return sum
}

// Validate reports the first structural problem of an episode that is about to be stored.
func (e *Episode) Validate() error {
	if e.Source == "" {
		return errors.New("episode has no source")
	}
	if e.ExternalID == "" {
		return fmt.Errorf("%s episode has no external id", e.Source)
	}
	for i, s := range e.Steps {
		if s.Index != i {
			return fmt.Errorf("episode %s/%s: step %d has index %d", e.Source, e.ExternalID, i, s.Index)
		}
	}
	return nil
}

// Summary describes a stored episode without its steps, for listings.
type Summary struct {
	ID          int64
	Source      string
	ExternalID  string
	Task        string
	Instruction string
	MetaTask    string // the task template (Episode.MetaTask)
	NumSteps    int
	TotalReward float64
	CreatedAt   time.Time
}

// Query selects episodes for a listing. Zero values select everything.
type Query struct {
	Source string
	Limit  int // 0: no limit
	Offset int
}

// Key names an episode independently of any store: its source and external id.
type Key struct {
	Source     string
	ExternalID string
}

// Split groups episodes into named parts, such as the "train" and "test" halves of GUI
// Odyssey's official splits.
type Split struct {
	Name string
	// Kind is SplitOfficial for splits that come with a dataset, SplitUser for splits made here.
	Kind        string
	Description string
	// Parts maps a part name ("train", "test", ...) to its episodes, in order.
	Parts map[string][]Key
}

// Split kinds.
const (
	SplitOfficial = "official"
	SplitUser     = "user"
)

// Size is the number of episodes over all parts.
func (s *Split) Size() int {
	n := 0
	for _, keys := range s.Parts {
		n += len(keys)
	}
	return n
}

// Overview is what a store holds, at a glance, for the Home view and `agentdesk store info`.
type Overview struct {
	EpisodesBySource map[string]int
	Steps            int
	Splits           int
	TemplateFolders  int
	EvalProjects     int
	ImportedFiles    int
	Recent           []RecentFile
}

// Episodes is the number of episodes over all sources.
func (o Overview) Episodes() int {
	n := 0
	for _, c := range o.EpisodesBySource {
		n += c
	}
	return n
}

// RecentFile is a file or folder the user opened in one of the workspaces.
type RecentFile struct {
	Path     string
	Kind     string // "pickle", "template-folder", "eval-project", "odyssey", "gridworld-tasks", ...
	OpenedAt time.Time
}
