package store

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/agentdesk/agentdesk/engine/atomicfile"
	"github.com/agentdesk/agentdesk/engine/process"
)

// A marker is a small file beside the store, ".<store name>.open-<pid>-<n>", that a process
// keeps while it has the store open for writing. It serves two purposes:
//
//   - A marker whose process no longer runs means that process ended without closing the
//     store (a crash, a kill, a power cut): the next process checks the store before its
//     first write (see checkBeforeWrite). Stores reach many GB, so they are not checked on
//     every open.
//   - It says what its process is doing (Store.SetActivity), so that a process waiting to
//     write can tell the user what it waits for.
type marker struct {
	path    string
	mu      sync.Mutex
	info    markerInfo
	last    time.Time // last write of the file
	pending bool      // a write is scheduled
}

type markerInfo struct {
	PID      int       `json:"pid"`
	Since    time.Time `json:"since"`
	Activity string    `json:"activity,omitempty"`
	Progress string    `json:"progress,omitempty"`
}

func markerPrefix(store string) string { return "." + filepath.Base(store) + ".open-" }

// openMarker removes the markers of processes that ended and creates this one's. checkDue
// reports whether a process ended without closing the store. A folder where no marker can be
// made gives no marker (and no check).
func openMarker(store string) (m *marker, checkDue bool) {
	dir, prefix := filepath.Dir(store), markerPrefix(store)
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		pid, ok := markerPID(e.Name(), prefix)
		if !ok || pid == os.Getpid() || process.Running(pid) {
			continue
		}
		checkDue = true
		os.Remove(filepath.Join(dir, e.Name()))
	}
	f, err := os.CreateTemp(dir, prefix+strconv.Itoa(os.Getpid())+"-*")
	if err != nil {
		return nil, checkDue
	}
	m = &marker{path: f.Name(), info: markerInfo{PID: os.Getpid(), Since: time.Now().UTC()}}
	b, _ := json.Marshal(m.info)
	f.Write(b)
	f.Close()
	return m, checkDue
}

// markerPID parses ".<store>.open-<pid>-<n>".
func markerPID(name, prefix string) (int, bool) {
	rest, ok := strings.CutPrefix(name, prefix)
	if !ok {
		return 0, false
	}
	p, _, ok := strings.Cut(rest, "-")
	if !ok {
		return 0, false
	}
	pid, err := strconv.Atoi(p)
	return pid, err == nil && pid > 0
}

func (m *marker) remove() {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.info.PID = 0 // a scheduled write does nothing now
	os.Remove(m.path)
}

// set records the activity and progress, writing the file at most twice a second.
func (m *marker) set(activity, progress string, force bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if activity != "" {
		m.info.Activity = activity
	}
	m.info.Progress = progress
	if wait := 500*time.Millisecond - time.Since(m.last); !force && wait > 0 {
		if !m.pending { // write the latest state once the half second is over
			m.pending = true
			time.AfterFunc(wait, func() {
				m.mu.Lock()
				defer m.mu.Unlock()
				m.pending = false
				m.write()
			})
		}
		return
	}
	m.write()
}

// write writes the file (under m.mu).
func (m *marker) write() {
	if m.info.PID == 0 {
		return // removed
	}
	m.last = time.Now()
	b, _ := json.Marshal(m.info)
	atomicfile.Write(m.path, b, 0o644) // best effort: it only informs other processes
}

// SetActivity says what this process does with the store (e.g. "agentdesk odyssey import
// DIR"), for processes that wait to write.
func (s *Store) SetActivity(activity string) {
	if s.marker != nil {
		s.marker.set(activity, "", true)
	}
}

// SetProgress says how far the activity is ("5,000 of 20,000 episodes"); it is written out at
// most twice a second, so it may be called for every item.
func (s *Store) SetProgress(progress string) {
	if s.marker != nil {
		s.marker.set("", progress, false)
	}
}

// othersActivity describes the other running processes that have the store open for writing.
func othersActivity(store string) []string {
	dir, prefix := filepath.Dir(store), markerPrefix(store)
	entries, _ := os.ReadDir(dir)
	var out []string
	for _, e := range entries {
		pid, ok := markerPID(e.Name(), prefix)
		if !ok || pid == os.Getpid() || !process.Running(pid) {
			continue
		}
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			continue
		}
		var info markerInfo
		if json.Unmarshal(b, &info) != nil || info.Activity == "" {
			continue
		}
		s := fmt.Sprintf("pid %d: %s", pid, info.Activity)
		if info.Progress != "" {
			s += ", " + info.Progress
		}
		out = append(out, s)
	}
	return out
}
