package decide

import (
	"fmt"

	"servelab.dev/schema/plan"
)

// MetricViolation names the violation of the SLO where a comparison is
// on it rather than on the objective.
const MetricViolation = "slo.violation"

// closer decides a try step where neither the incumbent nor any variant
// meets the SLO: the variant closest to it is adopted when its violation
// is smaller under the objective's rule (significantly, and by more than
// minGain), so a study climbs toward its SLO step by step.
func (d *decider) closer(out *Step) plan.Decision {
	c := d.closest(out.Options, -1)
	if c < 0 || out.Incumbent.Violation == nil {
		shown := d.best(out.Options, -1)
		out.Best = out.Options[shown].Variant
		out.Comparison = d.compare(out.Options[shown], *out.Incumbent)
		out.Outcome, out.Reason = Kept, ReasonViolatesSLO
		out.Detail = "no variant meets the SLO, and the violations cannot be compared: " + out.Options[shown].Variant + " breaks " + out.Options[shown].violated()
		return plan.Decision{Winner: -1, State: plan.StepDecided}
	}
	o := out.Options[c]
	out.Best = o.Variant
	out.Comparison = d.compare(o, *out.Incumbent)
	vc := d.compareViolation(o, *out.Incumbent)
	out.SLOComparison = vc
	adopt, why := d.rule(vc)
	vc.Adopt, out.Comparison.Adopt = adopt, adopt
	if !adopt {
		out.Outcome, out.Reason = Kept, ReasonViolatesSLO
		out.Detail = fmt.Sprintf("no variant meets the SLO; the closest, %s, is not closer than the incumbent under the rule (%s): %s",
			o.Variant, d.detail(vc, why), o.violated())
		return plan.Decision{Winner: -1, State: plan.StepDecided}
	}
	out.Outcome, out.Reason, out.Adopted = Adopted, ReasonCloserToSLO, &out.Best
	out.Detail = fmt.Sprintf("no variant meets the SLO; %s is the closest and is closer than the incumbent (%s): %s",
		o.Variant, d.detail(vc, why), o.violated())
	return plan.Decision{Winner: c, State: plan.StepDecided}
}

// selectCloser adopts the candidate closest to an SLO that none meets.
// Where one of them is the incumbent's own configuration (ref), another
// displaces it only when it is closer under the rule.
func (d *decider) selectCloser(out *Step, ref int) plan.Decision {
	c := d.closest(out.Options, -1)
	if c < 0 {
		b := d.best(out.Options, -1)
		detail := "no candidate meets the SLO, and the violations cannot be compared: " + out.Options[b].Variant + " breaks " + out.Options[b].violated() + "; loosen the bounds or lower the load"
		return d.stop(out, Invalid, ReasonNoneMeetSLO, detail, plan.StepInvalid)
	}
	win, other := c, -1
	if ref >= 0 && ref != c && out.Options[ref].Violation != nil && out.Options[ref].Invalid == nil {
		other = ref
	} else {
		other = d.closest(out.Options, c)
	}
	out.Reason = ReasonCloserToSLO
	if other >= 0 {
		vc := d.compareViolation(out.Options[c], out.Options[other])
		adopt, why := d.rule(vc)
		if other == ref && !adopt {
			win, out.Reason = ref, why
		}
		vc.Adopt = win == c
		out.SLOComparison = vc
		out.Comparison = d.compare(out.Options[c], out.Options[other])
		out.Comparison.Adopt = vc.Adopt
		out.Detail = fmt.Sprintf("no candidate meets the SLO; %s is the closest (%s)", out.Options[c].Variant, d.detail(vc, why))
	} else {
		out.Detail = "no candidate meets the SLO; " + out.Options[c].Variant + " is the closest"
	}
	out.Detail += ": " + out.Options[win].Variant + " breaks " + out.Options[win].violated()
	out.Best = out.Options[win].Variant
	out.Outcome, out.Adopted = Adopted, &out.Best
	return plan.Decision{Winner: win, State: plan.StepDecided}
}

// closest is the valid option with the smallest violation of the SLO,
// skipping index skip; the first wins a tie. −1 when none has a known
// violation.
func (d *decider) closest(opts []Option, skip int) int {
	b := -1
	for i, o := range opts {
		if i == skip || o.Invalid != nil || o.Value == nil || o.Stopped != "" || o.barred() || o.Violation == nil {
			continue
		}
		if b < 0 || *o.Violation < *opts[b].Violation {
			b = i
		}
	}
	return b
}

// compareViolation sets a's violation of the SLO against b's, run by
// run: a ratio above 1 means a is closer to meeting it.
func (d *decider) compareViolation(a, b Option) *Comparison {
	side := func(o Option) Option {
		v := summarize(o.violations, false, d.level)
		v.Mean = *o.Violation
		return Option{Variant: o.Variant, Key: o.Key, Value: &v, values: o.violations}
	}
	return compareWith(MetricViolation, side(a), side(b), true, d.level)
}
