package template

import (
	"errors"
	"fmt"
	"io/fs"
	"path"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/agentdesk/agentdesk/engine/limits"
)

// Options are the switches of the original parse command.
type Options struct {
	// NoAutocatCommands is --no-autocat-commands: the commands of later tokens are appended
	// only for tokens whose option field contains "c".
	NoAutocatCommands bool
}

// TokenResult describes one instantiated task token.
type TokenResult struct {
	Token        TaskToken
	ConfPath     string
	TemplatePath string
	// Conf holds the token's values; Expanded is the template text after slot expansion.
	Conf     map[string]string
	Expanded string
}

// Result is a full instantiation: the combined task definition and what led to it.
type Result struct {
	// Text is the combined task definition, byte for byte as the original prints it except
	// for the vocabulary, which is written in first-occurrence order.
	Text   string
	Tokens []TokenResult
	// Warnings lists what the original accepts silently: identifiers missing from a conf,
	// slot look-alikes left verbatim, modifiers left of no_quote.
	Warnings []*Error
}

// Reader reads a file by path (slash- or OS-separated, as the caller's file system wants).
type Reader struct {
	read func(string) ([]byte, error)
	join func(...string) string
	dir  func(string) string
}

// OSReader reads from the operating system's file system.
func OSReader() Reader {
	read := func(path string) ([]byte, error) { return limits.ReadFile(path, limits.TaskDefinition) }
	return Reader{read: read, join: filepath.Join, dir: filepath.Dir}
}

// FSReader reads from an fs.FS (slash-separated paths), e.g. an in-memory fstest.MapFS
// holding the editor's unsaved buffers.
func FSReader(fsys fs.FS) Reader {
	return Reader{read: func(p string) ([]byte, error) { return fs.ReadFile(fsys, path.Clean(p)) }, join: path.Join, dir: path.Dir}
}

// readText reads a file as the original does (UTF-8, universal newlines).
func (r Reader) readText(p string) (string, error) {
	data, err := r.read(p)
	if err != nil {
		py := fmt.Sprintf("FileNotFoundError: [Errno 2] No such file or directory: '%s'", p)
		return "", &Error{Category: CatMissingFile, File: p, Offset: -1, End: -1, Msg: err.Error(), Python: py, Err: err}
	}
	if !utf8.Valid(data) {
		return "", &Error{Category: CatBadEncoding, File: p, Offset: -1, End: -1, Msg: "file is not valid UTF-8",
			Python: "UnicodeDecodeError: 'utf-8' codec can't decode bytes"}
	}
	return normalizeNewlines(string(data)), nil
}

// Instantiate is the original `parse --task TASKFILE -p TEMPLATES_DIR`: it instantiates
// every token of the .task file and returns the combined textproto.
func Instantiate(taskFile, templatesDir string, opts Options) (string, error) {
	res, err := Expand(OSReader(), taskFile, templatesDir, opts)
	if err != nil {
		return "", err
	}
	return res.Text, nil
}

// InstantiateFS is Instantiate over an fs.FS (for live previews of unsaved files).
func InstantiateFS(fsys fs.FS, taskFile, templatesDir string, opts Options) (string, error) {
	res, err := Expand(FSReader(fsys), taskFile, templatesDir, opts)
	if err != nil {
		return "", err
	}
	return res.Text, nil
}

// Expand instantiates a .task file and returns the details of every token as well.
func Expand(r Reader, taskFile, templatesDir string, opts Options) (*Result, error) {
	taskText, err := r.readText(taskFile)
	if err != nil {
		return nil, err
	}
	toks, err := ParseTask(taskText)
	if err != nil {
		err.(*Error).File = taskFile
		return nil, err
	}
	res := &Result{}
	confDir := r.dir(taskFile)
	var parsed []*message
	var names []string
	for _, tok := range toks {
		tr := TokenResult{Token: tok,
			ConfPath:     r.join(confDir, tok.Conf+".conf"),
			TemplatePath: r.join(templatesDir, tok.Template+".textproto.template")}
		confText, err := r.readText(tr.ConfPath)
		if err != nil {
			return nil, fmt.Errorf("%s:%d: token %s: %w", taskFile, tok.Line, tok.Conf, err)
		}
		conf, err := ParseConf(confText)
		if err != nil {
			err.(*Error).File = tr.ConfPath
			return nil, err
		}
		if !strings.Contains(tok.Conf, "-") { // as the original: after reading the conf
			return nil, &Error{Category: CatBadConfName, File: tr.ConfPath, Offset: -1, End: -1,
				Msg: fmt.Sprintf("the conf file name %q has no '-' (line %d of %s): it must be <template>-<step>.conf, the template being the part before the first '-'",
					tok.Conf+".conf", tok.Line, taskFile),
				Python: "ValueError: not enough values to unpack (expected 2, got 1)"}
		}
		tr.Conf = conf
		tmpl, err := r.readText(tr.TemplatePath)
		if err != nil {
			return nil, fmt.Errorf("%s:%d: token %s: %w", taskFile, tok.Line, tok.Conf, err)
		}
		tr.Expanded, err = Render(tmpl, conf)
		if err != nil {
			err.(*Error).File = tr.TemplatePath
			return nil, err
		}
		_, slotErrs := ParseSlots(tmpl)
		for _, e := range append(slotErrs, MissingIdentifiers(tmpl, conf)...) {
			if e.Warning {
				e.File = tr.TemplatePath
				res.Warnings = append(res.Warnings, e)
			}
		}
		m, err := parseTask(tr.Expanded)
		if err != nil {
			e := err.(*Error)
			e.File = tr.TemplatePath
			e.Msg += fmt.Sprintf(" (in the expansion of token %s; the column counts in the expanded line)", tok.Conf)
			return nil, e
		}
		parsed = append(parsed, m)
		names = append(names, tok.Conf)
		res.Tokens = append(res.Tokens, tr)
	}
	out, err := chainTokens(parsed, toks, opts.NoAutocatCommands, names)
	if err != nil {
		var e *Error
		if errors.As(err, &e) && e.File != "" {
			// name the conf of the failing token
			for _, tr := range res.Tokens {
				if tr.Token.Conf == e.File {
					e.File = tr.ConfPath
				}
			}
		}
		return nil, err
	}
	res.Text = formatTask(out)
	return res, nil
}

func formatTask(m *message) string {
	var b strings.Builder
	printMessage(&b, m, 0)
	return b.String()
}

// FormatTextproto parses a Task textproto and prints it back in the original's canonical
// form (useful to normalise a hand-written task definition for comparison).
func FormatTextproto(text string) (string, error) {
	m, err := parseTask(text)
	if err != nil {
		return "", err
	}
	return formatTask(m), nil
}
