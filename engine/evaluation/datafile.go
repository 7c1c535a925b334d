package evaluation

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"
	"unicode/utf8"
	"unsafe"

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
	rd := bundleReader{file: file, ignored: map[string]int{}}
	for {
		line, err := br.ReadBytes('\n')
		if len(line) > 0 {
			if perr := rd.line(line); perr != nil {
				return nil, perr
			}
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", file, err)
		}
	}
	rd.report(rep)
	return rd.out, nil
}

// ReadBundlesFrom is ReadBundles over a file's bytes, without a copy of its lines: the
// bundles' plain strings are windows on data, which must not change afterwards.
func ReadBundlesFrom(data []byte, file string) ([]Bundle, error) {
	return readBundlesData(data, file, nil)
}

// readBundlesData is readBundles over a file's bytes: its lines are parsed where they are,
// without a copy of each (a 100 MB line cost six copies of itself before). The bundles' plain
// strings are windows on data, which must not change afterwards.
func readBundlesData(data []byte, file string, rep *ImportReport) ([]Bundle, error) {
	rd := bundleReader{file: file, ignored: map[string]int{}}
	for len(data) > 0 {
		n := bytes.IndexByte(data, '\n') + 1
		if n == 0 {
			n = len(data)
		}
		if err := rd.line(data[:n]); err != nil {
			return nil, err
		}
		data = data[n:]
	}
	rd.report(rep)
	return rd.out, nil
}

// readBundlesLazy is readBundlesData keeping the turns of each line longer than over bytes in
// the line: checked, not decoded (see Datapoint.turnsLine). The importer reads data files so:
// a 100 MB line of short turns decoded is 48 bytes a turn (0.3 GB for 6 million 16-byte turns).
func readBundlesLazy(data []byte, file string, rep *ImportReport, over int) ([]Bundle, error) {
	rd := bundleReader{file: file, ignored: map[string]int{}, lazyOver: over}
	for len(data) > 0 {
		n := bytes.IndexByte(data, '\n') + 1
		if n == 0 {
			n = len(data)
		}
		if err := rd.line(data[:n]); err != nil {
			return nil, err
		}
		data = data[n:]
	}
	rd.report(rep)
	return rd.out, nil
}

// bundleReader reads a data file's lines in order.
type bundleReader struct {
	file               string
	lazyOver           int // lines longer than this keep their turns in the line (0: none)
	out                []Bundle
	ignored            map[string]int
	lineNo, datapoints int
}

func (rd *bundleReader) line(line []byte) error {
	rd.lineNo++
	if rd.lineNo == 1 {
		line = bytes.TrimPrefix(line, utf8BOM)
	}
	if len(bytes.TrimSpace(line)) == 0 {
		return nil
	}
	b, err := parseBundleLine(line, rd.file, rd.lineNo, rd.ignored, rd.lazyOver > 0 && len(line) > rd.lazyOver)
	if err != nil {
		return err
	}
	rd.datapoints += len(b.Datapoints)
	if err := limits.Datapoints.Check("datapoints up to here", int64(rd.datapoints)); err != nil {
		return &FileError{File: rd.file, Line: rd.lineNo, Err: err}
	}
	rd.out = append(rd.out, b)
	return nil
}

func (rd *bundleReader) report(rep *ImportReport) {
	keys := make([]string, 0, len(rd.ignored))
	for k := range rd.ignored {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		rep.add(Ignored, rd.file, "", "key %q on %d line(s)", k, rd.ignored[k])
	}
}

// The line is read where it is: once json.Valid has checked it, objects and lists are walked
// by their spans (jsonMembers, jsonElements) and only the values kept are decoded, each from
// its own span. What is accepted, refused and said is what decoding into
// map[string]json.RawMessage and []json.RawMessage gave (the last of duplicate keys wins; a
// value that does not fit is decoded that way for its error).

func parseBundleLine(line []byte, file string, lineNo int, ignored map[string]int, lazy bool) (Bundle, error) {
	lineErr := func(format string, args ...any) error {
		return &FileError{File: file, Line: lineNo, Err: fmt.Errorf(format, args...)}
	}
	if !json.Valid(line) || !isObjectOrNull(line) {
		var top map[string]json.RawMessage
		err := json.Unmarshal(line, &top)
		return Bundle{}, jsonFileError(file, line, lineNo, err)
	}
	if isNull(line) {
		return Bundle{}, lineErr("a bundle is an object {\"data\": [...]}, found null")
	}
	top, err := jsonMembers(line)
	if err != nil {
		return Bundle{}, jsonFileError(file, line, lineNo, err)
	}
	for k := range top {
		if k != "data" {
			ignored["bundle."+k]++
		}
	}
	data, ok := top["data"]
	if !ok {
		return Bundle{}, lineErr(`no "data" key: each line is a bundle {"data": [...]}`)
	}
	raws, isList := jsonElements(data)
	if !isList {
		return Bundle{}, lineErr(`"data" must be a list of datapoints, found %s`, jsonKind(data))
	}
	if len(raws) == 0 {
		return Bundle{}, lineErr("the bundle has no datapoints")
	}
	var b Bundle
	for i, raw := range raws {
		dp, err := parseDatapoint(raw, ignored, lazy)
		if err != nil {
			return Bundle{}, lineErr("datapoint %d: %v", i+1, err)
		}
		b.Datapoints = append(b.Datapoints, dp)
	}
	return b, nil
}

// isObjectOrNull tells whether valid JSON is an object or null.
func isObjectOrNull(raw []byte) bool {
	b := bytes.TrimSpace(raw)
	return len(b) > 0 && (b[0] == '{' || b[0] == 'n')
}

// jsonMembers maps the keys of a valid JSON object to their values' spans (nil for null;
// the last of duplicate keys wins, as encoding/json does).
func jsonMembers(raw []byte) (map[string][]byte, error) {
	b := bytes.TrimSpace(raw)
	if len(b) == 0 || b[0] != '{' {
		return nil, nil
	}
	out := map[string][]byte{}
	i := skipBlank(b, 1)
	for i < len(b) && b[i] != '}' {
		kEnd := skipJSONValue(b, i)
		var key string
		if err := json.Unmarshal(b[i:kEnd], &key); err != nil {
			return nil, err
		}
		i = skipBlank(b, kEnd) + 1 // ':'
		i = skipBlank(b, i)
		end := skipJSONValue(b, i)
		out[key] = b[i:end]
		i = skipBlank(b, end)
		if i < len(b) && b[i] == ',' {
			i = skipBlank(b, i+1)
		}
	}
	return out, nil
}

// jsonElements returns the spans of a valid JSON list's elements; ok is false when raw is
// neither a list nor null (null gives no elements).
func jsonElements(raw []byte) (elems [][]byte, ok bool) {
	b := bytes.TrimSpace(raw)
	if isNull(b) {
		return nil, true
	}
	if b[0] != '[' {
		return nil, false
	}
	n, _ := countJSONElements(b) // counted first: one allocation
	return appendJSONElements(make([][]byte, 0, n), b)
}

// countJSONElements counts the elements of a valid JSON list; ok is false when raw is neither
// a list nor null (null has none).
func countJSONElements(raw []byte) (n int, ok bool) {
	b := bytes.TrimSpace(raw)
	if isNull(b) {
		return 0, true
	}
	if len(b) == 0 || b[0] != '[' {
		return 0, false
	}
	for i := skipBlank(b, 1); i < len(b) && b[i] != ']'; n++ {
		i = skipBlank(b, skipJSONValue(b, i))
		if i < len(b) && b[i] == ',' {
			i = skipBlank(b, i+1)
		}
	}
	return n, true
}

// appendJSONElements is jsonElements appending to elems (null gives elems as they are).
func appendJSONElements(elems [][]byte, raw []byte) ([][]byte, bool) {
	b := bytes.TrimSpace(raw)
	if isNull(b) {
		return elems, true
	}
	if b[0] != '[' {
		return elems, false
	}
	i := skipBlank(b, 1)
	for i < len(b) && b[i] != ']' {
		end := skipJSONValue(b, i)
		elems = append(elems, b[i:end])
		i = skipBlank(b, end)
		if i < len(b) && b[i] == ',' {
			i = skipBlank(b, i+1)
		}
	}
	return elems, true
}

// decodeString decodes a JSON string value as json.Unmarshal does: a plain string (no escape,
// no control character, valid UTF-8) directly, anything else by json.Unmarshal.
func decodeString(span []byte, dst *string) error {
	if len(span) >= 2 && span[0] == '"' && span[len(span)-1] == '"' {
		body := span[1 : len(span)-1]
		plain := true
		ascii := true
		for _, c := range body {
			if c == '\\' || c == '"' || c < 0x20 {
				plain = false
				break
			}
			if c >= 0x80 {
				ascii = false
			}
		}
		if plain && (ascii || utf8.Valid(body)) {
			// a window on the line, not a copy: the lines read are never written to after
			*dst = unsafe.String(unsafe.SliceData(body), len(body))
			return nil
		}
		if s, ok := unquoteJSON(body); ok { // decoded once into its own bytes
			*dst = s
			return nil
		}
	}
	s, err := unmarshalString(span) // dst does not escape: a turn decoded into is not moved to the heap
	*dst = s
	return err
}

// unmarshalString is json.Unmarshal into a string, for what decodeString does not decode
// itself (and for the error).
func unmarshalString(span []byte) (string, error) {
	var s string
	err := json.Unmarshal(span, &s)
	return s, err
}

func skipBlank(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// skipJSONValue returns the end of the valid JSON value starting at b[i].
func skipJSONValue(b []byte, i int) int {
	depth := 0
	for j := i; j < len(b); j++ {
		switch b[j] {
		case '"':
			j++
			for j < len(b) && b[j] != '"' {
				if b[j] == '\\' {
					j++
				}
				j++
			}
			if depth == 0 {
				return j + 1
			}
		case '{', '[':
			depth++
		case '}', ']':
			if depth == 0 { // the end of the list or object around a number or literal
				return j
			}
			depth--
			if depth == 0 {
				return j + 1
			}
		case ',', ' ', '\t', '\n', '\r':
			if depth == 0 {
				return j
			}
		}
	}
	return len(b)
}

func parseDatapoint(raw []byte, ignored map[string]int, lazy bool) (Datapoint, error) {
	f, _ := jsonMembers(raw)
	if f == nil {
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
	if lazy {
		if err := checkTurns(tr, "turns"); err != nil {
			return dp, err
		}
		dp.turnsLine = tr
	} else if dp.Turns, err = parseTurns(tr, "turns"); err != nil {
		return dp, err
	}
	if t2, ok := f["turns2"]; ok && !isNull(t2) {
		if lazy {
			if err := checkTurns(t2, "turns2"); err != nil {
				return dp, err
			}
			dp.turns2Line = t2
		} else if dp.Turns2, err = parseTurns(t2, "turns2"); err != nil {
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
// original and are refused. raw is valid JSON.
func parseTurns(raw []byte, key string) ([]Turn, error) {
	n, ok := countJSONElements(raw)
	if !ok || isNull(raw) {
		return nil, fmt.Errorf("%q must be a list of turns, found %s", key, jsonKind(raw))
	}
	// The turns are walked in place: a list of their spans cost 24 bytes a turn (64 MB for a
	// line of 2.6 million short turns).
	out := make([]Turn, 0, n)
	if err := walkTurns(raw, key, true, func(t Turn) { out = append(out, t) }); err != nil {
		return nil, err
	}
	return out, nil
}

// checkTurns checks a list of turns as parseTurns does (the same errors) without decoding or
// keeping them. raw is valid JSON.
func checkTurns(raw []byte, key string) error {
	if b := bytes.TrimSpace(raw); isNull(b) || b[0] != '[' {
		return fmt.Errorf("%q must be a list of turns, found %s", key, jsonKind(raw))
	}
	return walkTurns(raw, key, false, nil)
}

// walkTurns walks a valid JSON list of turns in place, giving each to fn decoded (decode) or
// only checking it: in valid JSON a value that starts with a quote is a string, which is all
// decoding a speaker, text or explanation can find wrong.
func walkTurns(raw []byte, key string, decode bool, fn func(Turn)) error {
	var partsBuf [5][]byte // a turn's parts, without a slice allocated for each turn
	b := bytes.TrimSpace(raw)
	isString := func(span []byte) bool { return len(span) > 0 && span[0] == '"' }
	for i, j := 0, skipBlank(b, 1); j < len(b) && b[j] != ']'; i++ {
		end := skipJSONValue(b, j)
		it := b[j:end]
		if j = skipBlank(b, end); j < len(b) && b[j] == ',' {
			j = skipBlank(b, j+1)
		}
		parts, ok := appendJSONElements(partsBuf[:0], it)
		if !ok {
			return fmt.Errorf("%s[%d]: a turn is [speaker, text], found %s", key, i, jsonKind(it))
		}
		if len(parts) != 2 && len(parts) != 4 {
			return fmt.Errorf("%s[%d]: a turn has 2 elements ([speaker, text]) or 4 ([speaker, text, truth, explanation]), found %d", key, i, len(parts))
		}
		var t Turn
		if !isString(parts[0]) || decode && decodeString(parts[0], &t.Speaker) != nil {
			return fmt.Errorf("%s[%d]: the speaker must be a string, found %s", key, i, jsonKind(parts[0]))
		}
		if !isString(parts[1]) || decode && decodeString(parts[1], &t.Text) != nil {
			return fmt.Errorf("%s[%d]: the text must be a string, found %s", key, i, jsonKind(parts[1]))
		}
		if len(parts) == 4 {
			truth, err := ParseTruth(bytes.Clone(parts[2])) // kept: not a window on the line
			if err != nil {
				return fmt.Errorf("%s[%d]: %v", key, i, err)
			}
			t.Truth = truth
			if !isNull(parts[3]) {
				if !isString(parts[3]) {
					return fmt.Errorf("%s[%d]: the explanation must be a string or null, found %s", key, i, jsonKind(parts[3]))
				}
				if decode {
					s, err := unmarshalString(parts[3])
					if err != nil {
						return fmt.Errorf("%s[%d]: the explanation must be a string or null, found %s", key, i, jsonKind(parts[3]))
					}
					t.Explanation = &s
				}
			}
		}
		if fn != nil {
			fn(t)
		}
	}
	return nil
}

// turnsJSON writes turns in the original's list form.
func turnsJSON(turns []Turn) json.RawMessage {
	return appendTurnsJSON(nil, turns)
}

// appendTurnsJSON appends turns in the original's list form, the bytes mustRaw gives of the
// list of [speaker, text(, truth, explanation)] lists, written straight into b.
func appendTurnsJSON(b []byte, turns []Turn) []byte {
	b = append(b, '[')
	for i, t := range turns {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, '[')
		b = appendJSONString(b, t.Speaker)
		b = append(b, ',')
		b = appendJSONString(b, t.Text)
		if t.Truth != nil {
			tb, _ := t.Truth.MarshalJSON()
			b = append(b, ',')
			b = appendCompact(b, tb)
			b = append(b, ',')
			if t.Explanation != nil {
				b = appendJSONString(b, *t.Explanation)
			} else {
				b = append(b, "null"...)
			}
		}
		b = append(b, ']')
	}
	return append(b, ']')
}

// appendCompact appends valid JSON without blanks, as the encoder writes a json.Marshaler's
// output (HTML characters left as they are).
func appendCompact(b, raw []byte) []byte {
	buf := bytes.NewBuffer(b)
	if err := json.Compact(buf, raw); err != nil {
		panic(err)
	}
	return buf.Bytes()
}

// appendJSONString appends s quoted as encoding/json's encoder does with HTML escaping off:
// control characters, quotes and backslashes escaped, invalid UTF-8 as \ufffd, U+2028 and
// U+2029 escaped.
func appendJSONString(b []byte, s string) []byte {
	b = append(b, '"')
	return append(appendJSONStringBody(b, s), '"')
}

// appendJSONStringBody is appendJSONString without the quotes.
func appendJSONStringBody(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	start := 0
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hex[r&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	return append(b, s[start:]...)
}

// datapointJSON writes a datapoint in the original's shape.
func datapointJSON(dp Datapoint) json.RawMessage {
	return appendDatapointJSON(nil, dp)
}

// appendDatapointJSON appends a datapoint in the original's shape (the bytes mustRaw gives of
// its orderedJSON), written straight into b.
func appendDatapointJSON(b []byte, dp Datapoint) []byte {
	b = append(b, `{"dialogue_id":`...)
	b = appendJSONString(b, dp.DialogueID)
	if dp.OriginWorkerID != "" {
		b = append(b, `,"origin_worker_id":`...)
		b = appendJSONString(b, dp.OriginWorkerID)
	}
	b = append(b, `,"group_id":`...)
	b = appendJSONString(b, dp.GroupID)
	b = append(b, `,"annotation_tasks":[`...)
	for i, t := range dp.AnnotationTasks {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendJSONString(b, t)
	}
	b = append(b, `],"turns":`...)
	b = appendTurnsJSON(b, dp.turns(false))
	if dp.hasTurns2() {
		b = append(b, `,"turns2":`...)
		b = appendTurnsJSON(b, dp.turns(true))
	}
	if dp.BotPersona != nil {
		b = append(b, `,"bot_persona":`...)
		b = appendCompact(b, dp.BotPersona)
	}
	return append(b, '}')
}

// bundleSizeHint is about the size of a bundle's JSON: its strings' exact encoded sizes, and
// room for the punctuation.
func bundleSizeHint(bundle Bundle) int {
	n := 16
	turns := func(ts []Turn) {
		for _, t := range ts {
			n += jsonStringSize(t.Speaker) + jsonStringSize(t.Text) + 4
			if t.Explanation != nil {
				n += jsonStringSize(*t.Explanation) + 64
			}
		}
	}
	for _, dp := range bundle.Datapoints {
		n += jsonStringSize(dp.DialogueID) + jsonStringSize(dp.OriginWorkerID) + jsonStringSize(dp.GroupID) + len(dp.BotPersona) + 96
		for _, t := range dp.AnnotationTasks {
			n += jsonStringSize(t) + 1
		}
		turns(dp.Turns)
		turns(dp.Turns2)
	}
	return n
}

// jsonStringSize is len(appendJSONString(nil, s)).
func jsonStringSize(s string) int {
	n := len(s) + 2
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '"' || c == '\\' || c == '\b' || c == '\f' || c == '\n' || c == '\r' || c == '\t':
				n++
			case c < 0x20:
				n += 5
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			n += 5
		case r == '\u2028' || r == '\u2029':
			n += 3
		}
		i += size
	}
	return n
}

// AppendBundleJSON appends a bundle as one line of a data file writes it, without the newline:
// {"data": [datapoint, …]} compact.
func AppendBundleJSON(b []byte, bundle Bundle) []byte {
	if need := bundleSizeHint(bundle); cap(b)-len(b) < need {
		// sized once: grown by append, a 100 MB bundle left about four times itself behind
		b = append(make([]byte, 0, len(b)+need), b...)
	}
	b = append(b, `{"data":[`...)
	for i, dp := range bundle.Datapoints {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendDatapointJSON(b, dp)
	}
	return append(b, "]}"...)
}

// WriteBundles writes bundles as a JSONL data file, one {"data": [...]} per line.
func WriteBundles(w io.Writer, bundles []Bundle) error {
	bw := bufio.NewWriter(w)
	var line []byte
	for _, b := range bundles {
		line = append(AppendBundleJSON(line[:0], b), '\n')
		bw.Write(line)
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
