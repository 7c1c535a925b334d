//go:build !windows

package store

import "syscall"

// dirWritable reports whether files can be created in dir (access(2): the permission bits, a
// read-only mount).
func dirWritable(dir string) bool { return syscall.Access(dir, 2 /* W_OK */) == nil }
