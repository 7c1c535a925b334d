package gridworld

import (
	"encoding/json"
	"math"
	"testing"
	"time"
)

// A bench too short for the clock still gives finite rates that JSON can carry (under wine
// Windows' clock advances in milliseconds and 20,000 steps read zero time now and then).
func TestRunBenchShortRunsHaveFiniteRates(t *testing.T) {
	res, err := RunBench(BenchConfig{Steps: 10, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	for name, v := range map[string]float64{"steps": res.StepsPerSecond, "resets": res.ResetsPerSecond, "intersection": res.IntersectionUS} {
		if math.IsInf(v, 0) || math.IsNaN(v) || v <= 0 {
			t.Errorf("%s: %v", name, v)
		}
	}
	if _, err := json.Marshal(res); err != nil {
		t.Fatal(err)
	}
	calls := 0
	start := time.Now()
	rate, err := measureRate(func() (int, error) { calls++; return 1, nil })
	if err != nil || time.Since(start) < minBenchTime || rate <= 0 || math.IsInf(rate, 0) || calls < 2 {
		t.Fatalf("measureRate: %v after %d calls in %v (%v)", rate, calls, time.Since(start), err)
	}
}
