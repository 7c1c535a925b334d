// Package limits bounds everything Agentdesk reads from outside: files are read only when they
// are regular files (a device such as /dev/zero, a FIFO or a socket is refused before it is
// opened for reading) and not larger than the limit of their kind, and the counts a file
// declares (units, datapoints, trajectories, steps, episodes) are checked before any work is
// done per item. Without limits, a path to /dev/zero or a project declaring 10^12 units makes
// an import run until memory or the disk is full.
//
// The limits stand far above the largest real datasets (a 311 MB annotation pickle, 1M GUI
// episodes, a multi-GB all_annot.json) and far below what a laptop can hold. Each can be raised
// (or lowered) with an environment variable named in its error, e.g.
// AGENTDESK_LIMIT_PICKLE=16GiB or AGENTDESK_LIMIT_UNITS=50000000.
package limits

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strconv"
	"strings"
)

// ErrLimit matches (errors.Is) every error of this package about a limit or a file type.
var ErrLimit = errors.New("input limit")

// limitError is an error about a limit or a file type; its message says it all.
type limitError struct{ msg string }

func (e *limitError) Error() string        { return e.msg }
func (e *limitError) Is(target error) bool { return target == ErrLimit }

func errorf(format string, args ...any) error { return &limitError{fmt.Sprintf(format, args...)} }

// A Limit is a maximum for one kind of input: a size in bytes or a count.
type Limit struct {
	// What is read, in the plural, for messages: "annotation pickles", "units".
	What string
	// Env names the variable that overrides Max (AGENTDESK_LIMIT_<Env>).
	Env string
	// Max is the default maximum.
	Max int64
	// Bytes says Max is a size (printed in KiB/MiB/GiB) rather than a count.
	Bytes bool
}

// Sizes of files, by kind.
var (
	Pickle         = Limit{What: "annotation pickles", Env: "PICKLE", Max: 4 << 30, Bytes: true}
	TaskDefinition = Limit{What: "task definitions and templates", Env: "TEXT", Max: 64 << 20, Bytes: true}
	Annotation     = Limit{What: "episode annotation files", Env: "ANNOTATION", Max: 256 << 20, Bytes: true}
	AllAnnotations = Limit{What: "one-file annotation sets (all_annot.json)", Env: "ALL_ANNOTATIONS", Max: 64 << 30, Bytes: true}
	SplitFile      = Limit{What: "split files", Env: "SPLIT", Max: 4 << 30, Bytes: true}
	Predictions    = Limit{What: "prediction files", Env: "PREDICTIONS", Max: 16 << 30, Bytes: true}
	ConverterFile  = Limit{What: "converter training and test files", Env: "CONVERTER_FILE", Max: 16 << 30, Bytes: true}
	Screenshot     = Limit{What: "screenshots", Env: "SCREENSHOT", Max: 256 << 20, Bytes: true}
	ProjectFile    = Limit{What: "evaluation project files", Env: "PROJECT_FILE", Max: 4 << 30, Bytes: true}
	Config         = Limit{What: "configuration files", Env: "CONFIG", Max: 16 << 20, Bytes: true}
)

// Counts declared by files.
var (
	Units        = Limit{What: "units of an evaluation project", Env: "UNITS", Max: 10_000_000}
	Datapoints   = Limit{What: "datapoints of an evaluation project", Env: "DATAPOINTS", Max: 10_000_000}
	Trajectories = Limit{What: "trajectories of an annotation file", Env: "TRAJECTORIES", Max: 10_000_000}
	Steps        = Limit{What: "steps of one episode or trajectory", Env: "STEPS", Max: 1_000_000}
	Episodes     = Limit{What: "episodes of one import", Env: "EPISODES", Max: 100_000_000}
)

// EnvPrefix starts the names of the overriding variables.
const EnvPrefix = "AGENTDESK_LIMIT_"

// Value is the limit in force: the variable's value when it is set and valid, else Max.
func (l Limit) Value() int64 {
	if s := os.Getenv(EnvPrefix + l.Env); s != "" {
		if n, err := ParseSize(s); err == nil && n > 0 {
			return n
		}
	}
	return l.Max
}

func (l Limit) String() string {
	if l.Bytes {
		return FormatSize(l.Value())
	}
	return strconv.FormatInt(l.Value(), 10)
}

// exceeded is the error for n over the limit; where says what exceeded it.
func (l Limit) exceeded(where string, n int64, atLeast bool) error {
	amount := strconv.FormatInt(n, 10)
	if l.Bytes {
		amount = FormatSize(n)
	}
	if atLeast {
		amount = "more than " + amount
	}
	return errorf("%s: %s, over the limit of %s for %s (set %s%s to raise it)",
		where, amount, l, l.What, EnvPrefix, l.Env)
}

// Check returns an error naming where, the count and the limit when n is over the limit.
func (l Limit) Check(where string, n int64) error {
	if n > l.Value() {
		return l.exceeded(where, n, false)
	}
	return nil
}

// Regular returns an error unless path (symbolic links followed) is a regular file. It does
// not open the file: opening a FIFO would wait for a writer.
func Regular(path string) (fs.FileInfo, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, errorf("%s is %s, not a regular file: only files are read", path, kindOf(st.Mode()))
	}
	return st, nil
}

func kindOf(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a folder"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe (FIFO)"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a device"
	}
	return "not a regular file"
}

// Open opens a regular file of size within l, returning it with its size. The caller closes
// it; reads past the limit (a file that grows while read) are the caller's to bound, or use
// ReadFile.
func Open(path string, l Limit) (*os.File, int64, error) {
	st, err := Regular(path)
	if err != nil {
		return nil, 0, err
	}
	if err := l.Check(path, st.Size()); err != nil {
		return nil, 0, err
	}
	f, err := os.OpenFile(path, os.O_RDONLY|openFlags, 0)
	if err != nil {
		return nil, 0, err
	}
	// the file may have been replaced between Stat and Open
	if st2, err := f.Stat(); err != nil || !st2.Mode().IsRegular() {
		f.Close()
		if err == nil {
			err = errorf("%s is %s, not a regular file: only files are read", path, kindOf(st2.Mode()))
		}
		return nil, 0, err
	}
	return f, st.Size(), nil
}

// ReadFile reads a whole regular file of at most l bytes.
func ReadFile(path string, l Limit) ([]byte, error) {
	f, size, err := Open(path, l)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return readAll(f, path, size, l)
}

// Read reads r to its end, refusing more than l bytes; name is used in the error.
func Read(r io.Reader, name string, l Limit) ([]byte, error) {
	return readAll(r, name, 0, l)
}

func readAll(r io.Reader, name string, size int64, l Limit) ([]byte, error) {
	max := l.Value()
	buf := make([]byte, 0, min(size, max)+1)
	for {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		n, err := r.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if int64(len(buf)) > max {
			return nil, l.exceeded(name, max, true)
		}
		if err == io.EOF {
			return buf, nil
		}
		if err != nil {
			return nil, err
		}
	}
}

// ParseSize reads a size such as 311MB, 8GiB, 4G, 1.5GB or 1000 (bytes; K, M, G, T are powers
// of 1024 with or without "iB"; KB, MB, GB, TB powers of 1000).
func ParseSize(s string) (int64, error) {
	t := strings.TrimSpace(s)
	units := []struct {
		suffix string
		mul    float64
	}{{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30}, {"TiB", 1 << 40},
		{"KB", 1e3}, {"MB", 1e6}, {"GB", 1e9}, {"TB", 1e12},
		{"K", 1 << 10}, {"M", 1 << 20}, {"G", 1 << 30}, {"T", 1 << 40}, {"B", 1}}
	mul := 1.0
	for _, u := range units {
		if len(t) > len(u.suffix) && strings.EqualFold(t[len(t)-len(u.suffix):], u.suffix) {
			t, mul = strings.TrimSpace(t[:len(t)-len(u.suffix)]), u.mul
			break
		}
	}
	f, err := strconv.ParseFloat(t, 64)
	if err != nil || f < 0 || f*mul > 1<<62 {
		return 0, fmt.Errorf("not a size: %q", s)
	}
	return int64(f * mul), nil
}

// FormatSize prints a size in B, KiB, MiB or GiB with at most one decimal.
func FormatSize(n int64) string {
	f := func(v float64, unit string) string {
		return strings.TrimSuffix(strconv.FormatFloat(v, 'f', 1, 64), ".0") + " " + unit
	}
	switch {
	case n >= 1<<30:
		return f(float64(n)/(1<<30), "GiB")
	case n >= 1<<20:
		return f(float64(n)/(1<<20), "MiB")
	case n >= 1<<10:
		return f(float64(n)/(1<<10), "KiB")
	}
	return strconv.FormatInt(n, 10) + " B"
}
