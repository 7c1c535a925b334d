package mobileenv

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"

	"github.com/agentdesk/agentdesk/engine/atomicfile"
)

// ReplaceWithBackup writes data to path atomically and keeps the previous content as
// path + ".old" (the name the original edit tool uses). An existing ".old" is not lost: it is
// renamed to ".old.1" (or the first free ".old.N"), unless it already is the current file (a
// run interrupted after making the backup). The new content is fully written and synced
// before anything is renamed; temporary files that killed writers of path left behind are
// removed first and returned.
func ReplaceWithBackup(path string, data []byte) (discarded []string, err error) {
	discarded, err = atomicfile.Clean(path)
	if err != nil {
		return discarded, err
	}
	f, err := atomicfile.New(path, 0o644)
	if err != nil {
		return discarded, err
	}
	defer f.Abort()
	if _, err := f.Write(data); err != nil {
		return discarded, err
	}
	cur, curErr := os.Stat(path)
	old := path + ".old"
	if prev, err := os.Stat(old); err == nil && (curErr != nil || !os.SameFile(prev, cur)) {
		for n := 1; ; n++ {
			cand := fmt.Sprintf("%s.%d", old, n)
			if _, err := os.Lstat(cand); errors.Is(err, fs.ErrNotExist) {
				if err := os.Rename(old, cand); err != nil {
					return discarded, err
				}
				break
			}
		}
	}
	if curErr == nil {
		if _, err := os.Stat(old); errors.Is(err, fs.ErrNotExist) {
			if err := os.Link(path, old); err != nil {
				if err := copyFileSync(path, old); err != nil {
					return discarded, err
				}
			}
		}
	}
	return discarded, f.Commit()
}

// copyFileSync copies src to dst atomically (where hard links are not supported).
func copyFileSync(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := atomicfile.New(dst, 0o644)
	if err != nil {
		return err
	}
	defer out.Abort()
	if _, err := io.Copy(out, in); err != nil {
		return err
	}
	return out.Commit()
}

// appendFile appends data to path (creating it), syncing before returning.
func appendFile(path string, data []byte) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
