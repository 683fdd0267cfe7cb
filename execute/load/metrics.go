package load

import (
	"fmt"
	"math"
	"sort"

	"servelab.dev/execute/record"
)

// LateAfter is how far past its due time a send counts as late.
const LateAfter = 0.001 // seconds

// MismatchAbove is the relative difference between the input tokens a
// request claimed and the server's count beyond which it is flagged.
const MismatchAbove = 0.02

// Notes are what a record should say about its metrics in words: input
// token counts the server disagrees with.
func Notes(m record.Metrics) []string {
	if m.InputMismatch == 0 {
		return nil
	}
	return []string{fmt.Sprintf("input tokens: the server counted %d in all where the client sent %d by its own count; %d of %d requests differ by more than %.0f %%: the prompts are not the length the dataset claims",
		counted(m.InputTokens), m.ClaimedInputTokens, m.InputMismatch, m.Completed, MismatchAbove*100)}
}

func counted(p *int) int { n, _ := record.Count(p); return n }

// Summarize computes a run's metrics from its samples, as `vllm bench
// serve` defines them: TTFT and E2E latency per request, TPOT per
// request with more than one token (aggregated unweighted), ITL pooled
// over every chunk gap; percentiles by linear interpolation between
// order statistics (numpy's default), std over the population;
// throughputs over the time from the first send to the last completion.
// Unlike vLLM it finds peak concurrency exactly (a sweep over send and
// finish times) and the peak output rate from tokens, not chunks.
func Summarize(samples []record.Sample) record.Metrics {
	m := record.Metrics{Failed: record.I(0)}
	var ok []record.Sample
	var lags []float64
	var connects []float64
	reasons := map[string]int{}
	for _, s := range samples {
		if s.Warmup {
			m.Warmup++
			continue
		}
		if s.Connect > 0 {
			connects = append(connects, s.Connect)
		}
		lag := (s.Sent - s.Intended) * 1000
		lags = append(lags, lag)
		if lag > LateAfter*1000 {
			m.Late++
		}
		if s.Error != "" {
			*m.Failed++
			reasons[s.Error]++
			continue
		}
		ok = append(ok, s)
	}
	m.Completed = len(ok)
	m.FailReasons = reasonList(reasons)
	m.ScheduleLag = dist(lags)
	m.Connections, m.Connect = len(connects), dist(connects)
	if len(ok) == 0 {
		return m
	}
	fill(&m, ok)
	return m
}

func fill(m *record.Metrics, ok []record.Sample) {
	first, last := math.Inf(1), math.Inf(-1)
	var lat, ttft, tpot, itl, slat, sttft []float64
	in, out := 0, 0
	cached, cachedIn, reported := 0, 0, false
	for _, s := range ok {
		if s.Cached != nil {
			reported = true
			cached += *s.Cached
			cachedIn += s.InputTokens
		}
		first = math.Min(first, s.Sent)
		last = math.Max(last, s.Intended+s.Latency/1000)
		in += s.InputTokens
		out += s.OutputTokens
		if s.Claimed > 0 {
			m.ClaimedInputTokens += s.Claimed
			if math.Abs(float64(s.InputTokens-s.Claimed)) > MismatchAbove*float64(s.Claimed) {
				m.InputMismatch++
			}
		}
		lat = append(lat, s.Latency)
		ttft = append(ttft, s.TTFT)
		wait := (s.Sent - s.Intended) * 1000
		slat, sttft = append(slat, s.Latency-wait), append(sttft, s.TTFT-wait)
		if s.OutputTokens > 1 {
			tpot = append(tpot, (s.Latency-s.TTFT)/float64(s.OutputTokens-1))
		}
		itl = append(itl, s.Gaps...)
	}
	m.InputTokens, m.OutputTokens = record.I(in), record.I(out)
	if reported {
		m.CachedTokens = record.I(cached)
		if cachedIn > 0 {
			m.CacheHitRate = record.F(float64(cached) / float64(cachedIn))
		}
	}
	m.Duration = last - first
	if m.Duration > 0 {
		d := m.Duration
		m.RequestThroughput = record.F(float64(m.Completed) / d)
		m.OutputThroughput = record.F(float64(out) / d)
		m.TotalThroughput = record.F(float64(in+out) / d)
	}
	m.Latency, m.TTFT, m.TPOT, m.ITL = dist(lat), dist(ttft), dist(tpot), dist(itl)
	m.ServiceLatency, m.ServiceTTFT = dist(slat), dist(sttft)
	m.PeakConcurrency = record.F(float64(PeakConcurrency(ok)))
	m.PeakOutputThroughput = record.F(PeakTokenRate(ok, 1))
}

func reasonList(r map[string]int) []string {
	var out []string
	for k, n := range r {
		out = append(out, fmt.Sprintf("%s (%d)", k, n))
	}
	sort.Strings(out)
	return out
}

// dist summarises xs; nil when empty.
func dist(xs []float64) *record.Dist {
	if len(xs) == 0 {
		return nil
	}
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	mean := 0.0
	for _, x := range s {
		mean += x
	}
	mean /= float64(len(s))
	v := 0.0
	for _, x := range s {
		v += (x - mean) * (x - mean)
	}
	std := math.Sqrt(v / float64(len(s)))
	return &record.Dist{Mean: record.F(mean), Median: record.F(Percentile(s, 50)), Std: record.F(std),
		P50: record.F(Percentile(s, 50)), P90: record.F(Percentile(s, 90)), P95: record.F(Percentile(s, 95)), P99: record.F(Percentile(s, 99))}
}

// Percentile is the p-th percentile of sorted xs with linear
// interpolation between closest ranks (numpy's default, type 7).
func Percentile(sorted []float64, p float64) float64 {
	if len(sorted) == 0 {
		return math.NaN()
	}
	h := (float64(len(sorted)) - 1) * p / 100
	lo := math.Floor(h)
	i := int(lo)
	if i+1 >= len(sorted) {
		return sorted[len(sorted)-1]
	}
	return sorted[i] + (h-lo)*(sorted[i+1]-sorted[i])
}

// PeakConcurrency is the most requests in flight at once, found by a
// sweep over send and finish times; a request finishing exactly when
// another is sent does not overlap it.
func PeakConcurrency(ok []record.Sample) int {
	type ev struct {
		t float64
		d int
	}
	evs := make([]ev, 0, 2*len(ok))
	for _, s := range ok {
		evs = append(evs, ev{s.Sent, +1}, ev{s.Intended + s.Latency/1000, -1})
	}
	sort.Slice(evs, func(i, j int) bool {
		if evs[i].t != evs[j].t {
			return evs[i].t < evs[j].t
		}
		return evs[i].d < evs[j].d // departures first
	})
	cur, peak := 0, 0
	for _, e := range evs {
		cur += e.d
		peak = max(peak, cur)
	}
	return peak
}

// PeakTokenRate is the most output tokens generated within any window of
// the given seconds, per second. A request's tokens (from usage) are
// spread evenly over its chunks, since a chunk may carry several.
func PeakTokenRate(ok []record.Sample, window float64) float64 {
	type ev struct{ t, tokens float64 }
	var evs []ev
	for _, s := range ok {
		chunks := 1 + len(s.Gaps)
		per := float64(s.OutputTokens) / float64(chunks)
		t := s.Intended + s.TTFT/1000
		evs = append(evs, ev{t, per})
		for _, g := range s.Gaps {
			t += g / 1000
			evs = append(evs, ev{t, per})
		}
	}
	sort.Slice(evs, func(i, j int) bool { return evs[i].t < evs[j].t })
	best, sum, lo := 0.0, 0.0, 0
	for _, e := range evs {
		sum += e.tokens
		for evs[lo].t <= e.t-window {
			sum -= evs[lo].tokens
			lo++
		}
		best = math.Max(best, sum)
	}
	return best / window
}

// SummarizeEngine condenses the engine's metric series: gauges' means
// and peaks over the points, and whole-run rates as ratios of the
// counters' summed increases (the engine's own rate gauges are averaged
// where it has no counters). nil when there is no series.
func SummarizeEngine(s *record.EngineSeries) *record.EngineMetrics {
	if s == nil || len(s.Points) == 0 {
		return nil
	}
	e := &record.EngineMetrics{Source: s.Source, Scrapes: len(s.Points)}
	pick := func(f func(p *record.EnginePoint) *float64) []float64 {
		var xs []float64
		for i := range s.Points {
			if v := f(&s.Points[i]); v != nil {
				xs = append(xs, *v)
			}
		}
		return xs
	}
	e.MeanRunning, e.MaxRunning = meanMax(pick(func(p *record.EnginePoint) *float64 { return p.Running }))
	e.MeanWaiting, e.MaxWaiting = meanMax(pick(func(p *record.EnginePoint) *float64 { return p.Waiting }))
	e.MeanKVCache, e.MaxKVCache = meanMax(pick(func(p *record.EnginePoint) *float64 { return p.KVCache }))
	e.PrefixHitRate = ratio(pick(func(p *record.EnginePoint) *float64 { return p.PrefixHits }),
		pick(func(p *record.EnginePoint) *float64 { return p.PrefixQueries }), 0)
	if e.PrefixHitRate == nil {
		e.PrefixHitRate, _ = meanMax(pick(func(p *record.EnginePoint) *float64 { return p.PrefixHitRate }))
	}
	accepted := pick(func(p *record.EnginePoint) *float64 { return p.Accepted })
	e.AcceptanceRate = ratio(accepted, pick(func(p *record.EnginePoint) *float64 { return p.DraftTokens }), 0)
	e.AcceptanceLength = ratio(accepted, pick(func(p *record.EnginePoint) *float64 { return p.Drafts }), 1)
	if e.AcceptanceLength == nil {
		e.AcceptanceLength, _ = meanMax(pick(func(p *record.EnginePoint) *float64 { return p.AcceptLength }))
	}
	return e
}

func meanMax(xs []float64) (*float64, *float64) {
	if len(xs) == 0 {
		return nil, nil
	}
	sum, top := 0.0, xs[0]
	for _, x := range xs {
		sum += x
		top = math.Max(top, x)
	}
	return record.F(sum / float64(len(xs))), record.F(top)
}

// ratio is plus + Σnum/Σden; nil when the denominator never grew.
func ratio(num, den []float64, plus float64) *float64 {
	n, d := 0.0, 0.0
	for _, x := range num {
		n += x
	}
	for _, x := range den {
		d += x
	}
	if d <= 0 {
		return nil
	}
	return record.F(plus + n/d)
}
