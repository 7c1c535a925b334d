package evaluation

import (
	"encoding/csv"
	"io"
	"regexp"
)

// Spreadsheet formula injection (OWASP "CSV Injection"): a spreadsheet opening a CSV file runs a
// cell that begins with =, +, -, @, a tab or a carriage return as a formula, so that a
// participant id such as =HYPERLINK("http://evil.example/x") in an export becomes a live link
// (or worse) on the researcher's machine. Every CSV the app writes for evaluation goes through
// SpreadsheetSafe: such a cell gets a single quote in front ('=HYPERLINK(…)), which
// spreadsheets show as text and which keeps the rest of the cell as it was; encoding/csv then
// quotes the cell per RFC 4180 where needed.
//
// The one exception is a cell that is a plain decimal number (-1, -0.5, +3, -2e-3): it cannot
// be a formula, and negative numbers (scores, offsets) stay numbers for analysis. JSON lines
// exports are not changed (no spreadsheet evaluates them).

// plainNumber matches a decimal number with an optional sign, fraction and exponent, and
// nothing else.
var plainNumber = regexp.MustCompile(`^[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?$`)

// SpreadsheetSafe returns cell neutralised for spreadsheets (see above): unchanged unless it
// begins with =, +, -, @, a tab or a carriage return and is not a plain number; then with a
// single quote in front.
func SpreadsheetSafe(cell string) string {
	if cell == "" {
		return cell
	}
	switch cell[0] {
	case '=', '+', '-', '@', '\t', '\r':
		if cell[0] != '=' && cell[0] != '@' && plainNumber.MatchString(cell) {
			return cell
		}
		return "'" + cell
	}
	return cell
}

// SafeCSVWriter is a csv.Writer whose every cell goes through SpreadsheetSafe.
type SafeCSVWriter struct{ *csv.Writer }

// NewSafeCSVWriter returns a CSV writer for exports opened in spreadsheets.
func NewSafeCSVWriter(w io.Writer) *SafeCSVWriter { return &SafeCSVWriter{csv.NewWriter(w)} }

// Write writes one record, every cell neutralised.
func (w *SafeCSVWriter) Write(record []string) error {
	safe := make([]string, len(record))
	for i, c := range record {
		safe[i] = SpreadsheetSafe(c)
	}
	return w.Writer.Write(safe)
}
