//go:build !linux

package atomicfile

import (
	"io/fs"
	"os"
	"path/filepath"
)

// SyncTree makes every file written below dir durable before dir is renamed into place: an
// fsync of each file (systems without Linux's syncfs).
func SyncTree(dir string) error {
	return filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		f, err := os.Open(path)
		if err != nil {
			return err
		}
		defer f.Close()
		return f.Sync()
	})
}
