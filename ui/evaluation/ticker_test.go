package evaluation

import "time"

// The desk page clock ticks only where a test ticks it (desk_test.go): a real ticker outlives
// the test that started it and calls into its widgets from another goroutine.
func init() {
	newTicker = func(time.Duration, func()) (stop func()) { return func() {} }
}
