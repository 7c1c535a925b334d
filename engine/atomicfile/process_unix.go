//go:build !windows

package atomicfile

import (
	"errors"
	"syscall"
)

// processRunning reports whether a process with this id exists (signal 0 checks without
// sending anything; EPERM means it exists but belongs to someone else).
func processRunning(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}
