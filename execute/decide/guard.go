package decide

import (
	"fmt"
	"math"

	"servelab.dev/execute/record"
	"servelab.dev/schema/plan"
)

// Guard is an option's quality guard in an output-changing step: how
// many of the guard's prompts it answers, greedily, exactly as the
// incumbent does over their first Tokens tokens. A speed gain bought by
// changing outputs (quantisation, KV-cache type, speculative decoding)
// is only adopted while Share stays at or above the step's Min.
type Guard struct {
	Same    int     `json:"same"`
	Prompts int     `json:"prompts"`
	Tokens  int     `json:"tokens"`
	Share   float64 `json:"share"`
	Min     float64 `json:"min,omitempty"`
	// Known is false when either side's launches hold no guard outputs
	// (or were made with another guard size): the share is not measured.
	Known bool `json:"known"`
	// Below bars the option from adoption: its share is under Min, or
	// Min is set and the share is not known.
	Below bool `json:"below,omitempty"`
}

// ReasonBelowQuality keeps the incumbent when every variant that would
// win changes the outputs more than the step's quality minimum allows.
// ReasonNoGuard makes such a step invalid when the guard's outputs are
// missing, so the minimum cannot be checked.
const (
	ReasonBelowQuality = "below-quality-min"
	ReasonNoGuard      = "quality-unknown"
)

// guards measures each option of an output-changing step against the
// incumbent's guard outputs.
// Options and candidates are in the same order.
func (d *decider) guards(min float64, inc plan.Candidate, cands []plan.Candidate, out *Step) {
	ref := d.guardOutputs(inc.Trials)
	for i, c := range cands {
		g := &Guard{Min: min}
		if v := d.guardOutputs(c.Trials); ref != nil && v != nil {
			if share, ok := record.Agreement(ref, v); ok {
				g.Known, g.Share, g.Prompts, g.Tokens = true, share, len(ref.Outputs), ref.Tokens
				g.Same = int(math.Round(share * float64(g.Prompts)))
			}
		}
		g.Below = min > 0 && (!g.Known || g.Share < min)
		out.Options[i].Guard = g
	}
}

// guardOutputs is the first guard output set among the records of a
// configuration's trials (every launch decodes the same prompts).
func (d *decider) guardOutputs(ts []*plan.Trial) *record.Quality {
	for _, t := range ts {
		for _, r := range d.runs[t.Key] {
			if r.Quality != nil && len(r.Quality.Outputs) > 0 {
				return r.Quality
			}
		}
	}
	return nil
}

// barred reports whether the quality guard keeps the option from being
// adopted.
func (o Option) barred() bool { return o.Guard != nil && o.Guard.Below }

// bestBarred is the best valid option the quality guard bars, or −1:
// what the change of outputs would have bought.
func (d *decider) bestBarred(opts []Option) int {
	lower := d.s.Objective.Goal == "min"
	b := -1
	for i, o := range opts {
		if o.barred() && o.Invalid == nil && o.Value != nil && o.Stopped == "" &&
			(b < 0 || better(o.Value.Mean, opts[b].Value.Mean, lower)) {
			b = i
		}
	}
	return b
}

// guardDetail says in one English line why the guard bars an option.
func (g *Guard) detail(variant string) string {
	if !g.Known {
		return fmt.Sprintf("%s: no quality-guard outputs to compare with the incumbent's, so the step's minimum of %.0f %% cannot be checked; run its launches again", variant, g.Min*100)
	}
	return fmt.Sprintf("%s: %d of %d greedy outputs (%.0f %%) identical to the incumbent's over %d tokens, below the step's minimum of %.0f %%", variant, g.Same, g.Prompts, g.Share*100, g.Tokens, g.Min*100)
}

// keepBelowGuard keeps the incumbent when the quality guard bars every
// variant that could win; the fastest of them (g) is still compared, so
// the report shows what the outputs' change would have bought.
func (d *decider) keepBelowGuard(out *Step, g int) plan.Decision {
	o := out.Options[g]
	out.Best, out.Comparison = o.Variant, d.compare(o, *out.Incumbent)
	if !o.Guard.Known {
		return d.stop(out, Invalid, ReasonNoGuard, o.Guard.detail(o.Variant), plan.StepInvalid)
	}
	out.Outcome, out.Reason, out.Detail = Kept, ReasonBelowQuality, o.Guard.detail(o.Variant)
	return plan.Decision{Winner: -1, State: plan.StepDecided}
}
