package odyssey

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// The converter writes its files with json.dump(obj, f, indent=4, ensure_ascii=False): members
// and items on lines of their own indented by four spaces, ": " after keys, empty lists and
// objects as [] and {}, text unescaped except for the quote, the backslash and control
// characters, and numbers as Python prints the int or float json.load makes of them. The
// writers here write JSON the same way, so that our files match the original's byte for byte
// where the values do.

// pyWriter is what the Python-style writers write to (bytes.Buffer, bufio.Writer).
type pyWriter interface {
	io.Writer
	io.ByteWriter
	io.StringWriter
}

// writePyRaw writes a JSON value as json.dump does (above), nested depth levels deep.
func writePyRaw(b pyWriter, raw []byte, depth int) error {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	return pyIndentValue(b, dec, depth)
}

func pyIndentValue(b pyWriter, dec *json.Decoder, depth int) error {
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	switch t := tok.(type) {
	case json.Delim:
		closing := byte(']')
		if t == '{' {
			closing = '}'
		}
		b.WriteByte(byte(t))
		n := 0
		for dec.More() {
			if n > 0 {
				b.WriteByte(',')
			}
			n++
			b.WriteByte('\n')
			b.WriteString(strings.Repeat("    ", depth+1))
			if t == '{' {
				k, err := dec.Token()
				if err != nil {
					return err
				}
				writePyJSONString(b, k.(string))
				b.WriteString(": ")
			}
			if err := pyIndentValue(b, dec, depth+1); err != nil {
				return err
			}
		}
		if _, err := dec.Token(); err != nil { // the closing delimiter
			return err
		}
		if n > 0 {
			b.WriteByte('\n')
			b.WriteString(strings.Repeat("    ", depth))
		}
		b.WriteByte(closing)
	case string:
		writePyJSONString(b, t)
	case json.Number:
		s := pyNumberRepr(t)
		switch s {
		case "inf":
			s = "Infinity"
		case "-inf":
			s = "-Infinity"
		}
		b.WriteString(s)
	case bool:
		b.WriteString(strconv.FormatBool(t))
	case nil:
		b.WriteString("null")
	default:
		return fmt.Errorf("unexpected JSON token %v", tok)
	}
	return nil
}

// writePyJSONString writes s as json.dumps(s, ensure_ascii=False) does: the quote, the
// backslash and control characters escaped, everything else as it is.
func writePyJSONString(b pyWriter, s string) {
	b.WriteByte('"')
	start := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' {
			continue
		}
		b.WriteString(s[start:i])
		start = i + 1
		if e := pyShortEscape(rune(c)); e != "" {
			b.WriteString(e)
		} else {
			fmt.Fprintf(b, `\u%04x`, c)
		}
	}
	b.WriteString(s[start:])
	b.WriteByte('"')
}
