package evaluation

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/agentdesk/agentdesk/engine/limits"
)

// datapointKeys are the datapoint keys the app understands (spec §7.1).
var datapointKeys = map[string]bool{"dialogue_id": true, "origin_worker_id": true, "group_id": true,
	"annotation_tasks": true, "turns": true, "turns2": true, "bot_persona": true}

// ReadBundles reads a dialogue data file (JSONL, spec §7.1): one bundle {"data": [datapoint, …]}
// per line. A byte-order mark is tolerated, the last line may lack its newline and blank lines
// are skipped. Graded turns ([speaker, text, truth, explanation], as in gold files) are kept
// with their truth. Any error names the file and line (and column where the JSON decoder knows
// it); nothing is returned then.
func ReadBundles(r io.Reader, file string) ([]Bundle, error) {
	return readBundles(r, file, nil)
}

func readBundles(r io.Reader, file string, rep *ImportReport) ([]Bundle, error) {
	br := bufio.NewReader(r)
	var out []Bundle
	ignored := map[string]int{}
	lineNo, datapoints := 0, 0
	for {
		line, err := br.ReadBytes('\n')
		if len(line) > 0 {
			lineNo++
			if lineNo == 1 {
				line = bytes.TrimPrefix(line, utf8BOM)
			}
			if len(bytes.TrimSpace(line)) > 0 {
				b, perr := parseBundleLine(line, file, lineNo, ignored)
				if perr != nil {
					return nil, perr
				}
				datapoints += len(b.Datapoints)
				if err := limits.Datapoints.Check("datapoints up to here", int64(datapoints)); err != nil {
					return nil, &FileError{File: file, Line: lineNo, Err: err}
				}
				out = append(out, b)
			}
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", file, err)
		}
	}
	keys := make([]string, 0, len(ignored))
	for k := range ignored {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		rep.add(Ignored, file, "", "key %q on %d line(s)", k, ignored[k])
	}
	return out, nil
}

func parseBundleLine(line []byte, file string, lineNo int, ignored map[string]int) (Bundle, error) {
	var top map[string]json.RawMessage
	if err := json.Unmarshal(line, &top); err != nil {
		return Bundle{}, jsonFileError(file, line, lineNo, err)
	}
	lineErr := func(format string, args ...any) error {
		return &FileError{File: file, Line: lineNo, Err: fmt.Errorf(format, args...)}
	}
	if top == nil {
		return Bundle{}, lineErr("a bundle is an object {\"data\": [...]}, found null")
	}
	for k := range top {
		if k != "data" {
			ignored["bundle."+k]++
		}
	}
	data, ok := top["data"]
	if !ok {
		return Bundle{}, lineErr(`no "data" key: each line is a bundle {"data": [datapoint, ...]}`)
	}
	var raws []json.RawMessage
	if err := json.Unmarshal(data, &raws); err != nil {
		return Bundle{}, lineErr(`"data" must be a list of datapoints, found %s`, jsonKind(data))
	}
	if len(raws) == 0 {
		return Bundle{}, lineErr("the bundle has no datapoints")
	}
	var b Bundle
	for i, raw := range raws {
		dp, err := parseDatapoint(raw, ignored)
		if err != nil {
			return Bundle{}, lineErr("datapoint %d: %v", i+1, err)
		}
		b.Datapoints = append(b.Datapoints, dp)
	}
	return b, nil
}

func parseDatapoint(raw json.RawMessage, ignored map[string]int) (Datapoint, error) {
	var f map[string]json.RawMessage
	if err := json.Unmarshal(raw, &f); err != nil || f == nil {
		return Datapoint{}, fmt.Errorf("want an object, found %s", jsonKind(raw))
	}
	for k := range f {
		if !datapointKeys[k] {
			ignored[k]++
		}
	}
	var dp Datapoint
	str := func(key string, dst *string, required bool) error {
		v, ok := f[key]
		if !ok || isNull(v) {
			if required {
				return fmt.Errorf("%q is missing", key)
			}
			return nil
		}
		if err := json.Unmarshal(v, dst); err != nil {
			return fmt.Errorf("%q must be a string, found %s", key, jsonKind(v))
		}
		return nil
	}
	if err := str("dialogue_id", &dp.DialogueID, true); err != nil {
		return dp, err
	}
	if err := str("origin_worker_id", &dp.OriginWorkerID, false); err != nil {
		return dp, err
	}
	if err := str("group_id", &dp.GroupID, false); err != nil {
		return dp, err
	}
	at, ok := f["annotation_tasks"]
	if !ok {
		return dp, fmt.Errorf("%q is missing", "annotation_tasks")
	}
	if err := json.Unmarshal(at, &dp.AnnotationTasks); err != nil || dp.AnnotationTasks == nil {
		return dp, fmt.Errorf("%q must be a list of type names", "annotation_tasks")
	}
	var err error
	tr, ok := f["turns"]
	if !ok {
		return dp, fmt.Errorf("%q is missing", "turns")
	}
	if dp.Turns, err = parseTurns(tr, "turns"); err != nil {
		return dp, err
	}
	if t2, ok := f["turns2"]; ok && !isNull(t2) {
		if dp.Turns2, err = parseTurns(t2, "turns2"); err != nil {
			return dp, err
		}
	}
	if p, ok := f["bot_persona"]; ok {
		dp.BotPersona = compactJSON(p)
	}
	return dp, nil
}

// parseTurns reads a list of turns: [speaker, text] or, graded, [speaker, text, truth,
// explanation] (explanation may be null, as in gold files). Three elements would crash the
// original and are refused.
func parseTurns(raw json.RawMessage, key string) ([]Turn, error) {
	var items []json.RawMessage
	if err := json.Unmarshal(raw, &items); err != nil || items == nil {
		return nil, fmt.Errorf("%q must be a list of turns, found %s", key, jsonKind(raw))
	}
	out := make([]Turn, 0, len(items))
	for i, it := range items {
		var parts []json.RawMessage
		if err := json.Unmarshal(it, &parts); err != nil {
			return nil, fmt.Errorf("%s[%d]: a turn is [speaker, text], found %s", key, i, jsonKind(it))
		}
		if len(parts) != 2 && len(parts) != 4 {
			return nil, fmt.Errorf("%s[%d]: a turn has 2 elements ([speaker, text]) or 4 ([speaker, text, truth, explanation]), found %d", key, i, len(parts))
		}
		var t Turn
		if err := json.Unmarshal(parts[0], &t.Speaker); err != nil {
			return nil, fmt.Errorf("%s[%d]: the speaker must be a string, found %s", key, i, jsonKind(parts[0]))
		}
		if err := json.Unmarshal(parts[1], &t.Text); err != nil {
			return nil, fmt.Errorf("%s[%d]: the text must be a string, found %s", key, i, jsonKind(parts[1]))
		}
		if len(parts) == 4 {
			truth, err := ParseTruth(parts[2])
			if err != nil {
				return nil, fmt.Errorf("%s[%d]: %v", key, i, err)
			}
			t.Truth = truth
			if !isNull(parts[3]) {
				var s string
				if err := json.Unmarshal(parts[3], &s); err != nil {
					return nil, fmt.Errorf("%s[%d]: the explanation must be a string or null, found %s", key, i, jsonKind(parts[3]))
				}
				t.Explanation = &s
			}
		}
		out = append(out, t)
	}
	return out, nil
}

// turnsJSON writes turns in the original's list form.
func turnsJSON(turns []Turn) json.RawMessage {
	list := make([]json.RawMessage, 0, len(turns))
	for _, t := range turns {
		parts := []json.RawMessage{mustRaw(t.Speaker), mustRaw(t.Text)}
		if t.Truth != nil {
			tb, _ := t.Truth.MarshalJSON()
			var ex json.RawMessage = json.RawMessage("null")
			if t.Explanation != nil {
				ex = mustRaw(*t.Explanation)
			}
			parts = append(parts, tb, ex)
		}
		list = append(list, mustRaw(parts))
	}
	return mustRaw(list)
}

// datapointJSON writes a datapoint in the original's shape.
func datapointJSON(dp Datapoint) json.RawMessage {
	obj := orderedJSON{{"dialogue_id", mustRaw(dp.DialogueID)}}
	if dp.OriginWorkerID != "" {
		obj = append(obj, member{"origin_worker_id", mustRaw(dp.OriginWorkerID)})
	}
	obj = append(obj, member{"group_id", mustRaw(dp.GroupID)})
	tasks := dp.AnnotationTasks
	if tasks == nil {
		tasks = []string{}
	}
	obj = append(obj, member{"annotation_tasks", mustRaw(tasks)}, member{"turns", turnsJSON(dp.Turns)})
	if dp.Turns2 != nil {
		obj = append(obj, member{"turns2", turnsJSON(dp.Turns2)})
	}
	if dp.BotPersona != nil {
		obj = append(obj, member{"bot_persona", dp.BotPersona})
	}
	return mustRaw(obj)
}

// WriteBundles writes bundles as a JSONL data file, one {"data": [...]} per line.
func WriteBundles(w io.Writer, bundles []Bundle) error {
	bw := bufio.NewWriter(w)
	for _, b := range bundles {
		list := make([]json.RawMessage, 0, len(b.Datapoints))
		for _, dp := range b.Datapoints {
			list = append(list, datapointJSON(dp))
		}
		bw.Write(mustRaw(orderedJSON{{"data", mustRaw(list)}}))
		bw.WriteByte('\n')
	}
	return bw.Flush()
}

// ReadUnits reads a units file {"<group id>": <units>, …}.
func ReadUnits(data []byte, file string) (map[string]int, error) {
	data, err := validJSONFile(data, file)
	if err != nil {
		return nil, err
	}
	members, offs, err := objectMembersAt(data)
	if err != nil {
		return nil, &FileError{File: file, Err: fmt.Errorf("want an object of group id → units: %v", err)}
	}
	out := make(map[string]int, len(members))
	for i, m := range members {
		var n int
		if err := json.Unmarshal(m.Value, &n); err != nil || n < 0 {
			return nil, &FileError{File: file, Line: lineOf(data, offs[i]),
				Err: fmt.Errorf("group %q: units must be a whole number >= 0, found %s", m.Key, strings.TrimSpace(string(m.Value)))}
		}
		if err := limits.Units.Check(fmt.Sprintf("group %q", m.Key), int64(n)); err != nil {
			return nil, &FileError{File: file, Line: lineOf(data, offs[i]), Err: err}
		}
		out[m.Key] = n
	}
	return out, nil
}

// ReadTraining reads an onboarding file {"<key>": dialogue, …} (spec §7.3): exactly three
// dialogues in file order, each naming exactly one annotation type (the same one), with
// pass_criteria and remaining.
func ReadTraining(data []byte, file string) (*Training, error) {
	data, err := validJSONFile(data, file)
	if err != nil {
		return nil, err
	}
	members, offs, err := objectMembersAt(data)
	if err != nil {
		return nil, &FileError{File: file, Err: err}
	}
	if len(members) != 3 {
		return nil, &FileError{File: file, Err: fmt.Errorf("a training file has exactly three dialogues, found %d", len(members))}
	}
	tr := &Training{}
	for i, m := range members {
		line := lineOf(data, offs[i])
		fail := func(format string, args ...any) error {
			return &FileError{File: file, Line: line, Err: fmt.Errorf(format, args...)}
		}
		var d struct {
			DialogueID      *string         `json:"dialogue_id"`
			AnnotationTasks []string        `json:"annotation_tasks"`
			BotPersona      json.RawMessage `json:"bot_persona"`
			PassCriteria    *int            `json:"pass_criteria"`
			Remaining       *int            `json:"remaining"`
			Turns           json.RawMessage `json:"turns"`
		}
		if err := json.Unmarshal(m.Value, &d); err != nil {
			return nil, fail("dialogue %q: %v", m.Key, err)
		}
		if d.DialogueID == nil {
			return nil, fail("dialogue %q: \"dialogue_id\" is missing", m.Key)
		}
		if len(d.AnnotationTasks) != 1 {
			return nil, fail("dialogue %q: a training dialogue names exactly one annotation type, found %d", m.Key, len(d.AnnotationTasks))
		}
		if d.PassCriteria == nil || *d.PassCriteria < 0 {
			return nil, fail("dialogue %q: \"pass_criteria\" (maximum mistaken turns) is missing", m.Key)
		}
		if d.Turns == nil {
			return nil, fail("dialogue %q: \"turns\" is missing", m.Key)
		}
		turns, err := parseTurns(d.Turns, "turns")
		if err != nil {
			return nil, fail("dialogue %q: %v", m.Key, err)
		}
		td := TrainingDialogue{Key: m.Key, DialogueID: *d.DialogueID, AnnotationTasks: d.AnnotationTasks,
			BotPersona: compactJSON(d.BotPersona), PassCriteria: *d.PassCriteria, Turns: turns}
		if d.Remaining != nil {
			td.Remaining = *d.Remaining
		} else {
			td.Remaining = 2 - i
		}
		if i == 0 {
			tr.TypeName = d.AnnotationTasks[0]
		} else if d.AnnotationTasks[0] != tr.TypeName {
			return nil, fail("dialogue %q trains %q, the first trains %q: one training file trains one type", m.Key, d.AnnotationTasks[0], tr.TypeName)
		}
		tr.Dialogues = append(tr.Dialogues, td)
	}
	return tr, nil
}

// MarshalTraining writes a training in the onboarding file shape.
func MarshalTraining(tr *Training) ([]byte, error) {
	obj := orderedJSON{}
	for i, d := range tr.Dialogues {
		key := d.Key
		if key == "" {
			key = d.DialogueID
		}
		tasks := d.AnnotationTasks
		if len(tasks) == 0 {
			tasks = []string{tr.TypeName}
		}
		persona := d.BotPersona
		if persona == nil {
			persona = json.RawMessage("[]")
		}
		remaining := d.Remaining
		if remaining == 0 && i < 2 {
			remaining = 2 - i
		}
		obj = append(obj, member{key, mustRaw(orderedJSON{
			{"dialogue_id", mustRaw(d.DialogueID)},
			{"annotation_tasks", mustRaw(tasks)},
			{"bot_persona", persona},
			{"pass_criteria", mustRaw(d.PassCriteria)},
			{"remaining", mustRaw(remaining)},
			{"turns", turnsJSON(d.Turns)},
		})})
	}
	var buf bytes.Buffer
	if err := json.Indent(&buf, mustRaw(obj), "", "  "); err != nil {
		return nil, err
	}
	buf.WriteByte('\n')
	return buf.Bytes(), nil
}

// compactJSON returns a compact copy of valid JSON (nil for nil).
func compactJSON(raw json.RawMessage) json.RawMessage {
	if raw == nil {
		return nil
	}
	var buf bytes.Buffer
	if err := json.Compact(&buf, raw); err != nil {
		return append(json.RawMessage(nil), raw...)
	}
	return buf.Bytes()
}
