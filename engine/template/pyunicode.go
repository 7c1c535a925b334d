package template

import (
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"
)

// This file reproduces the few CPython 3.11 string primitives the toolkit's outputs depend on
// (str.lower, str.upper, str.isspace, str.isprintable and the re module's \w), using Go's
// unicode tables plus the generated difference tables of unicode_py.go, so that results do
// not depend on the Unicode version of the Go toolchain.

type runeRange struct{ lo, hi rune }

func inRanges(rs []runeRange, r rune) bool {
	i := sort.Search(len(rs), func(i int) bool { return rs[i].hi >= r })
	return i < len(rs) && rs[i].lo <= r
}

// isPyWord reports whether r matches Python's \w in a str pattern (str.isalnum() or "_").
func isPyWord(r rune) bool {
	w := r == '_' || unicode.IsLetter(r) || unicode.IsNumber(r)
	if r >= 0x1000 && inRanges(pyWordFlip, r) {
		return !w
	}
	return w
}

// isPySpace reports whether r is whitespace for Python's str.isspace / str.split().
func isPySpace(r rune) bool { return inRanges(pySpace, r) }

// isPyPrintable reports whether r is printable for Python's str.isprintable (and repr).
func isPyPrintable(r rune) bool {
	p := unicode.IsPrint(r)
	if r >= 0x0C00 && inRanges(pyPrintableFlip, r) {
		return !p
	}
	return p
}

func isPyCased(r rune) bool         { return inRanges(pyCased, r) }
func isPyCaseIgnorable(r rune) bool { return inRanges(pyCaseIgnorable, r) }

// pyUpper is Python's str.upper: full Unicode case mapping (ß → SS, ŉ → ʼN, …).
func pyUpper(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	for _, r := range s {
		if r < 0x80 {
			if 'a' <= r && r <= 'z' {
				r -= 'a' - 'A'
			}
			b.WriteByte(byte(r))
			continue
		}
		if m, ok := pyUpperDiff[r]; ok {
			b.WriteString(m)
			continue
		}
		b.WriteRune(unicode.ToUpper(r))
	}
	return b.String()
}

// pyLower is Python's str.lower: full Unicode case mapping (İ → i̇) with the final-sigma rule.
func pyLower(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	for i, r := range s {
		if r < 0x80 {
			if 'A' <= r && r <= 'Z' {
				r += 'a' - 'A'
			}
			b.WriteByte(byte(r))
			continue
		}
		if r == 0x3A3 {
			if finalSigma(s, i) {
				b.WriteRune(0x3C2)
			} else {
				b.WriteRune(0x3C3)
			}
			continue
		}
		if m, ok := pyLowerDiff[r]; ok {
			b.WriteString(m)
			continue
		}
		b.WriteRune(unicode.ToLower(r))
	}
	return b.String()
}

// finalSigma reports whether the capital sigma at byte offset i of s is in the Final_Sigma
// context: preceded by a cased letter (skipping case-ignorable characters) and not followed by
// one (again skipping case-ignorable characters).
func finalSigma(s string, i int) bool {
	j := i
	found := false
	for j > 0 {
		r, size := utf8.DecodeLastRuneInString(s[:j])
		j -= size
		if !isPyCaseIgnorable(r) {
			found = isPyCased(r)
			break
		}
	}
	if !found {
		return false
	}
	for _, r := range s[i+2:] { // U+03A3 is two bytes long
		if !isPyCaseIgnorable(r) {
			return !isPyCased(r)
		}
	}
	return true
}

// pySplitWhitespace is Python's str.split() without arguments.
func pySplitWhitespace(s string) []string {
	return strings.FieldsFunc(s, isPySpace)
}

// pyStrip is Python's str.strip() without arguments.
func pyStrip(s string) string {
	return strings.TrimFunc(s, isPySpace)
}

func sortStrings(s []string) { sort.Strings(s) }
