//go:build !windows

package limits

import "syscall"

// openFlags keep an open of a file that turned into a FIFO after the Stat from waiting for a
// writer (regular files ignore O_NONBLOCK).
const openFlags = syscall.O_NONBLOCK
