package decide

import (
	"strings"

	"servelab.dev/schema"
)

// Tradeoff is a validation figure the final configuration makes worse
// than the baseline: the price of the gain.
type Tradeoff struct {
	Profile  string  `json:"profile"`
	Metric   string  `json:"metric"`
	Baseline float64 `json:"baseline"`
	Final    float64 `json:"final"`
	// Ratio is how many times worse the final is (> 1): final/baseline
	// for latencies, baseline/final for throughputs and capacity.
	Ratio float64 `json:"ratio"`
	// Runs are how many runs the baseline's and the final's figures are
	// means over (0 for a capacity, which is a search's answer).
	Runs [2]int `json:"runs"`
}

// tradeoffs lists, profile by profile, the means and P99s of latency,
// TTFT, TPOT and ITL, the throughputs and the capacity that the final
// makes worse by more than minGain, and never by less than the default
// minGain (3 %, inside the launch-to-launch spread). A difference the
// records show to be inside the noise, or that the sources' rounding
// could explain, is no trade-off; one worse on average by UnsettledRatio
// or more whose runs disagree is listed apart, as unsettled.
func tradeoffs(rows []ValidationRow, minGain float64) (out, unsettled []Tradeoff) {
	minGain = max(minGain, schema.DefaultMinGain)
	out = []Tradeoff{}
	for _, row := range rows {
		if c := row.Capacity; c != nil {
			if c.Baseline != nil && c.Final != nil && c.Baseline.Sustained != nil && c.Final.Sustained != nil {
				out = appendWorse(out, row.Profile, schema.Capacity, *c.Baseline.Sustained, *c.Final.Sustained, minGain, [2]int{})
			}
			continue
		}
		cands := []*ValidationRow{&row, row.Throughput, row.Latency, row.TTFT, row.TPOT, row.ITL}
		for _, r := range row.Percentiles {
			if strings.HasSuffix(r.Metric, ".p99") {
				cands = append(cands, r)
			}
		}
		// ITL is the gap between streamed chunks: where TPOT fell, a
		// longer gap carries more tokens (speculative decoding), which
		// is no slowdown.
		chunky := row.TPOT != nil && row.TPOT.Ratio != nil && *row.TPOT.Ratio > 1
		seen := map[string]bool{}
		for _, r := range cands {
			if r == nil || seen[r.Metric] || r.Baseline == nil || r.Final == nil || r.Invalid != "" {
				continue
			}
			seen[r.Metric] = true
			if chunky && strings.HasPrefix(r.Metric, "itl.") {
				continue
			}
			if r.RatioRange != nil && r.RatioRange[1] >= 1 {
				continue
			}
			runs := [2]int{r.Baseline.Runs, r.Final.Runs}
			if r.Verdict == NoDifference {
				unsettled = appendWorse(unsettled, row.Profile, r.Metric, r.Baseline.Mean, r.Final.Mean, 1-1/UnsettledRatio, runs)
				continue
			}
			out = appendWorse(out, row.Profile, r.Metric, r.Baseline.Mean, r.Final.Mean, minGain, runs)
		}
	}
	return out, unsettled
}

// UnsettledRatio is how many times worse on average a figure whose runs
// disagree must be to be named: a smaller difference inside the noise
// is no news.
const UnsettledRatio = 1.25

func appendWorse(out []Tradeoff, profile, metric string, base, fin, minGain float64, runs [2]int) []Tradeoff {
	r, gain := ratio(fin, base, Lower(metric))
	if r <= 0 || gain >= -minGain {
		return out
	}
	return append(out, Tradeoff{Profile: profile, Metric: metric, Baseline: base, Final: fin, Ratio: 1 / r, Runs: runs})
}
