package report

import (
	"math"

	"servelab.dev/execute/decide"
	d "servelab.dev/render/document"
	"servelab.dev/schema"
)

// boundText is "P99 TTFT ≤ 500.00 ms".
func boundText(b schema.Bound) d.Text {
	lim, upper := b.Limit()
	if upper {
		return d.M("%s ≤ %s", MetricName(b.Metric), value(b.Metric, lim))
	}
	return d.M("%s ≥ %s", MetricName(b.Metric), value(b.Metric, lim))
}

// slo states the study's service-level objective under its objective.
func (b *builder) slo() {
	o := b.s.Objective
	if len(o.Constraints) == 0 {
		return
	}
	var bounds []d.Text
	for _, x := range o.Constraints {
		bounds = append(bounds, boundText(x))
	}
	b.doc.Add(d.Para{Text: d.M("Service-level objective: %s. A variant that breaks a bound is never adopted; where the configuration adopted so far breaks one, the best variant that meets every bound replaces it.", d.Join{Sep: "; ", Parts: bounds})})
	if o.Metric == schema.Goodput {
		b.doc.Add(d.Para{Text: d.M("Goodput counts the completed requests per second whose TTFT, TPOT and end-to-end latency each meet the bound set on that family, as vLLM defines it; a percentile bound asks it of every request.")})
	}
}

// sloChecks prints each run's pass or fail against every bound, and one
// chart per bound with the bound drawn across it.
func (b *builder) sloChecks(ss *schema.Step, st decide.Step) {
	bounds := b.s.Objective.Constraints
	if len(bounds) == 0 {
		return
	}
	opts := st.Options
	if st.Incumbent != nil {
		opts = append([]decide.Option{*st.Incumbent}, opts...)
	}
	head := []d.Text{d.M("Run")}
	for _, x := range bounds {
		head = append(head, boundText(x))
	}
	head = append(head, MetricName(schema.Goodput))
	t := d.Table{Head: head, Right: []bool{false}}
	for range len(bounds) + 1 {
		t.Right = append(t.Right, true)
	}
	for _, o := range opts {
		if len(o.SLO) == 0 {
			continue
		}
		for i, rc := range o.SLO[0].Runs {
			row := []d.Text{d.Code(rc.Run)}
			for _, c := range o.SLO {
				row = append(row, checkCell(c.Metric, c.Runs[i]))
			}
			var g d.Text = d.Lit("–")
			if i < len(o.Goodput) && o.Goodput[i] != nil {
				g = value(schema.Goodput, *o.Goodput[i])
			}
			t.Rows = append(t.Rows, append(row, g))
		}
	}
	if len(t.Rows) == 0 {
		return
	}
	b.doc.Add(d.Para{Text: d.M("Service-level objective, run by run (✓ meets the bound, ✗ breaks it):")}, t)
	for i, x := range bounds {
		b.doc.Add(b.sloChart(ss, st, opts, i, x))
	}
}

func checkCell(metric string, rc decide.RunCheck) d.Text {
	if rc.Value == nil {
		return d.M("not reported ✗")
	}
	mark := "✓"
	if !rc.Pass {
		mark = "✗"
	}
	return d.Join{Sep: " ", Parts: []d.Text{value(metric, *rc.Value), d.Lit(mark)}}
}

func (b *builder) sloChart(ss *schema.Step, st decide.Step, opts []decide.Option, i int, x schema.Bound) d.Chart {
	lim, _ := x.Limit()
	c := d.Chart{ID: "slo_" + sanitize(st.ID) + "_" + sanitize(x.Metric), Kind: "bar", Unit: chartUnit(x.Metric),
		Title: d.M("%s: %s", d.Prose(ss.Title), MetricName(x.Metric)),
		Lines: []d.Line{{Name: boundText(x), Value: chartValue(x.Metric, lim)}}}
	ser := d.Series{Name: d.Cap{Text: MetricName(x.Metric)}}
	for _, o := range opts {
		name := optionName(b.s, ss, o.Variant)
		if st.Incumbent != nil && o.Variant == st.Incumbent.Variant && o.Key == st.Incumbent.Key {
			name = d.M("adopted so far")
		}
		c.Categories = append(c.Categories, name)
		v := math.NaN()
		if i < len(o.SLO) && o.SLO[i].Value != nil {
			v = chartValue(x.Metric, *o.SLO[i].Value)
		}
		ser.Values = append(ser.Values, v)
	}
	c.Series = []d.Series{ser}
	return c
}
