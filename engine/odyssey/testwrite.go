package odyssey

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
)

// WriteTestRecordsPy writes test records as the converter's json.dump does (pyjson.go),
// one at a time; stop is checked every thousand records and ends the write with its error.
func WriteTestRecordsPy(w io.Writer, recs []TestRecord, stop func() error) error {
	b := bufio.NewWriterSize(w, 1<<16)
	if len(recs) == 0 {
		b.WriteString("[]")
		return b.Flush()
	}
	b.WriteString("[")
	for i := range recs {
		if i%1000 == 0 && stop != nil {
			if err := stop(); err != nil {
				return err
			}
		}
		r := &recs[i]
		if i > 0 {
			b.WriteByte(',')
		}
		for _, f := range []struct{ key, val string }{{"id", r.ID}, {"image", r.Image}, {"question", r.Question},
			{"answer", r.Answer}, {"category", r.Category}} {
			if f.key == "id" {
				b.WriteString("\n    {\n        \"id\": ")
			} else {
				b.WriteString(",\n        \"" + f.key + "\": ")
			}
			writePyJSONString(b, f.val)
		}
		b.WriteString(",\n        \"step_length\": " + strconv.Itoa(r.StepLength) + ",\n        \"history_action\": ")
		writePyJSONString(b, r.HistoryAction)
		b.WriteString(",\n        \"history_screenshot\": ")
		writePyJSONString(b, r.HistoryScreenshot)
		if r.Sam2Bbox != nil {
			b.WriteString(",\n        \"sam2_bbox\": ")
			if err := writePyRaw(b, r.Sam2Bbox, 2); err != nil {
				return fmt.Errorf("record %s: sam2_bbox: %w", r.ID, err)
			}
		}
		b.WriteString("\n    }")
	}
	b.WriteString("\n]")
	return b.Flush()
}
