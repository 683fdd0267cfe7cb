package decide

import (
	"strings"

	"servelab.dev/schema"
	"servelab.dev/schema/plan"
)

// validation compares baseline and final on every validation profile, in
// the objective and in mean latency, TTFT and TPOT.
func (a *Analysis) validation(s *schema.Study, p *plan.Plan, d *decider) {
	for _, prof := range s.Validate.Profiles {
		base := trialWith(p, "validate/baseline", prof)
		var fin *plan.Trial
		if p.Final != nil {
			fin = trialWith(p, "validate/final", prof)
		}
		row := d.row(s.Objective.Metric, prof, base, fin)
		if s.Objective.Metric != "latency.mean" {
			row.Latency = d.row("latency.mean", prof, base, fin)
		}
		row.TTFT = d.row("ttft.mean", prof, base, fin)
		row.TPOT = d.row("tpot.mean", prof, base, fin)
		a.Validation = append(a.Validation, *row)
	}
}

func trialWith(p *plan.Plan, role, profile string) *plan.Trial {
	for _, t := range p.Trials {
		if t.Profile == profile && t.Key != "" && t.HasRole(role) {
			return t
		}
	}
	return nil
}

func (d *decider) row(metric, profile string, base, fin *plan.Trial) *ValidationRow {
	row := &ValidationRow{Profile: profile, Metric: metric}
	bv, bs := d.values(metric, base)
	fv, fs := d.values(metric, fin)
	row.Baseline, row.Final = bv, fv
	if bv != nil && fv != nil {
		r, _ := ratio(fv.Mean, bv.Mean, Lower(metric))
		row.Ratio = &r
		row.Verdict, _ = verdict(fs, bs, Lower(metric))
		if !bv.Derived && !fv.Derived {
			row.RatioRange = ratioRange(fv.Mean, bv.Mean, d.rounding(metric, fin), d.rounding(metric, base), Lower(metric))
		}
	}
	return row
}

// rounding is the coarsest rounding step of metric's family over the
// trial's runs (0 when the figures were not rounded).
func (d *decider) rounding(metric string, t *plan.Trial) float64 {
	fam := roundingFamily(metric)
	step := 0.0
	for _, r := range d.runs[t.Key] {
		step = max(step, r.Metrics.Rounding[fam])
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

func (d *decider) values(metric string, t *plan.Trial) (*Value, []float64) {
	if t == nil {
		return nil, nil
	}
	var xs []float64
	derived := false
	for _, r := range d.runs[t.Key] {
		if v, der, ok := metricOf(r.Metrics, metric); ok {
			xs = append(xs, v)
			derived = derived || der
		}
	}
	if len(xs) == 0 {
		return nil, nil
	}
	v := summarize(xs, derived)
	return &v, xs
}
