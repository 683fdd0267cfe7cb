package report

import (
	"math"
	"slices"
	"strconv"
	"strings"

	"servelab.dev/execute/decide"
	d "servelab.dev/render/document"
	"servelab.dev/schema"
)

// boundText is "P99 TTFT ≤ 500 ms": a limit as the study states it,
// without the two decimals of a measured figure.
func boundText(b schema.Bound) d.Text {
	lim, upper := b.Limit()
	v := value(b.Metric, lim)
	if n, ok := v.(d.Num); ok {
		n.Prec = -1
		v = n
	}
	if upper {
		return d.M("%s ≤ %s", MetricName(b.Metric), v)
	}
	return d.M("%s ≥ %s", MetricName(b.Metric), v)
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
	b.doc.Add(d.Para{Text: d.M("Service-level objective: %s. An option that meets every bound beats one that does not; where the current configuration breaks a bound, the best variant that meets them all replaces it; where no option meets them, the one significantly closer to them is adopted, so the study climbs toward the objective.", d.Join{Sep: "; ", Parts: bounds})})
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
	opts := withIncumbent(st)
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
	// Folded on a web page: the verdict above already says which option
	// meets the objective; these are its evidence, run by run.
	blocks := []d.Block{d.Para{Text: d.M("Service-level objective, run by run (✓ meets the bound, ✗ breaks it):")}, t}
	for i, x := range bounds {
		blocks = append(blocks, b.sloChart(ss, st, opts, i, x))
	}
	b.doc.Add(d.Details{ID: "slo-" + sanitize(st.ID), Summary: d.M("Service-level objective, run by run"), Blocks: blocks, InText: true})
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
	lim, upper := x.Limit()
	bound := "≥"
	if upper {
		bound = "≤"
	}
	c := d.Chart{ID: "slo_" + sanitize(st.ID) + "_" + sanitize(x.Metric), Kind: "bar", Unit: chartUnit(x.Metric),
		Title: d.M("%s: %s", d.Prose(ss.Title), MetricName(x.Metric)),
		Lines: []d.Line{{Name: boundText(x), Value: chartValue(x.Metric, lim), Bound: bound}}}
	ser := d.Series{Name: d.Cap{Text: MetricName(x.Metric)}}
	seen := flags{}
	for _, o := range opts {
		name := b.optionName(ss, o.Variant)
		if st.Incumbent != nil && o.Variant == st.Incumbent.Variant && o.Key == st.Incumbent.Key {
			name = d.M("current configuration")
		}
		c.Categories = append(c.Categories, name)
		v := math.NaN()
		if i < len(o.SLO) && o.SLO[i].Value != nil {
			v = chartValue(x.Metric, *o.SLO[i].Value)
		}
		ser.Values = append(ser.Values, v)
		seen.add(&ser, b.lintCodes(x.Metric, o.Key))
	}
	c.Series = []d.Series{ser}
	seen.apply(&c)
	return c
}

// searches lists each option's capacity search: the probes in the order
// they ran, and the bracket the capacity lies in.
func (b *builder) searches(ss *schema.Step, st decide.Step) {
	opts := withIncumbent(st)
	t := d.Table{Head: []d.Text{d.M("Configuration"), d.M("Probes (req/s)"), d.M("Capacity within the SLO")}, Right: []bool{false, false, true}}
	for _, o := range opts {
		if o.Search == nil {
			continue
		}
		name := b.optionName(ss, o.Variant)
		if st.Incumbent != nil && o.Key == st.Incumbent.Key && o.Variant == st.Incumbent.Variant {
			name = d.M("current configuration")
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

// pareto draws the step's trade-off load by load, as peers plot it:
// throughput per GPU against throughput per user, one panel per
// profile, each point named by its option and the frontier through the
// points no other of the same load beats; then lists the points.
func (b *builder) pareto(ss *schema.Step, st decide.Step) {
	if len(st.Pareto) == 0 {
		return
	}
	m := st.ParetoMetric
	c := d.Chart{ID: "pareto_" + sanitize(st.ID), Kind: "pareto", XName: d.M("Output tokens/s per GPU"), YName: d.M("Output tokens/s per user"),
		Title: d.M("%s: throughput per GPU and per user", d.Prose(ss.Title))}
	t := d.Table{Head: []d.Text{d.M("Load"), d.M("Configuration"), d.M("Output tokens/s per GPU"), d.M("Output tokens/s per user"), MetricName(m), d.M("On the frontier")},
		Right: []bool{false, false, true, true, true, false}}
	seen := flags{}
	for _, prof := range paretoLoads(st.Pareto) {
		panel := d.Panel{Title: ProfileTitle(b.s, prof)}
		for _, p := range st.Pareto {
			if p.Profile != prof {
				continue
			}
			name := b.paretoName(ss, st, p)
			codes := b.lintCodes("latency.mean", p.Key)
			var perUser d.Text = d.Num{V: p.PerUser, Prec: 2}
			if len(codes) > 0 {
				perUser = d.Join{Sep: " ", Parts: []d.Text{perUser, d.Lit("(!)")}}
			}
			seen.add(&d.Series{}, codes)
			mark := d.Lit("✓")
			if p.Dominated {
				mark = d.Lit("–")
			}
			panel.Points = append(panel.Points, d.Point{Label: name, X: p.Throughput, Y: p.PerUser, Frontier: !p.Dominated, Flagged: len(codes) > 0})
			t.Rows = append(t.Rows, []d.Text{panel.Title, name, d.Num{V: p.Throughput, Prec: 2}, perUser, value(m, p.Latency), mark})
		}
		c.Panels = append(c.Panels, panel)
	}
	seen.apply(&c)
	text := d.Para{Text: d.M("Throughput per GPU against throughput per user (mean output tokens per request ÷ mean request latency, the wait for the first token included) at every load of this step; a point is dominated when another point of the same load has at least as much of both and more of one:")}
	// Folded on a web page, as the SLO's evidence is: the step's verdict
	// and chart above answer it; this is the view peers draw, on demand.
	blocks := []d.Block{text, t}
	if tradeOff(c.Panels) {
		blocks = []d.Block{text, c, t}
	}
	b.doc.Add(d.Details{ID: "pareto-" + sanitize(st.ID), InText: true, Summary: d.M("Throughput per GPU and per user"), Blocks: blocks})
}

// tradeOff reports whether a chart shows more than the table's marks:
// some load has a frontier of two points or more, or three points (a
// search's probes draw a curve). Two points where one beats the other
// are said by the marks.
func tradeOff(panels []d.Panel) bool {
	for _, p := range panels {
		n := 0
		for _, pt := range p.Points {
			if pt.Frontier {
				n++
			}
		}
		if n > 1 || len(p.Points) > 2 {
			return true
		}
	}
	return false
}

// paretoLoads are the profiles of pts in their first order.
func paretoLoads(pts []decide.Point) []string {
	var out []string
	for _, p := range pts {
		if !slices.Contains(out, p.Profile) {
			out = append(out, p.Profile)
		}
	}
	return out
}

// paretoName is a Pareto point's option, and the rate of a search's
// probe.
func (b *builder) paretoName(ss *schema.Step, st decide.Step, p decide.Point) d.Text {
	name := b.optionName(ss, p.Variant)
	if st.Incumbent != nil && p.Variant == st.Incumbent.Variant {
		name = d.M("current configuration")
	}
	if _, rate, ok := strings.Cut(p.Load, "@"); ok {
		name = d.Join{Sep: " @ ", Parts: []d.Text{name, d.Lit(rate + " req/s")}}
	}
	return name
}
