package report

import (
	"reflect"
	"slices"
	"sort"

	"servelab.dev/execute/decide"
	d "servelab.dev/render/document"
	"servelab.dev/schema/plan"
)

// lintFigures are the figures each lint code calls into question, by
// the analysis's metric names: the benchmark blocks mark their lines
// (!) and the charts draw them apart, so both read this one table.
var lintFigures = map[string][]string{
	decide.CodeBursts:      {"itl.median", "tpot.median"},
	decide.CodeDecodeBound: {"tpot.median", "tpot.mean"},
	decide.CodeITLBound:    {"itl.mean"},
	decide.CodePeakRate:    {"peak_output_throughput"},
	decide.CodePeakLow:     {"peak_output_throughput"},
	decide.CodePeakConc:    {"peak_concurrency"},
	decide.CodeOutlier:     {"ttft.p99"},
}

// warned reports whether the lint flagged the runs of trial key with code.
func (b *builder) warned(key, code string) bool {
	return slices.ContainsFunc(b.warn[key], func(w decide.Warning) bool { return w.Code == code })
}

// blockLines are the benchmark-block lines of the figures in
// lintFigures.
var blockLines = map[string]string{
	"itl.median": "Median ITL (ms)", "itl.mean": "Mean ITL (ms)", "tpot.median": "Median TPOT (ms)", "tpot.mean": "Mean TPOT (ms)",
	"peak_output_throughput": "Peak output token throughput (tok/s)", "peak_concurrency": "Peak concurrent requests",
	"ttft.p99": "P99 TTFT (ms)",
}

// lintCodes are the lint codes that call metric into question on a run
// behind any of the trials keys: their own runs and those of every
// trial of the same configuration at the same load, which the analysis
// pools into one figure.
func (b *builder) lintCodes(metric string, keys ...string) []string {
	loads := map[string]bool{}
	for _, k := range keys {
		if k == "" {
			continue
		}
		loads[k] = true
		if t := b.trial(k); t != nil {
			loads[loadKey(t)] = true
		}
	}
	var out []string
	for _, code := range causes {
		if !slices.Contains(lintFigures[code], metric) {
			continue
		}
		for _, t := range b.a.Plan.Trials {
			if t.Key != "" && (loads[t.Key] || loads[loadKey(t)]) && b.warned(t.Key, code) {
				out = append(out, code)
				break
			}
		}
	}
	return out
}

// loadKey is t's configuration at its load (decide pools the runs of
// trials that share it); its own key when the trial has no spec.
func loadKey(t *plan.Trial) string {
	if t.Spec == nil {
		return t.Key
	}
	return t.Spec.LoadKey()
}

// flags collects what a chart draws apart: every figure's flag, by
// series, and the codes behind them for the chart's caption.
type flags map[string]bool

// add appends to s whether its newest value is called into question.
func (f flags) add(s *d.Series, codes []string) {
	s.Flagged = append(s.Flagged, len(codes) > 0)
	for _, c := range codes {
		f[c] = true
	}
}

// apply says in c why its flagged figures are in doubt, from the codes
// seen, and drops the flags of a chart that has none, so that it prints
// as before.
func (f flags) apply(c *d.Chart) {
	if len(f) == 0 {
		for i := range c.Series {
			c.Series[i].Flagged = nil
		}
		return
	}
	var why []d.Text
	for _, code := range causes {
		if f[code] {
			why = append(why, flagReason(code))
		}
	}
	c.Doubt = d.Join{Sep: "; ", Parts: why}
}

// flagReason is why a lint code's figures cannot be read as measured,
// in a clause.
func flagReason(code string) d.Text {
	switch code {
	case decide.CodeDecodeBound:
		return d.M("a TPOT below the time one decode step needs cannot be a real per-token time")
	case decide.CodeITLBound:
		return d.M("a mean ITL below the time one decode step needs cannot be a real gap between streamed tokens")
	case decide.CodeBursts:
		return d.M("a median over tokens that arrived in bursts describes buffering on the way, not decoding")
	case decide.CodeOutlier:
		return d.M("a P99 TTFT over twenty times the median comes from a few requests that waited far longer than the rest")
	}
	return d.Code(code)
}

// loadScale reports whether profiles are one workload at rising loads
// (the same kind of load, arrivals and dataset, each at its own
// concurrency or rate), and gives each one's level and the axis's name
// and unit. Other loads are categories: a line through them would join
// unrelated workloads.
func (b *builder) loadScale(profiles []string) (xs []float64, name d.Text, unit string, ok bool) {
	if len(profiles) < 2 {
		return nil, nil, "", false
	}
	first := b.s.Profiles[profiles[0]]
	seen := map[float64]bool{}
	for _, id := range profiles {
		p := b.s.Profiles[id]
		if p.Kind != first.Kind || p.Search != nil || p.Burstiness != first.Burstiness || !reflect.DeepEqual(b.s.DatasetOf(p), b.s.DatasetOf(first)) {
			return nil, nil, "", false
		}
		x := p.Rate
		switch p.Kind {
		case "concurrency":
			x = float64(p.Concurrency)
		case "constant", "poisson":
		default:
			return nil, nil, "", false
		}
		if seen[x] {
			return nil, nil, "", false
		}
		seen[x] = true
		xs = append(xs, x)
	}
	if first.Kind == "concurrency" {
		return xs, d.M("Concurrency"), "", true
	}
	return xs, d.M("Request rate"), "req/s", true
}

// loadRows are the measured validation rows, in the order of their
// loads when they are one workload at rising loads (loadScale), with
// each one's level.
func (b *builder) loadRows() (rows []decide.ValidationRow, xs []float64, name d.Text, unit string, ok bool) {
	rows = b.measured()
	var profiles []string
	for _, row := range rows {
		profiles = append(profiles, row.Profile)
	}
	xs, name, unit, ok = b.loadScale(profiles)
	if ok {
		order := make([]int, len(rows))
		for i := range order {
			order[i] = i
		}
		sort.SliceStable(order, func(i, j int) bool { return xs[order[i]] < xs[order[j]] })
		sorted, sx := make([]decide.ValidationRow, len(rows)), make([]float64, len(rows))
		for i, k := range order {
			sorted[i], sx[i] = rows[k], xs[k]
		}
		rows, xs = sorted, sx
	}
	return rows, xs, name, unit, ok
}

// loadChart draws a metric of the baseline and the optimized
// configuration at every validation profile (pick gives the row of the
// metric): on a value axis of the load when the profiles are one
// workload at rising loads, else as grouped bars, one group per load.
func (b *builder) loadChart(id string, title d.Text, unit string, pick func(decide.ValidationRow) *decide.ValidationRow) d.Chart {
	return b.sidesChart(id, title, unit, func(row decide.ValidationRow, base bool) (float64, string) {
		r := pick(row)
		metric := b.s.Objective.Metric
		if r != nil {
			metric = r.Metric
		}
		return mean(valOf(r, base), metric), metric
	})
}

// sidesChart draws figure, each side's value at a validation row (and
// the metric whose doubts mark it), for the baseline and the optimized
// configuration at every validation profile, as loadChart lays it out.
func (b *builder) sidesChart(id string, title d.Text, unit string, figure func(row decide.ValidationRow, base bool) (float64, string)) d.Chart {
	c := d.Chart{ID: id, Kind: "bar", Unit: unit, Title: title}
	rows, xs, xname, xunit, scale := b.loadRows()
	if scale {
		c.Kind, c.XName, c.XUnit = "line", xname, xunit
	}
	base, fin := d.Series{Name: d.M("Baseline"), Reference: true}, d.Series{Name: b.optimizedName()}
	seen := flags{}
	for i, row := range rows {
		c.Categories = append(c.Categories, ProfileTitle(b.s, row.Profile))
		for _, side := range []struct {
			s    *d.Series
			role string
		}{{&base, "validate/baseline"}, {&fin, "validate/final"}} {
			v, metric := figure(row, side.role == "validate/baseline")
			side.s.Values = append(side.s.Values, v)
			seen.add(side.s, b.lintCodes(metric, b.roleKeys(side.role, row.Profile)...))
			if scale {
				side.s.X = append(side.s.X, xs[i])
			}
		}
	}
	c.Series = []d.Series{base, fin}
	seen.apply(&c)
	return c
}

// roleKeys are the keys of the trials that play role at profile.
func (b *builder) roleKeys(role, profile string) []string {
	var out []string
	loads := map[string]bool{}
	for _, t := range b.a.Plan.WithRole(role, profile) {
		out = append(out, t.Key)
		if t.Spec != nil {
			loads[t.Spec.LoadKey()] = true
		}
	}
	// The runs the decisions pool with these, so the figures agree.
	for _, p := range b.pooledOnly() {
		if p.trial.Spec != nil && loads[p.trial.Spec.LoadKey()] && !slices.Contains(out, p.key) {
			out = append(out, p.key)
		}
	}
	return out
}
