package evaluation

import (
	"encoding/json"
	"fmt"
)

// Display is an annotation type's display mode: the original's `config` key.
type Display string

// The nine display modes of the original (spec §2).
const (
	// ButtonFlow: a question flow per annotatable turn, in a collapsible block, with help icons.
	ButtonFlow Display = "button_flow"
	// NondetailsButtonFlow: a question flow per turn, always expanded, with help icons.
	NondetailsButtonFlow Display = "nondetails_button_flow"
	// NondetailsNonhelpButtonFlow: a question flow per turn, always expanded, no help icons.
	NondetailsNonhelpButtonFlow Display = "nondetails_nonhelp_button_flow"
	// Multiselect: a multi-choice list per turn; answers stored under "<title>_labels".
	Multiselect Display = "multiselect"
	// LikertTurn: one 1-5 scale per option on every annotatable turn.
	LikertTurn Display = "likert-5-turn"
	// LikertDialogue: one 1-5 scale per option for the whole dialogue.
	LikertDialogue Display = "likert-5-dialogue"
	// Comparative: two dialogues side by side and one question with the given options.
	Comparative Display = "comparative"
	// ForeachSelectDialogue: a 1-5 choice per option for the whole dialogue (stored as ratings).
	ForeachSelectDialogue Display = "foreach-5-select-dialogue"
	// ForeachSelect has no renderer in the original (nothing is shown). The app renders it per
	// turn like the dialogue variant and marks it (quirk 7).
	ForeachSelect Display = "foreach-5-select"
)

// Displays lists every display mode in the order of the specification.
var Displays = []Display{ButtonFlow, NondetailsButtonFlow, NondetailsNonhelpButtonFlow, Multiselect,
	LikertTurn, LikertDialogue, Comparative, ForeachSelectDialogue, ForeachSelect}

// Known reports whether d is one of the nine display modes.
func (d Display) Known() bool {
	for _, k := range Displays {
		if d == k {
			return true
		}
	}
	return false
}

// IsFlow reports whether the mode shows a question flow.
func (d Display) IsFlow() bool {
	return d == ButtonFlow || d == NondetailsButtonFlow || d == NondetailsNonhelpButtonFlow
}

// Collapsible reports whether each turn's questions sit in a collapsible block (button_flow).
func (d Display) Collapsible() bool { return d == ButtonFlow }

// HelpIcons reports whether flow questions carry a help icon linking to the description.
func (d Display) HelpIcons() bool { return d == ButtonFlow || d == NondetailsButtonFlow }

// TurnLevel reports whether the mode puts a widget under annotatable turns (as opposed to one
// widget for the whole dialogue).
func (d Display) TurnLevel() bool {
	switch d {
	case ButtonFlow, NondetailsButtonFlow, NondetailsNonhelpButtonFlow, Multiselect, LikertTurn, ForeachSelect:
		return true
	}
	return false
}

// Indices names the rule that selects a dialogue's annotatable turn positions (spec §3).
type Indices string

// The index rules of the original. Positions count over the whole interleaved turn list from 0;
// the speaker is never checked.
const (
	NoIndices    Indices = "no_indices"
	Odd          Indices = "odd"
	Even         Indices = "even"
	All          Indices = "all"
	AllSkipFirst Indices = "all_skip_first"
)

// Positions returns the annotatable positions of a dialogue of nTurns turns, or an error for an
// unknown rule name.
func (ix Indices) Positions(nTurns int) ([]int, error) {
	out := []int{}
	for p := 0; p < nTurns; p++ {
		switch ix {
		case NoIndices:
			return out, nil
		case Odd:
			if p%2 == 1 {
				out = append(out, p)
			}
		case Even:
			if p%2 == 0 {
				out = append(out, p)
			}
		case All:
			out = append(out, p)
		case AllSkipFirst:
			if p > 0 {
				out = append(out, p)
			}
		default:
			return nil, fmt.Errorf("unknown indices %q (want no_indices, odd, even, all or all_skip_first)", string(ix))
		}
	}
	if !ix.Known() {
		return nil, fmt.Errorf("unknown indices %q (want no_indices, odd, even, all or all_skip_first)", string(ix))
	}
	return out, nil
}

// Known reports whether ix is one of the five rules.
func (ix Indices) Known() bool {
	switch ix {
	case NoIndices, Odd, Even, All, AllSkipFirst:
		return true
	}
	return false
}

// Requirement is an annotation type's `require` key: when Next is enabled (spec §6).
type Requirement struct {
	// Level is "turn" or "dialogue"; any other value makes the page never complete.
	Level string
	// HasLabels is true when the original's unfinished `labels` key is present; such a type is
	// always complete. Labels keeps its values for export.
	HasLabels bool
	Labels    []string
}

// Choice is one option of a multiselect or foreach type.
type Choice struct {
	Value string
	Label string
	// Speaker, when set, restricts a multiselect option to turns of that agent_idx (0 user,
	// 1 system).
	Speaker *int
}

// Scale is one 1-5 scale of a Likert type: the storage label and the question shown.
type Scale struct {
	Label    string
	Question string
}

// AnnotationType is a named question set with a display mode (spec §2).
type AnnotationType struct {
	// Name is the key in the type file; datapoints name their types by it.
	Name string
	// Title is task_title: display name, description key, and part of multiselect keys.
	Title   string
	Display Display
	Indices Indices
	// Question is the question text of multiselect, comparative and foreach types.
	Question string
	// Require is nil when the type has no `require` key (always complete).
	Require *Requirement
	// Flow holds the questions of the three flow modes.
	Flow Flow
	// Choices holds the options of multiselect and foreach types.
	Choices []Choice
	// Scales holds the options of the two Likert modes.
	Scales []Scale
	// Comparisons holds the options of a comparative type (three strings in the original).
	Comparisons []string
	// LabelDetails are scale anchors ("1": "not at all", …); never shown by the original, shown
	// by the app (quirk 7).
	LabelDetails map[string]string
	// Description is the text of the left pane (the app's own; the original hard-coded one page
	// per built-in type).
	Description string
}

// LabelsKey is the storage key of a multiselect type's answers on a turn: "<title>_labels".
func (t *AnnotationType) LabelsKey() string { return t.Title + "_labels" }

// Positions returns the annotatable positions of a dialogue of nTurns turns.
func (t *AnnotationType) Positions(nTurns int) []int {
	p, err := t.Indices.Positions(nTurns)
	if err != nil {
		return []int{}
	}
	return p
}

// Turn is one message of a dialogue: the speaker string and the text, and for graded
// (training, gold) turns the ground truth and its explanation.
type Turn struct {
	Speaker string
	Text    string
	// Truth is the ground truth of a graded turn, nil otherwise.
	Truth *Truth
	// Explanation is the explanation of a graded turn; nil when the file had null (gold).
	Explanation *string
}

// AgentIdx maps the speaker as the original does: 0 when the speaker is exactly "user", else 1.
func (t Turn) AgentIdx() int {
	if t.Speaker == "user" {
		return 0
	}
	return 1
}

// Datapoint is one dialogue to annotate (or a pair, for comparative types) with the types to
// apply to it (spec §7.1).
type Datapoint struct {
	// DialogueID is "<left id>|<right id>" for comparative pairs.
	DialogueID string
	// OriginWorkerID names the participant who produced the dialogue; they never annotate it.
	OriginWorkerID string
	// GroupID is the key into the units table.
	GroupID         string
	AnnotationTasks []string
	Turns           []Turn
	// Turns2 is the right-hand dialogue of a comparative pair.
	Turns2 []Turn
	// BotPersona is kept as the JSON it was (not displayed by the original).
	BotPersona json.RawMessage
	// turnsLine and turns2Line are, for a datapoint of a large line the importer read
	// (readBundlesLazy), where its checked turns and turns2 lists are in the data file's
	// bytes; Turns and Turns2 are nil then, and the lists are decoded a turn at a time as the
	// store writes the bundle (WriteBundleJSON). Projects read back from the store have Turns.
	turnsLine, turns2Line []byte
}

// hasTurns2 tells whether the datapoint is a comparative pair (it has turns2).
func (dp Datapoint) hasTurns2() bool { return dp.Turns2 != nil || dp.turns2Line != nil }

// turns returns the datapoint's turns (second: turns2), decoded from the line when they are
// still there (all of them at once: for what is not the store's writing of the bundle).
func (dp Datapoint) turns(second bool) []Turn {
	line, turns, key := dp.turnsLine, dp.Turns, "turns"
	if second {
		line, turns, key = dp.turns2Line, dp.Turns2, "turns2"
	}
	if line == nil {
		return turns
	}
	ts, _ := parseTurns(line, key) // checked when read
	return ts
}

// Bundle is one line of a data file: the datapoints shown inside one unit.
type Bundle struct {
	Datapoints []Datapoint
}

// GroupID is the group id of the bundle's first datapoint, the key of the units table.
func (b Bundle) GroupID() string {
	if len(b.Datapoints) == 0 {
		return ""
	}
	return b.Datapoints[0].GroupID
}

// TrainingDialogue is one onboarding dialogue with ground truth (spec §7.3).
type TrainingDialogue struct {
	// Key is the dialogue's key in the onboarding file.
	Key             string
	DialogueID      string
	AnnotationTasks []string
	BotPersona      json.RawMessage
	// PassCriteria is the maximum number of mistaken turns that passes (third dialogue only).
	PassCriteria int
	// Remaining is 2, 1, 0 for the first, second and third dialogue.
	Remaining int
	Turns     []Turn
}

// Training is the screening of one annotation type: exactly three dialogues in order.
type Training struct {
	// TypeName is the annotation type trained (every dialogue names exactly this one).
	TypeName  string
	Dialogues []TrainingDialogue
}

// GradingMode chooses how strictly ground truth is compared (quirk 3).
type GradingMode int

const (
	// Compatible grading reproduces the original: the first missing key whose truth is ""
	// ends the comparison as correct, later keys are not checked. Default for imported projects.
	Compatible GradingMode = iota
	// Strict grading checks every key of the truth.
	Strict
)

// String returns "compatible" or "strict".
func (m GradingMode) String() string {
	if m == Strict {
		return "strict"
	}
	return "compatible"
}

// ParseGradingMode parses "compatible" or "strict" (empty = compatible).
func ParseGradingMode(s string) (GradingMode, error) {
	switch s {
	case "", "compatible":
		return Compatible, nil
	case "strict":
		return Strict, nil
	}
	return Compatible, fmt.Errorf("unknown grading mode %q (want compatible or strict)", s)
}

// Settings are the project options: the relevant keys of the original's hydra configuration
// (spec §12) and the app's own additions. Durations are in seconds as in the original.
type Settings struct {
	TaskName        string
	TaskTitle       string
	TaskDescription string
	// CompletionCode is shown to a participant who finished everything (a crowdsourcing
	// site's completion code); CompletionURL, when set, is where the page then sends them
	// (the site's completion link). The app's own settings: the original had neither.
	CompletionCode string
	CompletionURL  string
	// MaxEntrants caps the participants who came in through the study link and are in
	// progress at once (holding a unit, or on the start page a short while); 0: as many as
	// the study has units.
	MaxEntrants int
	// ScreenOutCode and ScreenOutURL are what a participant who failed screening (or is
	// otherwise not eligible) is shown instead: a crowdsourcing site's screen-out code and
	// link (Prolific's "screened out" completion code).
	ScreenOutCode string
	ScreenOutURL  string

	// ExternalAnnotations selects static annotation of the project's dialogues.
	ExternalAnnotations bool
	// CollectDialogue selects dialogue collection with bots.
	CollectDialogue bool

	// DefaultUnits is the number of annotators per bundle whose group id is not in the units
	// table (0: such a bundle is an error, as in the original).
	DefaultUnits int

	AnnotationDurationSeconds int
	RandomSeed                int64
	Grading                   GradingMode

	AllowedConcurrent     int
	MaximumUnitsPerWorker int

	UseScreening        bool
	PassedQualification string
	BlockQualification  string
	MaxScreeningUnits   int

	UseGolds              bool
	GoldQualificationBase string
	MinGolds              int
	MaxIncorrectGolds     int
	AllowedGoldMistakes   int

	NumBots               int
	ConversationsNeeded   string
	OnlineAnnotation      string
	OfflineAnnotations    [][]string
	NumTurns              int
	MaxResponseSeconds    int
	IncludePersona        bool
	ConversationStartMode string
	// Personas are the persona sets a collection session draws from when IncludePersona is
	// on (one set, a list of sentences, per session, shared by its bots). The original drew
	// them from ParlAI's blended_skill_talk test set, which the app does not ship; the project
	// lists its own.
	Personas [][]string
}

// QualificationNames are the screening's passed and block qualifications: the configured
// names, else name + "_screen" and name + "_block".
func (s Settings) QualificationNames(name string) (passed, block string) {
	passed, block = s.PassedQualification, s.BlockQualification
	if passed == "" {
		passed = name + "_screen"
	}
	if block == "" {
		block = name + "_block"
	}
	return passed, block
}

// DefaultSettings returns the original's defaults (spec §12).
func DefaultSettings() Settings {
	return Settings{
		ExternalAnnotations:       true,
		AnnotationDurationSeconds: 300,
		RandomSeed:                42,
		NumBots:                   1,
		NumTurns:                  6,
		MaxResponseSeconds:        180,
		ConversationStartMode:     "hi",
		MinGolds:                  1,
	}
}

// Project is one evaluation: types, data, units, training, golds, bots and settings.
type Project struct {
	Name string
	// Types in file order; look one up with Type.
	Types   []*AnnotationType
	Bundles []Bundle
	// Units maps a bundle's group id to its number of units (annotators).
	Units map[string]int
	// Training is nil without screening data.
	Training *Training
	// Gold holds the gold bundles (graded turns carry truth).
	Gold []Bundle
	// Bots maps a model key to its definition.
	Bots     map[string]BotSpec
	Settings Settings
}

// Type returns the annotation type with that name, or nil.
func (p *Project) Type(name string) *AnnotationType {
	for _, t := range p.Types {
		if t.Name == name {
			return t
		}
	}
	return nil
}

// UnitsFor returns the number of units of bundle b: the units table's entry for its group id,
// else Settings.DefaultUnits when positive, else an error (the original fails on a missing key).
func (p *Project) UnitsFor(b Bundle) (int, error) {
	g := b.GroupID()
	if n, ok := p.Units[g]; ok {
		return n, nil
	}
	if p.Settings.DefaultUnits > 0 {
		return p.Settings.DefaultUnits, nil
	}
	return 0, fmt.Errorf("group id %q has no entry in the units table", g)
}
