package odyssey

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/agentdesk/agentdesk/engine/limits"
)

// scanner walks a JSON document by value spans: it finds where each value starts and ends
// without decoding it, so that annotations are read in one pass per value (encoding/json
// decodes and validates each span) and every error has an exact byte offset.
type scanner struct {
	file string
	data []byte
	i    int
	// streamAbove, when positive, makes an episode of more steps than this one read streamed:
	// its steps are checked and counted but not kept (Annotation.StepBatches reads them).
	streamAbove int
	lists       []int // offsets of the current episode's steps lists
}

func (s *scanner) ws() {
	for s.i < len(s.data) {
		switch s.data[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return
		}
	}
}

func (s *scanner) errAt(off int, where, format string, args ...any) *PosError {
	return posError(s.file, s.data, int64(off), where, fmt.Errorf(format, args...))
}

// peek returns the next non-blank byte (0 at the end).
func (s *scanner) peek() byte {
	s.ws()
	if s.i >= len(s.data) {
		return 0
	}
	return s.data[s.i]
}

// expect consumes c after blanks.
func (s *scanner) expect(c byte, where, what string) error {
	if s.peek() != c {
		if s.i >= len(s.data) {
			return s.errAt(s.i, where, "unexpected end of file, expected %s", what)
		}
		return s.errAt(s.i, where, "expected %s, found %s", what, describeByte(s.data[s.i]))
	}
	s.i++
	return nil
}

func describeByte(c byte) string {
	if c >= 0x20 && c < 0x7f {
		return strconv.QuoteRune(rune(c))
	}
	return fmt.Sprintf("byte %#x", c)
}

// value returns the span of the next value and moves past it. The span is not validated.
func (s *scanner) value(where string) ([]byte, int, error) {
	s.ws()
	start := s.i
	if start >= len(s.data) {
		return nil, start, s.errAt(start, where, "unexpected end of file, expected a value")
	}
	end, err := skipValue(s.data, start)
	if err != nil {
		var pe *PosError
		if errors.As(err, &pe) {
			return nil, start, err
		}
		return nil, start, s.errAt(end, where, "%v", err)
	}
	s.i = end
	return s.data[start:end], start, nil
}

// key reads an object member's key and its colon; ok=false at the closing brace. first tells
// whether a comma is expected before the key.
func (s *scanner) key(first bool, where string) (key string, ok bool, err error) {
	c := s.peek()
	if c == '}' {
		s.i++
		return "", false, nil
	}
	if !first {
		if c != ',' {
			if c == 0 {
				return "", false, s.errAt(s.i, where, "unexpected end of file, expected ',' or '}'")
			}
			return "", false, s.errAt(s.i, where, "expected ',' or '}', found %s", describeByte(c))
		}
		s.i++
		if s.peek() != '"' {
			return "", false, s.errAt(s.i, where, "expected a member name after ','")
		}
	} else if c != '"' {
		return "", false, s.errAt(s.i, where, "expected a member name or '}'")
	}
	span, off, err := s.value(where)
	if err != nil {
		return "", false, err
	}
	if err := json.Unmarshal(span, &key); err != nil {
		return "", false, jsonError(s.file, s.data, int64(off), where, err)
	}
	if err := s.expect(':', where, "':'"); err != nil {
		return "", false, err
	}
	return key, true, nil
}

// skipValue finds the end of the value starting at i: brackets are matched and strings
// skipped; the content is not otherwise checked.
func skipValue(data []byte, i int) (int, error) {
	switch c := data[i]; {
	case c == '"':
		return skipString(data, i)
	case c == '{' || c == '[':
		var stack []byte
		for i < len(data) {
			switch c := data[i]; c {
			case '"':
				end, err := skipString(data, i)
				if err != nil {
					return end, err
				}
				i = end
				continue
			case '{':
				stack = append(stack, '}')
			case '[':
				stack = append(stack, ']')
			case '}', ']':
				if len(stack) == 0 || stack[len(stack)-1] != c {
					return i, fmt.Errorf("unexpected %q", c)
				}
				stack = stack[:len(stack)-1]
				if len(stack) == 0 {
					return i + 1, nil
				}
			}
			i++
		}
		return len(data), errors.New("unexpected end of file: a bracket is not closed")
	default:
		j := i
		for j < len(data) {
			switch data[j] {
			case ',', '}', ']', ' ', '\t', '\n', '\r':
				if j == i {
					return j, fmt.Errorf("unexpected %q", data[j])
				}
				return j, nil
			}
			j++
		}
		return j, nil
	}
}

func skipString(data []byte, i int) (int, error) {
	for j := i + 1; j < len(data); j++ {
		switch data[j] {
		case '\\':
			j++
		case '"':
			return j + 1, nil
		}
	}
	return len(data), errors.New("unexpected end of file in a string")
}

// compactJSON removes the blanks outside strings of a valid JSON text.
func compactJSON(src []byte) []byte {
	out := make([]byte, 0, len(src))
	inString := false
	for i := 0; i < len(src); i++ {
		c := src[i]
		if inString {
			out = append(out, c)
			switch c {
			case '\\':
				if i+1 < len(src) {
					i++
					out = append(out, src[i])
				}
			case '"':
				inString = false
			}
			continue
		}
		switch c {
		case ' ', '\t', '\n', '\r':
			continue
		case '"':
			inString = true
		}
		out = append(out, c)
	}
	return out
}

// scanEpisode reads the episode object at the scanner's position.
func (s *scanner) episode() (*Annotation, error) {
	s.ws()
	a := &Annotation{File: s.file, Offset: int64(s.i), StepLength: -1}
	s.lists = s.lists[:0]
	where := func() string {
		if a.EpisodeID != "" {
			return "episode " + a.EpisodeID
		}
		return ""
	}
	if err := s.expect('{', where(), "an episode object"); err != nil {
		return nil, err
	}
	var hasSteps bool
	decode := func(span []byte, off int, v any, w string) error {
		if err := json.Unmarshal(span, v); err != nil {
			return jsonError(s.file, s.data, int64(off), w, err)
		}
		return nil
	}
	for first := true; ; first = false {
		key, ok, err := s.key(first, where())
		if err != nil {
			return nil, err
		}
		if !ok {
			break
		}
		if key == "steps" {
			hasSteps = true
			if err := s.steps(a, where()); err != nil {
				return nil, err
			}
			continue
		}
		span, off, err := s.value(where())
		if err != nil {
			return nil, err
		}
		switch key {
		case "episode_id":
			var id flexString
			if err := decode(span, off, &id, where()); err != nil {
				return nil, err
			}
			if id == "" {
				return nil, s.errAt(off, "", "episode_id is empty")
			}
			a.EpisodeID = string(id)
		case "device_info":
			if err := decode(span, off, &a.Device, where()+" device_info"); err != nil {
				return nil, err
			}
			a.DeviceRaw = compactJSON(span)
		case "task_info":
			if err := decode(span, off, &a.Task, where()+" task_info"); err != nil {
				return nil, err
			}
			a.TaskRaw = compactJSON(span)
		case "step_length":
			var n flexInt
			if err := decode(span, off, &n, where()); err != nil {
				return nil, err
			}
			a.StepLength = int(n)
		default:
			if !json.Valid(span) {
				var v any
				return nil, decode(span, off, &v, where())
			}
			a.Other = append(a.Other, Field{Key: key, Value: compactJSON(span)})
		}
	}
	if a.EpisodeID == "" {
		return nil, s.errAt(int(a.Offset), "", `the episode has no "episode_id"`)
	}
	if !hasSteps {
		return nil, s.errAt(int(a.Offset), where(), `the episode has no "steps"`)
	}
	a.finish()
	return a, nil
}

// steps reads the steps list.
func (s *scanner) steps(a *Annotation, where string) error {
	s.ws()
	// Where each steps list starts, for an episode read streamed to read them again (a second
	// "steps" member's steps follow the first's, as when they are kept).
	s.lists = append(s.lists, s.i)
	if a.stream != nil {
		a.stream.lists = append(a.stream.lists, s.i)
	}
	if err := s.expect('[', where, "a list of steps"); err != nil {
		return err
	}
	if s.peek() == ']' {
		s.i++
		return nil
	}
	for i := 0; ; i++ {
		w := func() string { return fmt.Sprintf("%s step %d", where, i) } // only for errors
		span, off, err := s.value(where)
		if err != nil {
			var pe *PosError
			if errors.As(err, &pe) {
				pe.Where = w()
			}
			return err
		}
		if span[0] != '{' {
			return s.errAt(off, w(), "a step must be an object")
		}
		var st StepAnnotation
		if err := s.step(span, off, &st, w()); err != nil {
			return err
		}
		if st.Step != i {
			a.Warnings = append(a.Warnings, fmt.Sprintf("step %d is numbered %d; the position is used", i, st.Step))
		}
		if a.stream != nil {
			a.stream.note(a.stream.n, &st)
		} else {
			a.Steps = append(a.Steps, st)
			if s.streamAbove > 0 && len(a.Steps) > s.streamAbove {
				// From here on only what the episode as a whole needs is kept of each step.
				a.stream = &stepStream{file: s.file, data: s.data, lists: slices.Clone(s.lists), seen: map[string]bool{}}
				for j := range a.Steps {
					a.stream.note(j, &a.Steps[j])
				}
				a.Steps = nil
			}
		}
		if err := limits.Steps.Check("episode "+a.EpisodeID, int64(a.NumSteps())); err != nil {
			return s.errAt(off, w(), "%w", err)
		}
		switch c := s.peek(); c {
		case ',':
			s.i++
		case ']':
			s.i++
			return nil
		case 0:
			return s.errAt(s.i, w(), "unexpected end of file, expected ',' or ']'")
		default:
			return s.errAt(s.i, w(), "expected ',' or ']' after the step, found %s", describeByte(c))
		}
	}
}

// step decodes the step object span (at offset off) into st.
func (s *scanner) step(span []byte, off int, st *StepAnnotation, where string) error {
	if !decodeStep(span, st) {
		*st = StepAnnotation{}
		if err := json.Unmarshal(span, st); err != nil {
			return jsonError(s.file, s.data, int64(off), where, err)
		}
	}
	if st.Action == "" {
		return s.errAt(off, where, `the step has no "action"`)
	}
	st.Raw, st.Offset = compactJSON(span), int64(off)
	return nil
}

// end checks that only blanks follow.
func (s *scanner) end() error {
	if s.peek() != 0 {
		return s.errAt(s.i, "", "unexpected data after the JSON document")
	}
	return nil
}

// decodeStep fills st from a step object's span without reflection when the object is plain
// (known keys in lower case, strings without escapes, an integer step); it reports false for
// anything else, and the caller then decodes with encoding/json, which gives the same result or
// the exact error. Every value is validated as encoding/json would.
func decodeStep(span []byte, st *StepAnnotation) bool {
	i := 0
	ws := func() {
		for i < len(span) && (span[i] == ' ' || span[i] == '\t' || span[i] == '\n' || span[i] == '\r') {
			i++
		}
	}
	if len(span) == 0 || span[0] != '{' {
		return false
	}
	i++
	ws()
	if i < len(span) && span[i] == '}' {
		return i+1 == len(span)
	}
	for {
		ws()
		if i >= len(span) || span[i] != '"' {
			return false
		}
		kEnd, ok := plainString(span, i)
		if !ok {
			return false
		}
		key := span[i+1 : kEnd-1]
		i = kEnd
		ws()
		if i >= len(span) || span[i] != ':' {
			return false
		}
		i++
		ws()
		if i >= len(span) {
			return false
		}
		end, err := skipValue(span, i)
		if err != nil {
			return false
		}
		val := span[i:end]
		i = end
		if !storeStepField(st, string(key), val) {
			return false
		}
		ws()
		if i >= len(span) {
			return false
		}
		switch span[i] {
		case ',':
			i++
		case '}':
			return i+1 == len(span)
		default:
			return false
		}
	}
}

// plainString returns the end of the JSON string at span[i] when it has no escape, no control
// character and valid UTF-8 (so that its bytes are its value).
func plainString(span []byte, i int) (int, bool) {
	ascii := true
	for j := i + 1; j < len(span); j++ {
		switch c := span[j]; {
		case c == '"':
			if !ascii && !utf8.Valid(span[i+1:j]) {
				return 0, false
			}
			return j + 1, true
		case c == '\\' || c < 0x20:
			return 0, false
		case c >= 0x80:
			ascii = false
		}
	}
	return 0, false
}

func storeStepField(st *StepAnnotation, key string, val []byte) bool {
	isNull := string(val) == "null"
	str := func(dst *string) bool {
		if isNull {
			return true
		}
		end, ok := plainString(val, 0)
		if !ok || val[0] != '"' || end != len(val) {
			return false
		}
		*dst = string(val[1 : len(val)-1])
		return true
	}
	switch key {
	case "step":
		if isNull {
			return true
		}
		n, err := strconv.Atoi(string(val))
		if err != nil || val[0] == '+' || len(val) > 1 && val[0] == '0' || len(val) > 2 && val[0] == '-' && val[1] == '0' {
			return false
		}
		st.Step = n
	case "screenshot":
		return str(&st.Screenshot)
	case "action":
		return str(&st.Action)
	case "low_level_instruction":
		return str(&st.LowLevelInstruction)
	case "ps":
		var s string
		if !str(&s) {
			return false
		}
		if !isNull {
			st.PS = flexString(s)
		} else {
			st.PS = ""
		}
	case "info":
		if !json.Valid(val) {
			return false
		}
		st.Info = append(json.RawMessage(nil), val...)
	case "sam2_bbox":
		if !json.Valid(val) {
			return false
		}
		st.Sam2Bbox = append(json.RawMessage(nil), val...)
	default:
		// encoding/json matches keys case-insensitively: leave such keys to it.
		for _, k := range []string{"step", "screenshot", "action", "low_level_instruction", "ps", "info", "sam2_bbox"} {
			if strings.EqualFold(key, k) {
				return false
			}
		}
		return json.Valid(val)
	}
	return true
}
