package mobileenv

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"unicode/utf8"
)

// A schema-less reader of protobuf text format, accepting what Python's text_format accepts in
// Mobile-Env task definitions (spec §C.8): '#' comments, optional ':' before '{' or '<',
// ',' or ';' separators, repeated fields as `name: [a, b]` (also for messages), adjacent string
// literals concatenated, single or double quotes, Python's unescaping (octal and hex escapes are
// bytes, the result is decoded as UTF-8; unknown escapes keep their backslash; \u keeps its
// text in lower case), enums as identifiers, numbers as written. It is enough to read the task
// id, vocabulary and instruction-listener transformations; the full Task schema is Part C.

// TPMessage is a parsed text-format message: its fields in file order.
type TPMessage struct {
	Fields []TPField
}

// TPField is one field occurrence. Exactly one of Msg and Value is set.
type TPField struct {
	Name  string
	Msg   *TPMessage
	Value *TPValue
	Line  int
}

// TPValue is a scalar: a decoded string (Kind 's'), an identifier (enum/bool, 'i') or a number
// as written ('n').
type TPValue struct {
	Kind byte
	Text string
}

// All returns the fields with a name (a repeated field's elements).
func (m *TPMessage) All(name string) []TPField {
	var out []TPField
	for _, f := range m.Fields {
		if f.Name == name {
			out = append(out, f)
		}
	}
	return out
}

// Msg returns the last sub-message of a name (proto merge of singular fields), or nil.
func (m *TPMessage) Msg(name string) *TPMessage {
	var out *TPMessage
	for _, f := range m.Fields {
		if f.Name == name && f.Msg != nil {
			out = f.Msg
		}
	}
	return out
}

// Strings returns the string values of a repeated string field.
func (m *TPMessage) Strings(name string) []string {
	var out []string
	for _, f := range m.Fields {
		if f.Name == name && f.Value != nil {
			out = append(out, f.Value.Text)
		}
	}
	return out
}

// String returns the last value of a scalar field ("" when absent).
func (m *TPMessage) String(name string) string {
	s := m.Strings(name)
	if len(s) == 0 {
		return ""
	}
	return s[len(s)-1]
}

// TextprotoError locates a syntax error.
type TextprotoError struct {
	File      string
	Line, Col int
	Msg       string
}

func (e *TextprotoError) Error() string {
	return fmt.Sprintf("%s:%d:%d: %s", e.File, e.Line, e.Col, e.Msg)
}

type tpTok struct {
	kind      byte // 'i' ident, 's' string, 'n' number, 'p' punctuation, 0 EOF
	text      string
	line, col int
}

type tpLexer struct {
	name      string
	src       string
	pos       int
	line, col int
	peeked    *tpTok
}

func (l *tpLexer) errAt(line, col int, format string, a ...any) error {
	return &TextprotoError{File: l.name, Line: line, Col: col, Msg: fmt.Sprintf(format, a...)}
}

func (l *tpLexer) advance(n int) {
	for i := 0; i < n; i++ {
		if l.src[l.pos] == '\n' {
			l.line++
			l.col = 1
		} else {
			l.col++
		}
		l.pos++
	}
}

func (l *tpLexer) peek() (tpTok, error) {
	if l.peeked != nil {
		return *l.peeked, nil
	}
	t, err := l.lex()
	if err != nil {
		return t, err
	}
	l.peeked = &t
	return t, nil
}

func (l *tpLexer) next() (tpTok, error) {
	if l.peeked != nil {
		t := *l.peeked
		l.peeked = nil
		return t, nil
	}
	return l.lex()
}

func isIdentStart(c byte) bool {
	return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')
}

func isIdentChar(c byte) bool { return isIdentStart(c) || (c >= '0' && c <= '9') }

func (l *tpLexer) lex() (tpTok, error) {
	for l.pos < len(l.src) {
		c := l.src[l.pos]
		if c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v' {
			l.advance(1)
			continue
		}
		if c == '#' {
			for l.pos < len(l.src) && l.src[l.pos] != '\n' {
				l.advance(1)
			}
			continue
		}
		break
	}
	if l.pos >= len(l.src) {
		return tpTok{line: l.line, col: l.col}, nil
	}
	line, col := l.line, l.col
	c := l.src[l.pos]
	switch {
	case strings.IndexByte("{}[]<>:,;/.", c) >= 0 && !(c == '.' && l.pos+1 < len(l.src) && l.src[l.pos+1] >= '0' && l.src[l.pos+1] <= '9'):
		l.advance(1)
		return tpTok{kind: 'p', text: string(c), line: line, col: col}, nil
	case c == '"' || c == '\'':
		var sb strings.Builder
		for {
			s, err := l.quoted()
			if err != nil {
				return tpTok{}, err
			}
			sb.WriteString(s)
			// adjacent literals concatenate
			save := *l
			saveLine, saveCol, savePos := l.line, l.col, l.pos
			for l.pos < len(l.src) && strings.IndexByte(" \t\r\n\f\v", l.src[l.pos]) >= 0 {
				l.advance(1)
			}
			if l.pos < len(l.src) && (l.src[l.pos] == '"' || l.src[l.pos] == '\'') {
				continue
			}
			*l = save
			l.line, l.col, l.pos = saveLine, saveCol, savePos
			break
		}
		return tpTok{kind: 's', text: sb.String(), line: line, col: col}, nil
	case isIdentStart(c):
		start := l.pos
		for l.pos < len(l.src) && isIdentChar(l.src[l.pos]) {
			l.advance(1)
		}
		return tpTok{kind: 'i', text: l.src[start:l.pos], line: line, col: col}, nil
	case c == '-' || c == '+' || c == '.' || (c >= '0' && c <= '9'):
		start := l.pos
		l.advance(1)
		for l.pos < len(l.src) && (isIdentChar(l.src[l.pos]) || l.src[l.pos] == '.' ||
			((l.src[l.pos] == '-' || l.src[l.pos] == '+') && (l.src[l.pos-1] == 'e' || l.src[l.pos-1] == 'E'))) {
			l.advance(1)
		}
		return tpTok{kind: 'n', text: l.src[start:l.pos], line: line, col: col}, nil
	}
	return tpTok{}, l.errAt(line, col, "unexpected character %q", c)
}

// quoted reads one quoted literal at l.pos and returns its decoded text.
func (l *tpLexer) quoted() (string, error) {
	line, col := l.line, l.col
	q := l.src[l.pos]
	l.advance(1)
	var raw []byte
	for {
		if l.pos >= len(l.src) || l.src[l.pos] == '\n' {
			return "", l.errAt(line, col, "unterminated string")
		}
		c := l.src[l.pos]
		if c == q {
			l.advance(1)
			break
		}
		if c == '\\' {
			if l.pos+1 >= len(l.src) {
				return "", l.errAt(line, col, "unterminated string")
			}
			e := l.src[l.pos+1]
			switch e {
			case 'n':
				raw = append(raw, '\n')
			case 't':
				raw = append(raw, '\t')
			case 'r':
				raw = append(raw, '\r')
			case 'a':
				raw = append(raw, 7)
			case 'b':
				raw = append(raw, 8)
			case 'f':
				raw = append(raw, 12)
			case 'v':
				raw = append(raw, 11)
			case '"', '\'', '\\':
				raw = append(raw, e)
			case 'x', 'X':
				j := l.pos + 2
				for j < len(l.src) && j < l.pos+4 && isHex(l.src[j]) {
					j++
				}
				if j == l.pos+2 {
					raw = append(raw, '\\', e)
					break
				}
				v, _ := strconv.ParseUint(l.src[l.pos+2:j], 16, 8)
				raw = append(raw, byte(v))
				l.advance(j - l.pos)
				continue
			case 'u', 'U':
				// kept as literal text in lower case (Python's behaviour, spec §C.8)
				n := 4
				if e == 'U' {
					n = 8
				}
				j := l.pos + 2
				for j < len(l.src) && j < l.pos+2+n && isHex(l.src[j]) {
					j++
				}
				raw = append(raw, strings.ToLower(l.src[l.pos:j])...)
				l.advance(j - l.pos)
				continue
			default:
				if e >= '0' && e <= '7' {
					j := l.pos + 1
					for j < len(l.src) && j < l.pos+4 && l.src[j] >= '0' && l.src[j] <= '7' {
						j++
					}
					v, _ := strconv.ParseUint(l.src[l.pos+1:j], 8, 16)
					raw = append(raw, byte(v))
					l.advance(j - l.pos)
					continue
				}
				if e == '\n' {
					return "", l.errAt(line, col, "unterminated string")
				}
				// unknown escape: the backslash stays
				raw = append(raw, '\\')
				l.advance(1)
				continue
			}
			l.advance(2)
			continue
		}
		raw = append(raw, c)
		l.advance(1)
	}
	if !utf8.Valid(raw) {
		return "", l.errAt(line, col, "string is not valid UTF-8 after unescaping")
	}
	return string(raw), nil
}

func isHex(c byte) bool {
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')
}

// ParseTextproto parses text-format data. name is used in error messages.
func ParseTextproto(name string, src []byte) (*TPMessage, error) {
	if !utf8.Valid(src) {
		return nil, &TextprotoError{File: name, Line: 1, Col: 1, Msg: "file is not valid UTF-8"}
	}
	l := &tpLexer{name: name, src: string(src), line: 1, col: 1}
	m, err := l.message("")
	if err != nil {
		return nil, err
	}
	return m, nil
}

// ReadTextproto parses a text-format file.
func ReadTextproto(path string) (*TPMessage, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return ParseTextproto(path, b)
}

const tpMaxDepth = 100

func (l *tpLexer) message(end string) (*TPMessage, error) {
	return l.messageDepth(end, 0)
}

func (l *tpLexer) messageDepth(end string, depth int) (*TPMessage, error) {
	if depth > tpMaxDepth {
		return nil, l.errAt(l.line, l.col, "message nesting too deep")
	}
	m := &TPMessage{}
	for {
		t, err := l.next()
		if err != nil {
			return nil, err
		}
		if t.kind == 0 {
			if end != "" {
				return nil, l.errAt(t.line, t.col, "expected %q, got end of file", end)
			}
			return m, nil
		}
		if t.kind == 'p' && t.text == end && end != "" {
			return m, nil
		}
		var name string
		switch {
		case t.kind == 'i':
			name = t.text
		case t.kind == 'p' && t.text == "[":
			// extension or Any type URL: [a.b.c] or [type.googleapis.com/x.Y]
			var sb strings.Builder
			for {
				x, err := l.next()
				if err != nil {
					return nil, err
				}
				if x.kind == 0 {
					return nil, l.errAt(t.line, t.col, "unterminated extension name")
				}
				if x.kind == 'p' && x.text == "]" {
					break
				}
				sb.WriteString(x.text)
			}
			name = "[" + sb.String() + "]"
		default:
			return nil, l.errAt(t.line, t.col, "expected a field name, got %q", t.text)
		}
		colon := false
		nt, err := l.peek()
		if err != nil {
			return nil, err
		}
		if nt.kind == 'p' && nt.text == ":" {
			colon = true
			l.next()
			if nt, err = l.peek(); err != nil {
				return nil, err
			}
		}
		switch {
		case nt.kind == 'p' && (nt.text == "{" || nt.text == "<"):
			l.next()
			closeTok := "}"
			if nt.text == "<" {
				closeTok = ">"
			}
			sub, err := l.messageDepth(closeTok, depth+1)
			if err != nil {
				return nil, err
			}
			m.Fields = append(m.Fields, TPField{Name: name, Msg: sub, Line: t.line})
		case nt.kind == 'p' && nt.text == "[":
			if !colon {
				return nil, l.errAt(nt.line, nt.col, "expected ':' before a list")
			}
			l.next()
			first := true
			for {
				x, err := l.peek()
				if err != nil {
					return nil, err
				}
				if x.kind == 'p' && x.text == "]" {
					l.next()
					break
				}
				if !first {
					if x.kind != 'p' || x.text != "," {
						return nil, l.errAt(x.line, x.col, "expected ',' or ']' in list")
					}
					l.next()
					if x, err = l.peek(); err != nil {
						return nil, err
					}
				}
				first = false
				if x.kind == 'p' && (x.text == "{" || x.text == "<") {
					l.next()
					closeTok := "}"
					if x.text == "<" {
						closeTok = ">"
					}
					sub, err := l.messageDepth(closeTok, depth+1)
					if err != nil {
						return nil, err
					}
					m.Fields = append(m.Fields, TPField{Name: name, Msg: sub, Line: x.line})
					continue
				}
				v, err := l.scalar()
				if err != nil {
					return nil, err
				}
				m.Fields = append(m.Fields, TPField{Name: name, Value: v, Line: x.line})
			}
		default:
			if !colon {
				return nil, l.errAt(nt.line, nt.col, "expected ':' after field %q", name)
			}
			v, err := l.scalar()
			if err != nil {
				return nil, err
			}
			m.Fields = append(m.Fields, TPField{Name: name, Value: v, Line: t.line})
		}
		// optional separator
		if s, err := l.peek(); err == nil && s.kind == 'p' && (s.text == "," || s.text == ";") {
			l.next()
		} else if err != nil {
			return nil, err
		}
	}
}

func (l *tpLexer) scalar() (*TPValue, error) {
	t, err := l.next()
	if err != nil {
		return nil, err
	}
	switch t.kind {
	case 's':
		return &TPValue{Kind: 's', Text: t.text}, nil
	case 'i':
		return &TPValue{Kind: 'i', Text: t.text}, nil
	case 'n':
		txt := t.text
		if txt == "-" || txt == "+" {
			// "- inf" or "-nan"-like forms: a sign followed by an identifier
			x, err := l.next()
			if err != nil {
				return nil, err
			}
			if x.kind != 'i' && x.kind != 'n' {
				return nil, l.errAt(t.line, t.col, "expected a number after %q", txt)
			}
			txt += x.text
		}
		return &TPValue{Kind: 'n', Text: txt}, nil
	case 0:
		return nil, l.errAt(t.line, t.col, "expected a value, got end of file")
	}
	return nil, l.errAt(t.line, t.col, "expected a value, got %q", t.text)
}

// TaskDef is what the pickle tools need of a task definition.
type TaskDef struct {
	ID         string
	Vocabulary []string
	Msg        *TPMessage
}

// ReadTaskDef reads a task definition textproto.
func ReadTaskDef(path string) (*TaskDef, error) {
	m, err := ReadTextproto(path)
	if err != nil {
		return nil, err
	}
	return &TaskDef{ID: m.String("id"), Vocabulary: m.Strings("vocabulary"), Msg: m}, nil
}

// InstructionOptions computes the instruction options of a task definition (spec §B.3 step 4):
// for each entry of event_slots.instruction_listener.events that is a nested slot with at least
// one child event, the value of y after its first transformation. Options are shared objects:
// records set to the same option refer to the same value (as in Python).
func (td *TaskDef) InstructionOptions() ([]any, error) {
	slots := td.Msg.Msg("event_slots")
	if slots == nil {
		return nil, nil
	}
	il := slots.Msg("instruction_listener")
	if il == nil {
		return nil, nil
	}
	var out []any
	for _, e := range il.All("events") {
		if e.Msg == nil {
			continue
		}
		nested := e.Msg.Msg("event")
		if nested == nil || len(nested.All("events")) == 0 {
			continue
		}
		tr := nested.Strings("transformation")
		if len(tr) == 0 {
			return nil, fmt.Errorf("%s: instruction event at line %d has no transformation: %w", td.ID, e.Line, indexError())
		}
		v, err := EvalTransformation(tr[0])
		if err != nil {
			return nil, fmt.Errorf("%s: instruction transformation %q: %w", td.ID, tr[0], err)
		}
		out = append(out, v)
	}
	return out, nil
}

// ErrUnsupportedPython is returned for transformations beyond the supported Python subset.
var ErrUnsupportedPython = errors.New("unsupported Python expression (only literals and simple list comprehensions over string methods are evaluated)")
