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
		parts = append(parts, d.M("%s: %s", MetricName(b.Metric), v))
	}
	return d.Join{Sep: ", ", Parts: parts}
}

// capacityText is a search's answer: a rate, below the low end or at
// least the high end, never a rate of 0 or the high end as a capacity.
func capacityText(c *decide.CapacitySide) d.Text {
	switch {
	case c == nil:
		return d.M("not measured")
	case !c.Known:
		return d.M("not known yet")
	case c.BelowLow:
		return d.M("below %s", d.N(c.Low, "req/s"))
	case c.AboveHigh:
		return d.M("at least %s", d.N(c.High, "req/s"))
	}
	return d.N(*c.Rate, "req/s")
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
// the baseline, says how to widen a search that ran out of range, and
// draws the capacities found.
func (b *builder) capacities() {
	for _, row := range b.a.Validation {
		c := row.Capacity
		if c == nil {
			continue
		}
		t := d.M("%s (%s): %s for the recommended configuration, %s for the baseline.",
			ProfileTitle(b.s, row.Profile), boundsText(b.s.Objective.Constraints), capacityText(c.Final), capacityText(c.Baseline))
		var hints []d.Text
		if c.Final != nil && c.Final.BelowLow || c.Baseline != nil && c.Baseline.BelowLow {
			hints = append(hints, d.M("A search whose low end already breaks the bounds found no rate that meets them: lower search.low to measure it."))
		}
		if c.Final != nil && c.Final.AboveHigh || c.Baseline != nil && c.Baseline.AboveHigh {
			hints = append(hints, d.M("A search whose high end still meets the bounds found no upper end: raise search.high to measure it."))
		}
		if e := b.capacityEdges(row.Profile, c); e != nil {
			hints = append(hints, e)
		}
		behind := false
		if c.Final != nil && c.Final.Rate != nil {
			if got, ok := b.achieved("validate/final", *c.Final.Rate); ok && got < 0.9**c.Final.Rate {
				behind = true
				hints = append(hints, d.M("The recommended configuration's probe at %s completed only %s: it fell behind the offered rate, so it may not sustain that rate.", d.N(*c.Final.Rate, "req/s"), d.N(got, "req/s")))
			}
		}
		b.doc.Add(d.Para{Text: d.Sentences(append([]d.Text{t}, hints...)...)})
		// A bar would show as a capacity a rate the text has just put in
		// doubt.
		if ch, ok := b.capacityChart(row); ok && !behind {
			b.doc.Add(ch)
		}
	}
}

// capacityChart draws the capacities a search found, one bar a side; a
// side without one (below the low end, above the high end) is left out
// of the bars, and the sentence above says why.
func (b *builder) capacityChart(row decide.ValidationRow) (d.Chart, bool) {
	c := d.Chart{ID: "capacity_" + sanitize(row.Profile), Kind: "bar", Unit: "req/s",
		Title: d.M("%s, baseline and optimized", ProfileTitle(b.s, row.Profile))}
	ser := d.Series{Name: d.Cap{Text: MetricName(schema.Capacity)}}
	known := false
	for _, side := range []struct {
		name d.Text
		c    *decide.CapacitySide
	}{{d.M("Baseline"), row.Capacity.Baseline}, {d.M("Optimized"), row.Capacity.Final}} {
		v := math.NaN()
		if side.c != nil && side.c.Rate != nil {
			v, known = *side.c.Rate, true
		}
		c.Categories = append(c.Categories, side.name)
		ser.Values = append(ser.Values, v)
	}
	c.Series = []d.Series{ser}
	return c, known
}

// tradeoffs names every figure the final configuration makes worse than
// the baseline, before and after.
func (b *builder) tradeoffs() {
	if len(b.a.Tradeoffs) == 0 {
		return
	}
	var items []d.Text
	// The worst first: a reader weighs the largest cost before the rest.
	sorted := slices.Clone(b.a.Tradeoffs)
	slices.SortStableFunc(sorted, func(x, y decide.Tradeoff) int { return cmp.Compare(y.Ratio, x.Ratio) })
	for _, t := range sorted {
		if sameAsTPOT(b.a.Tradeoffs, t) {
			continue // an ITL equal to the TPOT says nothing more
		}
		base, fin := value(t.Metric, t.Baseline), value(t.Metric, t.Final)
		if t.Metric == schema.Capacity {
			base, fin = d.N(t.Baseline, "req/s"), d.N(t.Final, "req/s")
		}
		key := "tradeoff falls: %s at %s: %s → %s (%sx worse)"
		if decide.Lower(t.Metric) {
			key = "tradeoff rises: %s at %s: %s → %s (%sx worse)"
		}
		items = append(items, d.M(key, d.Cap{Text: MetricName(t.Metric)}, ProfileTitle(b.s, t.Profile), base, fin, d.Num{V: t.Ratio, Prec: 2}))
	}
	b.doc.Add(d.Para{Text: d.M("Trade-offs: the recommended configuration makes these figures worse than the baseline did:")}, d.List{Items: items})
	if b.singleRuns(sorted) {
		b.doc.Add(d.Para{Text: d.M("Each of these figures comes from a single run a side: a P99 of one run rests on its few slowest requests, so repeat the runs before weighing a tail.")})
	}
}

// singleRuns reports whether every trade-off's profile has a single
// run of the baseline and of the final configuration.
func (b *builder) singleRuns(ts []decide.Tradeoff) bool {
	for _, t := range ts {
		for _, role := range []string{"validate/baseline", "validate/final"} {
			n := 0
			for _, key := range b.roleKeys(role, t.Profile) {
				n += len(b.runs[key])
			}
			if n != 1 {
				return false
			}
		}
	}
	return len(ts) > 0
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

// capacityEdges says how finely each search placed its capacity: the
// rate that met the bounds and the next that broke them, each probe a
// single run. A short probe can pass near the edge before a queue has
// built, so the figure is the highest rate that passed, not a rate the
// configuration is known to sustain.
func (b *builder) capacityEdges(profile string, c *decide.CapacityRow) d.Text {
	f, base := c.Final, c.Baseline
	if f == nil || base == nil || f.Rate == nil || base.Rate == nil || f.Bracket[1] <= f.Bracket[0] || base.Bracket[1] <= base.Bracket[0] {
		return nil
	}
	return d.M("Each search ran one probe of %d requests a rate: the recommended configuration met the bounds at %s and broke them at %s, the baseline at %s and %s. A single short probe can pass near the edge before a queue builds, so each capacity is the highest rate that passed once, not one shown to be sustained.",
		b.s.Profiles[profile].Requests, d.N(f.Bracket[0], "req/s"), d.N(f.Bracket[1], "req/s"), d.N(base.Bracket[0], "req/s"), d.N(base.Bracket[1], "req/s"))
}

// achieved is the request rate that role's probes at rate completed,
// over their runs (false when none is recorded): a search probe passes
// on its latency bounds alone, and a configuration that falls behind
// the offered rate passes a short probe it could not sustain.
func (b *builder) achieved(role string, rate float64) (float64, bool) {
	var keys []string
	for _, t := range b.a.Plan.Trials {
		if t.Spec != nil && t.HasRole(role) && t.Spec.Profile.Kind == "poisson" && t.Spec.Profile.Rate == rate {
			keys = append(keys, t.Key)
		}
	}
	return b.runMean(keys, func(m record.Metrics) (float64, bool) {
		if m.RequestThroughput == nil {
			return 0, false
		}
		return *m.RequestThroughput, true
	})
}

// runMean is the mean of figure over the runs of the trials keys that
// have it (false when none does).
func (b *builder) runMean(keys []string, figure func(record.Metrics) (float64, bool)) (float64, bool) {
	sum, n := 0.0, 0
	for _, key := range keys {
		for _, r := range b.runs[key] {
			if v, ok := figure(r.Metrics); ok {
				sum, n = sum+v, n+1
			}
		}
	}
	if n == 0 {
		return 0, false
	}
	return sum / float64(n), true
}
