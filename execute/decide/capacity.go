package decide

import (
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
	// Known is false while the search still needs a probe.
	Known  bool        `json:"known"`
	Next   float64     `json:"next,omitempty"`
	Low    float64     `json:"low"`
	High   float64     `json:"high"`
	Search plan.Search `json:"search"`
}

// CapacityRow is a validation profile that is a capacity search: the
// baseline's capacity against the final's.
type CapacityRow struct {
	Baseline *CapacitySide `json:"baseline"`
	Final    *CapacitySide `json:"final"`
}

// search runs the bisection of profile prof over the probes among
// trials, as far as their records go.
func (d *decider) search(prof schema.Profile, trials []*plan.Trial) plan.Search {
	byRate := map[float64][]string{}
	for _, t := range trials {
		byRate[t.Rate] = append(byRate[t.Rate], t.Key)
	}
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
	return c
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
