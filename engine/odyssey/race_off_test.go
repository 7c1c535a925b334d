//go:build !race

package odyssey

const raceDetector = false
