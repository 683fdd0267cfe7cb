package sim

import (
	"sync"
	"time"
)

// seq is one request inside the simulated engine.
type seq struct {
	prompt    []string
	maxTokens int
	emitted   int
	started   bool
	cached    int      // prompt tokens found in the prefix cache, set on admission
	out       chan int // tokens per emitted chunk; closed when done
	cancel    chan struct{}
}

// engine runs the continuous-batching loop: admit waiting sequences up
// to the slot limit, run one step, hand each running sequence its tokens.
type engine struct {
	cfg     *Config
	mu      sync.Mutex
	waiting []*seq
	running []*seq
	wake    chan struct{}
	done    chan struct{} // closed by Server.Close: the loop returns
	gone    chan struct{} // closed when the loop has returned
	clock   Clock
	cache   *prefixCache // nil when prefix caching is off
	peak    int          // most sequences ever running at once
	stopped bool         // abort has run: submit ends new sequences at once
	stats   stats
}

// stats are the counters /metrics exports under vLLM's names.
type stats struct {
	prefixQueries, prefixHits           int64 // prompt tokens looked up, found cached
	drafts, draftTokens, acceptedTokens int64 // speculative decoding
}

// kvTokensPerSlot sizes the simulated KV cache: 2,048 tokens for each
// sequence slot. A running sequence holds its prompt and its output.
const kvTokensPerSlot = 2048

func newEngine(c *Config) *engine {
	e := &engine{cfg: c, wake: make(chan struct{}, 1), done: make(chan struct{}), gone: make(chan struct{}), clock: c.Clock}
	if e.clock == nil {
		e.clock = Wall
	}
	if c.PrefixCache {
		e.cache = newPrefixCache(c.CacheBlocks)
	}
	return e
}

func (e *engine) submit(s *seq) {
	e.mu.Lock()
	if e.stopped {
		e.mu.Unlock()
		close(s.out)
		return
	}
	e.waiting = append(e.waiting, s)
	e.mu.Unlock()
	select {
	case e.wake <- struct{}{}:
	default:
	}
}

// loop runs steps back to back on an absolute clock, so the timer's
// lateness does not add up over steps: a model step of 6 ms takes 6 ms
// on average, not 6 ms plus the sleep's overshoot.
func (e *engine) loop() {
	var next time.Time
	defer close(e.gone)
	defer e.abort()
	for {
		select {
		case <-e.done:
			return
		default:
		}
		prefill := e.admit()
		e.mu.Lock()
		n := len(e.running)
		e.mu.Unlock()
		if n == 0 {
			select {
			case <-e.wake:
			case <-e.done:
				return
			}
			next = time.Time{}
			continue
		}
		now := time.Now()
		if next.Before(now.Add(-e.cfg.Step)) {
			next = now // idle or far behind: start afresh rather than burst
		}
		next = next.Add(e.stepTime(n, prefill))
		if !e.clock.Until(next, e.done) {
			return
		}
		e.emit()
	}
}

// admit moves waiting sequences into free slots and returns how many
// prompt tokens need prefilling this step.
func (e *engine) admit() int {
	e.mu.Lock()
	defer e.mu.Unlock()
	tokens := 0
	for len(e.waiting) > 0 && len(e.running) < e.cfg.Slots {
		s := e.waiting[0]
		e.waiting = e.waiting[1:]
		tokens += e.uncached(s)
		e.running = append(e.running, s)
	}
	e.peak = max(e.peak, len(e.running))
	return tokens
}

// uncached counts the prompt tokens after the longest cached prefix,
// records the cached ones on the sequence, and caches the prompt.
func (e *engine) uncached(s *seq) int {
	e.stats.prefixQueries += int64(len(s.prompt))
	if e.cache == nil {
		return len(s.prompt)
	}
	s.cached = e.cache.admit(s.prompt)
	e.stats.prefixHits += int64(s.cached)
	return len(s.prompt) - s.cached
}

// abort ends every sequence when the engine stops, so that no request
// handler waits for tokens that will never come.
func (e *engine) abort() {
	e.mu.Lock()
	defer e.mu.Unlock()
	for _, s := range append(e.running, e.waiting...) {
		close(s.out)
	}
	e.running, e.waiting = nil, nil
	e.stopped = true
}

// resetCache empties the prefix cache, as the engines' reset endpoints do.
func (e *engine) resetCache() {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.cache != nil {
		e.cache.reset()
	}
}

// kvUsage is the share of the KV cache the running sequences hold.
func (e *engine) kvUsage() float64 {
	n := 0
	for _, s := range e.running {
		n += len(s.prompt) + s.emitted
	}
	return min(1, float64(n)/float64(max(1, e.cfg.Slots)*kvTokensPerSlot))
}

func (e *engine) stepTime(running, prefill int) time.Duration {
	c := e.cfg
	perSeq := c.PerSeq
	if c.KVFP8 {
		perSeq = perSeq * 6 / 10 // attention reads a KV cache of half the bytes
	}
	d := c.Step + time.Duration(running)*perSeq
	if c.FP8 {
		d = d * 7 / 10
	}
	if c.SpecTokens > 0 {
		d = d * 115 / 100 // drafting and verifying cost a little per step
	}
	return d + time.Duration(prefill)*c.Prefill
}

// tokensPerStep is 1, plus the accepted share of drafted tokens.
func (e *engine) tokensPerStep() int { return 1 + e.cfg.SpecTokens*6/10 }

func (e *engine) emit() {
	e.mu.Lock()
	defer e.mu.Unlock()
	keep := e.running[:0]
	for _, s := range e.running {
		select {
		case <-s.cancel:
			close(s.out)
			continue
		default:
		}
		n := e.tokensPerStep()
		if !s.started {
			n, s.started = 1, true
		}
		n = min(n, s.maxTokens-s.emitted)
		if k := e.cfg.SpecTokens; k > 0 && s.emitted > 0 {
			// One draft of k tokens verified this step; n−1 accepted.
			e.stats.drafts++
			e.stats.draftTokens += int64(k)
			e.stats.acceptedTokens += int64(n - 1)
		}
		s.emitted += n
		s.out <- n
		if s.emitted >= s.maxTokens {
			close(s.out)
			continue
		}
		keep = append(keep, s)
	}
	e.running = keep
}
