package desktop

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"sync"
	"time"

	"fyne.io/fyne/v2"

	"github.com/agentdesk/agentdesk/engine/atomicfile"
)

// filePrefs are the app's preferences (theme, window size, last screen, workspace choices) in
// a JSON file written like every other file Agentdesk writes: temporary file, fsync, rename.
//
// fyne's own preferences truncate their file and then write it while a file watcher reloads
// it; when the watcher runs in between (at exit every time, when fyne saves once more after its
// event loop has stopped) fyne logs "Preferences load error: EOF", and a crash in that moment
// leaves the file empty. The app therefore runs fyne without an app id for preferences
// (nothing of fyne's is saved or watched) and answers fyne.CurrentApp().Preferences() with
// these.
type filePrefs struct {
	path string

	mu        sync.Mutex
	values    map[string]any
	listeners []func()
	dirty     bool
	timer     *time.Timer
	// saveErr is the last save's error, reported once
	saveErr error
}

// saveDelay gathers bursts of changes (a window being resized) into one write.
const saveDelay = 300 * time.Millisecond

// loadPrefs reads path; a missing file gives no values, and so does a damaged one (reported:
// preferences are not worth refusing to start over). legacy is fyne's own preferences file
// of earlier versions, read once when path does not exist yet.
func loadPrefs(path, legacy string) (*filePrefs, error) {
	p := &filePrefs{path: path, values: map[string]any{}}
	data, err := os.ReadFile(path)
	if os.IsNotExist(err) && legacy != "" {
		data, err = os.ReadFile(legacy)
		if err == nil {
			p.dirty = true // carried over: write it to the new place
		}
	}
	switch {
	case os.IsNotExist(err):
		return p, nil
	case err != nil:
		return p, err
	}
	if len(data) == 0 {
		return p, nil
	}
	if err := json.Unmarshal(data, &p.values); err != nil {
		p.values = map[string]any{}
		where := path
		var se *json.SyntaxError
		if errors.As(err, &se) { // the place: line and column of the offset
			line, col := 1, 1
			for _, c := range data[:min(int(se.Offset), len(data))] {
				if col++; c == '\n' {
					line, col = line+1, 1
				}
			}
			where = fmt.Sprintf("%s:%d:%d", path, line, max(col-1, 1))
		}
		return p, fmt.Errorf("%s: %w (starting from the default preferences)", where, err)
	}
	return p, nil
}

// Save writes the preferences now if they changed.
func (p *filePrefs) Save() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.timer != nil {
		p.timer.Stop()
		p.timer = nil
	}
	if !p.dirty || p.path == "" {
		return nil
	}
	data, err := json.MarshalIndent(p.values, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(p.path), 0o755); err != nil {
		return err
	}
	if err := atomicfile.Write(p.path, append(data, '\n'), 0o644); err != nil {
		return err
	}
	p.dirty = false
	return nil
}

func (p *filePrefs) set(key string, v any) {
	p.mu.Lock()
	if old, ok := p.values[key]; ok && reflect.DeepEqual(old, v) {
		p.mu.Unlock()
		return
	}
	p.values[key] = v
	p.dirty = true
	if p.timer == nil {
		p.timer = time.AfterFunc(saveDelay, func() {
			if err := p.Save(); err != nil {
				p.mu.Lock()
				report := p.saveErr == nil
				p.saveErr = err
				p.mu.Unlock()
				if report {
					fmt.Fprintf(os.Stderr, "agentdesk: saving preferences: %v\n", err)
				}
			}
		})
	}
	listeners := append([]func(){}, p.listeners...)
	p.mu.Unlock()
	for _, l := range listeners {
		l()
	}
}

func (p *filePrefs) get(key string) (any, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	v, ok := p.values[key]
	return v, ok
}

func (p *filePrefs) RemoveValue(key string) {
	p.mu.Lock()
	_, had := p.values[key]
	delete(p.values, key)
	p.dirty = p.dirty || had
	listeners := append([]func(){}, p.listeners...)
	p.mu.Unlock()
	if had {
		for _, l := range listeners {
			l()
		}
	}
}

func (p *filePrefs) AddChangeListener(l func()) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.listeners = append(p.listeners, l)
}

func (p *filePrefs) ChangeListeners() []func() {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]func(){}, p.listeners...)
}

// Values read back from JSON are float64, []any and string: the getters convert.

func (p *filePrefs) Bool(key string) bool { return p.BoolWithFallback(key, false) }
func (p *filePrefs) BoolWithFallback(key string, fallback bool) bool {
	if v, ok := p.get(key); ok {
		if b, ok := v.(bool); ok {
			return b
		}
	}
	return fallback
}
func (p *filePrefs) SetBool(key string, value bool) { p.set(key, value) }

func (p *filePrefs) Float(key string) float64 { return p.FloatWithFallback(key, 0) }
func (p *filePrefs) FloatWithFallback(key string, fallback float64) float64 {
	if v, ok := p.get(key); ok {
		if f, ok := number(v); ok {
			return f
		}
	}
	return fallback
}
func (p *filePrefs) SetFloat(key string, value float64) { p.set(key, value) }

func (p *filePrefs) Int(key string) int { return p.IntWithFallback(key, 0) }
func (p *filePrefs) IntWithFallback(key string, fallback int) int {
	if v, ok := p.get(key); ok {
		if f, ok := number(v); ok {
			return int(f)
		}
	}
	return fallback
}
func (p *filePrefs) SetInt(key string, value int) { p.set(key, float64(value)) }

func (p *filePrefs) String(key string) string { return p.StringWithFallback(key, "") }
func (p *filePrefs) StringWithFallback(key, fallback string) string {
	if v, ok := p.get(key); ok {
		if s, ok := v.(string); ok {
			return s
		}
	}
	return fallback
}
func (p *filePrefs) SetString(key string, value string) { p.set(key, value) }

func (p *filePrefs) BoolList(key string) []bool { return p.BoolListWithFallback(key, nil) }
func (p *filePrefs) BoolListWithFallback(key string, fallback []bool) []bool {
	return listOf(p, key, fallback, func(v any) (bool, bool) { b, ok := v.(bool); return b, ok })
}
func (p *filePrefs) SetBoolList(key string, value []bool) { p.set(key, anyList(value)) }

func (p *filePrefs) FloatList(key string) []float64 { return p.FloatListWithFallback(key, nil) }
func (p *filePrefs) FloatListWithFallback(key string, fallback []float64) []float64 {
	return listOf(p, key, fallback, number)
}
func (p *filePrefs) SetFloatList(key string, value []float64) { p.set(key, anyList(value)) }

func (p *filePrefs) IntList(key string) []int { return p.IntListWithFallback(key, nil) }
func (p *filePrefs) IntListWithFallback(key string, fallback []int) []int {
	return listOf(p, key, fallback, func(v any) (int, bool) { f, ok := number(v); return int(f), ok })
}
func (p *filePrefs) SetIntList(key string, value []int) {
	l := make([]any, len(value))
	for i, v := range value {
		l[i] = float64(v)
	}
	p.set(key, l)
}

func (p *filePrefs) StringList(key string) []string { return p.StringListWithFallback(key, nil) }
func (p *filePrefs) StringListWithFallback(key string, fallback []string) []string {
	return listOf(p, key, fallback, func(v any) (string, bool) { s, ok := v.(string); return s, ok })
}
func (p *filePrefs) SetStringList(key string, value []string) { p.set(key, anyList(value)) }

func number(v any) (float64, bool) {
	switch n := v.(type) {
	case float64:
		return n, true
	case int:
		return float64(n), true
	}
	return 0, false
}

func anyList[T any](value []T) []any {
	l := make([]any, len(value))
	for i, v := range value {
		l[i] = v
	}
	return l
}

func listOf[T any](p *filePrefs, key string, fallback []T, conv func(any) (T, bool)) []T {
	v, ok := p.get(key)
	if !ok {
		return fallback
	}
	l, ok := v.([]any)
	if !ok {
		return fallback
	}
	out := make([]T, 0, len(l))
	for _, e := range l {
		x, ok := conv(e)
		if !ok {
			return fallback
		}
		out = append(out, x)
	}
	return out
}

// prefsApp is the fyne app answering Preferences() with filePrefs and UniqueID() with the
// app id fyne was not given (see filePrefs).
type prefsApp struct {
	fyne.App
	prefs *filePrefs
	id    string
}

func (a *prefsApp) Preferences() fyne.Preferences { return a.prefs }
func (a *prefsApp) UniqueID() string              { return a.id }

var _ fyne.Preferences = (*filePrefs)(nil)
