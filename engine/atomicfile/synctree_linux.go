package atomicfile

import (
	"os"

	"golang.org/x/sys/unix"
)

// SyncTree makes every file written below dir durable before dir is renamed into place: on
// Linux one syncfs of dir's file system, instead of an fsync per file (a folder of thousands of
// frames).
func SyncTree(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return unix.Syncfs(int(d.Fd()))
}
