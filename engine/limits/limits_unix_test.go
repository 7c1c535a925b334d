//go:build !windows

package limits

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

func TestDevicesAndFIFOsRefused(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "pipe")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "annotation.json")
	if err := os.Symlink("/dev/zero", link); err != nil {
		t.Fatal(err)
	}
	for path, kind := range map[string]string{"/dev/zero": "character device", "/dev/urandom": "character device",
		fifo: "FIFO", link: "character device", dir: "folder"} {
		_, err := ReadFile(path, Pickle) // a FIFO without a writer would block here if opened
		if !errors.Is(err, ErrLimit) || !strings.Contains(err.Error(), kind) || !strings.Contains(err.Error(), path) {
			t.Errorf("%s: %v", path, err)
		}
	}
}
