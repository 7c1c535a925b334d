package odyssey

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf16"

	"github.com/agentdesk/agentdesk/engine/pyfmt"
)

// PyJSONString is Python's json.dumps of a str with its defaults (ensure_ascii): quotes and
// backslashes escaped, \n \r \t \b \f, other control characters and every non-ASCII character
// as \uXXXX (surrogate pairs beyond the BMP).
func PyJSONString(s string) string {
	var b strings.Builder
	b.Grow(len(s) + 2)
	b.WriteByte('"')
	for _, r := range s {
		if e := pyShortEscape(r); e != "" {
			b.WriteString(e)
			continue
		}
		switch {
		case r < 0x20 || r >= 0x7f && r < 0x10000:
			fmt.Fprintf(&b, `\u%04x`, r)
		case r >= 0x10000:
			r1, r2 := utf16.EncodeRune(r)
			fmt.Fprintf(&b, `\u%04x\u%04x`, r1, r2)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// pyShortEscape is the two-character escape json.dumps writes for r, "" when it has none.
func pyShortEscape(r rune) string {
	switch r {
	case '"':
		return `\"`
	case '\\':
		return `\\`
	case '\n':
		return `\n`
	case '\r':
		return `\r`
	case '\t':
		return `\t`
	case '\b':
		return `\b`
	case '\f':
		return `\f`
	}
	return ""
}

// PythonJSON is the info record as Python's json.dumps writes it.
func (i Info) PythonJSON() string {
	return fmt.Sprintf(`{"AMS": %s, "SR": %s, "total": %d, "action_type": %s, "text": %s}`,
		i.AMS, i.SR, i.Total, PyJSONString(i.ActionType), PyJSONString(i.Text))
}

// DatasetName is the evaluator's name of a setting: "<level>_<split>", e.g.
// "high_random_split".
func DatasetName(level, split string) string {
	if level == "" {
		return split
	}
	return level + "_" + split
}

// OutputRecord is the official evaluator's result file, as Python's json.dump writes it:
// {"dataset", "model" (the checkpoint path with "/" replaced by "_"), "metrics": {"info",
// "pred": [{"question", "pred", "gt", "more_info", "is_correct", "info"}, ...]}}.
func OutputRecord(dataset, model string, res *Result) []byte {
	var b strings.Builder
	b.WriteString(`{"dataset": ` + PyJSONString(dataset) + `, "model": ` + PyJSONString(strings.ReplaceAll(model, "/", "_")) +
		`, "metrics": {"info": ` + res.Info.PythonJSON() + `, "pred": [`)
	for i, s := range res.Samples {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(`{"question": ` + PyJSONString(s.Question) + `, "pred": ` + PyJSONString(s.Pred) +
			`, "gt": ` + PyJSONString(s.GT) + `, "more_info": {"category": ` + PyJSONString(s.Category) +
			`, "step_length": ` + strconv.Itoa(s.StepLength))
		if s.Box.Present {
			b.WriteString(`, "sam2_bbox": [`)
			for j, v := range s.Box.Values {
				if j > 0 {
					b.WriteString(", ")
				}
				if v == float64(int64(v)) {
					b.WriteString(strconv.FormatInt(int64(v), 10))
				} else {
					b.WriteString(pyfmt.FloatRepr(v))
				}
			}
			b.WriteString("]")
		}
		b.WriteString(`}, "is_correct": ` + PyJSONString(s.IsCorrect) + `, "info": ` + PyJSONString(s.Info) + `}`)
	}
	b.WriteString("]}}")
	return []byte(b.String())
}
