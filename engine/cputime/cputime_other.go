//go:build !unix

// Package cputime reads the CPU time the process has used, for benchmarks that report work per
// CPU second beside wall time.
package cputime

import "time"

// Process is not measured here (0): benchmarks then report no per-CPU-second rate.
func Process() time.Duration { return 0 }
