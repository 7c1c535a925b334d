//go:build race

package evaluation

// raceDetector is true in a test binary built with -race. Tests that check large data in one
// goroutine skip themselves there: the plain run checks their results, and the race run, ten
// times slower, is kept for the code that runs concurrently.
const raceDetector = true
