package template

import (
	"fmt"
	"strings"
)

// pyLines splits a text the way iterating over a Python text-mode file does: universal
// newlines (\r\n and \r become \n), each line keeps its "\n", no empty line after a final
// newline.
func pyLines(text string) []string {
	text = normalizeNewlines(text)
	if text == "" {
		return nil
	}
	lines := strings.SplitAfter(text, "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	return lines
}

func normalizeNewlines(text string) string {
	if !strings.Contains(text, "\r") {
		return text
	}
	text = strings.ReplaceAll(text, "\r\n", "\n")
	return strings.ReplaceAll(text, "\r", "\n")
}

// ConfEntry is one line of a .conf file.
type ConfEntry struct {
	Key, Value string
	Line       int // 1-based
}

// ParseConfEntries parses a .conf text (`identifier: value` per line) and reports every bad
// line. Each line is stripped of surrounding whitespace and split at the first ": "; a line
// without ": " (a blank line, or "key:" with an empty value) is an error, exactly where the
// original fails.
func ParseConfEntries(text string) ([]ConfEntry, []*Error) {
	var entries []ConfEntry
	var errs []*Error
	for i, line := range pyLines(text) {
		s := pyStrip(line)
		k := strings.Index(s, ": ")
		if k < 0 {
			msg := fmt.Sprintf("line %q has no \": \" separator", s)
			switch {
			case s == "":
				msg = "blank line (every line must be `identifier: value`)"
			case strings.HasSuffix(s, ":"):
				msg = fmt.Sprintf("%q has an empty value, which the original cannot read (use no_quote or change the template)", s)
			}
			errs = append(errs, &Error{Category: CatBadConfLine, Line: i + 1, Col: 1, Offset: -1, End: -1, Msg: msg,
				Python: "ValueError: not enough values to unpack (expected 2, got 1)"})
			continue
		}
		entries = append(entries, ConfEntry{Key: s[:k], Value: s[k+2:], Line: i + 1})
	}
	return entries, errs
}

// ParseConf parses a .conf text into identifier → value (the last duplicate wins). It fails
// on the first bad line like the original.
func ParseConf(text string) (map[string]string, error) {
	entries, errs := ParseConfEntries(text)
	if len(errs) > 0 {
		return nil, errs[0]
	}
	conf := make(map[string]string, len(entries))
	for _, e := range entries {
		conf[e.Key] = e.Value
	}
	return conf, nil
}

// FormatConf writes a conf map back as text, keys in the given order (others sorted after).
func FormatConf(conf map[string]string, order []string) string {
	var b strings.Builder
	done := map[string]bool{}
	write := func(k string) {
		if done[k] {
			return
		}
		if v, ok := conf[k]; ok {
			done[k] = true
			b.WriteString(k + ": " + v + "\n")
		}
	}
	for _, k := range order {
		write(k)
	}
	var rest []string
	for k := range conf {
		if !done[k] {
			rest = append(rest, k)
		}
	}
	sortStrings(rest)
	for _, k := range rest {
		write(k)
	}
	return b.String()
}

// TaskToken is one line of a .task file.
type TaskToken struct {
	// Conf is the conf file name without ".conf" (`<template>-<stepname>`).
	Conf string
	// Template is the part of Conf before the first "-".
	Template string
	// Step is the part of Conf after the first "-" ("" when there is none).
	Step string
	// Options is the option field as written ("" when absent; ignored on the first line).
	Options string
	// KeepSetup, KeepReset and KeepCommands are the effective options: the option field
	// contains "s", "r" or "c". The first token always keeps its setup and reset steps.
	KeepSetup, KeepReset, KeepCommands bool
	// Line is the 1-based line number.
	Line int
}

// ParseTask parses a .task text: one `<conf-name> [options]` per line; fields after the
// second are ignored; a blank line is an error (as in the original).
func ParseTask(text string) ([]TaskToken, error) {
	var toks []TaskToken
	for i, line := range pyLines(text) {
		f := pySplitWhitespace(line)
		if len(f) == 0 {
			return nil, &Error{Category: CatBadTaskLine, Line: i + 1, Col: 1, Offset: -1, End: -1,
				Msg: "blank line (every line must name a token conf)", Python: "IndexError: list index out of range"}
		}
		t := TaskToken{Conf: f[0], Line: i + 1}
		t.Template, t.Step, _ = strings.Cut(f[0], "-")
		if len(f) > 1 {
			t.Options = f[1]
		}
		if i == 0 {
			t.KeepSetup, t.KeepReset = true, true
		} else {
			t.KeepSetup = strings.Contains(t.Options, "s")
			t.KeepReset = strings.Contains(t.Options, "r")
			t.KeepCommands = strings.Contains(t.Options, "c")
		}
		toks = append(toks, t)
	}
	if len(toks) == 0 {
		return nil, &Error{Category: CatBadTaskLine, Line: 1, Offset: -1, End: -1, Msg: "empty task file",
			Python: "IndexError: list index out of range"}
	}
	return toks, nil
}

// Render expands every slot of a template with the conf values (missing identifiers expand to
// the empty string, as in the original). It fails on the first slot with a bad modifier,
// with the slot's line and column.
func Render(template string, conf map[string]string) (string, error) {
	var b strings.Builder
	b.Grow(len(template) + len(template)/4)
	var err error
	last := 0
	scanSlots(template, matchSlot, func(sl Slot) {
		if err != nil {
			return
		}
		v, k, e := renderValue(sl.Modifiers, conf[sl.Identifier])
		if e != nil {
			ee := *e.(*Error)
			m := sl.Modifiers[k]
			ee.Offset, ee.End = m.Offset, m.Offset+len(m.String())
			ee.Line, ee.Col = newLineIndex(template).pos(ee.Offset)
			ee.Msg += fmt.Sprintf(" in slot %s", sl.Text(template))
			err = &ee
			return
		}
		b.WriteString(template[last:sl.Offset])
		b.WriteString(v)
		last = sl.End
	})
	if err != nil {
		return "", err
	}
	b.WriteString(template[last:])
	return b.String(), nil
}

// MissingIdentifiers returns the template's identifiers that conf does not define (they
// expand to "" in the original), with a warning per first occurrence.
func MissingIdentifiers(template string, conf map[string]string) []*Error {
	li := newLineIndex(template)
	seen := map[string]bool{}
	var errs []*Error
	scanSlots(template, matchSlot, func(sl Slot) {
		if _, ok := conf[sl.Identifier]; ok || seen[sl.Identifier] {
			return
		}
		seen[sl.Identifier] = true
		line, col := li.pos(sl.IdentOffset)
		errs = append(errs, &Error{Category: CatMissingIdentifier, Line: line, Col: col, Offset: sl.IdentOffset,
			End: sl.IdentOffset + len(sl.Identifier), Warning: true,
			Msg: fmt.Sprintf("identifier %q is not in the conf and expands to the empty string", sl.Identifier)})
	})
	return errs
}
