package samples

import (
	"os"
	"path/filepath"
	"testing"
)

// TestNamesMatchWhatWriteWrites: the names the workspaces look for are those Write gives.
func TestNamesMatchWhatWriteWrites(t *testing.T) {
	s, err := Write(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if !IsDemonstrations(s.Demonstrations) {
		t.Fatalf("IsDemonstrations(%s) is false", s.Demonstrations)
	}
	if IsDemonstrations(filepath.Join(filepath.Dir(s.Demonstrations), "other.pkl")) {
		t.Fatal("another pickle beside the sample is taken for it")
	}
	if _, err := os.Stat(filepath.Join(s.Odyssey, "annotations", OdysseyEpisode(1)+".json")); err != nil {
		t.Fatalf("no first sample episode %s: %v", OdysseyEpisode(1), err)
	}
}
