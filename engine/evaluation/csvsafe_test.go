package evaluation

import (
	"bytes"
	"encoding/csv"
	"testing"
)

// Cells a spreadsheet would run as formulas get a quote in front; plain numbers, other text
// and the rest of the cell stay as they were.
func TestSpreadsheetSafe(t *testing.T) {
	for in, want := range map[string]string{
		`=HYPERLINK("http://evil.example/x")`: `'=HYPERLINK("http://evil.example/x")`,
		"+cmd|' /C calc'!A0":                  "'+cmd|' /C calc'!A0",
		"-2+3":                                "'-2+3",
		"@SUM(A1:A2)":                         "'@SUM(A1:A2)",
		"\t=1":                                "'\t=1",
		"\r=1":                                "'\r=1",
		"=1":                                  "'=1",
		"-":                                   "'-",
		"-1":                                  "-1",
		"-0.5":                                "-0.5",
		"+3":                                  "+3",
		"-2e-3":                               "-2e-3",
		"-.5":                                 "-.5",
		"-1e":                                 "'-1e",
		"-Inf":                                "'-Inf",
		"":                                    "",
		"alice":                               "alice",
		"a=b":                                 "a=b",
		" =1":                                 " =1",
	} {
		if got := SpreadsheetSafe(in); got != want {
			t.Errorf("SpreadsheetSafe(%q) = %q, want %q", in, got, want)
		}
	}
	var buf bytes.Buffer
	w := NewSafeCSVWriter(&buf)
	w.Write([]string{`=HYPERLINK("x","y")`, "-1", "plain, with comma"})
	w.Flush()
	if got, want := buf.String(), "\"'=HYPERLINK(\"\"x\"\",\"\"y\"\")\",-1,\"plain, with comma\"\n"; got != want {
		t.Errorf("CSV %q, want %q", got, want)
	}
	rec, err := csv.NewReader(&buf).Read()
	if err != nil || rec[0] != `'=HYPERLINK("x","y")` {
		t.Errorf("read back %q, %v", rec, err)
	}
}
