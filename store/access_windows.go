//go:build windows

package store

import "os"

// dirWritable reports whether files can be created in dir (a probe file is made and removed).
func dirWritable(dir string) bool {
	f, err := os.CreateTemp(dir, ".agentdesk-probe-*")
	if err != nil {
		return false
	}
	f.Close()
	os.Remove(f.Name())
	return true
}
