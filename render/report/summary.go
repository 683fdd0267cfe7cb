package report

import (
	"strings"

	"math"
	"slices"

	"servelab.dev/execute/decide"
	d "servelab.dev/render/document"
)

// summary is the seeds' "Summary of optimization options": each step's
// best option against the configuration it had to beat (the one adopted
// before the step; for an engine choice, the runner-up), not against the
// original baseline.
func (b *builder) summary() {
	m := b.s.Objective.Metric
	t := d.Table{Head: []d.Text{d.M("Step"), d.M("Best candidate"), d.Cap{Text: MetricName(m)}, d.M("Compared with"), d.Cap{Text: MetricName(m)}, d.M("Comparison"), d.M("Adopted")},
		Right: []bool{false, false, true, false, true, false, false}}
	c := d.Chart{ID: "summary", Kind: "bar", Unit: chartUnit(m), Title: d.M("%s of each step's best candidate and of the configuration it had to beat", d.Cap{Text: MetricName(m)}),
		YName: d.Cap{Text: MetricName(m)}}
	best, base := d.Series{Name: d.M("Best candidate of the step")}, d.Series{Name: d.M("Configuration it had to beat"), Reference: true}
	seen := flags{}
	for _, st := range b.a.Steps {
		cmp := st.Comparison
		if cmp == nil {
			continue
		}
		ss := studyStep(b.s, st.ID)
		adopted := d.M("no")
		if st.Outcome == decide.Adopted && st.Adopted != nil && *st.Adopted == cmp.A {
			adopted = d.M("yes")
		}
		other := b.optionName(ss, cmp.B)
		if st.Incumbent != nil && cmp.B == st.Incumbent.Variant {
			other = d.M("the current configuration")
		}
		ratio := RatioText(m, cmp.Ratio)
		if ss.Caveat != nil {
			ratio = d.Join{Sep: " ", Parts: []d.Text{ratio, d.Paren{Text: d.Prose(*ss.Caveat)}}}
		}
		t.Rows = append(t.Rows, []d.Text{d.Prose(ss.Title), b.optionName(ss, cmp.A), value(m, cmp.ValueA), other, value(m, cmp.ValueB), ratio, adopted})
		c.Categories = append(c.Categories, d.Prose(ss.Title))
		best.Values = append(best.Values, chartValue(m, cmp.ValueA))
		base.Values = append(base.Values, chartValue(m, cmp.ValueB))
		seen.add(&best, b.lintCodes(m, optionKey(st, cmp.A)))
		seen.add(&base, b.lintCodes(m, optionKey(st, cmp.B)))
	}
	if len(t.Rows) == 0 {
		return
	}
	b.h(2, "summary", d.M("Summary of optimization options"))
	b.doc.Add(d.Para{Text: d.M("Each step at %s: its best candidate, adopted or not, against the configuration it had to beat.", ProfileTitle(b.s, b.s.Objective.Profile))})
	c.Series = []d.Series{base, best} // the reference first, as on every chart
	seen.apply(&c)
	left := dropOutlier(&c)
	b.doc.Add(t, c)
	if left != nil {
		b.doc.Add(d.Para{Text: d.M("The chart leaves out the step \"%s\": one of its figures is over twice any other step's and would flatten the rest; the table above has it.", left)})
	}
}

// dropOutlier takes out of c the one category whose figures are more
// than twice every other's (an engine far off the others' scale), so
// that the steps' few-percent differences stay visible, and returns it;
// nil when there is none or too few categories are left to chart.
func dropOutlier(c *d.Chart) d.Text {
	if len(c.Categories) < 3 {
		return nil
	}
	tops := make([]float64, len(c.Categories))
	for i := range tops {
		for _, s := range c.Series {
			if i < len(s.Values) && !math.IsNaN(s.Values[i]) {
				tops[i] = max(tops[i], s.Values[i])
			}
		}
	}
	for i, top := range tops {
		rest := 0.0
		for j, t := range tops {
			if j != i {
				rest = max(rest, t)
			}
		}
		if rest > 0 && top > 2*rest {
			name := c.Categories[i]
			c.Categories = slices.Delete(slices.Clone(c.Categories), i, i+1)
			for k := range c.Series {
				s := &c.Series[k]
				s.Values = slices.Delete(slices.Clone(s.Values), i, i+1)
				if i < len(s.Flagged) {
					s.Flagged = slices.Delete(slices.Clone(s.Flagged), i, i+1)
				}
				if i < len(s.Low) && i < len(s.High) {
					s.Low = slices.Delete(slices.Clone(s.Low), i, i+1)
					s.High = slices.Delete(slices.Clone(s.High), i, i+1)
				}
			}
			return name
		}
	}
	return nil
}

// optionKey is the trial key of step st's option named variant (the
// incumbent's included).
func optionKey(st decide.Step, variant string) string {
	for _, o := range st.Options {
		if o.Variant == variant {
			return o.Key
		}
	}
	if st.Incumbent != nil && st.Incumbent.Variant == variant {
		return st.Incumbent.Key
	}
	return ""
}

// others is the seeds' "Other benchmark cases": TTFT and TPOT of the
// baseline and the final configuration on every validation profile (the
// objective's figures are in the conclusion; the commands and blocks in
// the appendix).
func (b *builder) others() {
	if len(b.a.Validation) == 0 {
		return
	}
	b.h(2, "validation", d.M("Other benchmark cases"))
	b.doc.Add(d.Para{Text: d.M("The baseline and the optimized configuration on every validation profile.")})
	if c, ok := b.sweepChart(); ok {
		b.doc.Add(c)
	} else if c, ok := b.latencyBars(); ok && b.s.Objective.Metric != "latency.mean" {
		b.doc.Add(c) // the conclusion's chart already draws it otherwise
	}
	b.doc.Add(b.latencyCharts()...)
	b.validationPrefix()
}

// latencyBars is mean latency of the baseline and the optimized
// configuration as grouped bars, one group per validation profile: for
// profiles of different workloads, whose points on one latency-against-
// throughput plane would invite comparisons across workloads.
func (b *builder) latencyBars() (d.Chart, bool) {
	c := b.loadChart("validation_latency", d.M("Mean latency, baseline and optimized"), chartUnit("latency.mean"), func(r decide.ValidationRow) *decide.ValidationRow {
		if r.Metric == "latency.mean" {
			return &r
		}
		return r.Latency
	})
	c.YName = d.Cap{Text: MetricName("latency.mean")}
	return c, !allFlagged(c) && slices.ContainsFunc(c.Series[1].Values, func(v float64) bool { return !math.IsNaN(v) })
}

// sweepChart is the load sweep: mean latency against output token
// throughput, a point per validation profile for the baseline and for
// the optimized configuration, when the profiles are one workload at
// rising loads.
func (b *builder) sweepChart() (d.Chart, bool) {
	c := d.Chart{ID: "sweep", Kind: "xy", Unit: "s", XUnit: "tok/s", XName: d.Cap{Text: MetricName("output_throughput")},
		YName: d.Cap{Text: MetricName("latency.mean")}, Title: d.M("%s against %s", d.Cap{Text: MetricName("latency.mean")}, MetricName("output_throughput"))}
	if b.latencyBounds() {
		c.Title = d.M("%s against %s (upper bounds above concurrency 1)", d.Cap{Text: MetricName("latency.mean")}, MetricName("output_throughput"))
		// The axis and the figures' table say it too: a bound is no
		// measurement.
		c.YName = d.M("%s (upper bounds above concurrency 1)", d.Cap{Text: MetricName("latency.mean")})
	}
	base, fin := d.Series{Name: d.M("Baseline"), Reference: true}, d.Series{Name: d.M("Optimized")}
	points := 0
	rows, _, _, _, joined := b.loadRows()
	if len(rows) == 0 || b.s.Profiles[rows[0].Profile].Kind != "concurrency" {
		// At a fixed rate the client sets the throughput: each pair of
		// points would share its x, and the plane would say nothing.
		return c, false
	}
	for _, row := range rows {
		c.Categories = append(c.Categories, ProfileTitle(b.s, row.Profile))
		for i, x := range []*d.Series{&base, &fin} {
			thr, lat := b.sweepPoint(row, i == 0)
			x.X, x.Values = append(x.X, thr), append(x.Values, lat)
			if !math.IsNaN(thr) && !math.IsNaN(lat) {
				points++
			}
		}
	}
	c.Joined = joined
	c.Series = []d.Series{base, fin}
	return c, joined && points >= 4
}

// sweepPoint is a validation run's output throughput (tok/s) and mean
// latency (s), as the analysis has them over all its repeats.
func (b *builder) sweepPoint(row decide.ValidationRow, base bool) (thr, lat float64) {
	thr, lat = math.NaN(), math.NaN()
	switch {
	case row.Metric == "latency.mean":
		lat = meanOf(valOf(&row, base)) / 1000
	case row.Latency != nil:
		lat = meanOf(valOf(row.Latency, base)) / 1000
	}
	switch {
	case row.Metric == "output_throughput":
		thr = meanOf(valOf(&row, base))
	case row.Throughput != nil:
		thr = meanOf(valOf(row.Throughput, base))
	}
	return thr, lat
}

// latencyCharts show TTFT and TPOT of baseline and final per profile,
// one chart each (their scales differ tenfold).
func (b *builder) latencyCharts() []d.Block {
	var out []d.Block
	for _, f := range []struct {
		name string
		pick func(decide.ValidationRow) *decide.ValidationRow
	}{
		{"TTFT", func(r decide.ValidationRow) *decide.ValidationRow { return r.TTFT }},
		{"TPOT", func(r decide.ValidationRow) *decide.ValidationRow { return r.TPOT }},
	} {
		c := b.loadChart("validation_"+strings.ToLower(f.name), d.M("Mean %s, baseline and optimized", d.Lit(f.name)), "ms", f.pick)
		c.YName = d.M("Mean %s", d.Lit(f.name))
		if allFlagged(c) {
			// A chart of figures the page itself calls impossible shows
			// nothing true: it is named, not drawn.
			out = append(out, d.Para{Text: d.M("No chart of mean %s: the warnings above call every one of its figures into question.", d.Lit(f.name))})
			continue
		}
		out = append(out, c)
	}
	return out
}

// allFlagged reports whether every figure of c is marked.
func allFlagged(c d.Chart) bool {
	n := 0
	for _, s := range c.Series {
		for i, v := range s.Values {
			if math.IsNaN(v) {
				continue
			}
			if !s.IsFlagged(i) {
				return false
			}
			n++
		}
	}
	return n > 0
}

func meanOf(v *decide.Value) float64 {
	if v == nil {
		return math.NaN()
	}
	return v.Mean
}

func valOf(r *decide.ValidationRow, base bool) *decide.Value {
	if r == nil {
		return nil
	}
	if base {
		return r.Baseline
	}
	return r.Final
}
