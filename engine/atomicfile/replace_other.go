//go:build !windows

package atomicfile

// replaceError explains a failed rename over target (see replace_windows.go); elsewhere the
// rename's own error says it.
func replaceError(target string, err error) error { return err }
