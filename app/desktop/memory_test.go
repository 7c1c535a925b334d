package desktop

import "testing"

func TestMemoryLimit(t *testing.T) {
	for _, c := range []struct {
		value  string
		goSet  bool
		want   int64
		errors bool
	}{
		{"", false, defaultMemoryLimit, false},
		{"", true, 0, false}, // GOMEMLIMIT applies
		{"off", false, 0, false},
		{"256MiB", true, 256 << 20, false},
		{"300MB", false, 300e6, false},
		{" 2GiB ", false, 2 << 30, false},
		{"123456789", false, 123456789, false},
		{"12 KiB", false, 12 << 10, false},
		{"lots", false, defaultMemoryLimit, true},
		{"-5MiB", false, defaultMemoryLimit, true},
		{"5TB", false, defaultMemoryLimit, true},
		{"0", false, defaultMemoryLimit, true},
	} {
		got, err := memoryLimit(c.value, c.goSet)
		if got != c.want || (err != nil) != c.errors {
			t.Errorf("memoryLimit(%q, %v) = %d, %v; want %d (error %v)", c.value, c.goSet, got, err, c.want, c.errors)
		}
	}
}
