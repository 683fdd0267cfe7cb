package decide

import (
	"cmp"
	"maps"
	"slices"

	"servelab.dev/schema"
	"servelab.dev/schema/plan"
)

// CapacitySide is one configuration's capacity search, as an answer:
// Rate is the highest probed rate that met the SLO, nil when the search
// found none (BelowLow: even the low end broke it) or found no upper end
// (AboveHigh: the high end met it, so the capacity is at least High).
type CapacitySide struct {
	Rate      *float64   `json:"rate"`
	BelowLow  bool       `json:"belowLow"`
	AboveHigh bool       `json:"aboveHigh"`
	Bracket   [2]float64 `json:"bracket"`
	Probes    int        `json:"probes"`
	// Known is false while the search still needs a probe: Next, a new
	// rate, or (Confirm) a second run at a rate whose first run broke a
	// bound in its tail alone.
	Known   bool        `json:"known"`
	Next    float64     `json:"next,omitempty"`
	Confirm bool        `json:"confirm,omitempty"`
	Low     float64     `json:"low"`
	High    float64     `json:"high"`
	Search  plan.Search `json:"search"`
	// Sustained is the highest probed rate that met the SLO while its
	// runs kept up, completing at least KeptUp of the offered rate over
	// their arrivals, at or below the most the configuration served at a
	// fixed concurrency; nil when none did. A short probe can end before
	// its queue builds and so pass a rate the server cannot sustain:
	// Unsustained are those probes above Sustained, and why.
	Sustained   *float64      `json:"sustained"`
	Unsustained []ServedProbe `json:"unsustained,omitempty"`
	// Figures are what the search judged each probed rate on, bound by
	// bound, rates rising.
	Figures []ProbeFigure `json:"figures,omitempty"`
}

// ProbeFigure is one bound's figure at one probed rate: over every
// request of the rate's runs pooled when Requests counts them, else
// the mean of the runs' own figures (Runs, each run's).
type ProbeFigure struct {
	Rate     float64   `json:"rate"`
	Metric   string    `json:"metric"`
	Value    float64   `json:"value"`
	Requests int       `json:"requests,omitempty"`
	Runs     []float64 `json:"runs"`
}

// ServedProbe is a probe that met the SLO at Rate while its runs served
// only Served requests a second over their arrivals, or (Most > 0) at a
// rate above the Most the configuration served at any load of fixed
// concurrency, which it cannot sustain however short probes fare.
type ServedProbe struct {
	Rate   float64 `json:"rate"`
	Served float64 `json:"served"`
	Most   float64 `json:"most,omitempty"`
}

// KeptUp is the share of its offered rate a probe's runs must complete
// over their arrivals (the run's duration less its mean latency, the
// drain of its last requests) for the rate to count as sustained. A
// Poisson probe of a few dozen requests draws its arrivals some percent
// off the nominal rate, so the share stops short of 1.
const KeptUp = 0.9

// CapacityRow is a validation profile that is a capacity search: the
// baseline's capacity against the final's.
type CapacityRow struct {
	Baseline *CapacitySide `json:"baseline"`
	Final    *CapacitySide `json:"final"`
}

// search runs the bisection of profile prof over the probes among
// trials, as far as their records go.
func (d *decider) search(prof schema.Profile, trials []*plan.Trial) plan.Search {
	byRate := keysByRate(trials)
	return plan.Bisect(*prof.Search, func(rate float64) (bool, bool) {
		keys, ok := byRate[rate]
		if !ok {
			return false, false
		}
		return d.probe(keys)
	})
}

// capacitySide answers prof's search over trials.
func (d *decider) capacitySide(prof schema.Profile, trials []*plan.Trial) *CapacitySide {
	sr := d.search(prof, trials)
	c := &CapacitySide{BelowLow: sr.Below, AboveHigh: sr.Above, Bracket: sr.Bracket, Probes: len(sr.Probes),
		Known: sr.Next == 0, Next: sr.Next, Low: prof.Search.Low, High: prof.Search.High, Search: sr}
	if c.Known && !sr.Below && !sr.Above {
		r := sr.Capacity
		c.Rate = &r
	}
	for _, t := range trials {
		c.Confirm = c.Confirm || !c.Known && t.Rate == sr.Next && len(d.runs[t.Key]) > 0
	}
	// An unfinished search still bounds the capacity from below by the
	// probes it has; the page says it is unfinished.
	d.sustained(c, trials)
	c.Figures = d.probeFigures(trials)
	return c
}

// probeFigures are the figures of every rate among trials that has
// runs, rates rising.
func (d *decider) probeFigures(trials []*plan.Trial) []ProbeFigure {
	byRate := keysByRate(trials)
	rates := slices.Sorted(maps.Keys(byRate))
	var out []ProbeFigure
	for _, rate := range rates {
		runs, ok := d.probeRuns(byRate[rate])
		if !ok {
			continue
		}
		for _, b := range d.s.Objective.Constraints {
			if f, ok := d.sloFigure(runs, b); ok {
				f.Rate = rate
				out = append(out, f)
			}
		}
	}
	return out
}

// sustained sets c.Sustained and c.Unsustained from the probes that met
// the SLO, highest first.
func (d *decider) sustained(c *CapacitySide, trials []*plan.Trial) {
	probes := slices.Clone(c.Search.Probes)
	slices.SortFunc(probes, func(x, y plan.Probe) int { return cmp.Compare(y.Rate, x.Rate) })
	most := d.mostServed(trials)
	for _, p := range probes {
		if !p.Meets {
			continue
		}
		if most > 0 && p.Rate > most {
			c.Unsustained = append(c.Unsustained, ServedProbe{Rate: p.Rate, Most: most})
			continue
		}
		served, ok := d.served(p.Rate, trials)
		if ok && served >= KeptUp*p.Rate {
			r := p.Rate
			c.Sustained = &r
			return
		}
		if ok {
			c.Unsustained = append(c.Unsustained, ServedProbe{Rate: p.Rate, Served: served})
		}
	}
}

// served is the mean rate the runs probing rate completed requests at
// over their arrivals: completed ÷ (duration − mean latency), since a
// run lasts about one latency past its last arrival even without a
// queue, and in a short probe that drain weighs.
func (d *decider) served(rate float64, trials []*plan.Trial) (float64, bool) {
	var xs []float64
	for _, t := range trials {
		if t.Rate != rate {
			continue
		}
		for _, r := range d.runs[t.Key] {
			m := r.Metrics
			lat, _, ok := metricOf(r, "latency.mean")
			if span := m.Duration - lat/1000; ok && span > 0 && m.Completed > 0 {
				xs = append(xs, float64(m.Completed)/span)
			} else if v, ok := d.runValue(r, "request_throughput"); ok {
				xs = append(xs, v)
			}
		}
	}
	if len(xs) == 0 {
		return 0, false
	}
	return mean(xs), true
}

// mostServed is the highest request rate any run of the probes'
// configuration completed at a fixed concurrency (every slot busy): a
// rate of arrivals above it cannot be sustained. 0 where there is none.
func (d *decider) mostServed(trials []*plan.Trial) float64 {
	if len(trials) == 0 || trials[0].Spec == nil {
		return 0
	}
	want := serveKey(*trials[0].Spec)
	most := 0.0
	for _, rs := range d.runs {
		for _, r := range rs {
			if r.Trial.Profile.Kind != "concurrency" || serveKey(r.Trial) != want {
				continue
			}
			if v, ok := d.runValue(r, "request_throughput"); ok {
				most = max(most, v)
			}
		}
	}
	return most
}

// serveKey names a configuration as served, whatever the load on it.
func serveKey(s plan.Spec) string {
	s.Profile, s.Benchmark, s.Repeat = plan.ProfileSpec{}, plan.BenchmarkSpec{}, 0
	return s.Key()
}

// capacityRow is the validation of a search profile: each side's search.
func (d *decider) capacityRow(prof schema.Profile, base, fin []*plan.Trial) *CapacityRow {
	row := &CapacityRow{}
	if len(base) > 0 {
		row.Baseline = d.capacitySide(prof, base)
	}
	if len(fin) > 0 {
		row.Final = d.capacitySide(prof, fin)
	}
	return row
}

// keysByRate groups probe trials' keys by their rate: the runs of one
// rate are one probe.
func keysByRate(trials []*plan.Trial) map[float64][]string {
	out := map[float64][]string{}
	for _, t := range trials {
		out[t.Rate] = append(out[t.Rate], t.Key)
	}
	return out
}
