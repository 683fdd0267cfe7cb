package decide

// Comparison is option A (the candidate) against B (the reference).
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
	// noise estimate" when neither samples nor repeats give one.
	Verdict string `json:"verdict"`
	// Interval bounds Ratio at the study's confidence level; Method says
	// how: "bootstrap" (per-request samples), "runs" (run values, t on
	// logarithms, 3 runs a side or more) or "" (no noise estimate).
	Interval *[2]float64 `json:"interval,omitempty"`
	Method   string      `json:"method,omitempty"`
	Adopt    bool        `json:"adopt"`
	// Level is the interval's confidence: the study's, or less error per
	// look in an adaptive step.
	Level float64 `json:"level"`
	// RunsA and RunsB count the runs behind each side.
	RunsA int `json:"runsA"`
	RunsB int `json:"runsB"`
}

// Comparison methods.
const (
	MethodBootstrap = "bootstrap"
	MethodRuns      = "runs"
)

// Pair compares a secondary latency (TTFT, TPOT) of A and B, in ms.
type Pair struct {
	A     float64 `json:"a"`
	B     float64 `json:"b"`
	Delta float64 `json:"delta"`
	Ratio float64 `json:"ratio"` // B/A: > 1 when A is faster
}

// compareWith sets option a against b on metric at level conf: the
// bootstrap of per-request samples where both sides have them and the
// metric is a per-request quantity, else the run values' t interval.
func compareWith(metric string, a, b Option, lower bool, conf float64) *Comparison {
	c := &Comparison{A: a.Variant, B: b.Variant, ValueA: a.Value.Mean, ValueB: b.Value.Mean, RunsA: len(a.values), RunsB: len(b.values), Level: conf}
	c.Delta = c.ValueA - c.ValueB
	c.Ratio, c.Gain = ratio(c.ValueA, c.ValueB, lower)
	if a.requests != nil && b.requests != nil {
		c.Verdict, c.Interval = bootstrapRatio(metric, a.requests, b.requests, lower, conf, a.Key+b.Key+metric)
		c.Method = MethodBootstrap
	}
	if c.Interval == nil {
		c.Verdict, c.Interval = runRatio(a.values, b.values, lower, conf)
		c.Method = MethodRuns
	}
	if c.Interval == nil {
		c.Method = ""
	}
	if c.Ratio == 1 && c.Verdict == NoNoise {
		// Equal figures are no finding, whatever the noise.
		c.Verdict = NoDifference
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
