package decide

import (
	"slices"

	"servelab.dev/schema"
	"servelab.dev/schema/plan"
)

// SmallGain is a gain that run-to-run noise alone commonly gives.
const SmallGain = 0.03

// NoiseSteps are the steps whose adoption rests on a single run's gain
// under SmallGain: the study's rule kept them, but one run cannot tell
// such a gain from run-to-run variation.
func (a *Analysis) NoiseSteps() []Step {
	var out []Step
	for _, st := range a.Steps {
		c := st.Comparison
		if st.Adopted != nil && st.Reason == ReasonSingleRun && c != nil && c.Gain < SmallGain {
			out = append(out, st)
		}
	}
	return out
}

// Recommended is the configuration a study recommends; nil while the
// study is undecided. It is the final configuration less the settings
// adopted on noise-level gains (NoiseSteps) where a step measured the
// command without them (MeasuredLean): a setting one run cannot tell
// from noise is offered beside the command, not put inside it; else
// the final configuration, which the validation measured at every load.
func (a *Analysis) Recommended(s *schema.Study) *plan.Config {
	if a.Final == nil || a.Plan == nil {
		return nil
	}
	if c, _, ok := MeasuredLean(s, a); ok {
		return &c
	}
	return a.Plan.Final
}

// MeasuredLean is Lean where every noise step came after the last step
// it keeps, so that the option that step adopted ran exactly the lean
// configuration: a recommendation is always a command some run made.
func MeasuredLean(s *schema.Study, a *Analysis) (c plan.Config, last string, ok bool) {
	c, last, ok = Lean(s, a)
	if !ok {
		return plan.Config{}, "", false
	}
	noise := a.NoiseSteps()
	for _, st := range a.Steps {
		if st.ID == last {
			return c, last, true
		}
		if slices.ContainsFunc(noise, func(n Step) bool { return n.ID == st.ID }) {
			return plan.Config{}, "", false
		}
	}
	return plan.Config{}, "", false
}

// Lean is the final configuration less the noise steps' adoptions, and
// the last step it keeps. ok is false where there are no noise steps, or
// where rebuilding the steps' adoptions with none left out does not give
// the final command: a page then never recommends a command the study's
// decisions do not reach.
func Lean(s *schema.Study, a *Analysis) (c plan.Config, last string, ok bool) {
	skip := map[string]bool{}
	for _, st := range a.NoiseSteps() {
		skip[st.ID] = true
	}
	if len(skip) == 0 || a.Final == nil {
		return plan.Config{}, "", false
	}
	full, _, ok := adoptedConfig(s, a, nil)
	if !ok {
		return plan.Config{}, "", false
	}
	if l, err := plan.Command(s, full); err != nil || !slices.Equal(l.Argv, a.Final.Argv) {
		return plan.Config{}, "", false
	}
	return adoptedConfig(s, a, skip)
}

// adoptedConfig is the baseline with every step's adoption applied in order,
// but those of the steps in skip, and the last step applied.
func adoptedConfig(s *schema.Study, a *Analysis, skip map[string]bool) (plan.Config, string, bool) {
	c, last := plan.BaseConfig(s, s.Baseline.Engine), ""
	for _, st := range a.Steps {
		i := slices.IndexFunc(s.Steps, func(x schema.Step) bool { return x.ID == st.ID })
		if i < 0 || st.Adopted == nil || skip[st.ID] {
			continue
		}
		ss := s.Steps[i]
		if ss.Select != nil && slices.Contains(ss.Select.Engines, *st.Adopted) {
			c = plan.BaseConfig(s, *st.Adopted)
		} else {
			v, ok := ss.VariantNamed(*st.Adopted)
			if !ok {
				return plan.Config{}, "", false
			}
			c = c.Apply(v)
		}
		last = st.ID
	}
	return c, last, true
}
