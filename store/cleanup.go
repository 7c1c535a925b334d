package store

import (
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/agentdesk/agentdesk/engine/atomicfile"
	"github.com/agentdesk/agentdesk/engine/process"
)

// staleAge is how old a temporary name without a process id must be before it is taken for
// a leftover: such files (earlier versions' names, the Windows folder probe) live for
// milliseconds while their process runs.
const staleAge = 10 * time.Minute

// cleanTemps removes, from the store's folder, the temporary files that this app makes beside
// a store and that a killed process left behind, and returns their names:
//
//   - the atomic writer's temporary files of the store and of its markers (the marker of a
//     process is rewritten with engine/atomicfile, so a kill can leave
//     "..<store>.open-<pid>-<n>.<pid>-<n>.tmp"), when the process named in them no longer
//     runs, or, for the names of earlier versions that carry no process id, when they are
//     older than staleAge;
//   - the folder probe ".agentdesk-probe-<n>" (Windows) older than staleAge.
//
// A name whose process still runs is kept, whatever its age: it may be being written. The
// markers of processes that ended are not removed here but by the next open for writing, which
// learns from them that the store needs a check (openMarker). It runs on every open, reading
// ones included; what cannot be removed (a read-only folder) is left.
func cleanTemps(store string, now time.Time) []string {
	dir, base := filepath.Dir(store), filepath.Base(store)
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	markers := markerPrefix(store)
	var removed []string
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() || !strings.HasPrefix(name, ".") {
			continue
		}
		stale := false
		if target, pid, ok := atomicfile.ParseTemp(name); ok && (target == base || isMarkerName(target, markers)) {
			switch {
			case pid == os.Getpid():
			case pid > 0:
				stale = !process.Running(pid)
			default:
				stale = olderThan(e, now, staleAge)
			}
		} else if r, ok := strings.CutPrefix(name, ".agentdesk-probe-"); ok && r != "" {
			stale = olderThan(e, now, staleAge)
		}
		if stale {
			p := filepath.Join(dir, name)
			if os.Remove(p) == nil {
				removed = append(removed, p)
			}
		}
	}
	return removed
}

// isMarkerName reports whether name is a marker's name, ".<store>.open-<pid>-<n>".
func isMarkerName(name, prefix string) bool {
	_, ok := markerPID(name, prefix)
	return ok
}

func olderThan(e os.DirEntry, now time.Time, age time.Duration) bool {
	info, err := e.Info()
	return err == nil && now.Sub(info.ModTime()) > age
}
