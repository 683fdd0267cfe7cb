//go:build !linux

package dataset

import "testing"

func wakeProbe() int { return 0 }

// hostWake has no probe off Linux: the host is taken as quiet.
func hostWake(t testing.TB) (stop func() []float64) {
	return func() []float64 { return []float64{0} }
}
