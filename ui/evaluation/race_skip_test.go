package evaluation

// skipUnderRace skips a single-goroutine check of large data in the race detector's run.
func skipUnderRace(t interface{ Skipf(string, ...any) }, what string) {
	if raceDetector {
		t.Skipf("under the race detector: %s (checked in the plain run)", what)
	}
}
