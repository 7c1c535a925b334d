// Package atomicfile replaces files so that readers, and the disk after a crash, see either
// the old content or the new, never a half-written file: write a temporary file in the same
// folder, fsync it, rename it over the target, fsync the folder.
//
// A process killed while writing (kill -9, a power cut) cannot remove its temporary file. The
// temporary names carry the writer's process id (".<name>.<pid>-<random>.tmp"), so a later
// writer of the same file can tell leftovers of dead processes from files another running
// process is still writing, and Clean removes the leftovers. Tools that overwrite a user's
// file call Clean before writing and report what it removed.
package atomicfile

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/agentdesk/agentdesk/engine/process"
)

// File is the next version of a file, being written to a temporary file beside it. Write to
// it, then Commit (which makes it the file) or Abort (which removes it); Abort after Commit is
// a no-op, so `defer f.Abort()` is the idiom.
type File struct {
	f      *os.File
	target string
	perm   fs.FileMode
	done   bool
}

// New starts the next version of path with the given permissions, creating path's folder when
// needed.
func New(path string, perm fs.FileMode) (*File, error) {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	f, err := os.CreateTemp(dir, tempPrefix(path)+"*"+tempSuffix)
	if err != nil {
		return nil, err
	}
	return &File{f: f, target: path, perm: perm}, nil
}

// Name is the temporary file's path.
func (f *File) Name() string { return f.f.Name() }

// Write appends p to the new version.
func (f *File) Write(p []byte) (int, error) { return f.f.Write(p) }

// Commit syncs the new version to disk and renames it over the target. On failure the
// temporary file is removed and the target is unchanged.
func (f *File) Commit() error {
	if f.done {
		return errors.New("atomicfile: commit after commit or abort")
	}
	f.done = true
	tmp := f.f.Name()
	err := f.f.Chmod(f.perm)
	if err == nil {
		err = f.f.Sync()
	}
	if cerr := f.f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		if err = os.Rename(tmp, f.target); err != nil {
			err = replaceError(f.target, err)
		}
	}
	if err != nil {
		os.Remove(tmp)
		return err
	}
	SyncDir(filepath.Dir(f.target))
	return nil
}

// Abort discards the new version (a no-op after Commit).
func (f *File) Abort() {
	if f.done {
		return
	}
	f.done = true
	f.f.Close()
	os.Remove(f.f.Name())
}

// Write replaces path with data, creating its folder when needed.
func Write(path string, data []byte, perm fs.FileMode) error {
	f, err := New(path, perm)
	if err != nil {
		return err
	}
	defer f.Abort()
	if _, err := f.Write(data); err != nil {
		return err
	}
	return f.Commit()
}

// SyncDir makes renames and creations in dir durable (best effort: not every system can sync
// a folder).
func SyncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		_ = d.Sync()
		d.Close()
	}
}

const tempSuffix = ".tmp"

// tempPrefix is ".<name>.<pid>-": the pid tells Clean whether the writer still runs.
func tempPrefix(path string) string {
	return "." + filepath.Base(path) + "." + strconv.Itoa(os.Getpid()) + "-"
}

// Stale lists the temporary files that writers of path left behind and that no running
// process owns: those named with the id of a process that is gone, and those of earlier
// Agentdesk versions (".<name>.<random>.tmp" and ".<name>.tmp<random>", which carry no id).
func Stale(path string) ([]string, error) {
	dir, base := filepath.Dir(path), filepath.Base(path)
	entries, err := os.ReadDir(dir)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, nil
		}
		return nil, err
	}
	var out []string
	for _, e := range entries {
		if e.IsDir() {
			continue
		}
		pid, ok := tempOwner(e.Name(), base)
		if !ok || (pid > 0 && process.Running(pid)) {
			continue
		}
		out = append(out, filepath.Join(dir, e.Name()))
	}
	return out, nil
}

// tempOwner reports whether name is a temporary file of base and the pid in its name (0 for
// the names of earlier versions, which hold none).
func tempOwner(name, base string) (int, bool) {
	rest, ok := strings.CutPrefix(name, "."+base+".")
	if !ok {
		return 0, false
	}
	if r, ok := strings.CutPrefix(rest, "tmp"); ok && digits(r) { // ".<name>.tmp<random>"
		return 0, true
	}
	r, ok := strings.CutSuffix(rest, tempSuffix)
	if !ok {
		return 0, false
	}
	if digits(r) { // ".<name>.<random>.tmp"
		return 0, true
	}
	p, random, ok := strings.Cut(r, "-")
	if !ok || !digits(p) || !digits(random) {
		return 0, false
	}
	pid, err := strconv.Atoi(p)
	if err != nil || pid <= 0 {
		return 0, false
	}
	return pid, true
}

// ParseTemp reports whether name (a file name, no folder) is a temporary file this package
// makes, or made in earlier versions, and returns the name of the file it was the next
// version of and the pid in its name (0 for the names of earlier versions, which hold none).
// A temporary file of a temporary file ("..<name>.<pid>-<n>.<pid>-<n>.tmp") gives the inner
// temporary name as its target.
func ParseTemp(name string) (target string, pid int, ok bool) {
	if !strings.HasPrefix(name, ".") {
		return "", 0, false
	}
	if i := strings.LastIndex(name, ".tmp"); i > 1 && digits(name[i+len(".tmp"):]) { // ".<name>.tmp<random>"
		target = name[1:i]
		if pid, ok := tempOwner(name, target); ok {
			return target, pid, true
		}
	}
	rest, ok := strings.CutSuffix(name, tempSuffix)
	if !ok {
		return "", 0, false
	}
	i := strings.LastIndex(rest, ".")
	if i < 2 {
		return "", 0, false
	}
	target = rest[1:i]
	pid, ok = tempOwner(name, target)
	return target, pid, ok
}

func digits(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// Clean removes the temporary files that Stale lists and returns their names. A file that
// cannot be removed is an error naming it; the others are removed all the same.
func Clean(path string) ([]string, error) {
	stale, err := Stale(path)
	if err != nil {
		return nil, err
	}
	var removed []string
	var errs []error
	for _, p := range stale {
		if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
			errs = append(errs, fmt.Errorf("cannot remove the leftover temporary file %s: %w", p, err))
			continue
		}
		removed = append(removed, p)
	}
	return removed, errors.Join(errs...)
}
