package decide

import (
	"math"
	"testing"

	"servelab.dev/execute/record"
	"servelab.dev/schema"
)

func bound(metric string, max float64) schema.Bound { return schema.Bound{Metric: metric, Max: &max} }

// vLLM's goodput: requests whose TTFT, TPOT and latency each meet their
// family's bound, per second of the run.
func TestGoodput(t *testing.T) {
	r := &record.Record{Metrics: record.Metrics{Duration: 2}}
	samples := []record.Sample{
		{TTFT: 100, Latency: 1000, OutputTokens: 10}, // TPOT 100: too slow
		{TTFT: 100, Latency: 280, OutputTokens: 10},  // TPOT 20: good
		{TTFT: 600, Latency: 700, OutputTokens: 2},   // TTFT too slow
		{TTFT: 50, Latency: 60, OutputTokens: 1},     // one token: TPOT 0, good
		{Warmup: true, TTFT: 1, Latency: 2, OutputTokens: 2},
		{Error: "HTTP 500"},
	}
	bounds := []schema.Bound{bound("ttft.p99", 500), bound("tpot.p99", 50)}
	g, ok := goodput(r, samples, bounds)
	if !ok || math.Abs(g-1) > 1e-9 {
		t.Errorf("goodput = %v %v, want 2 good requests / 2 s = 1", g, ok)
	}
	if _, ok := goodput(r, nil, bounds); ok {
		t.Error("goodput without samples")
	}
}

// The SLO settles a try step before the objective does.
func TestSLOSettlesTry(t *testing.T) {
	s := &schema.Study{Objective: schema.Objective{Metric: "output_throughput", Goal: "max", MinGain: 0.03, Confidence: 0.95,
		Constraints: []schema.Bound{bound("ttft.p99", 500)}}}
	d := &decider{s: s, level: 0.95}
	opt := func(name string, thr, ttft float64) Option {
		v := summarize([]float64{thr}, false, 0.95)
		o := Option{Variant: name, Value: &v, values: []float64{thr}}
		o.SLO = []Check{{Metric: "ttft.p99", Limit: 500, Upper: true, Value: &ttft, Pass: ttft <= 500}}
		return o
	}
	cases := []struct {
		inc, v          Option
		outcome, reason string
	}{
		{opt("inc", 100, 400), opt("v", 200, 600), Kept, ReasonViolatesSLO},
		{opt("inc", 200, 600), opt("v", 100, 400), Adopted, ReasonMeetsSLO},
		{opt("inc", 100, 400), opt("v", 200, 450), Adopted, ReasonSingleRun},
	}
	for _, c := range cases {
		inc := c.inc
		out := &Step{Incumbent: &inc, Options: []Option{c.v}}
		d.try(out)
		if out.Outcome != c.outcome || out.Reason != c.reason {
			t.Errorf("incumbent %v, variant %v: %s (%s), want %s (%s)", *c.inc.SLO[0].Value, *c.v.SLO[0].Value, out.Outcome, out.Reason, c.outcome, c.reason)
		}
	}
}

// The rule stops a clear loser at the first look, never a winner, and
// looks only at a third, a half and two thirds of the requests.
func TestEarlyStopRule(t *testing.T) {
	grid := func(mu float64, n int) []float64 {
		xs := make([]float64, n)
		for i := range xs {
			xs[i] = mu + 20*(2*float64(i*7919%n)/float64(n-1)-1)
		}
		return xs
	}
	e := &EarlyStop{Metric: "latency.mean", Lower: true, Confidence: 0.95, MinGain: 0.03, Incumbent: [][]float64{grid(100, 120)}}
	if st := e.Replay(grid(130, 120)); st == nil || st.After != 40 {
		t.Errorf("loser: %+v, want a stop after 40 of 120", st)
	}
	if st := e.Replay(grid(80, 120)); st != nil {
		t.Errorf("winner stopped: %+v", st)
	}
	if st := e.Check(grid(130, 41), 120); st != nil {
		t.Error("the rule looked between looks")
	}
}

// A variant that runs the incumbent's own command is not compared with
// it: the step keeps the incumbent and says why.
func TestSameAsIncumbent(t *testing.T) {
	v := summarize([]float64{100}, false, 0.95)
	out := &Step{Incumbent: &Option{Variant: "inc", Key: "k", Value: &v}, Options: []Option{{Variant: "on", Key: "k", Value: &v}}}
	if !sameAsIncumbent(out) {
		t.Error("same key not seen")
	}
	out.Options = append(out.Options, Option{Variant: "off", Key: "other", Value: &v})
	if sameAsIncumbent(out) {
		t.Error("a different variant counted as the same")
	}
}

// sloOpt is an option of single-run values whose one bound is P90 TTFT
// ≤ 100 ms, from runs' TTFTs.
func sloOpt(name string, thr float64, ttfts ...float64) Option {
	v := summarize([]float64{thr}, false, 0.95)
	o := Option{Variant: name, Key: name, Value: &v, values: []float64{thr}}
	c := Check{Metric: "ttft.p90", Limit: 100, Upper: true}
	for _, x := range ttfts {
		c.Runs = append(c.Runs, RunCheck{Value: &x, Pass: x <= 100})
	}
	m := mean(ttfts)
	c.Value, c.Pass = &m, m <= 100
	o.SLO = []Check{c}
	o.Violation, o.violations = violations(o.SLO)
	return o
}

// Where nothing meets the SLO, a try step adopts the variant that is
// significantly closer to it, whatever the objective says, and keeps
// the incumbent when the variant is not.
func TestSLOClimbsWhenNoneMeets(t *testing.T) {
	s := &schema.Study{Objective: schema.Objective{Metric: "output_throughput", Goal: "max", MinGain: 0.03, Confidence: 0.95,
		Constraints: []schema.Bound{bound("ttft.p90", 100)}}}
	d := &decider{s: s, level: 0.95}
	cases := []struct {
		inc, v          Option
		outcome, reason string
	}{
		// Closer by far, although lower on the objective.
		{sloOpt("inc", 200, 900, 950, 1000), sloOpt("v", 100, 300, 310, 320), Adopted, ReasonCloserToSLO},
		// Closer, but inside the noise.
		{sloOpt("inc", 100, 900, 400, 1500), sloOpt("v", 200, 850, 1300, 500), Kept, ReasonViolatesSLO},
		// Farther.
		{sloOpt("inc", 100, 300, 310, 320), sloOpt("v", 200, 900, 950, 1000), Kept, ReasonViolatesSLO},
	}
	for i, c := range cases {
		inc := c.inc
		out := &Step{Incumbent: &inc, Options: []Option{c.v}}
		d.try(out)
		if out.Outcome != c.outcome || out.Reason != c.reason {
			t.Errorf("case %d: %s (%s), want %s (%s): %s", i, out.Outcome, out.Reason, c.outcome, c.reason, out.Detail)
		}
		if out.SLOComparison == nil || out.SLOComparison.Adopt != (c.outcome == Adopted) {
			t.Errorf("case %d: violation comparison %+v", i, out.SLOComparison)
		}
	}
	if v := *sloOpt("x", 1, 150, 250).Violation; math.Abs(v-2) > 1e-9 {
		t.Errorf("violation of a 200 ms mean against 100 ms = %v, want 2", v)
	}
}

// A select step where no candidate meets the SLO adopts the closest
// instead of stopping.
func TestSelectClosestWhenNoneMeets(t *testing.T) {
	s := &schema.Study{Objective: schema.Objective{Metric: "output_throughput", Goal: "max", MinGain: 0.03, Confidence: 0.95,
		Constraints: []schema.Bound{bound("ttft.p90", 100)}}}
	d := &decider{s: s, level: 0.95}
	out := &Step{Options: []Option{sloOpt("a", 300, 900, 950, 1000), sloOpt("b", 100, 300, 310, 320), sloOpt("c", 200, 600, 610, 620)}}
	dec := d.selectOne(out, -1)
	if out.Outcome != Adopted || out.Reason != ReasonCloserToSLO || dec.Winner != 1 || out.SLOComparison.B != "c" {
		t.Errorf("%s (%s), winner %d, compared with %+v: %s", out.Outcome, out.Reason, dec.Winner, out.SLOComparison, out.Detail)
	}
}

// A lower bound's violation is bound over value, and a zero upper bound
// counts the value above 1.
func TestViolationBounds(t *testing.T) {
	for _, c := range []struct {
		limit float64
		upper bool
		v     float64
		want  float64
		ok    bool
	}{{100, true, 50, 0.5, true}, {10, false, 5, 2, true}, {0, true, 0.02, 1.02, true}, {10, false, 0, 0, false}, {100, true, math.NaN(), 0, false}} {
		got, ok := violation(c.limit, c.upper, c.v)
		if ok != c.ok || math.Abs(got-c.want) > 1e-9 {
			t.Errorf("violation(%v, %v, %v) = %v %v, want %v %v", c.limit, c.upper, c.v, got, ok, c.want, c.ok)
		}
	}
}
