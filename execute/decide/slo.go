package decide

import (
	"fmt"
	"math"
	"strings"

	"servelab.dev/execute/record"
	"servelab.dev/schema"
)

// Check is one SLO bound against one option: its pooled value and each
// run's, with pass or fail. Value is nil when the runs do not report the
// metric, which fails the bound: an SLO that cannot be checked is not met.
type Check struct {
	Metric string     `json:"metric"`
	Limit  float64    `json:"limit"`
	Upper  bool       `json:"upper"` // metric ≤ limit; else metric ≥ limit
	Value  *float64   `json:"value"`
	Pass   bool       `json:"pass"`
	Runs   []RunCheck `json:"runs,omitempty"`
}

// RunCheck is one run against one bound.
type RunCheck struct {
	Run   string   `json:"run"` // step/variant/profile#repeat
	Value *float64 `json:"value"`
	Pass  bool     `json:"pass"`
}

// checkSLO sets the option's checks, one per bound of the study, and
// each run's goodput where its samples give one.
func (d *decider) checkSLO(o *Option, runs []*record.Record, names []string) {
	if len(d.s.Objective.Constraints) > 0 {
		for _, r := range runs {
			var g *float64
			if v, ok := goodput(r, d.samples[r], d.s.Objective.Constraints); ok {
				g = &v
			}
			o.Goodput = append(o.Goodput, g)
		}
	}
	for _, b := range d.s.Objective.Constraints {
		lim, upper := b.Limit()
		c := Check{Metric: b.Metric, Limit: lim, Upper: upper}
		var xs []float64
		for i, r := range runs {
			rc := RunCheck{Run: names[i]}
			if v, ok := d.runValue(r, b.Metric); ok {
				rc.Value, rc.Pass = &v, b.Meets(v)
				xs = append(xs, v)
			}
			c.Runs = append(c.Runs, rc)
		}
		if len(xs) == len(runs) && len(xs) > 0 {
			v := mean(xs)
			c.Value, c.Pass = &v, b.Meets(v)
		}
		o.SLO = append(o.SLO, c)
	}
	o.Violation, o.violations = violations(o.SLO)
}

// violations is the option's violation of the SLO, from its pooled
// values, and each run's: the largest ratio of value to bound over the
// bounds (bound to value for a lower bound), so 1 or less meets every
// bound and 2 is twice as far as allowed on the worst one. Both are
// unknown (nil) when a bound cannot be checked on every run.
func violations(checks []Check) (*float64, []float64) {
	if len(checks) == 0 {
		return nil, nil
	}
	pooled, runs := 0.0, make([]float64, len(checks[0].Runs))
	for _, c := range checks {
		if c.Value == nil {
			return nil, nil
		}
		v, ok := violation(c.Limit, c.Upper, *c.Value)
		if !ok {
			return nil, nil
		}
		pooled = max(pooled, v)
		for i, rc := range c.Runs {
			if rc.Value == nil {
				return nil, nil
			}
			v, ok := violation(c.Limit, c.Upper, *rc.Value)
			if !ok {
				return nil, nil
			}
			runs[i] = max(runs[i], v)
		}
	}
	return &pooled, runs
}

// violation is value v against one bound as a ratio (see violations).
// A zero upper bound (no failed requests) counts 1 plus the value, and
// a lower bound against a value of 0 or less has no ratio.
func violation(limit float64, upper bool, v float64) (float64, bool) {
	switch {
	case math.IsNaN(v) || math.IsInf(v, 0):
		return 0, false
	case upper && limit <= 0:
		return 1 + max(v, 0), true
	case upper:
		return max(v, 0) / limit, true
	case v <= 0:
		return 0, false
	}
	return limit / v, true
}

// feasible reports whether the option meets every bound.
func (o Option) feasible() bool {
	for _, c := range o.SLO {
		if !c.Pass {
			return false
		}
	}
	return true
}

// violated names the bounds the option breaks, for messages.
func (o Option) violated() string {
	var out []string
	for _, c := range o.SLO {
		if c.Pass {
			continue
		}
		op := "≤"
		if !c.Upper {
			op = "≥"
		}
		got := "not reported"
		if c.Value != nil {
			got = fmt.Sprintf("%.4g", *c.Value)
		}
		out = append(out, fmt.Sprintf("%s %s %.4g (got %s)", c.Metric, op, c.Limit, got))
	}
	return strings.Join(out, ", ")
}

// runValue is metric of one run: goodput from its per-request samples
// and the study's bounds, the others from its record.
func (d *decider) runValue(r *record.Record, metric string) (float64, bool) {
	if metric == schema.Goodput {
		return goodput(r, d.samples[r], d.s.Objective.Constraints)
	}
	v, _, ok := metricOf(r, metric)
	return v, ok
}

// goodput is vLLM's: completed requests per second of the run whose TTFT,
// TPOT and end-to-end latency each meet the bound the study sets on that
// family (a p99 bound of 500 ms on TTFT asks every request for ≤ 500 ms).
// It needs per-request samples.
func goodput(r *record.Record, samples []record.Sample, bounds []schema.Bound) (float64, bool) {
	if len(samples) == 0 || r.Metrics.Duration <= 0 {
		return 0, false
	}
	good := 0
	for _, s := range samples {
		if s.Warmup || s.Error != "" {
			continue
		}
		if meetsAll(s, bounds) {
			good++
		}
	}
	return float64(good) / r.Metrics.Duration, true
}

func meetsAll(s record.Sample, bounds []schema.Bound) bool {
	tpot := 0.0
	if s.OutputTokens > 1 {
		tpot = (s.Latency - s.TTFT) / float64(s.OutputTokens-1)
	}
	for _, b := range bounds {
		fam, _, _ := strings.Cut(b.Metric, ".")
		var v float64
		switch fam {
		case "ttft":
			v = s.TTFT
		case "tpot":
			v = tpot
		case "latency":
			v = s.Latency
		default:
			continue
		}
		if !b.Meets(v) {
			return false
		}
	}
	return true
}
