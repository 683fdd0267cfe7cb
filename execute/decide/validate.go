package decide

import (
	"strings"

	"servelab.dev/execute/record"

	"servelab.dev/schema"
	"servelab.dev/schema/plan"
)

// validation compares baseline and final on every validation profile, in
// the objective and in mean latency, TTFT and TPOT.
func (a *Analysis) validation(s *schema.Study, p *plan.Plan, d *decider) {
	for _, prof := range s.Validate.Profiles {
		base := p.WithRole("validate/baseline", prof)
		var fin []*plan.Trial
		if p.Final != nil {
			fin = p.WithRole("validate/final", prof)
		}
		if s.Profiles[prof].Search != nil {
			row := ValidationRow{Profile: prof, Metric: schema.Capacity, Capacity: d.capacityRow(s.Profiles[prof], base, fin)}
			a.Validation = append(a.Validation, row)
			continue
		}
		row := d.row(s.Objective.Metric, prof, base, fin)
		if s.Objective.Metric != "latency.mean" {
			row.Latency = d.row("latency.mean", prof, base, fin)
		}
		if s.Objective.Metric != "output_throughput" {
			row.Throughput = d.row("output_throughput", prof, base, fin)
		}
		row.TTFT = d.row("ttft.mean", prof, base, fin)
		row.TPOT = d.row("tpot.mean", prof, base, fin)
		row.ITL = d.row("itl.mean", prof, base, fin)
		for _, m := range tailMetrics {
			if r := d.row(m, prof, base, fin); r.Baseline != nil || r.Final != nil {
				row.Percentiles = append(row.Percentiles, r)
			}
		}
		a.Validation = append(a.Validation, *row)
	}
}

// tailMetrics are the percentiles a validation row carries beside the
// means, where the records have them.
var tailMetrics = []string{"ttft.p90", "ttft.p99", "tpot.p90", "tpot.p99", "itl.p90", "itl.p99", "latency.p90", "latency.p99"}

func (d *decider) row(metric, profile string, base, fin []*plan.Trial) *ValidationRow {
	row := &ValidationRow{Profile: profile, Metric: metric}
	bo, fo := d.side(metric, "baseline", base), d.side(metric, "final", fin)
	for _, o := range []Option{bo, fo} {
		if o.Invalid != nil && row.Invalid == "" {
			row.Invalid = o.Invalid.Message
		}
	}
	row.Baseline, row.Final = bo.Value, fo.Value
	if bo.Value == nil || fo.Value == nil || row.Invalid != "" {
		return row
	}
	c := compareWith(metric, fo, bo, Lower(metric), d.s.Objective.Confidence)
	row.Ratio, row.Verdict, row.Interval, row.Method = &c.Ratio, c.Verdict, c.Interval, c.Method
	if !bo.Value.Derived && !fo.Value.Derived {
		row.RatioRange = ratioRange(fo.Value.Mean, bo.Value.Mean, d.rounding(metric, fin), d.rounding(metric, base), Lower(metric))
	}
	return row
}

// side is one column of a validation row as an option over metric:
// every repeat of the trial, failed runs marking it invalid.
func (d *decider) side(metric, name string, trials []*plan.Trial) Option {
	o := Option{Variant: name}
	var xs []float64
	var used []*record.Record
	derived := false
	seen := map[string]bool{}
	for _, t := range trials {
		o.Key = t.Key
		if seen[loadKey(t)] {
			continue
		}
		seen[loadKey(t)] = true
		for _, pr := range d.pooled(t) {
			r := pr.rec
			if iv := d.validity(r, pr.as(t), t.Variant); iv != nil && iv.Reason == ReasonFailed {
				o.Invalid = iv
				continue
			}
			if v, der, ok := metricOf(r, metric); ok {
				xs, used = append(xs, v), append(used, r)
				derived = derived || der
			}
		}
	}
	if len(xs) > 0 {
		v := summarize(xs, derived, d.s.Objective.Confidence)
		o.Value, o.values = &v, xs
		o.requests, _ = requestValues(metric, used, d.samples)
	}
	return o
}

// rounding is the coarsest rounding step of metric's family over the
// trial's runs (0 when the figures were not rounded).
func (d *decider) rounding(metric string, ts []*plan.Trial) float64 {
	fam := roundingFamily(metric)
	step := 0.0
	for _, t := range ts {
		for _, r := range d.runs[t.Key] {
			step = max(step, r.Metrics.Rounding[fam])
		}
	}
	return step
}

func roundingFamily(metric string) string {
	if Unit(metric) != "ms" {
		return "throughput"
	}
	fam, _, _ := strings.Cut(metric, ".")
	return fam + "Ms"
}

// ratioRange bounds ratio(a, b) when a and b were rounded to steps sa
// and sb (each off by at most half a step). nil when nothing was rounded.
func ratioRange(a, b, sa, sb float64, lower bool) *[2]float64 {
	if sa == 0 && sb == 0 {
		return nil
	}
	ha, hb := sa/2, sb/2
	if a-ha <= 0 || b-hb <= 0 {
		return nil
	}
	lo, _ := ratio(a+ha, b-hb, lower)
	hi, _ := ratio(a-ha, b+hb, lower)
	if lo > hi {
		lo, hi = hi, lo
	}
	return &[2]float64{lo, hi}
}
