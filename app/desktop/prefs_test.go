package desktop

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestPreferencesFile: values of every kind survive a save and a load, the file is written
// atomically after a burst of changes, listeners hear each change, fyne's old file is carried
// over once, and a damaged file starts from defaults instead of failing.
func TestPreferencesFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "cfg", "preferences.json")
	legacy := filepath.Join(dir, "fyne-preferences.json")
	if err := os.WriteFile(legacy, []byte(`{"ui.theme":"dark","ui.windowWidth":900}`), 0o644); err != nil {
		t.Fatal(err)
	}
	p, err := loadPrefs(path, legacy)
	if err != nil {
		t.Fatal(err)
	}
	if p.String("ui.theme") != "dark" || p.Int("ui.windowWidth") != 900 {
		t.Fatalf("legacy values not carried over: %v", p.values)
	}
	heard := 0
	p.AddChangeListener(func() { heard++ })
	p.SetBool("b", true)
	p.SetFloat("f", 1.5)
	p.SetInt("i", 7)
	p.SetString("s", "x")
	p.SetStringList("sl", []string{"a", "b"})
	p.SetIntList("il", []int{1, 2})
	p.SetFloatList("fl", []float64{0.5})
	p.SetBoolList("bl", []bool{true, false})
	p.SetString("s", "x") // unchanged: no event
	if heard != 8 {
		t.Fatalf("listeners heard %d changes, want 8", heard)
	}
	time.Sleep(saveDelay + 200*time.Millisecond)
	q, err := loadPrefs(path, "")
	if err != nil {
		t.Fatal(err)
	}
	if !q.Bool("b") || q.Float("f") != 1.5 || q.Int("i") != 7 || q.String("s") != "x" ||
		len(q.StringList("sl")) != 2 || q.IntList("il")[1] != 2 || q.FloatList("fl")[0] != 0.5 || q.BoolList("bl")[1] ||
		q.String("ui.theme") != "dark" {
		t.Fatalf("after the delayed save: %v", q.values)
	}
	if q.IntWithFallback("missing", 3) != 3 || q.StringWithFallback("i", "fb") != "fb" {
		t.Fatal("fallbacks")
	}
	q.RemoveValue("s")
	if err := q.Save(); err != nil {
		t.Fatal(err)
	}
	if r, _ := loadPrefs(path, ""); r.String("s") != "" {
		t.Fatal("removed value came back")
	}
	entries, _ := os.ReadDir(filepath.Dir(path))
	if len(entries) != 1 {
		t.Fatalf("temporary files left: %v", entries)
	}
	if err := os.WriteFile(path, []byte("{\"a\": 1,\n  not json"), 0o644); err != nil {
		t.Fatal(err)
	}
	if r, err := loadPrefs(path, ""); err == nil || r == nil || len(r.values) != 0 || !strings.Contains(err.Error(), path+":2:3: ") {
		t.Fatalf("damaged file (want its name, line 2, column 3): %v %v", r, err)
	}
}
