package evaluation

import (
	"bytes"
	"cmp"
	"fmt"
	"io"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"
	"unsafe"
)

// A bundle of one long line is written and read without copies of the whole: its JSON goes out
// in parts of about a set size (WriteBundleJSON), and a string with escapes is decoded once
// into bytes of its own (unquoteJSON), not into a buffer that is then copied into a string.

// unquoteJSON decodes the body of a valid JSON string (between its quotes) as json.Unmarshal
// does: escapes, surrogate pairs (a lone surrogate becomes U+FFFD) and invalid UTF-8 (each bad
// byte becomes U+FFFD). ok is false for what is not valid (an escape cut short, a control
// character, a bare quote): the caller lets json.Unmarshal say why.
func unquoteJSON(body []byte) (s string, ok bool) {
	out, ok := appendUnquoted(make([]byte, 0, len(body)), body) // escapes only shrink; bad bytes (rare) grow it by append
	return unsafe.String(unsafe.SliceData(out), len(out)), ok
}

// appendUnquoted appends what unquoteJSON decodes to out.
func appendUnquoted(out, body []byte) ([]byte, bool) {
	for r := 0; r < len(body); {
		c := body[r]
		switch {
		case c == '\\':
			if r+1 >= len(body) {
				return out, false
			}
			switch e := body[r+1]; e {
			case '"', '\\', '/':
				out = append(out, e)
				r += 2
			case 'b':
				out, r = append(out, '\b'), r+2
			case 'f':
				out, r = append(out, '\f'), r+2
			case 'n':
				out, r = append(out, '\n'), r+2
			case 'r':
				out, r = append(out, '\r'), r+2
			case 't':
				out, r = append(out, '\t'), r+2
			case 'u':
				rr := hex4(body[r+2:])
				if rr < 0 {
					return out, false
				}
				r += 6
				if utf16.IsSurrogate(rr) {
					if r+1 < len(body) && body[r] == '\\' && body[r+1] == 'u' {
						if rr1 := hex4(body[r+2:]); rr1 >= 0 {
							if dec := utf16.DecodeRune(rr, rr1); dec != unicode.ReplacementChar {
								out = utf8.AppendRune(out, dec)
								r += 6
								continue
							}
						}
					}
					rr = unicode.ReplacementChar
				}
				out = utf8.AppendRune(out, rr)
			default:
				return out, false
			}
		case c == '"' || c < ' ':
			return out, false
		case c < utf8.RuneSelf:
			out = append(out, c)
			r++
		default:
			rr, size := utf8.DecodeRune(body[r:])
			if rr == utf8.RuneError && size == 1 {
				out = utf8.AppendRune(out, unicode.ReplacementChar)
			} else {
				out = append(out, body[r:r+size]...)
			}
			r += size
		}
	}
	return out, true
}

// hex4 reads the four hex digits of a \u escape, -1 when they are not there.
func hex4(b []byte) rune {
	if len(b) < 4 {
		return -1
	}
	var r rune
	for _, c := range b[:4] {
		switch {
		case '0' <= c && c <= '9':
			c -= '0'
		case 'a' <= c && c <= 'f':
			c = c - 'a' + 10
		case 'A' <= c && c <= 'F':
			c = c - 'A' + 10
		default:
			return -1
		}
		r = r*16 + rune(c)
	}
	return r
}

// BundlePartSize is about the size of the parts WriteBundleJSON writes.
const BundlePartSize = 1 << 20

// WriteBundleJSON writes a bundle as AppendBundleJSON encodes it (the same bytes), in parts of
// about partSize bytes (a long string is cut between characters), each given to w as it is
// full: at no time is the whole JSON held. Every part ends between two characters, so each is
// valid UTF-8 on its own.
func WriteBundleJSON(w io.Writer, bundle Bundle, partSize int) error {
	e := bundleEncoder{w: w, size: max(partSize, 1), seg: max(partSize/8, 1)}
	// grown by append as needed: most bundles are a few kB, a part at most about
	// size+6*seg (a piece of a string all control characters)
	e.buf = make([]byte, 0, min(e.size+e.seg*6+64, 4096))
	e.raw(`{"data":[`)
	for i, dp := range bundle.Datapoints {
		if i > 0 {
			e.raw(",")
		}
		e.datapoint(dp)
	}
	e.raw("]}")
	if e.err == nil && len(e.buf) > 0 {
		_, e.err = w.Write(e.buf)
	}
	return e.err
}

// bundleEncoder writes JSON into buf and hands buf to w whenever it holds size bytes.
type bundleEncoder struct {
	w       io.Writer
	buf     []byte
	scratch []byte // a piece of a string decoded (strSpan)
	size    int    // a part's size
	seg     int    // the longest piece of a string encoded at once
	err     error
}

func (e *bundleEncoder) flush() {
	if len(e.buf) < e.size || e.err != nil {
		return
	}
	_, e.err = e.w.Write(e.buf)
	e.buf = e.buf[:0]
}

func (e *bundleEncoder) raw(s string) {
	e.buf = append(e.buf, s...)
	e.flush()
}

// turnsFromLine writes the turns of a list still in the line (checked when it was read), a
// turn at a time, each string transcoded from its span a piece at a time (strSpan): a 100 MB
// text with escapes is never decoded whole.
func (e *bundleEncoder) turnsFromLine(line []byte, key string) {
	var partsBuf [5][]byte
	b := bytes.TrimSpace(line)
	for i, j := 0, skipBlank(b, 1); j < len(b) && b[j] != ']'; i++ {
		end := skipJSONValue(b, j)
		parts, _ := appendJSONElements(partsBuf[:0], b[j:end])
		if j = skipBlank(b, end); j < len(b) && b[j] == ',' {
			j = skipBlank(b, j+1)
		}
		if len(parts) != 2 && len(parts) != 4 {
			e.err = cmp.Or(e.err, fmt.Errorf("%s[%d]: %d elements", key, i, len(parts))) // checked when read
			return
		}
		if i > 0 {
			e.raw(",")
		}
		e.raw("[")
		e.strSpan(parts[0])
		e.raw(",")
		e.strSpan(parts[1])
		if len(parts) == 4 {
			truth, err := ParseTruth(bytes.Clone(parts[2]))
			if err != nil {
				e.err = cmp.Or(e.err, err)
				return
			}
			tb, _ := truth.MarshalJSON()
			e.raw(",")
			e.buf = appendCompact(e.buf, tb)
			e.raw(",")
			if isNull(parts[3]) {
				e.raw("null")
			} else {
				e.strSpan(parts[3])
			}
		}
		e.raw("]")
	}
}

// strSpan writes the JSON string at span (valid JSON) as str writes it decoded: a plain one
// as it is, one with escapes or bad bytes decoded and written a piece of about seg bytes at a
// time, cut where a piece decodes as it does inside the whole (not inside an escape, not
// between the two escapes of a surrogate pair, before a byte that starts a character).
func (e *bundleEncoder) strSpan(span []byte) {
	body := span[1 : len(span)-1]
	if bytes.IndexByte(body, '\\') < 0 && utf8.Valid(body) {
		e.str(unsafe.String(unsafe.SliceData(body), len(body)))
		return
	}
	e.buf = append(e.buf, '"')
	for start := 0; start < len(body); {
		i, highSurrogate := start, false
		for i < len(body) && (i-start < e.seg || highSurrogate || !utf8.RuneStart(body[i])) {
			if body[i] == '\\' && i+1 < len(body) && body[i+1] == 'u' {
				r := hex4(body[i+2:])
				highSurrogate = 0xd800 <= r && r < 0xdc00
				i += 6
			} else if body[i] == '\\' {
				highSurrogate = false
				i += 2
			} else {
				highSurrogate = false
				i++
			}
		}
		i = min(i, len(body))
		var ok bool
		e.scratch, ok = appendUnquoted(e.scratch[:0], body[start:i]) // one buffer for every piece
		piece := unsafe.String(unsafe.SliceData(e.scratch), len(e.scratch))
		if !ok {
			e.err = cmp.Or(e.err, fmt.Errorf("a string that does not decode: %.40q", body[start:i]))
			return
		}
		if need := len(e.buf) + 6*len(piece) + 2; need > cap(e.buf) {
			e.buf = append(make([]byte, 0, max(need, e.size+e.seg*6+64)), e.buf...)
		}
		e.buf = appendJSONStringBody(e.buf, piece)
		e.flush()
		start = i
	}
	e.buf = append(e.buf, '"')
	e.flush()
}

// str writes s quoted as appendJSONString does, a piece of about seg bytes at a time, cut
// before a byte that starts a character (so a piece decodes as it does inside the whole).
func (e *bundleEncoder) str(s string) {
	e.buf = append(e.buf, '"')
	for len(s) > 0 {
		n := min(e.seg, len(s))
		for n < len(s) && !utf8.RuneStart(s[n]) {
			n++
		}
		if need := len(e.buf) + 6*n + 2; need > cap(e.buf) { // grown once to a part's room
			e.buf = append(make([]byte, 0, max(need, e.size+e.seg*6+64)), e.buf...)
		}
		e.buf = appendJSONStringBody(e.buf, s[:n])
		s = s[n:]
		e.flush()
	}
	e.buf = append(e.buf, '"')
	e.flush()
}

func (e *bundleEncoder) datapoint(dp Datapoint) {
	e.raw(`{"dialogue_id":`)
	e.str(dp.DialogueID)
	if dp.OriginWorkerID != "" {
		e.raw(`,"origin_worker_id":`)
		e.str(dp.OriginWorkerID)
	}
	e.raw(`,"group_id":`)
	e.str(dp.GroupID)
	e.raw(`,"annotation_tasks":[`)
	for i, t := range dp.AnnotationTasks {
		if i > 0 {
			e.raw(",")
		}
		e.str(t)
	}
	e.raw(`],"turns":`)
	e.turnsOf(dp.Turns, dp.turnsLine, "turns")
	if dp.hasTurns2() {
		e.raw(`,"turns2":`)
		e.turnsOf(dp.Turns2, dp.turns2Line, "turns2")
	}
	if dp.BotPersona != nil {
		e.raw(`,"bot_persona":`)
		e.buf = appendCompact(e.buf, dp.BotPersona)
		e.flush()
	}
	e.raw("}")
}

// turnsOf writes a list of turns: turns, or those still in the line (line), decoded one at a
// time.
func (e *bundleEncoder) turnsOf(turns []Turn, line []byte, key string) {
	e.raw("[")
	first := true
	each := func(t Turn) {
		if !first {
			e.raw(",")
		}
		first = false
		e.turn(t)
	}
	if line != nil {
		e.turnsFromLine(line, key)
	} else {
		for _, t := range turns {
			each(t)
		}
	}
	e.raw("]")
}

func (e *bundleEncoder) turn(t Turn) {
	e.raw("[")
	e.str(t.Speaker)
	e.raw(",")
	e.str(t.Text)
	if t.Truth != nil {
		tb, _ := t.Truth.MarshalJSON()
		e.raw(",")
		e.buf = appendCompact(e.buf, tb)
		e.raw(",")
		if t.Explanation != nil {
			e.str(*t.Explanation)
		} else {
			e.raw("null")
		}
	}
	e.raw("]")
}
