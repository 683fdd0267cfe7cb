package decide

// Comparison is option A (the better) against B.
type Comparison struct {
	A string `json:"a"`
	B string `json:"b"`
	// Objective values and their difference A − B; Ratio is how many
	// times better A is (B/A for latencies, A/B for throughputs), so it is
	// ≥ 1 when A is better.
	ValueA float64 `json:"valueA"`
	ValueB float64 `json:"valueB"`
	Delta  float64 `json:"delta"`
	Ratio  float64 `json:"ratio"`
	// Gain is the relative improvement of A over B (0.02 = 2 %).
	Gain float64 `json:"gain"`
	TTFT *Pair   `json:"ttft,omitempty"`
	TPOT *Pair   `json:"tpot,omitempty"`
	// Verdict is better / worse / no significant difference, or "no
	// noise estimate" when either side has a single run.
	Verdict  string      `json:"verdict"`
	Interval *[2]float64 `json:"interval,omitempty"` // 95 % CI of A − B
	Adopt    bool        `json:"adopt"`
}

// Pair compares a secondary latency (TTFT, TPOT) of A and B, in ms.
type Pair struct {
	A     float64 `json:"a"`
	B     float64 `json:"b"`
	Delta float64 `json:"delta"`
	Ratio float64 `json:"ratio"` // B/A: > 1 when A is faster
}

func compare(opts []Option, a, b int, lower bool) *Comparison {
	if b < 0 {
		return nil
	}
	return compareWith(opts[a], opts[b], lower)
}

func compareWith(a, b Option, lower bool) *Comparison {
	c := &Comparison{A: a.Variant, B: b.Variant, ValueA: a.Value.Mean, ValueB: b.Value.Mean}
	c.Delta = c.ValueA - c.ValueB
	c.Ratio, c.Gain = ratio(c.ValueA, c.ValueB, lower)
	c.Verdict, c.Interval = verdict(a.values, b.values, lower)
	if c.Verdict == NoNoise {
		// Single runs, but measured ones: their requests are the sample.
		c.Verdict, c.Interval = bootstrapVerdict(a.requests, b.requests, lower)
	}
	c.TTFT, c.TPOT = pair(a.TTFT, b.TTFT), pair(a.TPOT, b.TPOT)
	return c
}

// ratio returns the improvement factor of a over b and the relative gain.
func ratio(a, b float64, lower bool) (float64, float64) {
	if a == 0 || b == 0 {
		return 0, 0
	}
	if lower {
		return b / a, (b - a) / b
	}
	return a / b, (a - b) / b
}

func pair(a, b *Value) *Pair {
	if a == nil || b == nil || a.Mean == 0 {
		return nil
	}
	return &Pair{A: a.Mean, B: b.Mean, Delta: a.Mean - b.Mean, Ratio: b.Mean / a.Mean}
}
