package load

import (
	"math"
	"testing"
	"time"

	"servelab.dev/execute/record"
)

func near(t *testing.T, name string, got *float64, want float64) {
	t.Helper()
	if got == nil {
		t.Errorf("%s: missing, want %v", name, want)
		return
	}
	if math.Abs(*got-want) > 1e-9*math.Max(1, math.Abs(want)) {
		t.Errorf("%s = %v, want %v", name, *got, want)
	}
}

// Three requests and one failure, with every expected figure worked out
// by hand below (not by the code under test).
func TestSummarizeByHand(t *testing.T) {
	samples := []record.Sample{
		// due 0.0, sent 0.0005: TTFT 20, last token at 100 ms, 5 tokens, gaps 20,20,20,20
		{Intended: 0.0, Sent: 0.0005, TTFT: 20, Latency: 100, Gaps: []float64{20, 20, 20, 20}, InputTokens: 10, OutputTokens: 5},
		// due 0.5, sent 0.503 (3 ms late): TTFT 40, end at 0.5+0.240, 3 tokens, gaps 100,100
		{Intended: 0.5, Sent: 0.503, TTFT: 40, Latency: 240, Gaps: []float64{100, 100}, InputTokens: 20, OutputTokens: 3},
		// due 1.0, sent 1.0: a single token, TTFT = latency = 60 ms
		{Intended: 1.0, Sent: 1.0, TTFT: 60, Latency: 60, InputTokens: 30, OutputTokens: 1},
		{Intended: 1.5, Sent: 1.5, Error: "HTTP 500: boom", Latency: 2},
		{Intended: -1, Sent: -1, Warmup: true, TTFT: 1, Latency: 1, OutputTokens: 1},
	}
	m := Summarize(samples)
	if m.Completed != 3 || *m.Failed != 1 || m.Warmup != 1 || m.Late != 1 {
		t.Errorf("counts: %d ok, %d failed, %d warm-up, %d late", m.Completed, *m.Failed, m.Warmup, m.Late)
	}
	if len(m.FailReasons) != 1 || m.FailReasons[0] != "HTTP 500: boom (1)" {
		t.Errorf("reasons %v", m.FailReasons)
	}
	// first send 0.0005, last completion max(0.1, 0.74, 1.06) = 1.06
	dur := 1.06 - 0.0005
	if math.Abs(m.Duration-dur) > 1e-12 {
		t.Errorf("duration %v, want %v", m.Duration, dur)
	}
	near(t, "request throughput", m.RequestThroughput, 3/dur)
	near(t, "output throughput", m.OutputThroughput, 9/dur)
	near(t, "total throughput", m.TotalThroughput, 69/dur)
	// latencies 100, 240, 60 → sorted 60,100,240; mean 400/3; median 100;
	// p99 = 100 + 0.98·(240−100) = 237.2 (linear between ranks, h = 2·0.99)
	near(t, "latency mean", m.Latency.Mean, 400.0/3)
	near(t, "latency median", m.Latency.Median, 100)
	near(t, "latency p99", m.Latency.P99, 237.2)
	// population std of 60,100,240: mean 133.33, squares 5377.78+1111.11+11377.78 = 17866.67, /3, sqrt
	near(t, "latency std", m.Latency.Std, math.Sqrt((math.Pow(60-400.0/3, 2)+math.Pow(100-400.0/3, 2)+math.Pow(240-400.0/3, 2))/3))
	// TPOT only for >1 token: (100−20)/4 = 20, (240−40)/2 = 100 → mean 60, p50 60
	near(t, "tpot mean", m.TPOT.Mean, 60)
	near(t, "tpot p90", m.TPOT.P90, 20+0.9*80)
	// ITL pooled: 20,20,20,20,100,100 → mean 280/6, median 20, p95 = h 4.75 → 100
	near(t, "itl mean", m.ITL.Mean, 280.0/6)
	near(t, "itl median", m.ITL.Median, 20)
	near(t, "itl p95", m.ITL.P95, 100)
	// schedule lag over the 4 measured: 0.5, 3, 0, 0 ms → mean 0.875
	near(t, "lag mean", m.ScheduleLag.Mean, 0.875)
	// service TTFT from the write: 19.5, 37, 60 → mean 38.8333
	near(t, "service ttft mean", m.ServiceTTFT.Mean, (19.5+37+60)/3)
	// in flight: [0.0005,0.1], [0.503,0.74], [1.0,1.06]: never two at once
	near(t, "peak concurrency", m.PeakConcurrency, 1)
	// peak tokens in a 1 s window: the first request's 5 tokens (0.02..0.1)
	// and the second's 3 (0.54..0.74) lie within one second = 8; by the
	// third's token at 1.06 the first three tokens (≤ 0.06) have left → 6
	near(t, "peak output rate", m.PeakOutputThroughput, 8)
}

func TestPercentileMatchesNumpy(t *testing.T) {
	xs := []float64{1, 2, 3, 4, 10}
	// numpy.percentile([1,2,3,4,10], [0, 25, 50, 90, 99, 100])
	for p, want := range map[float64]float64{0: 1, 25: 2, 50: 3, 90: 7.6, 99: 9.76, 100: 10} {
		if got := Percentile(xs, p); math.Abs(got-want) > 1e-12 {
			t.Errorf("p%v = %v, want %v", p, got, want)
		}
	}
}

func TestPeakConcurrencyTouching(t *testing.T) {
	// One ends at 1.0 exactly when the next is sent: not concurrent.
	s := []record.Sample{{Intended: 0, Sent: 0, Latency: 1000}, {Intended: 1, Sent: 1, Latency: 500}, {Intended: 1.2, Sent: 1.2, Latency: 100}}
	if got := PeakConcurrency(s); got != 2 {
		t.Errorf("peak %d, want 2", got)
	}
}

func TestSchedule(t *testing.T) {
	c := Schedule("constant", 4, 0, 5, 0)
	for i, d := range c {
		if want := float64(i) * 0.25; math.Abs(d.Seconds()-want) > 1e-9 {
			t.Errorf("constant[%d] = %v", i, d)
		}
	}
	p1, p2 := Schedule("poisson", 10, 1, 1000, 7), Schedule("poisson", 10, 1, 1000, 7)
	if p1[999] != p2[999] {
		t.Error("same seed, different schedule")
	}
	if got := p1[999].Seconds(); math.Abs(got-99.9) > 1e-6 {
		t.Errorf("last poisson arrival %v s, want (n−1)/rate = 99.9", got)
	}
	if p3 := Schedule("poisson", 10, 1, 1000, 8); p3[500] == p1[500] {
		t.Error("different seeds, same schedule")
	}
	// Burstier gaps (gamma shape 0.3) vary more than Poisson's.
	if cv(Schedule("poisson", 10, 0.3, 2000, 1)) <= cv(p1) {
		t.Error("burstiness 0.3 is not burstier than 1")
	}
}

func cv(offs []time.Duration) float64 {
	var gaps []float64
	for i := 1; i < len(offs); i++ {
		gaps = append(gaps, (offs[i] - offs[i-1]).Seconds())
	}
	m := 0.0
	for _, g := range gaps {
		m += g
	}
	m /= float64(len(gaps))
	v := 0.0
	for _, g := range gaps {
		v += (g - m) * (g - m)
	}
	return math.Sqrt(v/float64(len(gaps))) / m
}
