//go:build !windows

package process

import (
	"errors"
	"syscall"
)

// Running reports whether a process with this id exists (signal 0 checks without
// sending anything; EPERM means it exists but belongs to someone else).
func Running(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}
