// Package odyssey reads, converts, writes and scores GUI Odyssey datasets: cross-app Android
// navigation episodes (one JSON annotation per episode, one screenshot per step), their
// official train/test split files, and model predictions in the official evaluator's format.
//
// Scoring reproduces the official evaluation exactly (verdicts, AMS, SR and every printed
// string); see Evaluate. Reading a dataset folder is OpenDataset followed by Dataset.Episodes
// and Dataset.Splits; the store imports what they yield. The package knows no storage or UI.
package odyssey

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/agentdesk/agentdesk/engine/episode"
)

// Schema versions of the annotation files.
const (
	SchemaV1 = "v1" // 2024: no per-step semantic fields, no sam2_bbox
	SchemaV2 = "v2" // 2025: description, intention, context, low_level_instruction, sam2_bbox
)

// Annotation is one episode as its annotation file holds it.
type Annotation struct {
	EpisodeID  string
	Device     DeviceInfo
	Task       TaskInfo
	StepLength int
	Steps      []StepAnnotation
	// DeviceRaw and TaskRaw are the device_info and task_info objects verbatim (compact);
	// Other holds any further top-level fields, in file order, so that nothing is lost.
	DeviceRaw, TaskRaw json.RawMessage
	Other              []Field
	// File is the file the episode was read from and Offset where its object starts.
	File   string
	Offset int64
	// Warnings are problems that did not stop the import (unofficial action names, a step
	// number out of order, step_length disagreeing with the steps, ...).
	Warnings []string
	// stream is set for an episode read with its steps left in the file (Steps is nil): see
	// EpisodeOptions.StreamSteps and StepBatches.
	stream *stepStream
}

// stepStream is what an episode read streamed keeps of its steps: where its step lists are in
// the file's bytes, and what the episode as a whole needs of them, gathered while they were
// checked.
type stepStream struct {
	file     string
	data     []byte
	lists    []int // offsets of the steps lists ('['), in file order
	n        int
	v2       bool
	kinds    []string // action kinds in order of first appearance
	seen     map[string]bool
	warnings []string // the per-step warnings finish adds, in step order
}

// note takes in step i of the episode (its position among all steps).
func (ss *stepStream) note(i int, st *StepAnnotation) {
	ss.n++
	if st.Sam2Bbox != nil || st.LowLevelInstruction != "" {
		ss.v2 = true
	}
	if k := st.Kind(); k != "" && !ss.seen[k] {
		ss.seen[k] = true
		ss.kinds = append(ss.kinds, k)
	}
	if w := st.unofficialWarning(); w != "" {
		ss.warnings = append(ss.warnings, fmt.Sprintf("step %d: %s", i, w))
	}
}

// NumSteps is the number of steps of the episode (len(Steps) unless it was read streamed).
func (a *Annotation) NumSteps() int {
	if a.stream != nil {
		return a.stream.n
	}
	return len(a.Steps)
}

// Streamed tells whether the episode was read without its steps (Steps is nil); StepBatches
// reads them.
func (a *Annotation) Streamed() bool { return a.stream != nil }

// StepBatches calls fn with the episode's steps in order, prepared (see Prepare), at most n at
// a time; first is the position of the batch's first step. For an episode read whole that is
// one call with Steps. For one read streamed the steps are decoded again from the file's bytes,
// a batch at a time, into a slice fn must not keep: memory stays that of one batch, whatever
// the number of steps.
func (a *Annotation) StepBatches(n int, fn func(first int, steps []StepAnnotation) error) error {
	if a.stream == nil {
		if len(a.Steps) == 0 {
			return nil
		}
		a.Prepare()
		return fn(0, a.Steps)
	}
	ss := a.stream
	n = max(n, 1)
	batch := make([]StepAnnotation, 0, min(n, ss.n))
	first := 0
	send := func() error {
		for i := range batch {
			batch[i].prepare()
		}
		err := fn(first, batch)
		first += len(batch)
		clear(batch)
		batch = batch[:0]
		return err
	}
	for _, at := range ss.lists {
		s := &scanner{file: ss.file, data: ss.data, i: at}
		if err := s.expect('[', "", "a list of steps"); err != nil {
			return err
		}
		if s.peek() == ']' {
			continue
		}
		for {
			span, off, err := s.value("")
			if err != nil {
				return err
			}
			var st StepAnnotation
			if err := s.step(span, off, &st, ""); err != nil {
				return err
			}
			batch = append(batch, st)
			if len(batch) == n {
				if err := send(); err != nil {
					return err
				}
			}
			if c := s.peek(); c != ',' {
				break
			}
			s.i++
		}
	}
	if len(batch) > 0 {
		return send()
	}
	return nil
}

// Field is a JSON member kept verbatim.
type Field struct {
	Key   string
	Value json.RawMessage
}

// DeviceInfo is the episode's device_info.
type DeviceInfo struct {
	Product        flexString `json:"product"`
	ReleaseVersion flexString `json:"release_version"`
	SDKVersion     flexString `json:"sdk_version"`
	W              flexInt    `json:"w"`
	H              flexInt    `json:"h"`
	DeviceName     flexString `json:"device_name"`
}

// TaskInfo is the episode's task_info.
type TaskInfo struct {
	Category    string   `json:"category"`
	App         []string `json:"app"`
	MetaTask    string   `json:"meta_task"`
	Task        string   `json:"task"`
	Instruction string   `json:"instruction"`
}

// StepAnnotation is one step of an annotation.
type StepAnnotation struct {
	Step       int             `json:"step"`
	Screenshot string          `json:"screenshot"`
	Action     string          `json:"action"`
	Info       json.RawMessage `json:"info"`
	PS         flexString      `json:"ps"`
	// v2 fields read here (description, intention and context stay in Raw).
	LowLevelInstruction string          `json:"low_level_instruction"`
	Sam2Bbox            json.RawMessage `json:"sam2_bbox"`
	// Raw is the step object verbatim (compact).
	Raw json.RawMessage `json:"-"`
	// Offset is where the step's object starts in the file.
	Offset int64 `json:"-"`

	// Derived once (Annotation.Prepare), so that the store's writer only writes.
	info                  any // the decoded info, json.Number numbers
	infoDecoded, prepared bool
	gt                    string
	gtErr                 error
	actionJSON, extraJSON []byte
	actionText, extraText string // the same as strings, converted on the reading goroutines
}

// flexString accepts a string, a number (kept as written) or null.
type flexString string

func (f *flexString) UnmarshalJSON(b []byte) error {
	switch {
	case len(b) > 0 && b[0] == '"':
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
		*f = flexString(s)
	case string(b) == "null":
		*f = ""
	case len(b) > 0 && (b[0] == '-' || b[0] >= '0' && b[0] <= '9'):
		*f = flexString(b)
	default:
		return &json.UnmarshalTypeError{Value: jsonKind(b), Type: stringType}
	}
	return nil
}

// flexInt accepts an integer, an integral float or a numeric string.
type flexInt int

func (f *flexInt) UnmarshalJSON(b []byte) error {
	s := string(b)
	if len(b) > 0 && b[0] == '"' {
		json.Unmarshal(b, &s)
	}
	if s == "null" || s == "" {
		*f = 0
		return nil
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || v != float64(int(v)) {
		return &json.UnmarshalTypeError{Value: jsonKind(b), Type: intType}
	}
	*f = flexInt(v)
	return nil
}

// Schema is the annotation schema of the episode: v2 when any step has v2 fields.
func (a *Annotation) Schema() string {
	if a.stream != nil && a.stream.v2 {
		return SchemaV2
	}
	for _, s := range a.Steps {
		if s.Sam2Bbox != nil || s.LowLevelInstruction != "" {
			return SchemaV2
		}
	}
	return SchemaV1
}

// ParseAnnotation reads one episode file. Errors are *PosError values naming the file, the line
// and column, and the episode and step.
func ParseAnnotation(file string, data []byte) (*Annotation, error) {
	return parseAnnotation(file, data, 0)
}

// parseAnnotation reads one episode file; an episode of more than streamAbove steps (when it is
// positive) is read streamed.
func parseAnnotation(file string, data []byte, streamAbove int) (*Annotation, error) {
	s := &scanner{file: file, data: data, i: bomLen(data), streamAbove: streamAbove}
	a, err := s.episode()
	if err != nil {
		return nil, err
	}
	if err := s.end(); err != nil {
		return nil, err
	}
	return a, nil
}

func bomLen(data []byte) int {
	if bytes.HasPrefix(data, []byte("\xef\xbb\xbf")) {
		return 3
	}
	return 0
}

// ParseAnnotationList reads the one-file variant (all_anno.json, all_annot.json): a JSON list
// of episode objects, calling fn for each in order.
func ParseAnnotationList(file string, data []byte, fn func(*Annotation) error) error {
	s := &scanner{file: file, data: data, i: bomLen(data)}
	if err := s.expect('[', "", "a list of episodes"); err != nil {
		return err
	}
	if s.peek() == ']' {
		s.i++
		return s.end()
	}
	for {
		a, err := s.episode()
		if err != nil {
			return err
		}
		if err := fn(a); err != nil {
			return err
		}
		switch c := s.peek(); c {
		case ',':
			s.i++
		case ']':
			s.i++
			return s.end()
		case 0:
			return s.errAt(s.i, "episode "+a.EpisodeID, "unexpected end of file, expected ',' or ']'")
		default:
			return s.errAt(s.i, "episode "+a.EpisodeID, "expected ',' or ']' after the episode, found %s", describeByte(c))
		}
	}
}

// finish checks the episode as a whole and notes what is unusual.
func (a *Annotation) finish() {
	n := a.NumSteps()
	if a.StepLength < 0 {
		a.Warnings = append(a.Warnings, "no step_length; the number of steps is used")
		a.StepLength = n
	} else if a.StepLength != n {
		a.Warnings = append(a.Warnings, fmt.Sprintf("step_length is %d but the episode has %d steps", a.StepLength, n))
	}
	if a.stream != nil {
		a.Warnings = append(a.Warnings, a.stream.warnings...)
		a.stream.warnings, a.stream.seen = nil, nil
		return
	}
	for i := range a.Steps {
		if w := a.Steps[i].unofficialWarning(); w != "" {
			a.Warnings = append(a.Warnings, fmt.Sprintf("step %d: %s", i, w))
		}
	}
}

func compact(r json.RawMessage) json.RawMessage {
	var b bytes.Buffer
	b.Grow(len(r))
	if err := json.Compact(&b, r); err != nil {
		return append(json.RawMessage(nil), r...)
	}
	return b.Bytes()
}

func jsonKind(b []byte) string {
	if len(b) == 0 {
		return "nothing"
	}
	switch b[0] {
	case '"':
		return "string"
	case '{':
		return "object"
	case '[':
		return "array"
	case 't', 'f':
		return "bool"
	case 'n':
		return "null"
	}
	return "number"
}

// Unofficial action names the documentation mentions: imported under the official name they
// stand for, scored as the converter does (an error).
var unofficialActions = map[string]string{
	"TYPE":       "TEXT",
	"IMPOSSIBLE": "INCOMPLETE",
	"HOME":       "CLICK KEY_HOME",
	"BACK":       "CLICK KEY_BACK",
	"KEY_RECENT": "CLICK KEY_APPSELECT",
}

func (s *StepAnnotation) unofficialWarning() string {
	if official, ok := unofficialActions[s.Action]; ok {
		return fmt.Sprintf("action %s is not an official action name; shown as %s, and the official converter rejects it", s.Action, official)
	}
	switch s.Action {
	case "CLICK", "LONG_PRESS", "SCROLL", "TEXT", "COMPLETE", "INCOMPLETE":
	default:
		return fmt.Sprintf("unknown action %q", s.Action)
	}
	if (s.Action == "CLICK" || s.Action == "LONG_PRESS") && bytes.Equal(bytes.TrimSpace(s.Info), []byte(`"KEY_RECENT"`)) {
		return "KEY_RECENT is not an official key; shown as KEY_APPSELECT, and the official converter rejects it"
	}
	if s.isCoordinateClick() && s.Sam2Bbox != nil && isEmptyList(s.Sam2Bbox) {
		return "a coordinate click with an empty sam2_bbox can never be scored correct officially"
	}
	return ""
}

func (s *StepAnnotation) isCoordinateClick() bool {
	info := bytes.TrimSpace(s.Info)
	return (s.Action == "CLICK" || s.Action == "LONG_PRESS") && len(info) > 0 && info[0] == '['
}

func isEmptyList(r json.RawMessage) bool {
	return string(bytes.TrimSpace(r)) == "[]"
}

// GroundTruth is the official ground-truth command of the step, or the converter's error.
func (s *StepAnnotation) GroundTruth() (string, error) {
	if s.prepared {
		return s.gt, s.gtErr
	}
	if len(bytes.TrimSpace(s.Info)) > 0 && s.decodeInfo() == nil && string(bytes.TrimSpace(s.Info)) != "null" {
		return GroundTruth(s.Action, s.Info) // reports the JSON error
	}
	return groundTruthValue(s.Action, s.decodeInfo())
}

// Prepare computes, once, what storing the episode needs of each step: its ground truth,
// shared action and extra fields. Dataset.Episodes calls it on its worker goroutines.
func (a *Annotation) Prepare() {
	for i := range a.Steps {
		a.Steps[i].prepare()
	}
}

func (s *StepAnnotation) prepare() {
	if s.prepared {
		return
	}
	s.gt, s.gtErr = s.GroundTruth()
	s.actionJSON = encodeAction(s.SharedAction())
	s.extraJSON = s.ExtraJSON()
	s.actionText, s.extraText = string(s.actionJSON), string(s.extraJSON)
	s.prepared = true
}

// Stored returns the step's shared action and extra fields as the JSON texts the store keeps
// (ActionJSON and ExtraJSON), computed once by Prepare.
func (s *StepAnnotation) Stored() (action, extra string) {
	if s.prepared {
		return s.actionText, s.extraText
	}
	return string(s.ActionJSON()), string(s.ExtraJSON())
}

// ActionJSON is the step's shared action (SharedAction) as JSON.
func (s *StepAnnotation) ActionJSON() []byte {
	if s.prepared {
		return s.actionJSON
	}
	return encodeAction(s.SharedAction())
}

// encodeAction writes an action as json.Marshal does (the same bytes), without reflection:
// the import writes one per step.
func encodeAction(a episode.Action) []byte {
	b := make([]byte, 0, 64+len(a.Text)+len(a.Raw))
	b = append(b, `{"kind":`...)
	b = appendJSONString(b, a.Kind)
	if len(a.Points) > 0 {
		b = append(b, `,"points":[`...)
		for i, p := range a.Points {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, `{"x":`...)
			b = appendJSONFloat(b, p.X)
			b = append(b, `,"y":`...)
			b = appendJSONFloat(b, p.Y)
			b = append(b, '}')
		}
		b = append(b, ']')
	}
	if a.Text != "" {
		b = append(b, `,"text":`...)
		b = appendJSONString(b, a.Text)
	}
	if len(a.Raw) > 0 {
		b = append(b, `,"raw":`...)
		raw := compactJSON(a.Raw)
		if bytes.ContainsAny(raw, "<>&\u2028\u2029") { // encoding/json escapes these in raw messages too
			var esc bytes.Buffer
			json.HTMLEscape(&esc, raw)
			raw = esc.Bytes()
		}
		b = append(b, raw...)
	}
	return append(b, '}')
}

func appendJSONString(b []byte, s string) []byte {
	simple := true
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' || c >= 0x80 {
			simple = false
			break
		}
	}
	if simple {
		b = append(b, '"')
		b = append(b, s...)
		return append(b, '"')
	}
	q, _ := json.Marshal(s)
	return append(b, q...)
}

// appendJSONFloat formats as encoding/json does.
func appendJSONFloat(b []byte, f float64) []byte {
	abs := math.Abs(f)
	format := byte('f')
	if abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	b = strconv.AppendFloat(b, f, format, -1, 64)
	if format == 'e' {
		// clean up e-09 to e-9
		n := len(b)
		if n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	return b
}

// decodeInfo decodes the step's info with json.Number numbers (nil when absent or invalid).
func (s *StepAnnotation) decodeInfo() any {
	if s.infoDecoded {
		return s.info
	}
	s.info, s.infoDecoded = decodeJSONNumbers(s.Info), true
	return s.info
}

// decodeJSONNumbers decodes a JSON value keeping numbers as written. Infos are strings or
// lists of coordinate pairs; those shapes are read directly, anything else by encoding/json.
func decodeJSONNumbers(raw []byte) any {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return nil
	}
	if raw[0] == '"' {
		var s string
		if json.Unmarshal(raw, &s) != nil {
			return nil
		}
		return s
	}
	if raw[0] == '[' {
		if v, n, ok := numberLists(raw, 0); ok && n == len(raw) {
			return v
		}
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if dec.Decode(&v) != nil || dec.More() {
		return nil
	}
	return v
}

// numberLists reads a list whose items are numbers or such lists, starting at raw[i] == '['.
func numberLists(raw []byte, i int) ([]any, int, bool) {
	out := []any{}
	i++
	skip := func() {
		for i < len(raw) && (raw[i] == ' ' || raw[i] == '\n' || raw[i] == '\t' || raw[i] == '\r') {
			i++
		}
	}
	skip()
	if i < len(raw) && raw[i] == ']' {
		return out, i + 1, true
	}
	for i < len(raw) {
		skip()
		if i >= len(raw) {
			return nil, i, false
		}
		switch c := raw[i]; {
		case c == '[':
			v, n, ok := numberLists(raw, i)
			if !ok {
				return nil, i, false
			}
			out, i = append(out, v), n
		case c == '-' || c >= '0' && c <= '9':
			j := i
			for j < len(raw) && strings.IndexByte("+-.eE0123456789", raw[j]) >= 0 {
				j++
			}
			num := json.Number(raw[i:j])
			if _, err := strconv.ParseFloat(string(num), 64); err != nil || !json.Valid(raw[i:j]) {
				return nil, i, false
			}
			out, i = append(out, num), j
		default:
			return nil, i, false
		}
		skip()
		if i >= len(raw) {
			return nil, i, false
		}
		if raw[i] == ']' {
			return out, i + 1, true
		}
		if raw[i] != ',' {
			return nil, i, false
		}
		i++
	}
	return nil, i, false
}

// points reads the info as a list of [x, y] points in [0, 1000] coordinates.
func (s *StepAnnotation) points() [][2]float64 {
	list, ok := s.decodeInfo().([]any)
	if !ok {
		return nil
	}
	var out [][2]float64
	for _, p := range list {
		if x, y, err := point(p); err == nil {
			out = append(out, [2]float64{x, y})
		}
	}
	return out
}

// keyName returns the key of a CLICK/LONG_PRESS whose info is a string, e.g. "KEY_HOME".
func (s *StepAnnotation) keyName() (string, bool) {
	info := bytes.TrimSpace(s.Info)
	if len(info) == 0 || info[0] != '"' {
		return "", false
	}
	var k string
	json.Unmarshal(info, &k)
	return strings.TrimSpace(k), true
}
