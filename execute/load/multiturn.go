package load

import (
	"context"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"time"

	"servelab.dev/execute/record"
)

// conversations keeps l.Concurrency conversations going: each worker
// takes the next conversation (cycling through them) and sends its
// turns in order, each a think time after the previous reply ended,
// until l.Requests turns have been sent. A turn is due when its think
// time is over, and its latency counts from then; the first turn of a
// conversation is due when its worker is free. Think times are drawn
// from an exponential distribution of mean l.Think, seeded by the
// conversation and turn, so they do not depend on which worker ran it.
func (c *client) conversations(ctx context.Context, l Load, start time.Time) []record.Sample {
	out := make([]record.Sample, l.Requests)
	var nextConv, nextTurn atomic.Int64
	c.pace.wait(ctx, start)
	var wg sync.WaitGroup
	for w := 0; w < max(1, l.Concurrency); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				conv := int(nextConv.Add(1) - 1)
				if !c.converse(ctx, l, conv, start, &nextTurn, out) {
					return
				}
			}
		}()
	}
	wg.Wait()
	return out
}

// converse sends conversation conv's turns; false when the run's turns
// are all claimed.
func (c *client) converse(ctx context.Context, l Load, conv int, start time.Time, next *atomic.Int64, out []record.Sample) bool {
	turns := l.Conversations[conv%len(l.Conversations)]
	due := time.Now()
	for t, p := range turns {
		if t > 0 {
			due = time.Now().Add(think(l, conv, t))
		}
		i := int(next.Add(1) - 1)
		if i >= len(out) {
			return false
		}
		if !sleepUntilCtx(ctx, due) {
			out[i] = c.seen(notSent(start, due, "not sent: the run reached its time limit"))
			continue
		}
		out[i] = c.seen(c.do(ctx, start, due, p))
	}
	return true
}

// think is the pause before turn t of conversation conv.
func think(l Load, conv, t int) time.Duration {
	if l.Think <= 0 {
		return 0
	}
	rng := rand.New(rand.NewPCG(l.Seed, uint64(conv)<<20^uint64(t)))
	return time.Duration(rng.ExpFloat64() * float64(l.Think))
}

func sleepUntilCtx(ctx context.Context, t time.Time) bool {
	d := time.Until(t)
	if d <= 0 {
		return ctx.Err() == nil
	}
	tm := time.NewTimer(d)
	defer tm.Stop()
	select {
	case <-tm.C:
		return true
	case <-ctx.Done():
		return false
	}
}
