package decide

import (
	"maps"
	"slices"

	"servelab.dev/execute/record"
	"servelab.dev/schema"
	"servelab.dev/schema/plan"
)

// SLOAnswer is whether the final configuration meets the study's SLO at
// the objective's profile: the answer a study with constraints is read
// for, stated before anything else.
type SLOAnswer struct {
	Met     bool           `json:"met"`
	Profile string         `json:"profile"`
	Bounds  []schema.Bound `json:"bounds"`
	// Final and Baseline are each bound's metric over every valid run of
	// that configuration at the profile, wherever the study ran it (nil
	// where the runs do not report it); Runs counts the final's runs.
	Final    map[string]*float64 `json:"final"`
	Baseline map[string]*float64 `json:"baseline,omitempty"`
	Runs     int                 `json:"runs"`
	// Violation is the final's largest value/bound ratio (≤ 1 meets).
	Violation *float64 `json:"violation,omitempty"`
	// Capacity is the final's capacity search, when the objective is one:
	// the SLO is then met when its low end meets it.
	Capacity *CapacitySide `json:"capacity,omitempty"`
	// Elsewhere are the bounds the final's runs break at the other
	// validation loads: the SLO is judged at one load, and a reader
	// serving another wants to know.
	Elsewhere []SLOBreach `json:"elsewhere,omitempty"`
}

// SLOBreach is one bound that some of the final's runs at a validation
// load break: how many of how many, and the worst value.
type SLOBreach struct {
	Profile string  `json:"profile"`
	Metric  string  `json:"metric"`
	Broke   int     `json:"broke"`
	Runs    int     `json:"runs"`
	Worst   float64 `json:"worst"`
}

// elsewhere lists, profile by profile, the bounds the final's runs
// break at the validation loads other than the SLO's.
func (d *decider) elsewhere(p *plan.Plan, rows []ValidationRow, sloProfile string) []SLOBreach {
	var out []SLOBreach
	fin := finalTrial(d.s, p)
	for _, row := range rows {
		if row.Capacity != nil || row.Profile == sloProfile {
			continue
		}
		runs := d.validPooled(d.launchTrials(p, fin, row.Profile))
		for _, b := range d.s.Objective.Constraints {
			br := SLOBreach{Profile: row.Profile, Metric: b.Metric, Runs: len(runs)}
			for _, r := range runs {
				v, ok := d.runValue(r, b.Metric)
				if ok && !b.Meets(v) {
					if br.Broke == 0 || Lower(b.Metric) == (v > br.Worst) {
						br.Worst = v
					}
					br.Broke++
				}
			}
			if br.Broke > 0 {
				out = append(out, br)
			}
		}
	}
	return out
}

// sloAnswer answers the SLO for the final configuration; nil without
// constraints.
func (a *Analysis) sloAnswer(s *schema.Study, p *plan.Plan, d *decider) {
	bounds := s.Objective.Constraints
	if len(bounds) == 0 {
		return
	}
	ans := &SLOAnswer{Profile: s.Objective.Profile, Bounds: bounds, Final: map[string]*float64{}}
	a.SLO = ans
	fin := d.launchTrials(p, finalTrial(s, p), ans.Profile)
	if s.Objective.Metric == schema.Capacity {
		if len(fin) > 0 {
			ans.Capacity = d.capacitySide(s.Profiles[ans.Profile], fin)
			ans.Met = ans.Capacity.Known && !ans.Capacity.BelowLow
		}
		return
	}
	runs := d.validPooled(fin)
	ans.Runs = len(runs)
	ans.Final = d.boundValues(runs)
	if base := d.launchTrials(p, baselineTrial(p), ans.Profile); len(base) > 0 {
		ans.Baseline = d.boundValues(d.validPooled(base))
	}
	if len(runs) == 0 {
		return
	}
	o := Option{}
	d.checkSLO(&o, runs, make([]string, len(runs)))
	ans.Met, ans.Violation = o.feasible(), o.Violation
	ans.Elsewhere = d.elsewhere(p, a.Validation, ans.Profile)
}

func (d *decider) boundValues(runs []*record.Record) map[string]*float64 {
	out := map[string]*float64{}
	for _, b := range d.s.Objective.Constraints {
		var xs []float64
		for _, r := range runs {
			if v, ok := d.runValue(r, b.Metric); ok {
				xs = append(xs, v)
			}
		}
		out[b.Metric] = nil
		if len(xs) == len(runs) && len(xs) > 0 {
			v := mean(xs)
			out[b.Metric] = &v
		}
	}
	return out
}

// finalTrial is a trial that launches the final configuration, or nil.
func finalTrial(s *schema.Study, p *plan.Plan) *plan.Trial {
	if p.Final == nil {
		return nil
	}
	l, err := plan.Command(s, *p.Final)
	if err != nil {
		return nil
	}
	e := s.Engines[p.Final.Engine]
	want := &plan.Trial{Kind: e.Kind, Version: e.Version, Argv: l.Argv, Env: l.Env}
	for _, t := range p.Trials {
		if t.Key != "" && t.Kind == want.Kind && t.Version == want.Version &&
			slices.Equal(t.Argv, want.Argv) && maps.Equal(t.Env, want.Env) {
			return t
		}
	}
	return nil
}

// baselineTrial is a trial that launches the baseline, or nil.
func baselineTrial(p *plan.Plan) *plan.Trial {
	for _, t := range p.Trials {
		if t.Key != "" && (t.HasRole("baseline/baseline") || t.HasRole("validate/baseline")) {
			return t
		}
	}
	return nil
}

// launchTrials are the trials at profile that launch ref's command (the
// same engine, version, model, argv and environment), whatever role the
// study planned them in: one configuration at one load is one figure.
func (d *decider) launchTrials(p *plan.Plan, ref *plan.Trial, profile string) []*plan.Trial {
	if ref == nil {
		return nil
	}
	var out []*plan.Trial
	seen := map[string]bool{}
	for _, t := range p.Trials {
		if t.Key == "" || t.Profile != profile || seen[t.Key] || !sameLaunch(t, ref) {
			continue
		}
		seen[t.Key] = true
		out = append(out, t)
	}
	return out
}

func sameLaunch(a, b *plan.Trial) bool {
	return a.Kind == b.Kind && a.Version == b.Version && a.Model == b.Model &&
		slices.Equal(a.Argv, b.Argv) && maps.Equal(a.Env, b.Env)
}

// validPooled are the runs of the configuration at the load of ts (the
// trials of one launch at one profile), pooled as every option's figure
// is: failed runs are left out, as in every decision.
func (d *decider) validPooled(ts []*plan.Trial) []*record.Record {
	if len(ts) == 0 {
		return nil
	}
	var out []*record.Record
	for _, pr := range d.pooled(ts[0]) {
		if iv := d.validity(pr.rec, pr.as(ts[0]), ts[0].Variant); iv == nil || iv.Reason != ReasonFailed {
			out = append(out, pr.rec)
		}
	}
	return out
}
