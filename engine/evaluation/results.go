package evaluation

import (
	"bytes"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/agentdesk/agentdesk/engine/atomicfile"
	"github.com/agentdesk/agentdesk/engine/limits"
)

// AttemptKind says what an attempt worked on.
type AttemptKind string

// Attempt kinds.
const (
	AttemptUnit       AttemptKind = "unit"
	AttemptScreening  AttemptKind = "screening"
	AttemptGold       AttemptKind = "gold"
	AttemptCollection AttemptKind = "collection"
)

// Snapshot is one saved answer state (each Next, training round, finished feedback).
type Snapshot struct {
	Time  time.Time
	State *AnswerState
	// Training additions, nil when absent: lastIncorrectTurns = [mistaken positions, 0,
	// correct/total] and the mistakes so far.
	LastIncorrect *DialogueGrade
	Mistakes      [][]int
	Completed     bool
}

// AttemptResult is one participant's attempt at one unit, as the store keeps it; the export
// functions turn it into the original's files.
type AttemptResult struct {
	// AttemptID is any identifier unique in its assignment (the original: "<key>-<db id>").
	AttemptID   string
	Participant string
	Kind        AttemptKind
	// Shown are the unit's datapoints as shown: shuffled order, shuffled annotation_tasks
	// (see UnitOrder.Apply). For screening, the training's dialogues.
	Shown     []Datapoint
	Training  *Training
	Snapshots []Snapshot
	// Final is the submitted answer state (nil while unfinished) and FinalTime its time.
	Final     *AnswerState
	FinalTime time.Time
	// Screening outcome.
	TrainingMistakes [][]int
	TrainingPassed   bool
	// Gold outcome (number of mistaken turns).
	GoldMistakes int
	// Chat is the collection session (collection attempts).
	Chat *Chat
	// TimedOut is set on an attempt that timed out at the desk and kept its answers (its
	// answer state has TimedOutKey); its answers are exported, finished or not.
	TimedOut bool
	// LastAnswers say when and on which page each answer was last given (the store's answer
	// log; nil for attempts imported from result files).
	LastAnswers []LastAnswer
}

// TimedOutKey is the answer state's key that marks a unit which timed out at the desk with
// its answers kept.
const TimedOutKey = "timed_out"

// IsTimedOut reports whether an answer state is marked timed out.
func (s *AnswerState) IsTimedOut() bool {
	return s != nil && string(s.Extra[TimedOutKey]) == "true"
}

// Apply returns the bundle's datapoints in the shown order with their shown type order.
func (o UnitOrder) Apply(b Bundle) []Datapoint {
	out := make([]Datapoint, 0, len(o.Datapoints))
	for i, di := range o.Datapoints {
		dp := b.Datapoints[di]
		if i < len(o.Tasks) {
			dp.AnnotationTasks = o.Tasks[i]
		}
		out = append(out, dp)
	}
	return out
}

// AssignmentResult is one assignment (a bundle) with its attempts.
type AssignmentResult struct {
	AssignmentID string
	Bundle       Bundle
	Units        int
	Attempts     []AttemptResult
}

// shownTurnsJSON converts turns to the inputs form: {"text", "agent_idx"} and for graded
// turns "answers" and "explanation".
func shownTurnsJSON(turns []Turn) json.RawMessage {
	list := make([]json.RawMessage, 0, len(turns))
	for _, t := range turns {
		o := orderedJSON{{"text", mustRaw(t.Text)}, {"agent_idx", mustRaw(t.AgentIdx())}}
		if t.Truth != nil {
			tb, _ := t.Truth.MarshalJSON()
			ex := json.RawMessage("null")
			if t.Explanation != nil {
				ex = mustRaw(*t.Explanation)
			}
			o = append(o, member{"answers", tb}, member{"explanation", ex})
		}
		list = append(list, mustRaw(o))
	}
	return mustRaw(list)
}

func shownDatapointJSON(dp Datapoint, names map[string]string) json.RawMessage {
	obj := orderedJSON{{"dialogue_id", mustRaw(dp.DialogueID)}}
	if dp.OriginWorkerID != "" {
		obj = append(obj, member{"origin_worker_id", mustRaw(rename(names, dp.OriginWorkerID))})
	}
	tasks := dp.AnnotationTasks
	if tasks == nil {
		tasks = []string{}
	}
	obj = append(obj, member{"group_id", mustRaw(dp.GroupID)}, member{"annotation_tasks", mustRaw(tasks)},
		member{"turns", shownTurnsJSON(dp.Turns)})
	if dp.Turns2 != nil {
		obj = append(obj, member{"turns2", shownTurnsJSON(dp.Turns2)})
	}
	if dp.BotPersona != nil {
		obj = append(obj, member{"bot_persona", dp.BotPersona})
	}
	return mustRaw(obj)
}

func newUUID() string {
	var b [16]byte
	rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:])
}

func epochSeconds(t time.Time) json.RawMessage {
	return json.RawMessage(strconv.FormatFloat(float64(t.UnixNano())/1e9, 'f', 6, 64))
}

// StateJSON builds the original's state.json of an attempt (spec §11): inputs as shown, and
// outputs.messages with a snapshot packet per Snapshot, then (for a finished attempt) the
// final submit packet and a status packet. Collection attempts also get
// outputs.final_chat_data (see FinalChatData). names maps participant names for export (nil
// keeps them; see Pseudonyms): the worker id, the answer state's workerId and the inputs'
// origin_worker_id; a name met for the first time is added to names.
func StateJSON(p *Project, a AttemptResult, names map[string]string) ([]byte, error) {
	var inputs []json.RawMessage
	if a.Kind == AttemptScreening && a.Training != nil {
		screen := orderedJSON{{"is_screen", json.RawMessage("true")}}
		for _, d := range a.Training.Dialogues {
			key := d.Key
			if key == "" {
				key = d.DialogueID
			}
			persona := d.BotPersona
			if persona == nil {
				persona = json.RawMessage("[]")
			}
			screen = append(screen, member{key, mustRaw(orderedJSON{
				{"dialogue_id", mustRaw(d.DialogueID)}, {"annotation_tasks", mustRaw(orNonNil(d.AnnotationTasks, a.Training.TypeName))},
				{"bot_persona", persona}, {"pass_criteria", mustRaw(d.PassCriteria)}, {"remaining", mustRaw(d.Remaining)},
				{"turns", shownTurnsJSON(d.Turns)}})})
		}
		inputs = append(inputs, mustRaw(screen))
	} else {
		for _, dp := range a.Shown {
			inputs = append(inputs, shownDatapointJSON(dp, names))
		}
	}
	if inputs == nil {
		inputs = []json.RawMessage{}
	}
	var msgs []json.RawMessage
	for _, s := range a.Snapshots {
		st := renamedState(s.State, names)
		data, err := json.Marshal(st)
		if err != nil {
			return nil, err
		}
		members, _ := objectMembers(data)
		d := orderedJSON{}
		for _, m := range members {
			switch {
			case m.Key == "message_id",
				m.Key == "lastIncorrectTurns" && s.LastIncorrect != nil,
				m.Key == "mistakes" && s.Mistakes != nil,
				m.Key == "completed" && s.Completed:
				// written below from the snapshot itself
			default:
				d = append(d, m)
			}
		}
		d = append(d, member{"message_id", mustRaw(newUUID())})
		if s.LastIncorrect != nil {
			score := s.LastIncorrect.Score()
			sc := json.RawMessage("null")
			if score == score { // not NaN
				sc = mustRaw(score)
			}
			d = append(d, member{"lastIncorrectTurns", mustRaw([]json.RawMessage{mustRaw(s.LastIncorrect.Mistakes), json.RawMessage("0"), sc})})
		}
		if s.Mistakes != nil {
			d = append(d, member{"mistakes", mustRaw(s.Mistakes)})
		}
		if s.Completed {
			d = append(d, member{"completed", json.RawMessage("true")})
		}
		msgs = append(msgs, mustRaw(orderedJSON{{"packet_type", mustRaw("agent_action")}, {"sender_id", mustRaw(a.AttemptID)},
			{"receiver_id", mustRaw("mephisto")}, {"data", mustRaw(d)}, {"timestamp", epochSeconds(s.Time)}}))
	}
	if a.Final != nil {
		st := renamedState(a.Final, names)
		ann, err := json.Marshal(st)
		if err != nil {
			return nil, err
		}
		fd := orderedJSON{{"annotations", mustRaw(string(ann))}, {"lastIndex", mustRaw(st.LastIndex)},
			{"lastAnnot", mustRaw(st.LastAnnot)}, {"completed", json.RawMessage("true")}}
		switch a.Kind {
		case AttemptGold:
			fd = append(fd, member{"gold_mistakes", mustRaw(a.GoldMistakes)})
		case AttemptScreening:
			m := a.TrainingMistakes
			if m == nil {
				m = [][]int{}
			}
			fd = append(fd, member{"mistakes", mustRaw(m)}, member{"success", mustRaw(a.TrainingPassed)})
		}
		msgs = append(msgs, mustRaw(orderedJSON{{"packet_type", mustRaw("agent_action")}, {"sender_id", mustRaw(a.AttemptID)},
			{"receiver_id", mustRaw("mephisto")},
			{"data", mustRaw(orderedJSON{{"task_data", mustRaw(orderedJSON{{"final_data", mustRaw(fd)}})},
				{"MEPHISTO_is_submit", json.RawMessage("true")}, {"files", json.RawMessage("[]")}})},
			{"timestamp", epochSeconds(a.FinalTime)}}))
		msgs = append(msgs, mustRaw(orderedJSON{{"packet_type", mustRaw("update_status")}, {"sender_id", mustRaw("mephisto")},
			{"receiver_id", mustRaw(a.AttemptID)}, {"data", mustRaw(orderedJSON{{"status", mustRaw("completed")}})},
			{"timestamp", epochSeconds(a.FinalTime)}}))
	}
	if msgs == nil {
		msgs = []json.RawMessage{}
	}
	outputs := orderedJSON{{"messages", mustRaw(msgs)}}
	if a.Kind == AttemptCollection && a.Chat != nil {
		fc, err := FinalChatData(p, a, names)
		if err != nil {
			return nil, err
		}
		outputs = append(outputs, member{"final_chat_data", fc})
	}
	var buf bytes.Buffer
	if err := json.Indent(&buf, mustRaw(orderedJSON{{"inputs", mustRaw(inputs)}, {"outputs", mustRaw(outputs)}}), "", " "); err != nil {
		return nil, err
	}
	buf.WriteByte('\n')
	return buf.Bytes(), nil
}

func orNonNil(tasks []string, def string) []string {
	if len(tasks) == 0 {
		return []string{def}
	}
	return tasks
}

// rename maps a participant name for export: unchanged when names is nil, else its pseudonym,
// extending names with the next worker-NN for a name met for the first time (so that no name,
// an origin_worker_id included, leaves the app unpseudonymised).
func rename(names map[string]string, who string) string {
	if names == nil || who == "" {
		return who
	}
	if n, ok := names[who]; ok {
		return n
	}
	n := fmt.Sprintf("worker-%02d", len(names)+1)
	names[who] = n
	return n
}

func renamedState(s *AnswerState, names map[string]string) *AnswerState {
	if s == nil {
		return NewAnswerState("")
	}
	if names == nil || s.WorkerID == "" {
		return s
	}
	c := *s
	c.WorkerID = rename(names, s.WorkerID)
	return &c
}

// FinalChatData builds outputs.final_chat_data of a collection attempt (spec §13.5), keyed by
// model as the original (a condition using one model twice therefore merges both
// conversations there, quirk 12; the app's own store keeps them by position).
func FinalChatData(p *Project, a AttemptResult, names map[string]string) (json.RawMessage, error) {
	c := a.Chat
	dialog := orderedJSON{}
	index := map[string]int{}
	var models []string
	for _, conv := range c.Conversations {
		var msgs []json.RawMessage
		for _, m := range conv.Messages {
			o := orderedJSON{{"text", mustRaw(m.Text)}, {"agent_idx", mustRaw(m.AgentIdx)}}
			if m.FakeStart {
				o = append(o, member{"fake_start", json.RawMessage("true")})
			}
			id := "You"
			if m.AgentIdx == 1 {
				id = "Partner"
			}
			o = append(o, member{"id", mustRaw(id)}, member{"botmodel", mustRaw(conv.Model)})
			msgs = append(msgs, mustRaw(o))
		}
		if i, ok := index[conv.Model]; ok {
			var prev []json.RawMessage
			json.Unmarshal(dialog[i].Value, &prev)
			dialog[i].Value = mustRaw(append(prev, msgs...))
		} else {
			index[conv.Model] = len(dialog)
			if msgs == nil {
				msgs = []json.RawMessage{}
			}
			dialog = append(dialog, member{conv.Model, mustRaw(msgs)})
		}
		models = append(models, conv.Model)
	}
	types, err := MarshalTypeFile(p.Types)
	if err != nil {
		return nil, err
	}
	var compactTypes bytes.Buffer
	json.Compact(&compactTypes, types)
	annotations := json.RawMessage("{}")
	if a.Final != nil {
		b, err := json.Marshal(renamedState(a.Final, names))
		if err != nil {
			return nil, err
		}
		annotations = b
	}
	// the original's "personas": the session's persona sentences (one context per session,
	// drawn whenever include_persona was on, whichever bots observed it), else null
	var personas json.RawMessage = json.RawMessage("null")
	if c.IncludePersona && len(c.Persona) > 0 {
		personas = mustRaw(c.Persona)
	}
	modelOpt := orderedJSON{}
	for _, m := range models {
		modelOpt = append(modelOpt, member{m, mustRaw(p.Bots[m].Options)})
	}
	return mustRaw(orderedJSON{
		{"dialog", mustRaw(dialog)},
		{"chatModels", mustRaw(models)},
		{"chatDone", mustRaw(c.Done())},
		{"annotations", annotations},
		{"workers", mustRaw([]string{rename(names, a.Participant)})},
		{"bad_workers", json.RawMessage("[]")},
		{"acceptability_violations", json.RawMessage("[null]")},
		{"hit_ids", mustRaw([]string{p.Settings.TaskName})},
		{"assignment_ids", mustRaw([]string{a.AttemptID})},
		{"task_description", mustRaw(orderedJSON{{"annotations_config", mustRaw(compactTypes.String())},
			{"model_nickname", mustRaw(c.Condition.Key)}, {"model_file", mustRaw("")}, {"model_opt", mustRaw(modelOpt)}})},
		{"personas", personas},
		{"context_dataset", json.RawMessage("null")},
		{"person1_seed_utterance", json.RawMessage("null")},
		{"person2_seed_utterance", json.RawMessage("null")},
		{"additional_context", json.RawMessage("null")},
	}), nil
}

// WriteAssignment writes one assignment in the original's result layout under dir:
// runs/NO_PROJECT/<runID>/<assignment id>/assign_data.json ({"shared": [datapoints],
// "unit_data": [{}, …]}) and <assignment id>/<attempt id>/state.json per attempt. Files are
// written atomically. names optionally pseudonymises participants, origin_worker_id included
// (see Pseudonyms; names met for the first time are added to it).
func WriteAssignment(dir, runID string, p *Project, a AssignmentResult, names map[string]string) error {
	base := filepath.Join(dir, "runs", "NO_PROJECT", safeName(runID), safeName(a.AssignmentID))
	shared := make([]json.RawMessage, 0, len(a.Bundle.Datapoints))
	for _, dp := range a.Bundle.Datapoints {
		dp.OriginWorkerID = rename(names, dp.OriginWorkerID)
		shared = append(shared, datapointJSON(dp))
	}
	units := make([]json.RawMessage, a.Units)
	for i := range units {
		units[i] = json.RawMessage("{}")
	}
	var buf bytes.Buffer
	json.Indent(&buf, mustRaw(orderedJSON{{"shared", mustRaw(shared)}, {"unit_data", mustRaw(units)}}), "", " ")
	buf.WriteByte('\n')
	if err := atomicfile.Write(filepath.Join(base, "assign_data.json"), buf.Bytes(), 0o644); err != nil {
		return err
	}
	for _, at := range a.Attempts {
		data, err := StateJSON(p, at, names)
		if err != nil {
			return fmt.Errorf("attempt %s: %w", at.AttemptID, err)
		}
		if err := atomicfile.Write(filepath.Join(base, safeName(at.AttemptID), "state.json"), data, 0o644); err != nil {
			return err
		}
	}
	return nil
}

func safeName(s string) string {
	s = fileStem(s)
	if s == "" {
		return "_"
	}
	return s
}

// Pseudonyms maps participant names to worker-01, worker-02, … in order of first appearance
// (spec: participant names are personal data).
func Pseudonyms(participants []string) map[string]string {
	out := map[string]string{}
	for _, p := range participants {
		if _, ok := out[p]; !ok {
			out[p] = fmt.Sprintf("worker-%02d", len(out)+1)
		}
	}
	return out
}

// StateFile is a parsed state.json.
type StateFile struct {
	// Inputs are the datapoints as shown (raw; screening inputs carry is_screen).
	Inputs []json.RawMessage
	// Snapshots are the answer states of the snapshot packets in order.
	Snapshots []*AnswerState
	// Final is the submitted answer state, nil for an unfinished attempt.
	Final *AnswerState
	// Mistakes, Success and GoldMistakes come from the final packet when present.
	Mistakes     [][]int
	Success      *bool
	GoldMistakes *int
}

// ReadStateFile parses a state.json in the original's shape (as written by the original or by
// StateJSON). file names the file in errors.
func ReadStateFile(data []byte, file string) (*StateFile, error) {
	var top struct {
		Inputs  []json.RawMessage `json:"inputs"`
		Outputs struct {
			Messages []struct {
				PacketType string          `json:"packet_type"`
				Data       json.RawMessage `json:"data"`
			} `json:"messages"`
		} `json:"outputs"`
	}
	if err := json.Unmarshal(data, &top); err != nil {
		return nil, jsonFileError(file, data, 1, err)
	}
	sf := &StateFile{Inputs: top.Inputs}
	for i, m := range top.Outputs.Messages {
		if m.PacketType != "agent_action" || isNull(m.Data) {
			continue
		}
		var d struct {
			TaskData *struct {
				FinalData *struct {
					Annotations  *string `json:"annotations"`
					Mistakes     [][]int `json:"mistakes"`
					Success      *bool   `json:"success"`
					GoldMistakes *int    `json:"gold_mistakes"`
				} `json:"final_data"`
			} `json:"task_data"`
		}
		if err := json.Unmarshal(m.Data, &d); err != nil {
			return nil, &FileError{File: file, Err: fmt.Errorf("message %d: %v", i, err)}
		}
		if d.TaskData != nil && d.TaskData.FinalData != nil {
			fd := d.TaskData.FinalData
			if fd.Annotations != nil {
				var st AnswerState
				if err := json.Unmarshal([]byte(*fd.Annotations), &st); err != nil {
					return nil, &FileError{File: file, Err: fmt.Errorf("message %d: final annotations: %v", i, err)}
				}
				sf.Final = &st
			}
			sf.Mistakes, sf.Success, sf.GoldMistakes = fd.Mistakes, fd.Success, fd.GoldMistakes
			continue
		}
		var st AnswerState
		if err := json.Unmarshal(m.Data, &st); err != nil {
			return nil, &FileError{File: file, Err: fmt.Errorf("message %d: %v", i, err)}
		}
		sf.Snapshots = append(sf.Snapshots, &st)
	}
	return sf, nil
}

// AnswerRow is one answer in flat form, for CSV and JSONL exports.
type AnswerRow struct {
	Participant string `json:"participant"`
	Attempt     string `json:"attempt"`
	Kind        string `json:"kind"`
	// Dialogue is the shown position i; DialogueID its id.
	Dialogue   int    `json:"dialogue"`
	DialogueID string `json:"dialogue_id"`
	// Section is data (per turn), likert, comparative or ratings.
	Section string `json:"section"`
	// Turn is the turn position for per-turn answers, -1 otherwise; AgentIdx likewise.
	Turn     int    `json:"turn"`
	AgentIdx int    `json:"agent_idx"`
	Key      string `json:"key"`
	// Value is the answer; multiselect lists are joined with "|" in CSV and kept as a list
	// in JSONL (Values).
	Value  string   `json:"value"`
	Values []string `json:"values,omitempty"`
	// TimedOut marks answers of an attempt that timed out at the desk (kept, maybe unfinished).
	TimedOut bool `json:"timed_out,omitempty"`
	// The times (RFC 3339, UTC, to the millisecond; empty where the store has nothing to say):
	// AnsweredAt is when the answer was last given (the answer log); PageSubmittedAt when the
	// page it was given on was last left with Next or Submit, and SecondsOnPage how long that
	// page was on show in all (the answer state's page durations); SubmittedAt when the attempt
	// was submitted.
	AnsweredAt      string   `json:"answered_at,omitempty"`
	PageSubmittedAt string   `json:"page_submitted_at,omitempty"`
	SecondsOnPage   *float64 `json:"seconds_on_page,omitempty"`
	SubmittedAt     string   `json:"submitted_at,omitempty"`
}

// LastAnswer is where and when an answer was last given (the newest row of the answer log
// for its place): the page (shown dialogue and type positions), the turn (-1 for the
// dialogue) and the answer's key.
type LastAnswer struct {
	Dialogue, TypePos, Turn int
	Key                     string
	At                      time.Time
}

// exportTime formats a time for the exports: RFC 3339 in UTC with milliseconds, "" for zero.
func exportTime(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format("2006-01-02T15:04:05.000Z07:00")
}

// pageTimes are a page's last end and total time on show, from its duration intervals.
func pageTimes(st *AnswerState, i, a int, onboarding bool) (end time.Time, seconds *float64) {
	var last, total int64
	closed := false
	for _, sp := range st.Durations[DurationKey(i, a, onboarding)] {
		if len(sp) >= 2 && sp[1] >= sp[0] {
			closed = true
			last = max(last, sp[1])
			total += sp[1] - sp[0]
		}
	}
	if !closed {
		return time.Time{}, nil
	}
	s := float64(total) / 1000
	return time.UnixMilli(last), &s
}

// onlyPage is the type position of dialogue i's only page in the durations, -1 when it had
// none or several.
func onlyPage(st *AnswerState, i int, onboarding bool) int {
	prefix := strings.TrimSuffix(DurationKey(i, 0, onboarding), "0")
	found := -1
	for k := range st.Durations {
		rest, ok := strings.CutPrefix(k, prefix)
		if !ok {
			continue
		}
		a, err := strconv.Atoi(rest)
		if err != nil || a < 0 {
			continue
		}
		if found >= 0 && found != a {
			return -1
		}
		found = a
	}
	return found
}

// AnswerRows flattens the final answers of attempts into rows, sorted by attempt, dialogue,
// section, turn and key; an attempt that timed out at the desk gives the answers it kept,
// marked timed_out. names optionally pseudonymises participants.
func AnswerRows(attempts []AttemptResult, names map[string]string) []AnswerRow {
	var rows []AnswerRow
	for _, a := range attempts {
		final := a.Final
		if final == nil && a.TimedOut && len(a.Snapshots) > 0 {
			final = a.Snapshots[len(a.Snapshots)-1].State
		}
		if final == nil {
			continue
		}
		last := map[answerPlace]LastAnswer{}
		for _, la := range a.LastAnswers {
			pl := answerPlace{la.Dialogue, la.Turn, la.Key}
			if prev, ok := last[pl]; !ok || !la.At.Before(prev.At) {
				last[pl] = la
			}
		}
		idx := make([]int, 0, len(final.Dialogues))
		for i := range final.Dialogues {
			idx = append(idx, i)
		}
		sort.Ints(idx)
		for _, i := range idx {
			d := final.Dialogues[i]
			id := ""
			if i < len(a.Shown) {
				id = a.Shown[i].DialogueID
			} else if a.Training != nil && i < len(a.Training.Dialogues) {
				id = a.Training.Dialogues[i].DialogueID
			}
			base := AnswerRow{Participant: rename(names, a.Participant), Attempt: a.AttemptID, Kind: string(a.Kind), Dialogue: i, DialogueID: id, Turn: -1, AgentIdx: -1, TimedOut: a.TimedOut}
			if a.Final != nil {
				base.SubmittedAt = exportTime(a.FinalTime)
			}
			pos := make([]string, 0, len(d.Data))
			for k := range d.Data {
				pos = append(pos, k)
			}
			sort.Slice(pos, func(x, y int) bool { return atoiOr(pos[x]) < atoiOr(pos[y]) })
			for _, k := range pos {
				entry := d.Data[k]
				for _, key := range entry.AnswerKeys() {
					r := base
					r.Section, r.Turn, r.Key = "data", atoiOr(k), key
					if ai, ok := entry[KeyAgentIdx].(int); ok {
						r.AgentIdx = ai
					}
					switch v := entry[key].(type) {
					case string:
						r.Value = v
					case []string:
						r.Values = v
						r.Value = strings.Join(v, "|")
					default:
						r.Value = strings.TrimSpace(string(mustRaw(v)))
					}
					rows = append(rows, a.timed(final, last, r))
				}
			}
			for _, sec := range []struct {
				name string
				m    map[string]string
			}{{"data", d.DialogueFlow}, {"likert", d.Likert}, {"comparative", d.Comparative}, {"ratings", d.Ratings}} {
				keys := make([]string, 0, len(sec.m))
				for k := range sec.m {
					keys = append(keys, k)
				}
				sort.Strings(keys)
				for _, k := range keys {
					r := base
					r.Section, r.Key, r.Value = sec.name, k, sec.m[k]
					rows = append(rows, a.timed(final, last, r))
				}
			}
		}
	}
	return rows
}

// answerPlace is where an answer is given: dialogue, turn (-1: the dialogue) and key.
type answerPlace struct {
	dialogue, turn int
	key            string
}

// timed gives a row its answer and page times: the answer log says when it was given and on
// which page; without a log entry (imported attempts) the page is known when the dialogue had
// only one.
func (a AttemptResult) timed(st *AnswerState, last map[answerPlace]LastAnswer, r AnswerRow) AnswerRow {
	onboarding := a.Kind == AttemptScreening
	page := -1
	if la, ok := last[answerPlace{r.Dialogue, r.Turn, r.Key}]; ok {
		r.AnsweredAt, page = exportTime(la.At), la.TypePos
	} else {
		page = onlyPage(st, r.Dialogue, onboarding)
	}
	if page >= 0 {
		end, secs := pageTimes(st, r.Dialogue, page, onboarding)
		r.PageSubmittedAt, r.SecondsOnPage = exportTime(end), secs
	}
	return r
}

func atoiOr(s string) int {
	n, err := strconv.Atoi(s)
	if err != nil {
		return -1
	}
	return n
}

// WriteCSV writes rows as CSV with a header line.
func WriteCSV(w io.Writer, rows []AnswerRow) error {
	cw := NewSafeCSVWriter(w)
	cw.Write([]string{"participant", "attempt", "kind", "dialogue", "dialogue_id", "section", "turn", "agent_idx", "key", "value",
		"answered_at", "page_submitted_at", "seconds_on_page", "submitted_at"})
	num := func(n int) string {
		if n < 0 {
			return ""
		}
		return strconv.Itoa(n)
	}
	for _, r := range rows {
		secs := ""
		if r.SecondsOnPage != nil {
			secs = strconv.FormatFloat(*r.SecondsOnPage, 'f', 3, 64)
		}
		cw.Write([]string{r.Participant, r.Attempt, r.Kind, strconv.Itoa(r.Dialogue), r.DialogueID, r.Section, num(r.Turn), num(r.AgentIdx), r.Key, r.Value,
			r.AnsweredAt, r.PageSubmittedAt, secs, r.SubmittedAt})
	}
	cw.Flush()
	return cw.Error()
}

// WriteJSONL writes rows as JSON lines.
func WriteJSONL(w io.Writer, rows []AnswerRow) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	for _, r := range rows {
		if err := enc.Encode(r); err != nil {
			return err
		}
	}
	return nil
}

// RunAssignment is one assignment folder of a run read back by ReadRun.
type RunAssignment struct {
	AssignmentID string
	// Shared are the assignment's datapoints (assign_data.json "shared"), parsed when they
	// have the datapoint shape; SharedRaw keeps them as they were.
	Shared    []Datapoint
	SharedRaw []json.RawMessage
	// Units is the number of unit_data entries.
	Units    int
	Attempts []RunAttempt
}

// RunAttempt is one attempt folder with its parsed state.json.
type RunAttempt struct {
	AttemptID string
	State     *StateFile
}

// ReadRun reads a run folder of the original's result layout (runs/NO_PROJECT/<run id>, as the
// original or WriteAssignment wrote it): every assignment folder with its assign_data.json and
// every attempt's state.json, sorted by name. A malformed file fails the whole read with its
// path and place.
func ReadRun(dir string) ([]RunAssignment, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var out []RunAssignment
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		adir := filepath.Join(dir, e.Name())
		path := filepath.Join(adir, "assign_data.json")
		data, err := limits.ReadFile(path, limits.ProjectFile)
		if err != nil {
			if os.IsNotExist(err) {
				continue // not an assignment folder
			}
			return nil, err
		}
		var ad struct {
			Shared   []json.RawMessage `json:"shared"`
			UnitData []json.RawMessage `json:"unit_data"`
		}
		if err := json.Unmarshal(data, &ad); err != nil {
			return nil, jsonFileError(path, data, 1, err)
		}
		ra := RunAssignment{AssignmentID: e.Name(), SharedRaw: ad.Shared, Units: len(ad.UnitData)}
		ignored := map[string]int{}
		for _, raw := range ad.Shared {
			dp, err := parseDatapoint(raw, ignored, false)
			if err != nil {
				ra.Shared = nil
				break
			}
			ra.Shared = append(ra.Shared, dp)
		}
		attempts, err := os.ReadDir(adir)
		if err != nil {
			return nil, err
		}
		for _, at := range attempts {
			if !at.IsDir() {
				continue
			}
			sp := filepath.Join(adir, at.Name(), "state.json")
			sd, err := limits.ReadFile(sp, limits.ProjectFile)
			if err != nil {
				if os.IsNotExist(err) {
					continue
				}
				return nil, err
			}
			sf, err := ReadStateFile(sd, sp)
			if err != nil {
				return nil, err
			}
			ra.Attempts = append(ra.Attempts, RunAttempt{AttemptID: at.Name(), State: sf})
		}
		out = append(out, ra)
	}
	return out, nil
}
