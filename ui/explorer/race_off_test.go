//go:build !race

package explorer

const raceDetector = false
