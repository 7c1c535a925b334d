package odyssey

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// HistoryIndex is the converter's history index (make_his_idx, his_index.json): for every image
// of the training and test files, the paths of the screenshots before it in its episode. Images
// keep the order they were first met in.
type HistoryIndex struct {
	images  []string
	history map[string][]string
	from    map[string]string // the file an image was first met in
	intern  map[string]string
}

// NewHistoryIndex makes an empty index.
func NewHistoryIndex() *HistoryIndex {
	return &HistoryIndex{history: map[string][]string{}, from: map[string]string{}, intern: map[string]string{}}
}

// Len is the number of images in the index.
func (x *HistoryIndex) Len() int { return len(x.images) }

// History fields of the converter's files: "history" in training chats, "history_screenshot"
// in test records.
const (
	HistoryFieldTrain = "history"
	HistoryFieldTest  = "history_screenshot"
)

// AddReader adds the records of one training or test file (a JSON list of records with "image"
// and the history field, a Python list's str()), as make_his_idx reads them, one record at a
// time. An image met before with another history is an error, as the original's assertion is;
// so is a file that is not such a list.
func (x *HistoryIndex) AddReader(file string, r io.Reader, field string) error {
	dec := json.NewDecoder(bufio.NewReaderSize(r, 1<<16))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('[') {
		return fmt.Errorf("%s: not a list of records (%v)", file, orText(err, "it does not start with ["))
	}
	for i := 0; dec.More(); i++ {
		var rec map[string]json.RawMessage
		if err := dec.Decode(&rec); err != nil {
			return fmt.Errorf("%s: record %d: %w", file, i, err)
		}
		img, ok := stringField(rec["image"])
		if !ok {
			return fmt.Errorf("%s: record %d: no \"image\" text", file, i)
		}
		hist, ok := stringField(rec[field])
		if !ok {
			return fmt.Errorf("%s: record %d: no %q text", file, i, field)
		}
		h, err := ParsePyStrList(hist)
		if err != nil {
			return fmt.Errorf("%s: record %d: %s: %w", file, i, field, err)
		}
		for j := range h {
			h[j] = x.interned(h[j])
		}
		if err := x.Add(x.interned(img), h, file); err != nil {
			return fmt.Errorf("%s: record %d: %w", file, i, err)
		}
	}
	if _, err := dec.Token(); err != nil {
		return fmt.Errorf("%s: %w", file, err)
	}
	return nil
}

func orText(err error, text string) string {
	if err != nil {
		return err.Error()
	}
	return text
}

// interned returns the index's copy of s, so that the paths repeated in many histories are
// held once.
func (x *HistoryIndex) interned(s string) string {
	if v, ok := x.intern[s]; ok {
		return v
	}
	x.intern[s] = s
	return s
}

// stringField reads a record's field that must be a JSON string (absent, null or any other
// value says !ok: Python would write "null" where Go's decoding of null keeps "").
func stringField(raw json.RawMessage) (string, bool) {
	var v string
	if len(raw) == 0 || raw[0] != '"' || json.Unmarshal(raw, &v) != nil {
		return "", false
	}
	return v, true
}

// Add records an image's history; file names where it came from, for errors. history is kept,
// not copied.
func (x *HistoryIndex) Add(img string, history []string, file string) error {
	if prev, ok := x.history[img]; ok {
		if !slices.Equal(prev, history) {
			return fmt.Errorf("image %s has other earlier screenshots here (%d) than in %s (%d): the original's assertion fails",
				img, len(history), x.from[img], len(prev))
		}
		return nil
	}
	x.images = append(x.images, img)
	x.history[img] = history
	x.from[img] = file
	return nil
}

// WritePy writes the index as the original does: a JSON object, indented by four spaces, text
// not escaped to ASCII.
func (x *HistoryIndex) WritePy(w io.Writer) error {
	b := bufio.NewWriterSize(w, 1<<16)
	if len(x.images) == 0 {
		b.WriteString("{}")
		return b.Flush()
	}
	b.WriteString("{")
	for i, img := range x.images {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString("\n    ")
		writePyJSONString(b, img)
		b.WriteString(": ")
		h := x.history[img]
		if len(h) == 0 {
			b.WriteString("[]")
			continue
		}
		b.WriteByte('[')
		for j, p := range h {
			if j > 0 {
				b.WriteByte(',')
			}
			b.WriteString("\n        ")
			writePyJSONString(b, p)
		}
		b.WriteString("\n    ]")
	}
	b.WriteString("\n}")
	return b.Flush()
}

// ParsePyStrList reads Python's str() of a list of str ("['a', \"b'c\"]"), the form the
// converter writes histories in; PyStrList is its inverse.
func ParsePyStrList(s string) ([]string, error) {
	i := 0
	skip := func() {
		for i < len(s) && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r') {
			i++
		}
	}
	skip()
	if i >= len(s) || s[i] != '[' {
		return nil, errors.New("not a Python list: no [")
	}
	i++
	out := []string{}
	skip()
	if i < len(s) && s[i] == ']' {
		i++
		skip()
		if i != len(s) {
			return nil, fmt.Errorf("not a Python list: text after ] at %d", i)
		}
		return out, nil
	}
	for {
		skip()
		str, n, err := parsePyString(s[i:])
		if err != nil {
			return nil, fmt.Errorf("item %d at %d: %w", len(out), i, err)
		}
		out = append(out, str)
		i += n
		skip()
		if i >= len(s) {
			return nil, errors.New("not a Python list: no ]")
		}
		if s[i] == ']' {
			i++
			skip()
			if i != len(s) {
				return nil, fmt.Errorf("not a Python list: text after ] at %d", i)
			}
			return out, nil
		}
		if s[i] != ',' {
			return nil, fmt.Errorf("not a Python list: %q at %d", s[i], i)
		}
		i++
	}
}

// parsePyString reads one quoted Python str literal at the start of s (single or double quotes,
// the escapes repr writes and the other simple ones), returning it and the bytes read.
func parsePyString(s string) (string, int, error) {
	if len(s) == 0 || s[0] != '\'' && s[0] != '"' {
		return "", 0, errors.New("not a quoted string")
	}
	q := s[0]
	var b strings.Builder
	for i := 1; i < len(s); {
		c := s[i]
		switch {
		case c == q:
			return b.String(), i + 1, nil
		case c == '\n':
			return "", 0, errors.New("unterminated string")
		case c != '\\':
			_, size := utf8.DecodeRuneInString(s[i:])
			b.WriteString(s[i : i+size])
			i += size
			continue
		}
		if i+1 >= len(s) {
			break
		}
		e := s[i+1]
		i += 2
		switch e {
		case '\\', '\'', '"':
			b.WriteByte(e)
		case 'n':
			b.WriteByte('\n')
		case 't':
			b.WriteByte('\t')
		case 'r':
			b.WriteByte('\r')
		case 'a':
			b.WriteByte('\a')
		case 'b':
			b.WriteByte('\b')
		case 'f':
			b.WriteByte('\f')
		case 'v':
			b.WriteByte('\v')
		case '\n':
		case 'x', 'u', 'U':
			n := map[byte]int{'x': 2, 'u': 4, 'U': 8}[e]
			if i+n > len(s) {
				return "", 0, fmt.Errorf("truncated \\%c escape", e)
			}
			v, err := strconv.ParseUint(s[i:i+n], 16, 32)
			if err != nil || v > utf8.MaxRune {
				return "", 0, fmt.Errorf("bad \\%c escape %q", e, s[i:i+n])
			}
			b.WriteRune(rune(v))
			i += n
		default:
			if e >= '0' && e <= '7' {
				j := i - 1
				for j < len(s) && j < i+2 && s[j] >= '0' && s[j] <= '7' {
					j++
				}
				v, _ := strconv.ParseUint(s[i-1:j], 8, 32)
				b.WriteRune(rune(v))
				i = j
				continue
			}
			b.WriteByte('\\') // Python keeps an unknown escape as written
			b.WriteByte(e)
		}
	}
	return "", 0, errors.New("unterminated string")
}
