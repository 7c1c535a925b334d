package template

import (
	"fmt"
	"sort"
	"strings"
	"unicode/utf8"
)

// modifierFuncs are the modifier functions of the toolkit (specs/mobileenv.md §C.3). Every
// function maps one string to one string; "no_quote" is a reserved word handled by the chain.
var modifierFuncs = map[string]func(string) string{
	"to_list":           modToList,
	"regex_list":        modRegexList,
	"spacejoin":         modSpaceJoin,
	"regex_esc":         modRegexEsc,
	"url_path":          modURLPath,
	"url_query":         modURLQuery,
	"url_title":         modURLTitle,
	"lower":             pyLower,
	"upper":             pyUpper,
	"sentence_to_words": modSentenceToWords,
	"filter_comma":      modFilterComma,
	"remove_howto":      modRemoveHowto,
	"escape":            modEscape,
}

// notModifiers are names that exist in the original's modifiers module but are not modifier
// functions; calling them fails with a TypeError instead of an AttributeError.
var notModifiers = map[string]string{
	"functools": "TypeError: 'module' object is not callable",
	"urllib":    "TypeError: 'module' object is not callable",
	"re":        "TypeError: 'module' object is not callable",
	"Modifier":  "TypeError: Callable() takes no arguments",
}

// ModifierNames lists the accepted modifier names (plus the reserved word no_quote), sorted.
func ModifierNames() []string {
	names := []string{"no_quote"}
	for n := range modifierFuncs {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// ModifierDoc gives a one-line description of every modifier, for editor completion lists.
var ModifierDoc = map[string]string{
	"to_list":           `textproto string list: ["a","b"] (pieces escaped \ → \\, " → \")`,
	"regex_list":        "regex alternation: (a|b)",
	"spacejoin":         "pieces joined by one space (undocumented upstream)",
	"regex_esc":         `backslash before . ^ $ * + ? { } \ [ ] | ( )`,
	"url_path":          "percent-encoding for a URL path (keeps / : @ = ( ) and A-Z a-z 0-9 _ . - ~)",
	"url_query":         "percent-encoding for a URL query (space → +)",
	"url_title":         "every ASCII space → -",
	"lower":             "lower case (Python str.lower)",
	"upper":             "upper case (Python str.upper, ß → SS)",
	"sentence_to_words": "words separated by commas (undocumented upstream)",
	"filter_comma":      "removes every comma",
	"remove_howto":      `drops a leading "how to " (any case)`,
	"escape":            `\ → \\, " → \" (undocumented upstream)`,
	"no_quote":          "stops the chain: modifiers to its left are skipped and quotes are not escaped",
}

func lookupModifier(name string) (func(string) string, error) {
	if f, ok := modifierFuncs[name]; ok {
		return f, nil
	}
	py, ok := notModifiers[name]
	if !ok {
		py = fmt.Sprintf("AttributeError: module 'modifiers' has no attribute '%s'", name)
	}
	msg := fmt.Sprintf("no modifier named %q", name)
	if name == "no_quote" {
		msg = `"no_quote'" is not a modifier: no_quote takes no "'"`
	}
	return nil, &Error{Category: CatUnknownModifier, Offset: -1, End: -1, Msg: msg, Python: py}
}

// ApplyModifier applies one modifier function to a whole string (no "'" mapping, no quoting).
func ApplyModifier(name, value string) (string, error) {
	f, err := lookupModifier(name)
	if err != nil {
		return "", err
	}
	return f(value), nil
}

// RenderValue returns the text a slot with these modifiers produces for a conf value: the
// modifiers are applied right to left ("'" ones piece by piece over the comma-separated
// value), a no_quote stops the chain, otherwise " and ' are escaped at the end (backslashes
// are not).
func RenderValue(mods []Modifier, value string) (string, error) {
	s, _, err := renderValue(mods, value)
	return s, err
}

// renderValue is RenderValue that also returns the index of the failing modifier.
func renderValue(mods []Modifier, value string) (string, int, error) {
	for k := len(mods) - 1; k >= 0; k-- {
		m := mods[k]
		if m.Name == "no_quote" && !m.Each {
			return value, -1, nil
		}
		f, err := lookupModifier(m.Name)
		if err != nil {
			return "", k, err
		}
		if m.Each {
			pieces := strings.Split(value, ",")
			for i, p := range pieces {
				pieces[i] = f(p)
			}
			value = strings.Join(pieces, ",")
		} else {
			value = f(value)
		}
	}
	return quoteValue(value), -1, nil
}

var quoteReplacer = strings.NewReplacer(`"`, `\"`, `'`, `\'`)

// quoteValue is the automatic escaping of slot values: " → \" and ' → \' (not backslashes).
func quoteValue(s string) string {
	if !strings.ContainsAny(s, `"'`) {
		return s
	}
	return quoteReplacer.Replace(s)
}

var escapeReplacer = strings.NewReplacer(`\`, `\\`, `"`, `\"`)

func modEscape(s string) string { return escapeReplacer.Replace(s) }

func modToList(s string) string {
	pieces := strings.Split(s, ",")
	var b strings.Builder
	b.WriteByte('[')
	for i, p := range pieces {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteByte('"')
		b.WriteString(modEscape(p))
		b.WriteByte('"')
	}
	b.WriteByte(']')
	return b.String()
}

func modRegexList(s string) string {
	return "(" + strings.ReplaceAll(s, ",", "|") + ")"
}

func modSpaceJoin(s string) string { return strings.ReplaceAll(s, ",", " ") }

func modRegexEsc(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '.', '^', '$', '*', '+', '?', '{', '}', '\\', '[', ']', '|', '(', ')':
			b.WriteByte('\\')
			b.WriteByte(c)
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

const upperHex = "0123456789ABCDEF"

func percentEncode(s string, keep func(byte) bool, plus bool) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case 'A' <= c && c <= 'Z', 'a' <= c && c <= 'z', '0' <= c && c <= '9', c == '_', c == '.', c == '-', c == '~':
			b.WriteByte(c)
		case plus && c == ' ':
			b.WriteByte('+')
		case keep != nil && keep(c):
			b.WriteByte(c)
		default:
			b.WriteByte('%')
			b.WriteByte(upperHex[c>>4])
			b.WriteByte(upperHex[c&15])
		}
	}
	return b.String()
}

func modURLPath(s string) string {
	return percentEncode(s, func(c byte) bool {
		return c == '/' || c == ':' || c == '@' || c == '=' || c == '(' || c == ')'
	}, false)
}

func modURLQuery(s string) string { return percentEncode(s, nil, true) }

func modURLTitle(s string) string { return strings.ReplaceAll(s, " ", "-") }

func modSentenceToWords(s string) string { return strings.Join(pySplitWhitespace(s), ",") }

func modFilterComma(s string) string { return strings.ReplaceAll(s, ",", "") }

func modRemoveHowto(s string) string {
	if utf8.RuneCountInString(s) < 7 {
		return s
	}
	n := 0
	cut := 0
	for i := range s {
		if n == 7 {
			cut = i
			break
		}
		n++
	}
	if n == 7 && cut == 0 {
		cut = len(s)
	}
	if pyLower(s[:cut]) == "how to " {
		return s[cut:]
	}
	return s
}
