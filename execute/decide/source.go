package decide

import (
	"fmt"

	"servelab.dev/execute/record"
	"servelab.dev/schema"
	"servelab.dev/schema/plan"
)

// Source says which class of records a decision reads. Simulated and
// real (measured or imported) figures never meet in one comparison: a
// simulated step win says nothing about a GPU.
type Source string

const (
	// Auto reads a study's real records when it has any, else its
	// simulated ones.
	Auto      Source = ""
	Real      Source = "real"
	Simulated Source = "simulated"
)

// only keeps the runs of src's class; samples follow their runs.
func (rs Records) only(src Source) Records {
	out := Records{Runs: Runs{}, Samples: rs.Samples}
	for k, runs := range rs.Runs {
		for _, r := range runs {
			if (r.Provenance.Kind == record.Simulated) == (src == Simulated) {
				out.Runs[k] = append(out.Runs[k], r)
			}
		}
	}
	return out
}

// choose resolves src for study s: the records it reads, and those of
// the other class, which are set aside.
func (rs Records) choose(s *schema.Study, src Source) (chosen, other Records) {
	real, sim := rs.only(Real), rs.only(Simulated)
	if src == Auto {
		src = Simulated
		if p, err := quickPlan(s, real.Runs); err == nil && cachedAny(p) {
			src = Real
		}
	}
	if src == Simulated {
		return sim, real
	}
	return real, sim
}

// quickPlan plans without samples: run-level decisions are enough to
// know which trials belong to the study, and skip the bootstrap.
func quickPlan(s *schema.Study, runs Runs) (*plan.Plan, error) {
	return planWith(s, runs, newDecider(s, Records{Runs: runs}))
}

func cachedAny(p *plan.Plan) bool {
	for _, t := range p.Trials {
		if t.Status == plan.Cached {
			return true
		}
	}
	return false
}

// countFor counts the records of other that belong to trials of s as
// planned from chosen.
func countFor(s *schema.Study, chosen, other Records) int {
	p, err := quickPlan(s, chosen.Runs)
	if err != nil {
		return 0
	}
	n := 0
	for _, t := range p.Trials {
		n += len(other.Runs[t.Key])
	}
	return n
}

// sources counts the records behind the analysis by provenance kind.
func (a *Analysis) sources(p *plan.Plan, runs Runs, aside int) {
	a.Provenance, a.SetAside = map[string]int{}, aside
	for _, t := range p.Trials {
		for _, r := range runs[t.Key] {
			a.Provenance[r.Provenance.Kind]++
		}
	}
}

// IsSimulated says whether the records s's decisions read from rs (with
// src) are simulated: what an export of its final configuration must
// say it was chosen from.
func IsSimulated(s *schema.Study, rs Records, src Source) bool {
	chosen, _ := rs.choose(s, src)
	return chosen.simulated()
}

func (rs Records) simulated() bool {
	for _, runs := range rs.Runs {
		for _, r := range runs {
			if r.Provenance.Kind == record.Simulated {
				return true
			}
		}
	}
	return false
}

// SimulatedInUse names the trials whose simulated runs Auto reads while s
// has no real run of its own ("step/variant/profile#repeat", in plan
// order, with "(N runs)" where there are several) and counts the runs.
// Both are empty once s has a real run, or when it has no simulated one.
// The first real run of s sets all of these aside (choose): the caller
// adding one says so.
func SimulatedInUse(s *schema.Study, rs Records) (trials []string, runs int, err error) {
	real, sim := rs.only(Real), rs.only(Simulated)
	if p, err := quickPlan(s, real.Runs); err == nil && cachedAny(p) {
		return nil, 0, nil
	}
	p, err := quickPlan(s, sim.Runs)
	if err != nil {
		return nil, 0, err
	}
	for _, t := range p.Trials {
		n := len(sim.Runs[t.Key])
		if n == 0 {
			continue
		}
		name := fmt.Sprintf("%s/%s/%s#%d", t.Step, t.Variant, t.Profile, t.Repeat)
		if n > 1 {
			name += fmt.Sprintf(" (%d runs)", n)
		}
		trials, runs = append(trials, name), runs+n
	}
	return trials, runs, nil
}
