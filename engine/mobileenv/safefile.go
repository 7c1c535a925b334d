package mobileenv

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// createTemp writes data to a new temporary file next to path and syncs it.
func createTemp(path string, data []byte) (string, error) {
	dir := filepath.Dir(path)
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return "", err
	}
	name := f.Name()
	if _, err := f.Write(data); err != nil {
		f.Close()
		os.Remove(name)
		return "", err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		os.Remove(name)
		return "", err
	}
	if err := f.Close(); err != nil {
		os.Remove(name)
		return "", err
	}
	if err := os.Chmod(name, 0o644); err != nil {
		os.Remove(name)
		return "", err
	}
	return name, nil
}

func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		_ = d.Sync() // not supported everywhere (Windows); best effort
		d.Close()
	}
}

// ReplaceWithBackup writes data to path atomically (like atomicfile.Write, but the new content
// must be on disk before the backup is renamed, so it manages its own temporary file) and keeps the previous content as
// path + ".old" (the name the original edit tool uses). An existing ".old" is not lost: it is
// renamed to ".old.1" (or the first free ".old.N"). The new content is fully written and synced
// before anything is renamed.
func ReplaceWithBackup(path string, data []byte) error {
	tmp, err := createTemp(path, data)
	if err != nil {
		return err
	}
	fail := func(err error) error {
		os.Remove(tmp)
		return err
	}
	old := path + ".old"
	if _, err := os.Lstat(old); err == nil {
		for n := 1; ; n++ {
			cand := fmt.Sprintf("%s.%d", old, n)
			if _, err := os.Lstat(cand); errors.Is(err, fs.ErrNotExist) {
				if err := os.Rename(old, cand); err != nil {
					return fail(err)
				}
				break
			}
		}
	}
	if _, err := os.Lstat(path); err == nil {
		if err := os.Link(path, old); err != nil {
			if err := copyFileSync(path, old); err != nil {
				return fail(err)
			}
		}
	}
	if err := os.Rename(tmp, path); err != nil {
		return fail(err)
	}
	syncDir(filepath.Dir(path))
	return nil
}

func copyFileSync(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		os.Remove(dst)
		return err
	}
	if err := out.Sync(); err != nil {
		out.Close()
		return err
	}
	return out.Close()
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
