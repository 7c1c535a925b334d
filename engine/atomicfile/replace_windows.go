//go:build windows

package atomicfile

import (
	"errors"
	"fmt"

	"golang.org/x/sys/windows"
)

// replaceError explains a failed rename over target: on Windows a file another program holds
// open (without sharing deletion, as most editors and viewers do) cannot be replaced.
func replaceError(target string, err error) error {
	if errors.Is(err, windows.ERROR_SHARING_VIOLATION) || errors.Is(err, windows.ERROR_ACCESS_DENIED) ||
		errors.Is(err, windows.ERROR_LOCK_VIOLATION) {
		return fmt.Errorf("cannot save %s: it is open in another program, which keeps it from being replaced; "+
			"the file is unchanged (close it there and try again): %w", target, err)
	}
	return err
}
