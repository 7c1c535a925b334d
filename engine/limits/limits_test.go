package limits

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestSizeLimitNamedInTheError(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "big.pkl")
	os.WriteFile(path, make([]byte, 3000), 0o644)
	t.Setenv(EnvPrefix+"PICKLE", "2KiB")
	_, err := ReadFile(path, Pickle)
	if !errors.Is(err, ErrLimit) {
		t.Fatalf("over the limit: %v", err)
	}
	for _, want := range []string{path, "2.9 KiB", "2 KiB", "annotation pickles", "AGENTDESK_LIMIT_PICKLE"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}
	t.Setenv(EnvPrefix+"PICKLE", "")
	if b, err := ReadFile(path, Pickle); err != nil || len(b) != 3000 {
		t.Fatalf("within the default limit: %d bytes, %v", len(b), err)
	}
	// a stream is cut at the limit, whatever it claims
	if _, err := Read(strings.NewReader(strings.Repeat("x", 5000)), "stdin", Limit{What: "things", Env: "X", Max: 4096, Bytes: true}); !errors.Is(err, ErrLimit) {
		t.Fatalf("stream over the limit: %v", err)
	}
}

func TestCountLimits(t *testing.T) {
	if err := Units.Check("units.json line 3", 1e12); !errors.Is(err, ErrLimit) || !strings.Contains(err.Error(), "1000000000000") || !strings.Contains(err.Error(), "units.json line 3") {
		t.Fatalf("10^12 units: %v", err)
	}
	if err := Episodes.Check("import", 1_000_000); err != nil {
		t.Fatalf("a million episodes must stay within the limit: %v", err)
	}
	t.Setenv(EnvPrefix+"UNITS", "10")
	if Units.Check("x", 11) == nil || Units.Check("x", 10) != nil {
		t.Fatal("the override is not used")
	}
	t.Setenv(EnvPrefix+"UNITS", "nonsense")
	if Units.Value() != Units.Max {
		t.Fatal("an invalid override replaced the default")
	}
}

func TestParseSize(t *testing.T) {
	for s, want := range map[string]int64{"311MB": 311e6, "8GiB": 8 << 30, "4G": 4 << 30, "1.5 KiB": 1536, "1000": 1000, "7b": 7} {
		if got, err := ParseSize(s); err != nil || got != want {
			t.Errorf("%s: %d %v, want %d", s, got, err, want)
		}
	}
	for _, s := range []string{"", "x", "-1", "1e30GB"} {
		if _, err := ParseSize(s); err == nil {
			t.Errorf("%q accepted", s)
		}
	}
}
