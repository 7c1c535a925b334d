//go:build windows

package process

import "syscall"

const (
	stillActive         = 259               // STILL_ACTIVE, the exit code of a process that has not ended
	errInvalidParameter = syscall.Errno(87) // ERROR_INVALID_PARAMETER: no process with that id
)

// Running reports whether a process with this id is running. When it cannot be asked
// (access denied), it is taken as running: its files are left alone.
func Running(pid int) bool {
	h, err := syscall.OpenProcess(syscall.PROCESS_QUERY_INFORMATION, false, uint32(pid))
	if err != nil {
		return err != errInvalidParameter // no such process
	}
	defer syscall.CloseHandle(h)
	var code uint32
	if err := syscall.GetExitCodeProcess(h, &code); err != nil {
		return true
	}
	return code == stillActive
}
