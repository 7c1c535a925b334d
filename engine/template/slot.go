package template

import (
	"fmt"
	"sort"
	"strings"
	"sync/atomic"
	"unicode/utf8"
)

// Modifier is one modifier of a slot as written.
type Modifier struct {
	// Name is the modifier name without the trailing "'".
	Name string
	// Each is true when the name is followed by "'": the modifier is applied to every
	// comma-separated piece of the value instead of the whole value.
	Each bool
	// Offset is the byte offset of the name in the parsed text (-1 when not from a text).
	Offset int
}

// String returns the modifier as written ("url_query'").
func (m Modifier) String() string {
	if m.Each {
		return m.Name + "'"
	}
	return m.Name
}

// Slot is one slot `<[modifier{,modifier}:]identifier>` found in a template.
type Slot struct {
	// Offset and End are the byte offsets of "<" and one past ">".
	Offset, End int
	// Line and Col locate "<": 1-based line, 1-based column counted in characters.
	Line, Col int
	// Identifier names the conf entry the slot reads.
	Identifier string
	// IdentOffset is the byte offset of the identifier.
	IdentOffset int
	// Modifiers as written, left to right (they are applied right to left).
	Modifiers []Modifier
}

// Text returns the slot's source text.
func (s Slot) Text(src string) string { return src[s.Offset:s.End] }

// String formats the slot as written.
func (s Slot) String() string {
	if len(s.Modifiers) == 0 {
		return "<" + s.Identifier + ">"
	}
	parts := make([]string, len(s.Modifiers))
	for i, m := range s.Modifiers {
		parts[i] = m.String()
	}
	return "<" + strings.Join(parts, ",") + ":" + s.Identifier + ">"
}

// readWord returns the end of the run of word characters (Python \w) starting at i.
func readWord(s string, i int) int {
	for i < len(s) {
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size <= 1 || !isPyWord(r) {
			break
		}
		i += size
	}
	return i
}

// matchSlot tries to match a slot at s[i] == '<'. It accepts exactly what the original's
// pattern <(?:(\w+'?(?:,\w+'?)*):)?(\w+)> accepts there.
func matchSlot(s string, i int) (Slot, bool) {
	var mods []Modifier
	j := i + 1
	for {
		k := readWord(s, j)
		if k == j || k >= len(s) {
			return Slot{}, false
		}
		if s[k] == '>' && mods == nil {
			return Slot{Offset: i, End: k + 1, Identifier: s[j:k], IdentOffset: j}, true
		}
		m := Modifier{Name: s[j:k], Offset: j}
		if s[k] == '\'' {
			m.Each = true
			k++
			if k >= len(s) {
				return Slot{}, false
			}
		}
		mods = append(mods, m)
		switch s[k] {
		case ',':
			j = k + 1
			continue
		case ':':
			e := readWord(s, k+1)
			if e == k+1 || e >= len(s) || s[e] != '>' {
				return Slot{}, false
			}
			return Slot{Offset: i, End: e + 1, Identifier: s[k+1 : e], IdentOffset: k + 1, Modifiers: mods}, true
		}
		return Slot{}, false
	}
}

// matchSlotNoQuote is the pattern init_conf.py uses: modifiers without the "'" suffix.
func matchSlotNoQuote(s string, i int) (Slot, bool) {
	sl, ok := matchSlot(s, i)
	if !ok {
		return sl, false
	}
	for _, m := range sl.Modifiers {
		if m.Each {
			return Slot{}, false
		}
	}
	return sl, true
}

// lineIndex converts byte offsets to 1-based line and character columns. Columns count
// characters from the line's start; checkpoints every checkpointBytes bytes keep that work
// small on long lines (a template on one line with 100k slots took minutes when every column
// was counted from the line's start).
type lineIndex struct {
	src    string
	starts []int
	// ckByte[k] is a rune boundary, ckCol[k] the number of characters between its line's
	// start and it; ckByte is increasing.
	ckByte, ckCol []int
}

// positionWork counts the bytes lineIndex.pos has counted characters in, over all indexes: a
// test checks that expanding a template stays linear in its size.
var positionWork atomic.Int64

const checkpointBytes = 64

func newLineIndex(src string) *lineIndex {
	li := &lineIndex{src: src, starts: []int{0}}
	col, next := 0, checkpointBytes
	for i := 0; i < len(src); {
		if i >= next {
			li.ckByte, li.ckCol = append(li.ckByte, i), append(li.ckCol, col)
			next = i + checkpointBytes
		}
		if src[i] == '\n' {
			li.starts = append(li.starts, i+1)
			col = 0
			i++
			continue
		}
		_, size := utf8.DecodeRuneInString(src[i:])
		i += size
		col++
	}
	return li
}

func (li *lineIndex) pos(off int) (line, col int) {
	lo, hi := 0, len(li.starts)-1
	for lo < hi {
		mid := (lo + hi + 1) / 2
		if li.starts[mid] <= off {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	from, base := li.starts[lo], 0
	if k := sort.SearchInts(li.ckByte, off+1) - 1; k >= 0 && li.ckByte[k] >= from {
		from, base = li.ckByte[k], li.ckCol[k]
	}
	positionWork.Add(int64(off - from))
	return lo + 1, base + utf8.RuneCountInString(li.src[from:off]) + 1
}

// scanSlots finds every slot of text, left to right, without overlaps.
func scanSlots(text string, match func(string, int) (Slot, bool), fn func(Slot)) {
	for i := 0; i < len(text); {
		k := strings.IndexByte(text[i:], '<')
		if k < 0 {
			return
		}
		i += k
		if sl, ok := match(text, i); ok {
			fn(sl)
			i = sl.End
		} else {
			i++
		}
	}
}

// ParseSlots returns every slot of a template text with its position, and diagnostics: errors
// for modifiers the original rejects (unknown names, "no_quote'"), and warnings for text that
// looks like a slot but is not one (left verbatim by the original) and for modifiers written
// to the left of no_quote (never applied).
func ParseSlots(text string) ([]Slot, []*SlotError) {
	li := newLineIndex(text)
	var slots []Slot
	var errs []*SlotError
	scanSlots(text, matchSlot, func(sl Slot) {
		sl.Line, sl.Col = li.pos(sl.Offset)
		slots = append(slots, sl)
		errs = append(errs, checkModifiers(sl, li)...)
	})
	errs = append(errs, nearMisses(text, li)...)
	sortErrors(errs)
	return slots, errs
}

// checkModifiers reports the modifier problems of one slot in application order.
func checkModifiers(sl Slot, li *lineIndex) []*SlotError {
	var errs []*SlotError
	stopped := false
	for k := len(sl.Modifiers) - 1; k >= 0; k-- {
		m := sl.Modifiers[k]
		line, col := li.pos(m.Offset)
		mk := func(cat Category, warn bool, msg, py string) *SlotError {
			return &SlotError{Category: cat, Line: line, Col: col, Offset: m.Offset, End: m.Offset + len(m.String()),
				Msg: msg, Python: py, Warning: warn}
		}
		if stopped {
			if _, ok := modifierFuncs[m.Name]; !ok || m.Name == "no_quote" {
				errs = append(errs, mk(CatUnknownModifier, true, fmt.Sprintf("modifier %q left of no_quote is never applied (and is not a known modifier)", m.String()), ""))
			} else {
				errs = append(errs, mk(CatUnknownModifier, true, fmt.Sprintf("modifier %q left of no_quote is never applied", m.String()), ""))
			}
			continue
		}
		if m.Name == "no_quote" && !m.Each {
			stopped = true
			continue
		}
		if _, err := lookupModifier(m.Name); err != nil {
			e := err.(*Error)
			errs = append(errs, mk(e.Category, false, e.Msg, e.Python))
		}
	}
	return errs
}

// nearMisses flags "<...>" runs made only of slot characters that contain ":" but do not match
// the grammar, e.g. "<lower: v>", "<lower::v>", "<:v>", "<lower:>".
func nearMisses(text string, li *lineIndex) []*SlotError {
	var errs []*SlotError
	for i := 0; i < len(text); i++ {
		if text[i] != '<' {
			continue
		}
		end := -1
		colon, word := false, false
		for j := i + 1; j < len(text); {
			r, size := utf8.DecodeRuneInString(text[j:])
			if r == '>' {
				end = j
				break
			}
			switch {
			case r == ':':
				colon = true
			case r == ',' || r == '\'' || r == ' ' || r == '\t':
			case isPyWord(r):
				word = true
			default:
				j = len(text)
				continue
			}
			j += size
		}
		if end < 0 || !colon || !word {
			continue
		}
		if _, ok := matchSlot(text, i); ok {
			continue
		}
		// a real slot inside the run (as in "<<v>>") is reported as a slot, not a miss
		inner := false
		for k := i + 1; k < end; k++ {
			if text[k] == '<' {
				inner = true
			}
		}
		if inner {
			continue
		}
		line, col := li.pos(i)
		errs = append(errs, &SlotError{Category: CatBadSlot, Line: line, Col: col, Offset: i, End: end + 1, Warning: true,
			Msg: fmt.Sprintf("%q is not a slot (syntax <[modifier{,modifier}:]identifier>, no spaces) and is kept as text", text[i:end+1])})
	}
	return errs
}

func sortErrors(errs []*SlotError) {
	// insertion sort by offset: lists are short and mostly ordered
	for i := 1; i < len(errs); i++ {
		for j := i; j > 0 && errs[j].Offset < errs[j-1].Offset; j-- {
			errs[j], errs[j-1] = errs[j-1], errs[j]
		}
	}
}

// ParseModifiers parses a modifier list as written in a slot ("regex_esc,regex_list'").
func ParseModifiers(s string) ([]Modifier, error) {
	if s == "" {
		return nil, nil
	}
	sl, ok := matchSlot("<"+s+":x>", 0)
	if !ok || sl.End != len(s)+4 {
		return nil, &Error{Category: CatBadSlot, Offset: -1, End: -1, Msg: fmt.Sprintf("bad modifier list %q", s)}
	}
	for i := range sl.Modifiers {
		sl.Modifiers[i].Offset = -1
	}
	return sl.Modifiers, nil
}

// Identifiers returns the identifiers of a template's slots in first-occurrence order.
func Identifiers(template string) []string {
	return identifiers(template, matchSlot)
}

func identifiers(template string, match func(string, int) (Slot, bool)) []string {
	seen := map[string]bool{}
	var ids []string
	scanSlots(template, match, func(sl Slot) {
		if !seen[sl.Identifier] {
			seen[sl.Identifier] = true
			ids = append(ids, sl.Identifier)
		}
	})
	return ids
}
