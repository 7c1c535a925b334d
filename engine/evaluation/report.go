package evaluation

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
)

// Severity classifies an import report item.
type Severity string

// Report item severities.
const (
	// Understood: the item was read and is used.
	Understood Severity = "understood"
	// Ignored: the item was read and deliberately not used (framework plumbing, crowd-platform
	// settings, unknown keys).
	Ignored Severity = "ignored"
	// Warning: the item is used, but behaves as in the original in a way the user should know.
	Warning Severity = "warning"
)

// ReportItem is one line of an import report.
type ReportItem struct {
	Severity Severity
	// File is the path relative to the imported folder ("" for the project as a whole).
	File string
	// Where narrows the place inside the file (a type name, a YAML key, a line), may be "".
	Where   string
	Message string
}

// String formats the item as "severity  file: where: message".
func (it ReportItem) String() string {
	return fmt.Sprintf("%-10s %s", it.Severity, it.place())
}

// place is "file: where: message", the parts that are known.
func (it ReportItem) place() string {
	var b strings.Builder
	if it.File != "" {
		b.WriteString(it.File)
		b.WriteString(": ")
	}
	if it.Where != "" {
		b.WriteString(it.Where)
		b.WriteString(": ")
	}
	b.WriteString(it.Message)
	return b.String()
}

// ImportReport says precisely what an import understood and what it ignored, for the UI and the
// CLI to print.
type ImportReport struct {
	// Folder is the imported folder (the one the user named).
	Folder string
	// Project is the project folder inside Folder that holds hydra_configs/ and task_config/
	// (relative, "/"-separated), "" when it is Folder itself.
	Project string
	// Config is the configuration file used (relative to Folder), "" when none.
	Config string
	Items  []ReportItem
	// Files accounts for every file of Folder: read (and into what), named by other
	// configurations of the project (which), or ignored (why). A folder of tool files (.git,
	// __pycache__, node_modules) is one entry that counts its files.
	Files []FileEntry
}

// FileStatus says what an import did with a file of the folder.
type FileStatus string

// File statuses.
const (
	// FileRead: the file was read into the project.
	FileRead FileStatus = "read"
	// FileOtherConfig: the file is named by other configurations of the folder, not by the
	// one imported.
	FileOtherConfig FileStatus = "other configuration"
	// FileIgnored: the file is not read; Note says why.
	FileIgnored FileStatus = "ignored"
)

// FileEntry is one file (or one folder of tool files) of an imported folder.
type FileEntry struct {
	// Path is relative to the imported folder, "/"-separated; a folder's ends in "/".
	Path   string
	Status FileStatus
	// Files is 1 for a file, the number of files under a folder entry.
	Files int
	// Configs are the configurations naming the file (FileOtherConfig), sorted.
	Configs []string
	// Note says what the file was read into, which keys of the other configurations name it,
	// or why it is ignored.
	Note string
}

// String formats the entry as "path: note" ("folder/ (n files): note").
func (e FileEntry) String() string {
	if strings.HasSuffix(e.Path, "/") {
		return fmt.Sprintf("%s (%s): %s", e.Path, plural(e.Files, "file"), e.Note)
	}
	return e.Path + ": " + e.Note
}

// FilesWith returns the file entries of one status, in order.
func (r *ImportReport) FilesWith(s FileStatus) []FileEntry {
	var out []FileEntry
	for _, e := range r.Files {
		if e.Status == s {
			out = append(out, e)
		}
	}
	return out
}

// fileSections are the groups of the file entries, in the order they are shown.
var fileSections = []struct {
	Status FileStatus
	Title  string
}{{FileRead, "Files read"}, {FileOtherConfig, "Files of other configurations"}, {FileIgnored, "Files ignored"}}

// FileSections returns the file entries grouped as the report shows them: read, of other
// configurations, ignored; each with its title ("Files read" …). Groups without entries are
// left out.
func (r *ImportReport) FileSections() (titles []string, groups [][]FileEntry) {
	for _, s := range fileSections {
		if es := r.FilesWith(s.Status); len(es) > 0 {
			titles = append(titles, s.Title)
			groups = append(groups, es)
		}
	}
	return titles, groups
}

// FileCount is the number of files the entries account for.
func (r *ImportReport) FileCount(s FileStatus) int {
	n := 0
	for _, e := range r.Files {
		if s == "" || e.Status == s {
			n += e.Files
		}
	}
	return n
}

func (r *ImportReport) add(sev Severity, file, where, format string, args ...any) {
	if r == nil {
		return
	}
	r.Items = append(r.Items, ReportItem{Severity: sev, File: file, Where: where, Message: fmt.Sprintf(format, args...)})
}

// Filter returns the items of one severity, in order.
func (r *ImportReport) Filter(sev Severity) []ReportItem {
	var out []ReportItem
	for _, it := range r.Items {
		if it.Severity == sev {
			out = append(out, it)
		}
	}
	return out
}

// WriteTo prints the report grouped by severity: understood, warnings, ignored.
func (r *ImportReport) WriteTo(w io.Writer) (int64, error) {
	var b bytes.Buffer
	fmt.Fprintf(&b, "Imported %s", r.Folder)
	switch {
	case r.Project != "" && r.Config != "":
		fmt.Fprintf(&b, " (project folder %s, configuration %s)", r.Project, r.Config)
	case r.Project != "":
		fmt.Fprintf(&b, " (project folder %s)", r.Project)
	case r.Config != "":
		fmt.Fprintf(&b, " (configuration %s)", r.Config)
	}
	b.WriteString("\n")
	for _, sec := range []struct {
		sev   Severity
		title string
	}{{Understood, "Understood"}, {Warning, "Warnings"}, {Ignored, "Ignored"}} {
		items := r.Filter(sec.sev)
		if len(items) == 0 {
			continue
		}
		fmt.Fprintf(&b, "%s (%d):\n", sec.title, len(items))
		for _, it := range items {
			b.WriteString("  ")
			b.WriteString(it.place())
			b.WriteString("\n")
		}
	}
	if len(r.Files) > 0 {
		fmt.Fprintf(&b, "Every file of the folder (%s): %d read, %d of other configurations, %d ignored\n",
			plural(r.FileCount(""), "file"), r.FileCount(FileRead), r.FileCount(FileOtherConfig), r.FileCount(FileIgnored))
		titles, groups := r.FileSections()
		for i, es := range groups {
			fmt.Fprintf(&b, "%s (%d):\n", titles[i], countFiles(es))
			for _, line := range foldEntries(es) {
				b.WriteString("  ")
				b.WriteString(line)
				b.WriteString("\n")
			}
		}
	}
	n, err := w.Write(b.Bytes())
	return int64(n), err
}

func countFiles(es []FileEntry) int {
	n := 0
	for _, e := range es {
		n += e.Files
	}
	return n
}

// foldEntries writes the entries one a line; more than 12 files directly in one folder with the
// same note are one line, "folder/* (n files): note" (the entries themselves keep every file).
func foldEntries(es []FileEntry) []string {
	type key struct{ dir, note string }
	count := map[key]int{}
	dirOf := func(e FileEntry) string {
		if strings.HasSuffix(e.Path, "/") {
			return ""
		}
		if i := strings.LastIndex(e.Path, "/"); i >= 0 {
			return e.Path[:i+1]
		}
		return "./"
	}
	for _, e := range es {
		if d := dirOf(e); d != "" {
			count[key{d, e.Note}]++
		}
	}
	var out []string
	done := map[key]bool{}
	for _, e := range es {
		k := key{dirOf(e), e.Note}
		if k.dir == "" || count[k] <= 12 {
			out = append(out, e.String())
			continue
		}
		if !done[k] {
			done[k] = true
			out = append(out, fmt.Sprintf("%s* (%s): %s", k.dir, plural(count[k], "file"), k.note))
		}
	}
	return out
}

// String returns the printed report.
func (r *ImportReport) String() string {
	var b strings.Builder
	r.WriteTo(&b)
	return b.String()
}

// FileError is bad input at a place in a file. Line and Column are 1-based; 0 when unknown.
type FileError struct {
	File   string
	Line   int
	Column int
	Err    error
}

// Error formats as file:line:column: message.
func (e *FileError) Error() string {
	switch {
	case e.Line > 0 && e.Column > 0:
		return fmt.Sprintf("%s:%d:%d: %v", e.File, e.Line, e.Column, e.Err)
	case e.Line > 0:
		return fmt.Sprintf("%s:%d: %v", e.File, e.Line, e.Err)
	}
	return fmt.Sprintf("%s: %v", e.File, e.Err)
}

// Unwrap returns the underlying error.
func (e *FileError) Unwrap() error { return e.Err }

// validJSONFile drops a leading byte order mark and checks that data is JSON, without decoding
// it; a syntax error names the file's line and column.
func validJSONFile(data []byte, file string) ([]byte, error) {
	data = bytes.TrimPrefix(data, utf8BOM)
	var raw json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil {
		return nil, jsonFileError(file, data, 1, err)
	}
	return data, nil
}

// jsonFileError places a JSON decoding error in data (which starts at line firstLine of file).
func jsonFileError(file string, data []byte, firstLine int, err error) error {
	var fe *FileError
	if errors.As(err, &fe) {
		return err
	}
	off := int64(-1)
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		off = se.Offset
	case errors.As(err, &te):
		off = te.Offset
	}
	if off < 0 {
		return &FileError{File: file, Line: firstLine, Err: err}
	}
	line, col := lineCol(data, int(off))
	return &FileError{File: file, Line: firstLine + line - 1, Column: col, Err: err}
}

// lineCol converts a byte offset (the position after the offending byte, as encoding/json
// reports it) into a 1-based line and column.
func lineCol(data []byte, off int) (int, int) {
	if off > len(data) {
		off = len(data)
	}
	if off > 0 {
		off-- // encoding/json's offset points just past the bad byte
	}
	line := 1 + bytes.Count(data[:off], []byte("\n"))
	start := bytes.LastIndexByte(data[:off], '\n') + 1
	return line, off - start + 1
}

// lineOf is the 1-based line of a byte offset.
func lineOf(data []byte, off int64) int {
	if off > int64(len(data)) {
		off = int64(len(data))
	}
	if off < 0 {
		off = 0
	}
	return 1 + bytes.Count(data[:off], []byte("\n"))
}
