//go:build !race

package evaluation

const raceDetector = false
