package report

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"

	"servelab.dev/execute/decide"
	"servelab.dev/execute/record"
	d "servelab.dev/render/document"
	"servelab.dev/schema"
	"servelab.dev/schema/plan"
)

// SLOAnswer is the answer to the study's SLO, the first sentence a
// reader of the conclusion or of the site's index sees: the final
// configuration meets the bounds, or no configuration does and the
// final is only the closest. nil without bounds or before the study is
// decided.
func SLOAnswer(s *schema.Study, a *decide.Analysis) d.Text {
	ans := a.SLO
	if ans == nil || a.Final == nil {
		return nil
	}
	if !ans.Met {
		return d.Sentences(SLOMissed(s, a), d.M("The serving command below is therefore best-effort."))
	}
	bounds, at := boundsText(ans.Bounds), ProfileTitle(s, ans.Profile)
	if c := ans.Capacity; c != nil {
		return d.M("The recommended configuration meets %s at %s up to %s.", bounds, at, capacityText(c))
	}
	if ans.Runs > 1 {
		return d.M("The recommended configuration meets %s at %s: %s, each the mean of its %d runs' values.", bounds, at, boundValues(ans), ans.Runs)
	}
	return d.M("The recommended configuration meets %s at %s: %s.", bounds, at, boundValues(ans))
}

// SLOMissed is the answer where no configuration meets the SLO, as a
// page that lists studies gives it: SLOAnswer without the serving
// command.
// nil when the SLO is met or the study has none.
func SLOMissed(s *schema.Study, a *decide.Analysis) d.Text {
	ans := a.SLO
	if ans == nil || a.Final == nil || ans.Met {
		return nil
	}
	bounds, at := boundsText(ans.Bounds), ProfileTitle(s, ans.Profile)
	if c := ans.Capacity; c != nil {
		return d.M("No configuration meets %s at %s; the closest is %s, whose capacity is %s.", bounds, at, FinalName(s, a), capacityText(c))
	}
	return d.M("No configuration meets %s at %s; the closest is %s (%s).", bounds, at, FinalName(s, a), boundValues(ans))
}

// FinalName names the final configuration by how its command differs
// from the baseline's ("the configuration with `--max-num-seqs=16`"), or
// as the baseline when it does not.
func FinalName(s *schema.Study, a *decide.Analysis) d.Text {
	var base []string
	for _, t := range a.Plan.Trials {
		if t.Key != "" && t.HasRole("baseline/baseline") {
			base = t.Argv
			break
		}
	}
	var words []string
	for _, w := range a.Final.Argv {
		if !slices.Contains(base, w) {
			words = append(words, w)
		}
	}
	if len(words) == 0 || base == nil {
		return d.M("the baseline")
	}
	return d.M("the configuration with %s", d.Code(strings.Join(words, " ")))
}

func boundsText(bounds []schema.Bound) d.Text {
	var parts []d.Text
	for _, x := range bounds {
		parts = append(parts, boundText(x))
	}
	return d.Join{Sep: ", ", Parts: parts}
}

func boundValues(ans *decide.SLOAnswer) d.Text {
	var parts []d.Text
	for _, b := range ans.Bounds {
		var v d.Text = d.M("not reported")
		if p := ans.Final[b.Metric]; p != nil {
			v = value(b.Metric, *p)
		}
		parts = append(parts, d.M("%[1]s: %[2]s", MetricName(b.Metric), v))
	}
	return d.Join{Sep: ", ", Parts: parts}
}

// capacityText is a search's answer: the highest rate that met the
// SLO while the server kept up, below the low end or at least the high
// end, never a rate of 0 or the high end as a capacity.
func capacityText(c *decide.CapacitySide) d.Text {
	switch {
	case c == nil:
		return d.M("not measured")
	case !c.Known:
		if lo, hi, ok := edges(c); ok {
			return d.M("between %s and %s so far (the search was not finished)", rateN(lo), rateN(hi))
		}
		return d.M("not known yet")
	case c.BelowLow:
		return d.M("below %s", rateN(c.Low))
	case c.Sustained == nil:
		return d.M("not established")
	case c.AboveHigh && *c.Sustained == c.High:
		return d.M("at least %s", rateN(c.High))
	}
	return rateN(*c.Sustained)
}

// measured are the validation rows of fixed loads: a capacity search's
// row has no figure at one load, and capacities() states it instead.
func (b *builder) measured() []decide.ValidationRow {
	var out []decide.ValidationRow
	for _, row := range b.a.Validation {
		if row.Capacity == nil {
			out = append(out, row)
		}
	}
	return out
}

// capacities states every validation search's answer for the final and
// the baseline: the probed rates each capacity lies between where both
// are known, else each side's rate; how it was read, a search that did
// not finish and what it lacks, and how to widen a search that ran out
// of range. A bar is drawn only for single rates: ranges are in the
// sentence.
func (b *builder) capacities() {
	for _, row := range b.a.Validation {
		c := row.Capacity
		if c == nil {
			continue
		}
		prof := b.s.Profiles[row.Profile]
		title, bounds := ProfileTitle(b.s, row.Profile), boundsText(b.s.Objective.Constraints)
		f, fu, fok := edges(c.Final)
		base, bu, bok := edges(c.Baseline)
		ranged := fok && bok
		var parts []d.Text
		if ranged {
			parts = append(parts,
				d.M("%s (%s): between %s and %s for the recommended configuration, between %s and %s for the baseline.", title, bounds,
					rateN(f), rateN(fu), rateN(base), rateN(bu)),
				d.M("The lower rate of each is the highest probe that met the bounds while the server kept up with it (the method says how probes are read); the higher rate is the next probe above, which broke the bounds or fell behind."))
		} else {
			parts = append(parts,
				d.M("%s (%s): %s for the recommended configuration, %s for the baseline.", title, bounds, capacityText(c.Final), capacityText(c.Baseline)),
				d.M("Each is the highest probe that met the bounds while the server kept up with it (the method says how probes are read)."))
		}
		for _, side := range sidesOf(c) {
			if t := b.searchSide(side.subject, side.c, prof); t != nil {
				parts = append(parts, t)
			}
		}
		if n := b.probeCards(); n > 1 {
			parts = append(parts, d.M("The probes ran on %d GPUs: where two rates of one search ran on different cards, the cards' own differences are part of where the bound is crossed.", n))
		}
		if c.Final != nil && c.Final.BelowLow || c.Baseline != nil && c.Baseline.BelowLow {
			parts = append(parts, d.M("A search whose low end already breaks the bounds found no rate that meets them: lower search.low to measure it."))
		}
		if c.Final != nil && c.Final.AboveHigh || c.Baseline != nil && c.Baseline.AboveHigh {
			parts = append(parts, d.M("A search whose high end still meets the bounds found no upper end: raise search.high to measure it."))
		}
		b.doc.Add(d.Para{Text: d.Sentences(parts...)})
		// The chart answers where each side crosses the bound; every
		// probe's figures are folded beside it, for a reader who checks.
		if ch, ok := b.probeChart(row); ok {
			b.doc.Add(ch)
		}
		if t, ok := b.probeTable(row); ok {
			b.doc.Add(d.Details{ID: "probes-" + sanitize(row.Profile), InText: true, Summary: d.M("Every probe of the searches"), Blocks: []d.Block{t}})
		}
	}
}

// capacitySide is one side of a capacity row: its search, the
// validation role of its probes, and its names as a sentence's subject
// and as a table's label.
type capacitySide struct {
	subject, name d.Text
	role          string
	c             *decide.CapacitySide
}

// sidesOf are the recommended configuration's side, then the
// baseline's.
func sidesOf(c *decide.CapacityRow) []capacitySide {
	return []capacitySide{
		{d.M("The recommended configuration"), d.M("Optimized"), "validate/final", c.Final},
		{d.M("The baseline"), d.M("Baseline"), "validate/baseline", c.Baseline},
	}
}

// rateN is a probed rate as the search chose it (7.375 req/s, not 7.38):
// a probe's rate is exact, and rounding it would blur two probes.
func rateN(v float64) d.Num { return d.Num{V: v, Prec: -3, Unit: "req/s"} }

// probeSize says how long a search's probes were.
func probeSize(p schema.Profile) d.Text {
	if sec := p.Search.Seconds; sec > 0 {
		return d.M("Each probe sent its rate for about %s (rate × %s requests, at least %d).", d.Num{V: sec, Prec: -1, Unit: "s"}, d.Num{V: sec, Prec: -1}, p.Requests)
	}
	return d.M("Each rate was probed once, with %d requests.", p.Requests)
}

// probeLength is a probe's length as the sentences about one name it.
func probeLength(p schema.Profile) d.Text {
	if sec := p.Search.Seconds; sec > 0 {
		return d.M("a probe of about %s", d.Num{V: sec, Prec: -1, Unit: "s"})
	}
	return d.M("a probe of %d requests", p.Requests)
}

// searchSide tells what a reader needs of one side's search beyond its
// rate: the probes that met the bounds without counting, and a search
// left unfinished with the run it lacks; then the side's probes, so a
// reader can size from the rates that passed with room. nil when there
// is nothing to add.
func (b *builder) searchSide(name d.Text, c *decide.CapacitySide, p schema.Profile) d.Text {
	if c == nil || c.Known && len(c.Unsustained) == 0 {
		return nil
	}
	var rates, served, above []d.Text
	most := 0.0
	for _, u := range slices.Backward(c.Unsustained) {
		if u.Most > 0 {
			above, most = append(above, d.Num{V: u.Rate, Prec: -3}), u.Most
			continue
		}
		rates = append(rates, d.Num{V: u.Rate, Prec: -3})
		served = append(served, d.Num{V: u.Served, Prec: 2})
	}
	var parts []d.Text
	if len(rates) > 0 {
		parts = append(parts, d.M("%s also met the bounds at %s req/s but completed only %s req/s there over the arrivals (the run less its last requests' drain): in %s it fell behind.",
			name, andList(rates), andList(served), probeLength(p)))
	}
	if len(above) > 0 {
		parts = append(parts, d.M("%s also met the bounds at %s req/s, above the %s req/s it completed at most at any fixed concurrency, every slot busy: arrivals that fast build a queue without end, which %s ends too soon to show.",
			name, andList(above), d.Num{V: most, Prec: 2}, probeLength(p)))
	}
	if t := b.unfinished(name, c); t != nil {
		parts = append(parts, t)
	}
	if len(parts) == 0 {
		return nil
	}
	return d.Sentences(parts...)
}

// unfinished says what a search that stopped early lacks: a second run
// at a rate whose first broke a bound in its tail alone (the search
// confirms such a breach before it moves below the rate), or a probe at
// a new rate. nil for a finished search.
func (b *builder) unfinished(name d.Text, c *decide.CapacitySide) d.Text {
	if c.Known {
		return nil
	}
	if !c.Confirm {
		return d.M("%s: the search was not finished; its next probe, at %s, was not run.", name, rateN(c.Next))
	}
	bound := b.s.Objective.Constraints[0]
	for _, x := range b.s.Objective.Constraints {
		if f, ok := probeFigure(c, c.Next, x.Metric); ok && !x.Meets(f.Value) {
			bound = x
			break
		}
	}
	f, _ := probeFigure(c, c.Next, bound.Metric)
	v := f.Value
	if lo, _, ok := edges(c); ok {
		return d.M("%s: the search was not finished. Its run at %s broke %s (%s) with a few slow requests, and the second run that would confirm it was not made; if it does, the capacity lies between %s and %s.",
			name, rateN(c.Next), MetricName(bound.Metric), value(bound.Metric, v), rateN(lo), rateN(c.Next))
	}
	return d.M("%s: the search was not finished. Its run at %s broke %s (%s) with a few slow requests, and the second run that would confirm it was not made.",
		name, rateN(c.Next), MetricName(bound.Metric), value(bound.Metric, v))
}

// probeTable lists both sides' probes by rate: each bound's figure
// there and whether the probe met them all; a rate still awaiting its
// confirming run is listed with its first run, a rate that met the
// bounds without counting says why.
func (b *builder) probeTable(row decide.ValidationRow) (d.Table, bool) {
	bounds := b.s.Objective.Constraints
	t := d.Table{Head: []d.Text{d.M("Configuration"), d.M("Request rate")}, Right: []bool{false, true}}
	for _, x := range bounds {
		t.Head, t.Right = append(t.Head, MetricName(x.Metric)), append(t.Right, true)
	}
	t.Head, t.Right = append(t.Head, d.M("Within the SLO")), append(t.Right, false)
	for _, side := range sidesOf(row.Capacity) {
		if side.c == nil {
			continue
		}
		for _, p := range sideProbes(side.c) {
			cells := []d.Text{side.name, rateN(p.Rate)}
			for _, x := range bounds {
				var cell d.Text = d.M("not recorded")
				if f, ok := probeFigure(side.c, p.Rate, x.Metric); ok {
					cell = runFigures(x, f)
				}
				cells = append(cells, cell)
			}
			t.Rows = append(t.Rows, append(cells, probeMark(side.c, p)))
		}
	}
	return t, len(t.Rows) > 0
}

// sideProbes are a search's probes by rate, with the rate that awaits
// its confirming run.
func sideProbes(c *decide.CapacitySide) []plan.Probe {
	ps := slices.Clone(c.Search.Probes)
	if c.Confirm {
		ps = append(ps, plan.Probe{Rate: c.Next})
	}
	slices.SortFunc(ps, func(x, y plan.Probe) int { return cmp.Compare(x.Rate, y.Rate) })
	return ps
}

// probeMark is ✓ or ✗ for one probe, with what qualifies it.
func probeMark(c *decide.CapacitySide, p plan.Probe) d.Text {
	mark := "✗"
	if p.Meets {
		mark = "✓"
	}
	var why []d.Text
	if c.Confirm && p.Rate == c.Next {
		why = append(why, d.M("one run, not confirmed"))
	}
	if i := slices.IndexFunc(c.Unsustained, func(u decide.ServedProbe) bool { return u.Rate == p.Rate }); i >= 0 {
		if u := c.Unsustained[i]; u.Most > 0 {
			why = append(why, d.M("not counted: above the most served"))
		} else {
			why = append(why, d.M("not counted: completed %s", d.N(u.Served, "req/s")))
		}
	}
	if len(why) == 0 {
		return d.Lit(mark)
	}
	return d.Join{Sep: " ", Parts: []d.Text{d.Lit(mark), d.Paren{Text: d.Join{Sep: "; ", Parts: why}}}}
}

// probeFigure is what one side's search judged its probe at rate on,
// for metric.
func probeFigure(c *decide.CapacitySide, rate float64, metric string) (decide.ProbeFigure, bool) {
	i := slices.IndexFunc(c.Figures, func(f decide.ProbeFigure) bool { return f.Rate == rate && f.Metric == metric })
	if i < 0 {
		return decide.ProbeFigure{}, false
	}
	return c.Figures[i], true
}

// runFigures prints a probe's figure for bound x as the search judged
// it, with each run's own after it where one of them broke the bound,
// so that the run is in sight beside a figure that met it.
func runFigures(x schema.Bound, f decide.ProbeFigure) d.Text {
	broke := false
	var parts []d.Text
	for _, v := range f.Runs {
		broke = broke || !x.Meets(v)
		parts = append(parts, d.Num{V: chartValue(x.Metric, v), Prec: 2})
	}
	fig := value(x.Metric, f.Value)
	switch {
	case len(f.Runs) == 1 || !broke:
		return fig
	case f.Requests > 0:
		return d.M("%s (runs: %s)", fig, andList(parts))
	}
	return d.M("%s (mean of %s)", fig, andList(parts))
}

// probeChart draws, for the bound the searches came closest to
// breaking, each side's figure at every probe up to the first above its
// capacity, with the bound across: where each side crosses it is its
// capacity. Probes further above are left to the table, whose figures
// (queues of tens of seconds) would flatten the crossing.
func (b *builder) probeChart(row decide.ValidationRow) (d.Chart, bool) {
	bound, ok := b.bindingBound(row.Capacity)
	if !ok {
		return d.Chart{}, false
	}
	name := d.Cap{Text: MetricName(bound.Metric)}
	lim, _ := bound.Limit()
	c := d.Chart{ID: "capacity_" + sanitize(row.Profile), Kind: "line", Unit: chartUnit(bound.Metric), YName: name,
		XName: d.M("Request rate"), XUnit: "req/s", Title: d.M("%s against the request rate, up to the first probe above each capacity", name),
		Lines: []d.Line{{Name: boundText(bound), Value: chartValue(bound.Metric, lim), Bound: "≤"}}}
	var rates []float64
	figs := map[string]map[float64]float64{} // by role, then rate
	for _, side := range sidesOf(row.Capacity) {
		figs[side.role] = map[float64]float64{}
		for _, f := range probeFiguresUpTo(side.c, bound.Metric) {
			figs[side.role][f.Rate] = f.Value
			if !slices.Contains(rates, f.Rate) {
				rates = append(rates, f.Rate)
			}
		}
	}
	slices.Sort(rates)
	for _, r := range rates {
		c.Categories = append(c.Categories, rateN(r))
	}
	for _, side := range slices.Backward(sidesOf(row.Capacity)) {
		s := d.Series{Name: side.name, Reference: side.role == "validate/baseline", X: rates}
		for _, r := range rates {
			v, ok := figs[side.role][r]
			if !ok {
				v = math.NaN()
			}
			s.Values = append(s.Values, chartValue(bound.Metric, v))
		}
		c.Series = append(c.Series, s)
	}
	return c, len(rates) > 1
}

// bindingBound is the bound the probes just above each side's capacity
// broke by the most, relative to its limit.
func (b *builder) bindingBound(c *decide.CapacityRow) (schema.Bound, bool) {
	var best schema.Bound
	worst := 0.0
	for _, side := range sidesOf(c) {
		_, hi, ok := edges(side.c)
		if !ok {
			continue
		}
		for _, x := range b.s.Objective.Constraints {
			lim, upper := x.Limit()
			f, ok := probeFigure(side.c, hi, x.Metric)
			if !ok || !upper || lim <= 0 {
				continue
			}
			if r := f.Value / lim; r > worst {
				best, worst = x, r
			}
		}
	}
	return best, worst > 0
}

// probeFiguresUpTo are a side's figures for metric at each probe up to
// the first above its capacity, rates rising.
func probeFiguresUpTo(c *decide.CapacitySide, metric string) []decide.ProbeFigure {
	if c == nil {
		return nil
	}
	_, hi, ok := edges(c)
	var out []decide.ProbeFigure
	for _, f := range c.Figures {
		if f.Metric == metric && (!ok || f.Rate <= hi) {
			out = append(out, f)
		}
	}
	return out
}

// tradeoffs names every figure the final configuration makes worse
// than the baseline, before and after, and how many runs each side's
// figure is a mean of.
func (b *builder) tradeoffs() {
	defer b.unsettled()
	if len(b.a.Tradeoffs) == 0 {
		return
	}
	var items []d.Text
	// The worst first: a reader weighs the largest cost before the rest.
	sorted := slices.Clone(b.a.Tradeoffs)
	slices.SortStableFunc(sorted, func(x, y decide.Tradeoff) int { return cmp.Compare(y.Ratio, x.Ratio) })
	single, pooled := 0, 0
	for _, t := range sorted {
		if sameAsTPOT(b.a.Tradeoffs, t) {
			continue // an ITL equal to the TPOT says nothing more
		}
		base, fin := value(t.Metric, t.Baseline), value(t.Metric, t.Final)
		if t.Metric == schema.Capacity {
			base, fin = d.N(t.Baseline, "req/s"), d.N(t.Final, "req/s")
		}
		key, meansKey := "tradeoff falls: %s at %s: %s → %s (%sx worse)", "tradeoff falls: %s at %s: %s → %s (%sx worse; means of %d and %d runs)"
		if decide.Lower(t.Metric) {
			key, meansKey = "tradeoff rises: %s at %s: %s → %s (%sx worse)", "tradeoff rises: %s at %s: %s → %s (%sx worse; means of %d and %d runs)"
		}
		args := []any{d.Cap{Text: MetricName(t.Metric)}, ProfileTitle(b.s, t.Profile), base, fin, d.Num{V: t.Ratio, Prec: 2}}
		switch {
		case t.Runs[0] == 1 && t.Runs[1] == 1:
			single++
		case t.Runs[0] > 1 || t.Runs[1] > 1:
			pooled++
			key = meansKey
			args = append(args, t.Runs[0], t.Runs[1])
		}
		items = append(items, d.M(key, args...))
	}
	head := d.M("Trade-offs: the recommended configuration makes these figures worse than the baseline did:")
	if b.leanOK {
		head = d.M("Trade-offs: the study's final command, the recommended one with the flags the note above names, makes these figures worse than the baseline did:")
	}
	b.doc.Add(d.Para{Text: head}, d.List{Items: items})
	var after []d.Text
	switch {
	case single > 0 && pooled == 0:
		key := "Each of these figures comes from a single run on each side: a P99 of one run rests on its few slowest requests, so repeat the runs before weighing a tail."
		if len(items) == 1 {
			key = "This figure comes from a single run on each side: a P99 of one run rests on its few slowest requests, so repeat the runs before weighing a tail."
		}
		after = append(after, d.M(key))
	case single > 0:
		after = append(after, d.M("The figures without a run count come from a single run on each side: a P99 of one run rests on its few slowest requests, so repeat those runs before weighing a tail."))
	}
	if p := b.tradeoffPath(sorted[0]); p != nil {
		after = append(after, p)
	}
	if e := b.everywhere(sorted); e != nil {
		after = append(after, e)
	}
	if len(after) > 0 {
		b.doc.Add(d.Para{Text: d.Sentences(after...)})
	}
	if c, ok := b.tailChart(sorted[0]); ok {
		b.doc.Add(c)
	}
}

// TailChartRatio is how many times worse the final must make a tail
// (a percentile) for the page to chart it at every load beside the
// trade-off list: a cost that large is the one a reader weighs first.
const TailChartRatio = 3

// tailChart draws t's figure, the worst trade-off, for the baseline and
// the optimized configuration at every validation load, when it is a
// percentile made TailChartRatio times worse or more.
func (b *builder) tailChart(t decide.Tradeoff) (d.Chart, bool) {
	_, stat, _ := strings.Cut(t.Metric, ".")
	if t.Ratio < TailChartRatio || !strings.HasPrefix(stat, "p") || stat == "p50" {
		return d.Chart{}, false
	}
	name := d.Cap{Text: MetricName(t.Metric)}
	c := b.sidesChart("tail", d.M("%s, baseline and optimized", name), chartUnit(t.Metric), func(row decide.ValidationRow, base bool) (float64, string) {
		role := "validate/final"
		if base {
			role = "validate/baseline"
		}
		v, ok := b.metricMean(b.roleKeys(role, row.Profile), t.Metric)
		if !ok {
			return math.NaN(), t.Metric
		}
		return chartValue(t.Metric, v), t.Metric
	})
	c.YName = name
	return c, len(c.Categories) > 1
}

// medianShift is how much the final raises metric (a median) at every
// validation load, in ms and as a ratio, nil unless it does at every one:
// a shift of the median is the steady part of a cost whose mean a tail
// can inflate.
func (b *builder) medianShift(metric string) d.Text {
	rows := b.measured()
	if len(rows) < 2 {
		return nil
	}
	lo, hi, rlo, rhi := math.Inf(1), 0.0, math.Inf(1), 0.0
	for _, row := range rows {
		base, ok1 := b.metricMean(b.roleKeys("validate/baseline", row.Profile), metric)
		fin, ok2 := b.metricMean(b.roleKeys("validate/final", row.Profile), metric)
		if !ok1 || !ok2 || base <= 0 || fin <= base {
			return nil
		}
		lo, hi, rlo, rhi = min(lo, fin-base), max(hi, fin-base), min(rlo, fin/base), max(rhi, fin/base)
	}
	return d.M("%s is higher at every load, by %s to %s (%sx to %sx): a steady cost, to which the means above add the tails.",
		d.Cap{Text: MetricName(metric)}, d.N(lo, "ms"), d.N(hi, "ms"), d.Num{V: rlo, Prec: 2}, d.Num{V: rhi, Prec: 2})
}

// everywhere names the mean figures the final makes worse at every
// validation load, with the range of the ratios: a cost no load escapes
// is a steady one, unlike a tail that one load shows.
func (b *builder) everywhere(ts []decide.Tradeoff) d.Text {
	loads := len(b.measured())
	if loads < 2 {
		return nil
	}
	var parts []d.Text
	median := b.medianShift("ttft.median")
	if median != nil {
		parts = append(parts, median)
	}
	for _, m := range []string{"ttft.mean", "tpot.mean", "itl.mean", "latency.mean"} {
		if m == "ttft.mean" && median != nil {
			continue // the median says it without the tails
		}
		lo, hi, n := math.Inf(1), 0.0, 0
		for _, t := range ts {
			if t.Metric == m {
				lo, hi, n = min(lo, t.Ratio), max(hi, t.Ratio), n+1
			}
		}
		if n == loads {
			parts = append(parts, d.M("%s is worse at every load, %sx to %sx: a steady cost.", d.Cap{Text: MetricName(m)}, d.Num{V: lo, Prec: 2}, d.Num{V: hi, Prec: 2}))
		}
	}
	if len(parts) == 0 {
		return nil
	}
	return d.Sentences(parts...)
}

// unsettled names the figures the final makes much worse on average
// whose runs disagree, each with the runs' span: a reader who weighs a
// tail wants to know of it, and that it is not settled.
func (b *builder) unsettled() {
	var items []d.Text
	for _, t := range b.a.Unsettled {
		fig := b.figure(t.Profile, t.Metric)
		if fig == nil {
			continue
		}
		// A mean of runs' tails is no tail of anything, so each side
		// shows its runs' own figures.
		side := func(v *decide.Value, one, two string) d.Text {
			if v.Runs == 2 && v.Low != nil && v.High != nil {
				return d.M(two, value(t.Metric, *v.Low), value(t.Metric, *v.High))
			}
			return d.M(one, value(t.Metric, v.Mean))
		}
		item := d.M("%s at %s: %s; %s", d.Cap{Text: MetricName(t.Metric)}, ProfileTitle(b.s, t.Profile),
			side(fig.Baseline, "%s for the baseline", "the baseline's runs %s and %s"),
			side(fig.Final, "%s for the recommended configuration", "the recommended configuration's runs %s and %s"))
		items = append(items, item)
	}
	if len(items) == 0 {
		return
	}
	key := "Also worse on average, but the runs vary too much to count these as costs yet:"
	if len(items) == 1 {
		key = "Also worse on average, but the runs vary too much to count this as a cost yet:"
	}
	b.doc.Add(d.Para{Text: d.M(key)}, d.List{Items: items})
}

// figure is the validation figure of metric at profile, wherever the
// row holds it.
func (b *builder) figure(profile, metric string) *decide.ValidationRow {
	for _, row := range b.a.Validation {
		if row.Profile != profile {
			continue
		}
		cands := append([]*decide.ValidationRow{&row, row.Throughput, row.Latency, row.TTFT, row.TPOT, row.ITL}, row.Percentiles...)
		for _, r := range cands {
			if r != nil && r.Metric == metric {
				return r
			}
		}
	}
	return nil
}

// tradeoffPath follows the worst trade-off through the adopted changes
// at its load, where the steps measured it, and says when every run from
// one change on is at least halfway to the final's figure: a rise that
// each later run repeats is no single run's tail. nil where fewer than
// two steps measured it.
func (b *builder) tradeoffPath(t decide.Tradeoff) d.Text {
	if t.Metric == schema.Capacity {
		return nil
	}
	points := []d.Text{d.M("%s (baseline)", value(t.Metric, t.Baseline))}
	var names []d.Text
	var vals []float64
	for _, st := range b.a.Steps {
		if st.Outcome != decide.Adopted || st.Adopted == nil || !b.changes(st) {
			continue
		}
		v, ok := b.metricMean(b.roleKeys(st.ID+"/"+*st.Adopted, t.Profile), t.Metric)
		if !ok {
			continue
		}
		name := b.optionName(studyStep(b.s, st.ID), *st.Adopted)
		points = append(points, d.M("%s (%s)", value(t.Metric, v), name))
		names, vals = append(names, name), append(vals, v)
	}
	if len(vals) < 2 {
		return nil
	}
	path := d.M("%s at %s after each adopted change, in its step's runs: %s.", d.Cap{Text: MetricName(t.Metric)}, ProfileTitle(b.s, t.Profile), d.Join{Sep: " → ", Parts: points})
	// The change it came with: the first from which every later run is
	// at least halfway from the baseline's figure to the final's.
	half := (t.Baseline + t.Final) / 2
	worse := func(v float64) bool { return decide.Lower(t.Metric) == (v >= half) }
	from := len(vals)
	for i := len(vals) - 1; i >= 0 && worse(vals[i]); i-- {
		from = i
	}
	if from >= len(vals)-1 {
		return path
	}
	if most, ok := b.elsewhereRatio(t); ok && most <= 1+(t.Ratio-1)/2 {
		return d.Sentences(path, d.M("It appeared with %s and stayed in every later step's run at this load, while at the other loads the same command raised it at most %sx: a cost at this load or a stall early in these runs, which these records cannot tell apart.", names[from], d.Num{V: most, Prec: 2}))
	}
	return d.Sentences(path, d.M("It appeared with %s, and every step's run after it has it, so it is no single run's tail.", names[from]))
}

// elsewhereRatio is the most the final makes t's figure worse at the
// other validation loads (1 where it is no worse), false where no other
// load has it.
func (b *builder) elsewhereRatio(t decide.Tradeoff) (float64, bool) {
	most, ok := 0.0, false
	for _, row := range b.measured() {
		if row.Profile == t.Profile {
			continue
		}
		f := b.figure(row.Profile, t.Metric)
		if f == nil || f.Baseline == nil || f.Final == nil || f.Baseline.Mean <= 0 || f.Final.Mean <= 0 {
			continue
		}
		r := f.Final.Mean / f.Baseline.Mean
		if !decide.Lower(t.Metric) {
			r = 1 / r
		}
		most, ok = max(most, r, 1), true
	}
	return most, ok
}

// sameAsTPOT says whether t is an ITL trade-off whose figures the TPOT
// of the same statistic and profile repeats (as when the engine streams
// one token a chunk).
func sameAsTPOT(all []decide.Tradeoff, t decide.Tradeoff) bool {
	stat, ok := strings.CutPrefix(t.Metric, "itl.")
	if !ok {
		return false
	}
	for _, o := range all {
		if o.Metric == "tpot."+stat && o.Profile == t.Profile &&
			fmt.Sprintf("%.2f %.2f", o.Baseline, o.Final) == fmt.Sprintf("%.2f %.2f", t.Baseline, t.Final) {
			return true
		}
	}
	return false
}

// edges is a side's capacity and the lowest rate probed above it.
func edges(c *decide.CapacitySide) (lo, hi float64, ok bool) {
	if c == nil || c.Sustained == nil {
		return 0, 0, false
	}
	lo, hi = *c.Sustained, math.Inf(1)
	for _, p := range c.Search.Probes {
		if p.Rate > lo && p.Rate < hi {
			hi = p.Rate
		}
	}
	return lo, hi, !math.IsInf(hi, 1)
}

// metricMean is metric over the runs of the trials keys, as the
// decisions read it.
func (b *builder) metricMean(keys []string, metric string) (float64, bool) {
	return b.runMean(keys, func(r *record.Record) (float64, bool) { return decide.MetricOf(r, metric) })
}

// runMean is the mean of figure over the runs of the trials keys that
// have it (false when none does).
func (b *builder) runMean(keys []string, figure func(*record.Record) (float64, bool)) (float64, bool) {
	sum, n := 0.0, 0
	for _, key := range keys {
		for _, r := range b.runs[key] {
			if v, ok := figure(r); ok {
				sum, n = sum+v, n+1
			}
		}
	}
	if n == 0 {
		return 0, false
	}
	return sum / float64(n), true
}

// probeCards is how many GPUs the runs of the searches' probes, both
// sides', ran on; 0 where a run does not name its GPU.
func (b *builder) probeCards() int {
	var runs []*record.Record
	for _, t := range b.a.Plan.Trials {
		if t.Spec != nil && t.Spec.Profile.Kind != "concurrency" && (t.HasRole("validate/baseline") || t.HasRole("validate/final")) && b.s.Profiles[t.Profile].Search != nil {
			runs = append(runs, b.loadRuns(t.Key)...)
		}
	}
	cards, ok := cardsOf(runs)
	if !ok {
		return 0
	}
	return len(cards)
}
