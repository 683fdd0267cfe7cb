package report

import (
	"math"
	"strconv"

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
	b.doc.Add(d.Para{Text: d.M("Service-level objective: %s. An option that meets every bound beats one that does not; where the configuration adopted so far breaks a bound, the best variant that meets them all replaces it; where no option meets them, the one significantly closer to them is adopted, so the study climbs toward the objective.", d.Join{Sep: "; ", Parts: bounds})})
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
		name := b.optionName(ss, o.Variant)
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

// searches lists each option's capacity search: the probes in the order
// they ran, and the bracket the capacity lies in.
func (b *builder) searches(ss *schema.Step, st decide.Step) {
	opts := st.Options
	if st.Incumbent != nil {
		opts = append([]decide.Option{*st.Incumbent}, opts...)
	}
	t := d.Table{Head: []d.Text{d.M("Configuration"), d.M("Probes (req/s)"), d.M("Capacity within the SLO")}, Right: []bool{false, false, true}}
	for _, o := range opts {
		if o.Search == nil {
			continue
		}
		name := b.optionName(ss, o.Variant)
		if st.Incumbent != nil && o.Key == st.Incumbent.Key && o.Variant == st.Incumbent.Variant {
			name = d.M("adopted so far")
		}
		var probes []d.Text
		for _, p := range o.Search.Probes {
			mark := "✓"
			if !p.Meets {
				mark = "✗"
			}
			probes = append(probes, d.Lit(fmtRate(p.Rate)+" "+mark))
		}
		var capacity d.Text
		switch {
		case o.Search.Below:
			capacity = d.M("below %s", d.Lit(fmtRate(o.Search.Bracket[1])+" req/s"))
		case o.Search.Above:
			capacity = d.M("at least %s", d.Lit(fmtRate(o.Search.Capacity)+" req/s"))
		default:
			capacity = d.M("%s to %s", d.Lit(fmtRate(o.Search.Bracket[0])), d.Lit(fmtRate(o.Search.Bracket[1])+" req/s"))
		}
		t.Rows = append(t.Rows, []d.Text{name, d.Join{Sep: ", ", Parts: probes}, capacity})
	}
	if len(t.Rows) > 0 {
		b.doc.Add(d.Para{Text: d.M("Capacity searches (✓ the probe met every bound, ✗ it broke one):")}, t)
	}
}

func fmtRate(r float64) string { return strconv.FormatFloat(r, 'f', -1, 64) }

// pareto draws the step's throughput/latency trade-off: every option at
// every load, the points another beats on both axes greyed, and lists
// them.
func (b *builder) pareto(ss *schema.Step, st decide.Step) {
	if len(st.Pareto) == 0 {
		return
	}
	m := st.ParetoMetric
	front := d.Series{Name: d.M("Pareto frontier")}
	dom := d.Series{Name: d.M("dominated"), Grey: true}
	t := d.Table{Head: []d.Text{d.M("Configuration"), d.M("Load"), d.M("Output tokens/s per GPU"), MetricName(m), d.M("On the frontier")},
		Right: []bool{false, false, true, true, false}}
	for _, p := range st.Pareto {
		pt := [2]float64{p.Throughput, chartValue(m, p.Latency)}
		mark := d.Lit("✓")
		if p.Dominated {
			dom.Points, mark = append(dom.Points, pt), d.Lit("–")
		} else {
			front.Points = append(front.Points, pt)
		}
		name := b.optionName(ss, p.Variant)
		if st.Incumbent != nil && p.Variant == st.Incumbent.Variant {
			name = d.M("adopted so far")
		}
		t.Rows = append(t.Rows, []d.Text{name, d.Code(p.Load), d.Num{V: p.Throughput, Prec: 2}, value(m, p.Latency), mark})
	}
	b.doc.Add(d.Chart{ID: "pareto_" + sanitize(st.ID), Kind: "scatter", Unit: chartUnit(m), XUnit: "tok/s/GPU",
		Title: d.M("%s: throughput and latency", d.Prose(ss.Title)), Series: []d.Series{front, dom}})
	b.doc.Add(d.Para{Text: d.M("Throughput against latency at every load of this step (a point is dominated when another has both more throughput and less latency):")}, t)
}
