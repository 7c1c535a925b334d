package evaluation

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"strings"

	"github.com/pelletier/go-toml/v2"

	"github.com/agentdesk/agentdesk/engine/atomicfile"
	"github.com/agentdesk/agentdesk/engine/limits"
)

// ProjectFormat is the version of the app's project file; LoadProject refuses newer files.
const ProjectFormat = 1

// The TOML shape of a project file. Flows are nested tables (keeping order); ground truths and
// personas are JSON text, because their key order and shapes are the original's.
type tomlProject struct {
	Format   int                `toml:"format"`
	Name     string             `toml:"name"`
	Settings tomlSettings       `toml:"settings"`
	Types    []tomlType         `toml:"type"`
	Units    map[string]int     `toml:"units,omitempty"`
	Bots     map[string]BotSpec `toml:"bots,omitempty"`
	Training *tomlTraining      `toml:"training,omitempty"`
	Bundles  []tomlBundle       `toml:"bundle,omitempty"`
	Gold     []tomlBundle       `toml:"gold,omitempty"`
}

type tomlSettings struct {
	TaskName                  string     `toml:"task_name,omitempty"`
	TaskTitle                 string     `toml:"task_title,omitempty"`
	TaskDescription           string     `toml:"task_description,omitempty"`
	CompletionCode            string     `toml:"completion_code,omitempty"`
	CompletionURL             string     `toml:"completion_url,omitempty"`
	MaxEntrants               int        `toml:"max_entrants,omitempty"`
	ScreenOutCode             string     `toml:"screen_out_code,omitempty"`
	ScreenOutURL              string     `toml:"screen_out_url,omitempty"`
	ExternalAnnotations       bool       `toml:"static_annotation"`
	CollectDialogue           bool       `toml:"collect_dialogue"`
	DefaultUnits              int        `toml:"default_units"`
	AnnotationDurationSeconds int        `toml:"page_seconds"`
	RandomSeed                int64      `toml:"random_seed"`
	Grading                   string     `toml:"grading"`
	AllowedConcurrent         int        `toml:"allowed_concurrent"`
	MaximumUnitsPerWorker     int        `toml:"maximum_units_per_participant"`
	UseScreening              bool       `toml:"screening"`
	PassedQualification       string     `toml:"passed_qualification,omitempty"`
	BlockQualification        string     `toml:"block_qualification,omitempty"`
	MaxScreeningUnits         int        `toml:"max_screening_units"`
	UseGolds                  bool       `toml:"golds"`
	GoldQualificationBase     string     `toml:"gold_qualification_base,omitempty"`
	MinGolds                  int        `toml:"min_golds"`
	MaxIncorrectGolds         int        `toml:"max_incorrect_golds"`
	AllowedGoldMistakes       int        `toml:"allowed_gold_mistakes"`
	NumBots                   int        `toml:"num_bots"`
	ConversationsNeeded       string     `toml:"conversations_needed,omitempty"`
	OnlineAnnotation          string     `toml:"online_annotation,omitempty"`
	OfflineAnnotations        [][]string `toml:"offline_annotations,omitempty"`
	NumTurns                  int        `toml:"message_cap"`
	MaxResponseSeconds        int        `toml:"message_seconds"`
	IncludePersona            bool       `toml:"include_persona"`
	ConversationStartMode     string     `toml:"start_mode,omitempty"`
	Personas                  [][]string `toml:"personas,omitempty"`
}

type tomlType struct {
	Name         string            `toml:"name"`
	Title        string            `toml:"title"`
	Display      string            `toml:"display"`
	Indices      string            `toml:"indices"`
	Question     string            `toml:"question,omitempty"`
	Require      *tomlRequire      `toml:"require,omitempty"`
	Description  string            `toml:"description,omitempty"`
	Choices      []tomlChoice      `toml:"choice,omitempty"`
	Scales       []tomlScale       `toml:"scale,omitempty"`
	Comparisons  []string          `toml:"comparisons,omitempty"`
	LabelDetails map[string]string `toml:"label_details,omitempty"`
	Flow         []tomlQuestion    `toml:"flow,omitempty"`
}

type tomlRequire struct {
	Level string `toml:"level"`
	// HasLabels marks the original's unfinished require.labels (always complete).
	HasLabels bool     `toml:"has_labels,omitempty"`
	Labels    []string `toml:"labels,omitempty"`
}

type tomlChoice struct {
	Value   string `toml:"value"`
	Label   string `toml:"label"`
	Speaker *int   `toml:"speaker,omitempty"`
}

type tomlScale struct {
	Label    string `toml:"label"`
	Question string `toml:"question"`
}

type tomlQuestion struct {
	Text     string       `toml:"text"`
	Checkbox bool         `toml:"checkbox,omitempty"`
	Dep      string       `toml:"dep,omitempty"`
	Help     string       `toml:"help,omitempty"`
	Answers  []tomlAnswer `toml:"answer"`
}

type tomlAnswer struct {
	Text string         `toml:"text"`
	Flow []tomlQuestion `toml:"flow,omitempty"`
}

type tomlBundle struct {
	Datapoints []tomlDatapoint `toml:"datapoint"`
}

type tomlDatapoint struct {
	DialogueID      string     `toml:"dialogue_id"`
	OriginWorkerID  string     `toml:"origin_worker_id,omitempty"`
	GroupID         string     `toml:"group_id"`
	AnnotationTasks []string   `toml:"annotation_tasks"`
	BotPersona      string     `toml:"bot_persona,omitempty"`
	Turns           []tomlTurn `toml:"turn"`
	Turns2          []tomlTurn `toml:"turn2,omitempty"`
}

type tomlTurn struct {
	Speaker     string  `toml:"speaker"`
	Text        string  `toml:"text"`
	Truth       string  `toml:"truth,omitempty"`
	Explanation *string `toml:"explanation,omitempty"`
}

type tomlTraining struct {
	Type      string               `toml:"type"`
	Dialogues []tomlTrainingDialog `toml:"dialogue"`
}

type tomlTrainingDialog struct {
	Key          string     `toml:"key"`
	DialogueID   string     `toml:"dialogue_id"`
	PassCriteria int        `toml:"pass_criteria"`
	Remaining    int        `toml:"remaining"`
	BotPersona   string     `toml:"bot_persona,omitempty"`
	Turns        []tomlTurn `toml:"turn"`
}

func flowToTOML(f Flow) []tomlQuestion {
	var out []tomlQuestion
	for _, q := range f {
		tq := tomlQuestion{Text: q.Text, Checkbox: q.Checkbox, Dep: q.Dep, Help: q.Help}
		for _, a := range q.Answers {
			tq.Answers = append(tq.Answers, tomlAnswer{Text: a.Text, Flow: flowToTOML(a.Sub)})
		}
		out = append(out, tq)
	}
	return out
}

func flowFromTOML(qs []tomlQuestion) Flow {
	out := Flow{}
	for _, tq := range qs {
		q := Question{Text: tq.Text, Checkbox: tq.Checkbox, Dep: tq.Dep, Help: tq.Help}
		for _, a := range tq.Answers {
			q.Answers = append(q.Answers, FlowAnswer{Text: a.Text, Sub: flowFromTOML(a.Flow)})
		}
		out = append(out, q)
	}
	return out
}

func turnsToTOML(turns []Turn) []tomlTurn {
	var out []tomlTurn
	for _, t := range turns {
		tt := tomlTurn{Speaker: t.Speaker, Text: t.Text, Explanation: t.Explanation}
		if t.Truth != nil {
			b, _ := t.Truth.MarshalJSON()
			tt.Truth = string(b)
		}
		out = append(out, tt)
	}
	return out
}

func turnsFromTOML(tts []tomlTurn, where string) ([]Turn, error) {
	out := make([]Turn, 0, len(tts))
	for i, tt := range tts {
		t := Turn{Speaker: tt.Speaker, Text: tt.Text, Explanation: tt.Explanation}
		if tt.Truth != "" {
			truth, err := ParseTruth(json.RawMessage(tt.Truth))
			if err != nil {
				return nil, fmt.Errorf("%s turn %d: %w", where, i+1, err)
			}
			t.Truth = truth
		}
		out = append(out, t)
	}
	return out, nil
}

func personaFromTOML(s, where string) (json.RawMessage, error) {
	if s == "" {
		return nil, nil
	}
	if !json.Valid([]byte(s)) {
		return nil, fmt.Errorf("%s: bot_persona is not valid JSON", where)
	}
	return json.RawMessage(s), nil
}

func bundlesToTOML(bs []Bundle) []tomlBundle {
	var out []tomlBundle
	for _, b := range bs {
		var tb tomlBundle
		for _, dp := range b.Datapoints {
			tb.Datapoints = append(tb.Datapoints, tomlDatapoint{DialogueID: dp.DialogueID, OriginWorkerID: dp.OriginWorkerID,
				GroupID: dp.GroupID, AnnotationTasks: dp.AnnotationTasks, BotPersona: string(dp.BotPersona),
				Turns: turnsToTOML(dp.turns(false)), Turns2: turnsToTOML(dp.turns(true))}) // decoded if still in the line
		}
		out = append(out, tb)
	}
	return out
}

func bundlesFromTOML(tbs []tomlBundle, what string) ([]Bundle, error) {
	var out []Bundle
	for bi, tb := range tbs {
		var b Bundle
		for di, td := range tb.Datapoints {
			where := fmt.Sprintf("%s %d, datapoint %d", what, bi+1, di+1)
			dp := Datapoint{DialogueID: td.DialogueID, OriginWorkerID: td.OriginWorkerID, GroupID: td.GroupID,
				AnnotationTasks: td.AnnotationTasks}
			var err error
			if dp.Turns, err = turnsFromTOML(td.Turns, where); err != nil {
				return nil, err
			}
			if td.Turns2 != nil {
				if dp.Turns2, err = turnsFromTOML(td.Turns2, where); err != nil {
					return nil, err
				}
			}
			if dp.BotPersona, err = personaFromTOML(td.BotPersona, where); err != nil {
				return nil, err
			}
			b.Datapoints = append(b.Datapoints, dp)
		}
		if len(b.Datapoints) == 0 {
			return nil, fmt.Errorf("%s %d has no datapoints", what, bi+1)
		}
		out = append(out, b)
	}
	return out, nil
}

// MarshalDefinition encodes a project as the store keeps its definition: MarshalProject
// without the bundles that are its assignments (all of them, but for dialogue collection, whose
// one assignment holds none), which the store keeps once, as its assignments' JSON.
func MarshalDefinition(p *Project) ([]byte, error) {
	def := *p
	if !p.Settings.CollectDialogue {
		def.Bundles = nil
	}
	return MarshalProject(&def)
}

// MarshalProject encodes a project in the app's TOML format.
func MarshalProject(p *Project) ([]byte, error) {
	s := p.Settings
	tp := tomlProject{Format: ProjectFormat, Name: p.Name, Units: p.Units, Bots: p.Bots,
		Settings: tomlSettings{TaskName: s.TaskName, TaskTitle: s.TaskTitle, TaskDescription: s.TaskDescription,
			CompletionCode: s.CompletionCode, CompletionURL: s.CompletionURL, ScreenOutCode: s.ScreenOutCode, ScreenOutURL: s.ScreenOutURL, MaxEntrants: s.MaxEntrants,
			ExternalAnnotations: s.ExternalAnnotations, CollectDialogue: s.CollectDialogue, DefaultUnits: s.DefaultUnits,
			AnnotationDurationSeconds: s.AnnotationDurationSeconds, RandomSeed: s.RandomSeed, Grading: s.Grading.String(),
			AllowedConcurrent: s.AllowedConcurrent, MaximumUnitsPerWorker: s.MaximumUnitsPerWorker,
			UseScreening: s.UseScreening, PassedQualification: s.PassedQualification, BlockQualification: s.BlockQualification,
			MaxScreeningUnits: s.MaxScreeningUnits, UseGolds: s.UseGolds, GoldQualificationBase: s.GoldQualificationBase,
			MinGolds: s.MinGolds, MaxIncorrectGolds: s.MaxIncorrectGolds, AllowedGoldMistakes: s.AllowedGoldMistakes,
			NumBots: s.NumBots, ConversationsNeeded: s.ConversationsNeeded, OnlineAnnotation: s.OnlineAnnotation,
			OfflineAnnotations: s.OfflineAnnotations, NumTurns: s.NumTurns, MaxResponseSeconds: s.MaxResponseSeconds,
			IncludePersona: s.IncludePersona, ConversationStartMode: s.ConversationStartMode, Personas: s.Personas},
		Bundles: bundlesToTOML(p.Bundles), Gold: bundlesToTOML(p.Gold)}
	for _, t := range p.Types {
		tt := tomlType{Name: t.Name, Title: t.Title, Display: string(t.Display), Indices: string(t.Indices),
			Question: t.Question, Description: t.Description, Comparisons: t.Comparisons, LabelDetails: t.LabelDetails,
			Flow: flowToTOML(t.Flow)}
		if t.Require != nil {
			tt.Require = &tomlRequire{Level: t.Require.Level}
			if t.Require.HasLabels {
				tt.Require.HasLabels = true
				tt.Require.Labels = t.Require.Labels
			}
		}
		for _, c := range t.Choices {
			tt.Choices = append(tt.Choices, tomlChoice(c))
		}
		for _, sc := range t.Scales {
			tt.Scales = append(tt.Scales, tomlScale(sc))
		}
		tp.Types = append(tp.Types, tt)
	}
	if p.Training != nil {
		tt := &tomlTraining{Type: p.Training.TypeName}
		for _, d := range p.Training.Dialogues {
			tt.Dialogues = append(tt.Dialogues, tomlTrainingDialog{Key: d.Key, DialogueID: d.DialogueID,
				PassCriteria: d.PassCriteria, Remaining: d.Remaining, BotPersona: string(d.BotPersona), Turns: turnsToTOML(d.Turns)})
		}
		tp.Training = tt
	}
	var buf bytes.Buffer
	buf.WriteString("# Agentdesk evaluation project\n")
	enc := toml.NewEncoder(&buf)
	enc.SetIndentTables(true)
	if err := enc.Encode(tp); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// UnmarshalProject decodes a project from the app's TOML format and validates it. file names
// the file in errors.
func UnmarshalProject(data []byte, file string) (*Project, error) {
	var tp tomlProject
	if err := decodeTOML(data, file, &tp); err != nil {
		return nil, err
	}
	if tp.Format > ProjectFormat {
		return nil, &FileError{File: file, Err: fmt.Errorf("project format %d is newer than this app understands (%d)", tp.Format, ProjectFormat)}
	}
	fail := func(err error) (*Project, error) { return nil, &FileError{File: file, Err: err} }
	ts := tp.Settings
	grading, err := ParseGradingMode(ts.Grading)
	if err != nil {
		return fail(err)
	}
	p := &Project{Name: tp.Name, Units: tp.Units, Bots: tp.Bots,
		Settings: Settings{TaskName: ts.TaskName, TaskTitle: ts.TaskTitle, TaskDescription: ts.TaskDescription,
			CompletionCode: ts.CompletionCode, CompletionURL: ts.CompletionURL, ScreenOutCode: ts.ScreenOutCode, ScreenOutURL: ts.ScreenOutURL, MaxEntrants: ts.MaxEntrants,
			ExternalAnnotations: ts.ExternalAnnotations, CollectDialogue: ts.CollectDialogue, DefaultUnits: ts.DefaultUnits,
			AnnotationDurationSeconds: ts.AnnotationDurationSeconds, RandomSeed: ts.RandomSeed, Grading: grading,
			AllowedConcurrent: ts.AllowedConcurrent, MaximumUnitsPerWorker: ts.MaximumUnitsPerWorker,
			UseScreening: ts.UseScreening, PassedQualification: ts.PassedQualification, BlockQualification: ts.BlockQualification,
			MaxScreeningUnits: ts.MaxScreeningUnits, UseGolds: ts.UseGolds, GoldQualificationBase: ts.GoldQualificationBase,
			MinGolds: ts.MinGolds, MaxIncorrectGolds: ts.MaxIncorrectGolds, AllowedGoldMistakes: ts.AllowedGoldMistakes,
			NumBots: ts.NumBots, ConversationsNeeded: ts.ConversationsNeeded, OnlineAnnotation: ts.OnlineAnnotation,
			OfflineAnnotations: ts.OfflineAnnotations, NumTurns: ts.NumTurns, MaxResponseSeconds: ts.MaxResponseSeconds,
			IncludePersona: ts.IncludePersona, ConversationStartMode: ts.ConversationStartMode, Personas: ts.Personas}}
	if p.Units == nil {
		p.Units = map[string]int{}
	}
	if p.Bots == nil {
		p.Bots = map[string]BotSpec{}
	}
	for _, tt := range tp.Types {
		p.Types = append(p.Types, typeFromTOML(tt))
	}
	if p.Bundles, err = bundlesFromTOML(tp.Bundles, "bundle"); err != nil {
		return fail(err)
	}
	if p.Gold, err = bundlesFromTOML(tp.Gold, "gold bundle"); err != nil {
		return fail(err)
	}
	if tp.Training != nil {
		tr := &Training{TypeName: tp.Training.Type}
		for i, td := range tp.Training.Dialogues {
			where := fmt.Sprintf("training dialogue %d", i+1)
			turns, err := turnsFromTOML(td.Turns, where)
			if err != nil {
				return fail(err)
			}
			persona, err := personaFromTOML(td.BotPersona, where)
			if err != nil {
				return fail(err)
			}
			tr.Dialogues = append(tr.Dialogues, TrainingDialogue{Key: td.Key, DialogueID: td.DialogueID,
				AnnotationTasks: []string{tr.TypeName}, BotPersona: persona, PassCriteria: td.PassCriteria,
				Remaining: td.Remaining, Turns: turns})
		}
		p.Training = tr
	}
	if err := p.Validate(); err != nil {
		return fail(err)
	}
	return p, nil
}

// Validate checks a project's internal consistency: known display modes and index rules,
// unique type names, every datapoint's types defined, units for every bundle, a training of
// exactly three dialogues on a defined type, bots for every condition.
func (p *Project) Validate() error {
	for key, u := range map[string]string{"completion_url": p.Settings.CompletionURL, "screen_out_url": p.Settings.ScreenOutURL} {
		if u == "" {
			continue
		}
		parsed, err := url.Parse(u)
		if err != nil || (parsed.Scheme != "https" && parsed.Scheme != "http") || parsed.Host == "" {
			return fmt.Errorf("%s %q: not an http(s) address", key, u)
		}
	}
	if p.Settings.MaxEntrants < 0 {
		return fmt.Errorf("max_entrants %d: want 0 (as many as the study has units) or more", p.Settings.MaxEntrants)
	}
	if p.Settings.AnnotationDurationSeconds < 0 {
		return fmt.Errorf("page_seconds %d: want 0 (no limit) or more", p.Settings.AnnotationDurationSeconds)
	}
	names := map[string]bool{}
	for _, t := range p.Types {
		if t.Name == "" {
			return fmt.Errorf("an annotation type has no name")
		}
		if names[t.Name] {
			return fmt.Errorf("type %q is defined twice", t.Name)
		}
		names[t.Name] = true
		if !t.Display.Known() {
			return fmt.Errorf("type %q: unknown display %q", t.Name, t.Display)
		}
		if !t.Indices.Known() {
			return fmt.Errorf("type %q: unknown indices %q", t.Name, t.Indices)
		}
	}
	check := func(bs []Bundle, what string, needUnits bool) error {
		var units int64
		for bi, b := range bs {
			for di, dp := range b.Datapoints {
				for _, n := range dp.AnnotationTasks {
					if !names[n] {
						return fmt.Errorf("%s %d, datapoint %d (%s): type %q is not defined", what, bi+1, di+1, dp.DialogueID, n)
					}
				}
			}
			if needUnits {
				n, err := p.UnitsFor(b)
				if err != nil {
					return fmt.Errorf("%s %d: %w", what, bi+1, err)
				}
				units += int64(n)
			}
		}
		return limits.Units.Check("units of the project", units)
	}
	if err := check(p.Bundles, "bundle", true); err != nil {
		return err
	}
	if err := check(p.Gold, "gold bundle", false); err != nil {
		return err
	}
	if p.Training != nil {
		if len(p.Training.Dialogues) != 3 {
			return fmt.Errorf("the training has %d dialogues; it needs exactly three", len(p.Training.Dialogues))
		}
		if !names[p.Training.TypeName] {
			return fmt.Errorf("the training trains type %q, which is not defined", p.Training.TypeName)
		}
	}
	for name, spec := range p.Bots {
		if err := spec.Validate(); err != nil {
			return fmt.Errorf("bot %q: %w", name, err)
		}
	}
	if p.Settings.CollectDialogue {
		conds, err := ParseConditions(p.Settings.ConversationsNeeded)
		if err != nil {
			return err
		}
		for _, m := range conds.Models() {
			if _, ok := p.Bots[m]; !ok {
				return fmt.Errorf("condition model %q has no bot definition", m)
			}
		}
	}
	return nil
}

// LoadProject reads a project file in the app's TOML format.
func LoadProject(path string) (*Project, error) {
	data, err := limits.ReadFile(path, limits.ProjectFile)
	if err != nil {
		return nil, err
	}
	return UnmarshalProject(data, path)
}

// SaveProject writes a project file in the app's TOML format, atomically.
func SaveProject(path string, p *Project) error {
	data, err := MarshalProject(p)
	if err != nil {
		return err
	}
	return atomicfile.Write(path, data, 0o644)
}

// typeFromTOML converts a type of the TOML format.
func typeFromTOML(tt tomlType) *AnnotationType {
	t := &AnnotationType{Name: tt.Name, Title: tt.Title, Display: Display(tt.Display), Indices: Indices(tt.Indices),
		Question: tt.Question, Description: tt.Description, Comparisons: tt.Comparisons, LabelDetails: tt.LabelDetails,
		Flow: flowFromTOML(tt.Flow)}
	if tt.Require != nil {
		t.Require = &Requirement{Level: tt.Require.Level, HasLabels: tt.Require.HasLabels, Labels: tt.Require.Labels}
	}
	for _, c := range tt.Choices {
		t.Choices = append(t.Choices, Choice(c))
	}
	for _, sc := range tt.Scales {
		t.Scales = append(t.Scales, Scale(sc))
	}
	return t
}

// decodeTOML decodes a TOML document strictly (an unknown key is an error) into v; errors are
// *FileError naming the file and, where known, the line and column.
func decodeTOML(data []byte, file string, v any) error {
	dec := toml.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	err := dec.Decode(v)
	if err == nil {
		return nil
	}
	var sm *toml.StrictMissingError
	if errors.As(err, &sm) && len(sm.Errors) > 0 {
		row, col := sm.Errors[0].Position()
		return &FileError{File: file, Line: row, Column: col, Err: fmt.Errorf("unknown key %s", strings.Join(sm.Errors[0].Key(), "."))}
	}
	var de *toml.DecodeError
	if errors.As(err, &de) {
		row, col := de.Position()
		return &FileError{File: file, Line: row, Column: col, Err: errors.New(strings.TrimPrefix(de.Error(), "toml: "))}
	}
	return &FileError{File: file, Err: err}
}
