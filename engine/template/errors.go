package template

import (
	"errors"
	"fmt"
	"strings"
)

// Category classifies a failure the way the conformance vectors do: the original toolkit
// fails with a Python exception, and each exception corresponds to one category.
type Category string

// Error categories. The first six are the failure classes of the original toolkit; the rest
// are diagnostics of this implementation (editor warnings and I/O problems).
const (
	// CatUnknownModifier: a slot names a modifier that does not exist (the original raises
	// AttributeError or TypeError from the modifiers module).
	CatUnknownModifier Category = "unknown modifier"
	// CatBadConfLine: a .conf line without ": " (ValueError: not enough values to unpack).
	CatBadConfLine Category = "bad conf line"
	// CatBadConfName: a .task token whose conf file name has no "-" (the original splits it
	// into <template>-<step>: ValueError: not enough values to unpack).
	CatBadConfName Category = "bad conf name"
	// CatBadTaskLine: a blank .task line, or an empty .task file (IndexError).
	CatBadTaskLine Category = "bad task line"
	// CatMissingEventSources: a token without event sources (ValueError from max()).
	CatMissingEventSources Category = "missing event sources"
	// CatMissingCommand: a later token without a (non-empty) first command while commands are
	// concatenated (IndexError).
	CatMissingCommand Category = "missing command"
	// CatUnparsableTextproto: the expanded token is not a valid Task textproto (ParseError).
	CatUnparsableTextproto Category = "unparsable textproto"
	// CatMissingFile: a .task, .conf or template file cannot be read (FileNotFoundError).
	CatMissingFile Category = "missing file"
	// CatBadEncoding: a file is not valid UTF-8 (UnicodeDecodeError).
	CatBadEncoding Category = "bad encoding"
	// CatBadSlot: text that looks like a slot but does not follow the slot grammar, so the
	// original leaves it verbatim (a warning).
	CatBadSlot Category = "bad slot"
	// CatMissingIdentifier: a slot identifier that the conf does not define; the original
	// substitutes the empty string (a warning).
	CatMissingIdentifier Category = "missing identifier"
	// CatUsage: bad command-line arguments.
	CatUsage Category = "usage"
)

// Error is a diagnostic with a position. Line and Col are 1-based (0 when unknown); Col counts
// characters (runes), Offset and End are byte offsets into the file's text (-1 when unknown).
type Error struct {
	Category Category
	File     string
	Line     int
	Col      int
	Offset   int
	End      int
	Msg      string
	// Python is the last line of the error the original toolkit prints in the same situation
	// (exception type and message), when known.
	Python string
	// Warning marks diagnostics that do not stop the original (editor hints).
	Warning bool
	Err     error
}

// SlotError is the diagnostic type of the slot parser.
type SlotError = Error

func (e *Error) Error() string {
	var b strings.Builder
	if e.File != "" {
		b.WriteString(e.File)
		b.WriteByte(':')
	}
	if e.Line > 0 {
		fmt.Fprintf(&b, "%d:", e.Line)
		if e.Col > 0 {
			fmt.Fprintf(&b, "%d:", e.Col)
		}
	}
	if b.Len() > 0 {
		b.WriteByte(' ')
	}
	if e.Warning {
		b.WriteString("warning: ")
	}
	b.WriteString(string(e.Category))
	if e.Msg != "" {
		b.WriteString(": ")
		b.WriteString(e.Msg)
	}
	return b.String()
}

func (e *Error) Unwrap() error { return e.Err }

// CategoryOf returns the category of err when it is (or wraps) an *Error, else "".
func CategoryOf(err error) Category {
	var e *Error
	if errors.As(err, &e) {
		return e.Category
	}
	return ""
}

// PythonErrorCategories maps the last line of an error printed by the original toolkit to the
// categories it may stand for (an IndexError is a blank .task line or a missing command).
func PythonErrorCategories(line string) []Category {
	line = strings.TrimSpace(line)
	switch {
	case strings.HasPrefix(line, "AttributeError: module 'modifiers'"),
		strings.HasPrefix(line, "TypeError:") && (strings.Contains(line, "not callable") || strings.Contains(line, "takes no arguments") || strings.Contains(line, "argument")):
		return []Category{CatUnknownModifier}
	case strings.Contains(line, "not enough values to unpack"):
		return []Category{CatBadConfLine, CatBadConfName}
	case strings.HasPrefix(line, "ValueError: max()"):
		return []Category{CatMissingEventSources}
	case strings.HasPrefix(line, "IndexError"):
		return []Category{CatBadTaskLine, CatMissingCommand}
	case strings.Contains(line, "ParseError"):
		return []Category{CatUnparsableTextproto}
	case strings.HasPrefix(line, "FileNotFoundError"), strings.HasPrefix(line, "IsADirectoryError"),
		strings.HasPrefix(line, "NotADirectoryError"), strings.HasPrefix(line, "PermissionError"):
		return []Category{CatMissingFile}
	case strings.HasPrefix(line, "UnicodeDecodeError"):
		return []Category{CatBadEncoding}
	}
	return nil
}
