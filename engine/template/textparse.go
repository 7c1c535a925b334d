package template

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"
)

// A reader for the protobuf text format that accepts exactly what the Python protobuf library
// (4.21, used by the original) accepts for the Task schema, including its leniencies
// (specs/mobileenv.md §C.8): Python string unescaping, adjacent string concatenation, "#"
// comments, optional ":" before messages, "[...]" lists, ";" and "," separators, enum numbers,
// Python integer and float syntax.

type tokenizer struct {
	lines   []string
	lineNo  int // index of the current line
	line    string
	col     int // byte offset in line
	more    bool
	token   string
	tokLine int // 1-based
	// the token's line and byte offset in it; errorf turns them into a 1-based character
	// column (counting characters per token would make long lines quadratic)
	tokText string
	tokByte int
}

func newTokenizer(text string) *tokenizer {
	t := &tokenizer{lines: strings.Split(text, "\n"), lineNo: -1, more: true}
	t.nextToken()
	return t
}

func (t *tokenizer) popLine() {
	for t.col >= len(t.line) {
		t.lineNo++
		if t.lineNo >= len(t.lines) {
			t.line = ""
			t.more = false
			return
		}
		t.line = t.lines[t.lineNo]
		t.col = 0
	}
}

func (t *tokenizer) skipWhitespace() {
	for {
		t.popLine()
		if !t.more {
			return
		}
		r, size := utf8.DecodeRuneInString(t.line[t.col:])
		switch {
		case r == '#':
			t.col = len(t.line)
		case isPySpace(r) && !(r == utf8.RuneError && size == 1):
			t.col += size
		default:
			return
		}
	}
}

func isIdentStart(c byte) bool { return c == '_' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }
func isIdentChar(c byte) bool {
	return isIdentStart(c) || '0' <= c && c <= '9' || c == '+' || c == '-'
}
func isNumChar(c byte) bool { return isIdentChar(c) || c == '.' }

// matchToken returns the length of the token at s[0:] per the Python tokenizer's pattern.
func matchToken(s string) int {
	c := s[0]
	switch {
	case isIdentStart(c):
		n := 1
		for n < len(s) && isIdentChar(s[n]) {
			n++
		}
		return n
	case '0' <= c && c <= '9' || c == '+' || c == '-' || c == '.' && len(s) > 1 && '0' <= s[1] && s[1] <= '9':
		n := 1
		if c == '.' {
			n = 2
		}
		for n < len(s) && isNumChar(s[n]) {
			n++
		}
		return n
	case c == '"' || c == '\'':
		n := 1
		for n < len(s) {
			switch s[n] {
			case c:
				return n + 1
			case '\\':
				if n+1 >= len(s) {
					return n + 1 // a lone backslash at the end of the line
				}
				_, size := utf8.DecodeRuneInString(s[n+1:])
				n += 1 + size
			default:
				n++
			}
		}
		return n // unterminated: runs to the end of the line
	}
	_, size := utf8.DecodeRuneInString(s)
	return size
}

func (t *tokenizer) nextToken() {
	t.skipWhitespace()
	if !t.more {
		t.token = ""
		t.tokLine = len(t.lines)
		t.tokText, t.tokByte = "", 0
		return
	}
	n := matchToken(t.line[t.col:])
	t.token = t.line[t.col : t.col+n]
	t.tokLine = t.lineNo + 1
	t.tokText, t.tokByte = t.line, t.col
	t.col += n
}

func (t *tokenizer) atEnd() bool { return !t.more && t.token == "" }

func (t *tokenizer) errorf(format string, args ...any) *Error {
	col := utf8.RuneCountInString(t.tokText[:t.tokByte]) + 1
	return &Error{Category: CatUnparsableTextproto, Line: t.tokLine, Col: col, Offset: -1, End: -1,
		Msg: fmt.Sprintf(format, args...), Python: "google.protobuf.text_format.ParseError: " +
			fmt.Sprintf("%d:%d : ", t.tokLine, col) + fmt.Sprintf(format, args...)}
}

func (t *tokenizer) tryConsume(s string) bool {
	if t.token == s {
		t.nextToken()
		return true
	}
	return false
}

func (t *tokenizer) consume(s string) error {
	if !t.tryConsume(s) {
		return t.errorf("Expected %q.", s)
	}
	return nil
}

// parseTask parses a Task textproto.
func parseTask(text string) (*message, error) {
	m := newMessage(descTask)
	t := newTokenizer(text)
	for !t.atEnd() {
		if err := t.mergeField(m); err != nil {
			return nil, err
		}
	}
	return m, nil
}

func (t *tokenizer) mergeField(m *message) error {
	if t.token == "[" {
		return t.errorf("Extensions and Any type URLs are not supported by the Task schema.")
	}
	name := t.token
	if name == "" || !isIdentStart(name[0]) && !('0' <= name[0] && name[0] <= '9') {
		return t.errorf("Expected identifier or number, got %s.", name)
	}
	f := m.d.byName[name]
	if f == nil {
		return t.errorf("Message type %q has no field named %q.", m.d.name, name)
	}
	t.nextToken()
	if f.oneof != "" {
		if w := m.whichOneof(f.oneof); w != nil && w != f {
			return t.errorf("Field %q is specified along with field %q, another member of oneof %q for message type %q.",
				f.name, w.name, f.oneof, m.d.name)
		}
	}
	merge := t.mergeScalar
	if f.kind == kMessage {
		t.tryConsume(":")
		merge = t.mergeMessage
	} else if err := t.consume(":"); err != nil {
		return err
	}
	if f.repeated && t.tryConsume("[") {
		if !t.tryConsume("]") {
			for {
				if err := merge(m, f); err != nil {
					return err
				}
				if t.tryConsume("]") {
					break
				}
				if err := t.consume(","); err != nil {
					return err
				}
			}
		}
	} else if err := merge(m, f); err != nil {
		return err
	}
	if !t.tryConsume(",") {
		t.tryConsume(";")
	}
	return nil
}

func (t *tokenizer) mergeMessage(m *message, f *fieldDesc) error {
	end := "}"
	if t.tryConsume("<") {
		end = ">"
	} else if err := t.consume("{"); err != nil {
		return err
	}
	var sub *message
	if f.repeated {
		sub = newMessage(f.msg())
		m.appendMsg(f.number, sub)
	} else {
		if m.v[f.index] != nil {
			return t.errorf("Message type %q should not have multiple %q fields.", m.d.name, f.name)
		}
		sub = m.mutable(f.number)
	}
	for !t.tryConsume(end) {
		if t.atEnd() {
			return t.errorf("Expected %q.", end)
		}
		if err := t.mergeField(sub); err != nil {
			return err
		}
	}
	return nil
}

func (t *tokenizer) mergeScalar(m *message, f *fieldDesc) error {
	var v any
	var err error
	switch f.kind {
	case kString:
		v, err = t.consumeString()
	case kInt32:
		var n int64
		n, err = parsePyInt(t.token)
		if err == nil && (n < math.MinInt32 || n > math.MaxInt32) {
			err = fmt.Errorf("Value out of range: %d", n)
		}
		if err != nil {
			return t.errorf("%v", err)
		}
		v = int32(n)
		t.nextToken()
	case kFloat:
		var x float64
		x, err = parsePyFloatToken(t.token)
		if err != nil {
			return t.errorf("%v", err)
		}
		v = float32(x)
		t.nextToken()
	case kBool:
		switch t.token {
		case "true", "t", "1", "True":
			v = true
		case "false", "f", "0", "False":
			v = false
		default:
			return t.errorf("Expected \"true\" or \"false\".")
		}
		t.nextToken()
	case kEnum:
		var n int32
		n, err = parseEnumToken(f, t.token)
		if err != nil {
			return t.errorf("%v", err)
		}
		v = n
		t.nextToken()
	}
	if err != nil {
		return err
	}
	if f.repeated {
		i := f.index
		switch x := v.(type) {
		case string:
			l, _ := m.v[i].([]string)
			m.v[i] = append(l, x)
		case int32:
			l, _ := m.v[i].([]int32)
			m.v[i] = append(l, x)
		case float32:
			l, _ := m.v[i].([]float32)
			m.v[i] = append(l, x)
		case bool:
			l, _ := m.v[i].([]bool)
			m.v[i] = append(l, x)
		}
		return nil
	}
	if cur := m.v[f.index]; cur != nil && (f.hasPresence() || pyTruthy(cur)) {
		return t.errorf("Message type %q should not have multiple %q fields.", m.d.name, f.name)
	}
	m.setField(f, v)
	return nil
}

func pyTruthy(v any) bool {
	if x, ok := v.(float32); ok {
		return x != 0
	}
	return !isDefault(v)
}

func parseEnumToken(f *fieldDesc, tok string) (int32, error) {
	if n, err := parsePyIntC(tok, false); err == nil {
		if n < math.MinInt32 || n > math.MaxInt32 {
			return 0, fmt.Errorf("Value out of range: %d", n)
		}
		return int32(n), nil // proto3 enums are open
	}
	if n, ok := f.enum.byName(tok); ok {
		return n, nil
	}
	return 0, fmt.Errorf("Enum type %q has no value named %s.", f.enum.name, tok)
}

func (t *tokenizer) consumeString() (string, error) {
	if t.token == "" || (t.token[0] != '"' && t.token[0] != '\'') {
		return "", t.errorf("Expected string but found: %q", t.token)
	}
	var buf []byte
	for t.token != "" && (t.token[0] == '"' || t.token[0] == '\'') {
		tok := t.token
		if len(tok) < 2 || tok[len(tok)-1] != tok[0] {
			return "", t.errorf("String missing ending quote: %s", tok)
		}
		b, err := pyCUnescape(tok[1 : len(tok)-1])
		if err != nil {
			return "", t.errorf("%v", err)
		}
		buf = append(buf, b...)
		t.nextToken()
	}
	if !utf8.Valid(buf) {
		return "", t.errorf("Couldn't parse string: invalid UTF-8")
	}
	return string(buf), nil
}

func isHex(c byte) bool { return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F' }

// pyCUnescape is protobuf's CUnescape as Python runs it: single-digit \x escapes are padded,
// then the text is decoded with the unicode_escape codec and re-encoded with
// raw_unicode_escape, so that octal/hex escapes yield bytes, unknown escapes keep their
// backslash and \u escapes above U+00FF become the literal text \uxxxx.
func pyCUnescape(s string) ([]byte, error) {
	out := make([]byte, 0, len(s))
	for i := 0; i < len(s); {
		c := s[i]
		if c != '\\' {
			out = append(out, c)
			i++
			continue
		}
		if i+1 >= len(s) {
			return nil, fmt.Errorf("'unicodeescape' codec can't decode byte 0x5c in position %d: \\ at end of string", i)
		}
		e := s[i+1]
		i += 2
		switch e {
		case '\n':
		case '\\', '\'', '"':
			out = append(out, e)
		case 'a':
			out = append(out, 7)
		case 'b':
			out = append(out, 8)
		case 'f':
			out = append(out, 12)
		case 'n':
			out = append(out, 10)
		case 'r':
			out = append(out, 13)
		case 't':
			out = append(out, 9)
		case 'v':
			out = append(out, 11)
		case '0', '1', '2', '3', '4', '5', '6', '7':
			v := rune(e - '0')
			for k := 0; k < 2 && i < len(s) && '0' <= s[i] && s[i] <= '7'; k++ {
				v = v*8 + rune(s[i]-'0')
				i++
			}
			out = appendRawUnicodeEscape(out, v)
		case 'x', 'u', 'U':
			n := map[byte]int{'x': 2, 'u': 4, 'U': 8}[e]
			k := 0
			for k < n && i+k < len(s) && isHex(s[i+k]) {
				k++
			}
			if e == 'x' && k == 1 {
				// protobuf pads a single hex digit (\x4 → \x04)
				v, _ := strconv.ParseUint(s[i:i+1], 16, 32)
				out = append(out, byte(v))
				i++
				continue
			}
			if k < n {
				return nil, fmt.Errorf("'unicodeescape' codec can't decode bytes: truncated \\%cXX escape", e)
			}
			v, _ := strconv.ParseUint(s[i:i+n], 16, 32)
			i += n
			if v > 0x10FFFF {
				return nil, fmt.Errorf("'unicodeescape' codec can't decode bytes: illegal Unicode character")
			}
			out = appendRawUnicodeEscape(out, rune(v))
		case 'N':
			return nil, fmt.Errorf("'unicodeescape' codec: \\N{...} escapes are not supported")
		default:
			out = append(out, '\\', e)
		}
	}
	return out, nil
}

func appendRawUnicodeEscape(out []byte, v rune) []byte {
	switch {
	case v < 0x100:
		return append(out, byte(v))
	case v < 0x10000:
		return append(out, fmt.Sprintf("\\u%04x", v)...)
	}
	return append(out, fmt.Sprintf("\\U%08x", v)...)
}

// digitsWithUnderscores checks Python's digit-group syntax (single "_" between digits).
func digitsWithUnderscores(s string, isDigit func(byte) bool) bool {
	if s == "" || s[0] == '_' || s[len(s)-1] == '_' {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] == '_' {
			if s[i+1] == '_' {
				return false
			}
			continue
		}
		if !isDigit(s[i]) {
			return false
		}
	}
	return true
}

// parsePyInt parses like protobuf's _ParseAbstractInteger: C-style octal ("010", "-010"),
// otherwise Python's int(text, 0) (prefixes 0x/0o/0b, "_" between digits, no leading zeros).
func parsePyInt(orig string) (int64, error) { return parsePyIntC(orig, true) }

// parsePyIntC is parsePyInt with or without the C-octal rule (enum numbers use plain
// int(text, 0)).
func parsePyIntC(orig string, cOctal bool) (int64, error) {
	bad := fmt.Errorf("Couldn't parse integer: %s", orig)
	s := orig
	neg := false
	if strings.HasPrefix(s, "-") {
		neg, s = true, s[1:]
	} else if strings.HasPrefix(s, "+") {
		s = s[1:]
		if cOctal && len(s) > 1 && s[0] == '0' && isAllDigits(s) {
			return 0, bad // not C octal (no "+" there), and int() rejects leading zeros
		}
	}
	base, digits := 10, s
	switch {
	case cOctal && len(s) > 1 && s[0] == '0' && isAllDigits(s):
		base, digits = 8, s[1:] // C octal
	case len(s) > 1 && s[0] == '0':
		switch s[1] {
		case 'x', 'X':
			base = 16
		case 'o', 'O':
			base = 8
		case 'b', 'B':
			base = 2
		default:
			if digitsWithUnderscores(s, func(c byte) bool { return c == '0' }) {
				return 0, nil // "0_0"
			}
			return 0, bad
		}
		digits = strings.TrimPrefix(s[2:], "_")
	}
	isDigit := func(c byte) bool {
		switch base {
		case 16:
			return isHex(c)
		case 8:
			return '0' <= c && c <= '7'
		case 2:
			return c == '0' || c == '1'
		}
		return '0' <= c && c <= '9'
	}
	if !digitsWithUnderscores(digits, isDigit) {
		return 0, bad
	}
	u, err := strconv.ParseUint(strings.ReplaceAll(digits, "_", ""), base, 64)
	if err != nil || u > 1<<62 {
		u = 1 << 62 // far outside int32: reported as out of range
	}
	if neg {
		return -int64(u), nil
	}
	return int64(u), nil
}

func isAllDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}

// pyFloat parses like Python's float(str) for the characters a number token can hold.
func pyFloat(s string) (float64, bool) {
	t := s
	if t != "" && (t[0] == '+' || t[0] == '-') {
		t = t[1:]
	}
	switch strings.ToLower(t) {
	case "inf", "infinity":
		if s[0] == '-' {
			return math.Inf(-1), true
		}
		return math.Inf(1), true
	case "nan":
		return math.NaN(), true
	}
	mant, exp := t, ""
	if k := strings.IndexAny(t, "eE"); k >= 0 {
		mant, exp = t[:k], t[k+1:]
		if exp != "" && (exp[0] == '+' || exp[0] == '-') {
			exp = exp[1:]
		}
		if !digitsWithUnderscores(exp, func(c byte) bool { return '0' <= c && c <= '9' }) {
			return 0, false
		}
	}
	ip, fp, dot := strings.Cut(mant, ".")
	dig := func(c byte) bool { return '0' <= c && c <= '9' }
	if ip == "" && fp == "" {
		return 0, false
	}
	if ip != "" && !digitsWithUnderscores(ip, dig) || fp != "" && !digitsWithUnderscores(fp, dig) || !dot && ip == "" {
		return 0, false
	}
	v, err := strconv.ParseFloat(strings.ReplaceAll(s, "_", ""), 64)
	if err != nil {
		if ne, ok := err.(*strconv.NumError); ok && ne.Err == strconv.ErrRange {
			return v, true
		}
		return 0, false
	}
	return v, true
}

// parsePyFloatToken is protobuf's ParseFloat: float(text), then "inf"/"nan" spellings with an
// optional "f" suffix, then the text without trailing "f"s.
func parsePyFloatToken(text string) (float64, error) {
	if v, ok := pyFloat(text); ok {
		return v, nil
	}
	low := strings.ToLower(text)
	switch strings.TrimPrefix(low, "-") {
	case "inf", "inff", "infinity", "infinityf":
		if low[0] == '-' {
			return math.Inf(-1), nil
		}
		return math.Inf(1), nil
	}
	if low == "nan" || low == "nanf" {
		return math.NaN(), nil
	}
	if v, ok := pyFloat(strings.TrimRight(text, "f")); ok {
		return v, nil
	}
	return 0, fmt.Errorf("Couldn't parse float: %s", text)
}
