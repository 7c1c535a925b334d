//go:build unix

// Package cputime reads the CPU time the process has used, for benchmarks that report work per
// CPU second beside wall time: on a machine whose cores are shared with other work, the CPU
// time says what a measurement costs, the wall time also how long it waited for a core.
package cputime

import (
	"syscall"
	"time"
)

// Process is the CPU time (user and system, all threads) the process has used so far.
func Process() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
