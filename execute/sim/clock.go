package sim

import (
	"runtime"
	"time"
)

// A Clock waits until the end of the engine's next step, or until stop
// is closed (then it returns false).
type Clock interface {
	Until(t time.Time, stop <-chan struct{}) bool
}

// Wall is the real clock: it sleeps most of the way and spins the last
// half millisecond, since Go's timer wakes up to a millisecond late and a
// simulated step is a few milliseconds long.
var Wall Clock = wall{}

// Timer waits on Go's timer alone. It is the clock for testing/synctest's
// virtual time, where time moves only while every goroutine is blocked,
// so a spin waiting for it would never end.
var Timer Clock = timer{}

type wall struct{}

func (wall) Until(t time.Time, stop <-chan struct{}) bool {
	if !sleep(time.Until(t)-500*time.Microsecond, stop) {
		return false
	}
	for time.Now().Before(t) {
		runtime.Gosched()
	}
	return true
}

type timer struct{}

func (timer) Until(t time.Time, stop <-chan struct{}) bool { return sleep(time.Until(t), stop) }

func sleep(d time.Duration, stop <-chan struct{}) bool {
	if d <= 0 {
		return true
	}
	tm := time.NewTimer(d)
	defer tm.Stop()
	select {
	case <-tm.C:
		return true
	case <-stop:
		return false
	}
}
