package decide

import (
	"fmt"

	"servelab.dev/execute/record"
	"servelab.dev/schema"
	"servelab.dev/schema/plan"
)

// probe is the plan's oracle for a search: whether the runs of one probe
// (every repeat) meet the SLO. A probe that failed more requests than
// the study allows does not meet it: past capacity, engines shed load.
func (d *decider) probe(keys []string) (meets, known bool) {
	var runs []*record.Record
	for _, k := range keys {
		rs := d.runs[k]
		if len(rs) == 0 {
			return false, false
		}
		runs = append(runs, rs...)
	}
	return d.meetsSLO(runs), true
}

func (d *decider) meetsSLO(runs []*record.Record) bool {
	for _, r := range runs {
		if f, _, ok := metricOf(r.Metrics, schema.Failed); ok && f > d.s.Objective.MaxFailed {
			return false
		}
	}
	for _, b := range d.s.Objective.Constraints {
		var xs []float64
		for _, r := range runs {
			v, ok := d.runValue(r, b.Metric)
			if !ok {
				return false // an SLO that cannot be checked is not met
			}
			xs = append(xs, v)
		}
		if !b.Meets(mean(xs)) {
			return false
		}
	}
	return true
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
