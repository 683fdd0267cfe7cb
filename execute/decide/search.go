package decide

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"servelab.dev/execute/record"
	"servelab.dev/schema"
	"servelab.dev/schema/plan"
)

// probe is the plan's oracle for a search: whether the runs of one probe
// meet the SLO, every run of its configuration at its rate pooled (one
// figure per configuration and load: a run an earlier plan asked for
// counts too). A probe that failed more requests than the study allows
// does not meet it: past capacity, engines shed load.
func (d *decider) probe(keys []string) (meets, known bool) {
	runs, ok := d.probeRuns(keys)
	if !ok {
		return false, false
	}
	return d.meetsSLO(runs), true
}

// probeRuns pools the runs of a probe's trials, each key's once; ok is
// false while a trial has no run of its own.
func (d *decider) probeRuns(keys []string) ([]*record.Record, bool) {
	var runs []*record.Record
	seen := map[*record.Record]bool{}
	for _, k := range keys {
		rs := d.pooledRecords(k)
		if len(rs) == 0 {
			return nil, false
		}
		for _, r := range rs {
			if !seen[r] {
				seen[r] = true
				runs = append(runs, r)
			}
		}
	}
	return runs, true
}

// meetsSLO judges each bound on its figure over the runs (sloFigure).
func (d *decider) meetsSLO(runs []*record.Record) bool {
	for _, r := range runs {
		if f, _, ok := metricOf(r, schema.Failed); ok && f > d.s.Objective.MaxFailed {
			return false
		}
	}
	for _, b := range d.s.Objective.Constraints {
		f, ok := d.sloFigure(runs, b)
		if !ok || !b.Meets(f.Value) {
			return false // an SLO that cannot be checked is not met
		}
	}
	return true
}

// sloFigure is bound b's figure over a probe's runs. Where every run
// has its requests, it is the percentile of all of them pooled: one
// P90 of every request sent at the rate, not a mean of per-run P90s,
// which is the P90 of nothing. Otherwise it is the mean of the runs'
// figures, where a run that breaks the bound by an outlier alone (see
// stalled) counts only when every run does: another run that kept to
// the bound overrules one stall.
func (d *decider) sloFigure(runs []*record.Record, b schema.Bound) (ProbeFigure, bool) {
	f := ProbeFigure{Metric: b.Metric}
	var steady []float64
	for _, r := range runs {
		v, ok := d.runValue(r, b.Metric)
		if !ok {
			return f, false
		}
		f.Runs = append(f.Runs, v)
		if !stalled(r, b) {
			steady = append(steady, v)
		}
	}
	if len(f.Runs) == 0 {
		return f, false
	}
	if per, ok := requestValues(b.Metric, runs, d.samples); ok {
		_, stat, _ := strings.Cut(b.Metric, ".")
		fn, _ := statistic(stat)
		all := slices.Concat(per...)
		f.Value, f.Requests = fn(all), len(all)
		return f, true
	}
	if len(steady) == 0 {
		steady = f.Runs
	}
	f.Value = mean(steady)
	return f, true
}

// confirm is the plan's question for a probe that broke the SLO: whether
// every run broke a bound by an outlier alone, so that one more run
// should confirm the failure before the search moves below the rate.
func (d *decider) confirm(keys []string) bool {
	runs, _ := d.probeRuns(keys)
	for _, b := range d.s.Objective.Constraints {
		all := len(runs) > 0
		for _, r := range runs {
			all = all && stalled(r, b)
		}
		if all {
			return true
		}
	}
	return false
}

// StallFactor is how far above a run's median its bounded percentile
// must be, with the median itself within the bound, for the run to have
// broken the bound by an outlier (one stall) rather than by its load.
const StallFactor = 4

// StallRequests is the most requests a stall holds up: a bound on a
// percentile that more requests must exceed to break is broken by load.
const StallRequests = 2

// stalled reports whether run r breaks upper bound b on a latency
// percentile only in its tail: the family's median meets the bound, the
// percentile is more than StallFactor times the median, and breaking it
// takes no more than StallRequests requests above it. A P90 of 236
// requests is broken only by 24 of them: that is a queue, not a stall.
func stalled(r *record.Record, b schema.Bound) bool {
	lim, upper := b.Limit()
	fam, stat, _ := strings.Cut(b.Metric, ".")
	if !upper || !strings.HasPrefix(stat, "p") || stat == "p50" {
		return false
	}
	p, err := strconv.ParseFloat(stat[1:], 64)
	if err != nil || (100-p)*float64(r.Metrics.Completed)/100 > StallRequests+1e-9 {
		return false
	}
	v, _, ok1 := metricOf(r, b.Metric)
	med, _, ok2 := metricOf(r, fam+".median")
	return ok1 && ok2 && v > lim && med <= lim && med > 0 && v > StallFactor*med
}

// capacityOption is an option whose objective is the capacity its
// search found: the search's probes are its trials, and it waits while
// the search needs another probe.
func (d *decider) capacityOption(variant string, trials []*plan.Trial) Option {
	o := Option{Variant: variant}
	var probes []*plan.Trial
	for _, t := range trials {
		if t.Profile != d.s.Objective.Profile {
			continue
		}
		if o.Key == "" {
			o.Key = t.Key
		}
		probes = append(probes, t)
		o.Planned++
		if len(d.runs[t.Key]) > 0 {
			o.Recorded++
		}
	}
	sr := d.search(d.s.Profiles[d.s.Objective.Profile], probes)
	o.Search = &sr
	if sr.Next > 0 || o.Planned == 0 {
		o.missing = append(o.missing, fmt.Sprintf("%s: the search needs a probe at %.4g req/s", variant, sr.Next))
		if o.Recorded == o.Planned {
			o.Planned++ // the next probe is not planned until the last is known
		}
		return o
	}
	v := summarize([]float64{sr.Capacity}, false, d.s.Objective.Confidence)
	o.Value, o.values = &v, []float64{sr.Capacity}
	return o
}
