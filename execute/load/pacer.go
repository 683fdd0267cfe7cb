package load

import (
	"context"
	"runtime"
	"time"
)

// pacer waits for each request's send time without burning the core
// the readers share: it sleeps until just before the time and spins only
// the last stretch. The stretch tracks the median of how late the sleeps
// have been waking (a frugal streaming estimate: a microsecond up when a
// wake-up is later than it, one down otherwise) and is bounded twice:
// by maxSpin, since on a quiet host a timerfd wakes some tens of
// microseconds late, and the spin takes that out of the schedule lag,
// while a wake-up delayed by preemption (milliseconds, now and then)
// cannot be spun away, so it must not widen the spin of every send; and
// by a fiftieth of the time since the previous send, so that spinning
// never takes more than 2 % of a core, at any rate (at 1,000 req/s a
// 60 µs spin a send was 6 % of the core the readers need).
type pacer struct {
	s       sleeper
	late    time.Duration // estimate of a sleep's overshoot (median)
	maxSpin time.Duration
	prev    time.Time // the previous send time
}

// waiter waits for send times.
type waiter interface {
	wait(ctx context.Context, t time.Time) bool
	close()
}

// sleeper blocks the calling goroutine (not its thread) for about d.
type sleeper interface {
	sleep(ctx context.Context, d time.Duration) bool
	close()
}

func newPacer() *pacer {
	if s, err := newTimerfd(); err == nil {
		return &pacer{s: s, late: 20 * time.Microsecond, maxSpin: 60 * time.Microsecond}
	}
	// The Go timer wakes up to a millisecond late (the netpoller waits in
	// whole milliseconds), so its spin must cover that.
	return &pacer{s: goSleeper{}, late: time.Millisecond, maxSpin: 1200 * time.Microsecond}
}

// timerPacer waits on Go's timer alone, for an in-process target: there
// the client shares the engine's threads, and under a virtual clock
// (testing/synctest) time stands still while a goroutine spins.
func timerPacer() *pacer { return &pacer{s: goSleeper{}} }

func (p *pacer) close() { p.s.close() }

// wait returns at t, or false when ctx ends first.
func (p *pacer) wait(ctx context.Context, t time.Time) bool {
	wake := t.Add(-p.spinFor(t))
	if d := time.Until(wake); d > 0 {
		if !p.s.sleep(ctx, d) {
			return false
		}
		if time.Since(wake) > p.late {
			p.late = min(p.late+time.Microsecond, p.maxSpin)
		} else {
			p.late = max(p.late-time.Microsecond, 0)
		}
	}
	for time.Now().Before(t) {
		runtime.Gosched()
	}
	return ctx.Err() == nil
}

// spinFor is how long to spin before send time t.
func (p *pacer) spinFor(t time.Time) time.Duration {
	spin := min(p.late+5*time.Microsecond, p.maxSpin)
	if !p.prev.IsZero() && t.After(p.prev) {
		spin = min(spin, t.Sub(p.prev)/50)
	}
	p.prev = t
	return spin
}

type goSleeper struct{}

func (goSleeper) sleep(ctx context.Context, d time.Duration) bool {
	tm := time.NewTimer(d)
	defer tm.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-tm.C:
		return true
	}
}

func (goSleeper) close() {}
