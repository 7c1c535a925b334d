package odyssey

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
)

// writePyList writes a list of n items as the converter's json.dump does (pyjson.go): item
// writes item i's object, indented for its place in the list. stop is checked every thousand
// items and ends the write with its error.
func writePyList(w io.Writer, n int, stop func() error, item func(b *bufio.Writer, i int) error) error {
	b := bufio.NewWriterSize(w, 1<<16)
	if n == 0 {
		b.WriteString("[]")
		return b.Flush()
	}
	b.WriteString("[")
	for i := range n {
		if i%1000 == 0 && stop != nil {
			if err := stop(); err != nil {
				return err
			}
		}
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString("\n    {\n        ")
		if err := item(b, i); err != nil {
			return err
		}
		b.WriteString("\n    }")
	}
	b.WriteString("\n]")
	return b.Flush()
}

// WriteTestRecordsPy writes test records as the converter's json.dump does (pyjson.go),
// one at a time; stop is checked every thousand records and ends the write with its error.
func WriteTestRecordsPy(w io.Writer, recs []TestRecord, stop func() error) error {
	return writePyList(w, len(recs), stop, func(b *bufio.Writer, i int) error {
		r := &recs[i]
		field := func(key, val string) {
			b.WriteString(",\n        \"")
			b.WriteString(key)
			b.WriteString("\": ")
			writePyJSONString(b, val)
		}
		b.WriteString("\"id\": ")
		writePyJSONString(b, r.ID)
		field("image", r.Image)
		field("question", r.Question)
		field("answer", r.Answer)
		field("category", r.Category)
		b.WriteString(",\n        \"step_length\": ")
		b.WriteString(strconv.Itoa(r.StepLength))
		field("history_action", r.HistoryAction)
		field("history_screenshot", r.HistoryScreenshot)
		if r.Sam2Bbox != nil {
			b.WriteString(",\n        \"sam2_bbox\": ")
			if err := writePyRaw(b, r.Sam2Bbox, 2); err != nil {
				return fmt.Errorf("record %s: sam2_bbox: %w", r.ID, err)
			}
		}
		return nil
	})
}
