package desktop

import "testing"

func TestMemoryLimit(t *testing.T) {
	for _, c := range []struct {
		value  string
		want   int64
		errors bool
	}{
		{"", 0, false},
		{"off", -1, false},
		{"256MiB", 256 << 20, false},
		{"300MB", 300e6, false},
		{" 2GiB ", 2 << 30, false},
		{"123456789", 123456789, false},
		{"12 KiB", 12 << 10, false},
		{"lots", 0, true},
		{"-5MiB", 0, true},
		{"5TB", 0, true},
		{"0", 0, true},
	} {
		got, err := memoryLimit(c.value)
		if got != c.want || (err != nil) != c.errors {
			t.Errorf("memoryLimit(%q) = %d, %v; want %d (error %v)", c.value, got, err, c.want, c.errors)
		}
	}
}

func TestMemoryLimitFollowsTheLiveHeap(t *testing.T) {
	for _, c := range []struct{ live, want int64 }{
		{0, memoryFloor},
		{50 << 20, memoryFloor},
		{105 << 20, 105<<20 + 105<<18 + memoryHeadroom},
		{400 << 20, 500<<20 + memoryHeadroom},
	} {
		if got := followingLimit(c.live); got != c.want {
			t.Errorf("live %d MiB: limit %d MiB, want %d MiB", c.live>>20, got>>20, c.want>>20)
		}
	}
}
