//go:build windows

package limits

const openFlags = 0
