package decide

import (
	"testing"

	"servelab.dev/execute/record"
	"servelab.dev/schema"
	"servelab.dev/schema/plan"
)

// The quality guard bars a faster variant whose outputs change more than
// the step allows: the next best is adopted if it wins on its own, else
// the incumbent stays; a missing guard makes the step invalid.
func TestGuardBarsAdoption(t *testing.T) {
	s := &schema.Study{Objective: schema.Objective{Metric: "output_throughput", Goal: "max", MinGain: 0.03, Confidence: 0.95}}
	d := &decider{s: s, level: 0.95}
	opt := func(name string, mean float64, g *Guard) Option {
		xs := []float64{mean * 0.99, mean, mean * 1.01}
		v := summarize(xs, false, 0.95)
		return Option{Variant: name, Value: &v, values: xs, Guard: g}
	}
	low := &Guard{Known: true, Same: 8, Prompts: 16, Tokens: 32, Share: 0.5, Min: 0.9, Below: true}
	ok := &Guard{Known: true, Same: 16, Prompts: 16, Tokens: 32, Share: 1, Min: 0.9}
	unknown := &Guard{Min: 0.9, Below: true}
	cases := []struct {
		opts            []Option
		outcome, reason string
		best            string
	}{
		{[]Option{opt("q4", 200, low), opt("q8", 150, ok)}, Adopted, ReasonBetter, "q8"},
		{[]Option{opt("q4", 200, low)}, Kept, ReasonBelowQuality, "q4"},
		{[]Option{opt("q4", 200, low), opt("q8", 90, ok)}, Kept, ReasonNotBetter, "q8"},
		{[]Option{opt("q4", 200, unknown)}, Invalid, ReasonNoGuard, "q4"},
		{[]Option{opt("q4", 200, &Guard{Known: true, Same: 15, Prompts: 16, Share: 15.0 / 16, Min: 0.9})}, Adopted, ReasonBetter, "q4"},
	}
	for i, c := range cases {
		inc := opt("inc", 100, nil)
		out := &Step{Incumbent: &inc, Options: c.opts}
		d.try(out)
		if out.Outcome != c.outcome || out.Reason != c.reason || out.Best != c.best {
			t.Errorf("case %d: %s (%s) best %s, want %s (%s) best %s; %s", i, out.Outcome, out.Reason, out.Best, c.outcome, c.reason, c.best, out.Detail)
		}
		if c.reason == ReasonBelowQuality && (out.Comparison == nil || out.Comparison.Ratio < 1.9) {
			t.Errorf("case %d: the barred variant's gain is not shown: %+v", i, out.Comparison)
		}
	}
}

// guards reads each side's greedy outputs from the records of its
// trials, on any profile, and counts identical answers.
func TestGuardsFromRecords(t *testing.T) {
	q := func(outs ...string) *record.Quality {
		return &record.Quality{Prompts: len(outs), Tokens: 4, Outputs: outs}
	}
	d := &decider{runs: Runs{
		"inc-c1": {{Quality: q("a", "b", "c", "d")}},
		"v1-c8":  {{}, {Quality: q("a", "b", "x", "d")}},
		"v2-c8":  {{Quality: &record.Quality{Prompts: 4, Tokens: 4, Error: "HTTP 500"}}},
	}}
	inc := plan.Candidate{Variant: "inc", Trials: []*plan.Trial{{Key: "inc-c8"}, {Key: "inc-c1"}}}
	cands := []plan.Candidate{
		{Variant: "v1", Trials: []*plan.Trial{{Key: "v1-c8"}}},
		{Variant: "v2", Trials: []*plan.Trial{{Key: "v2-c8"}}},
	}
	out := &Step{Options: []Option{{Variant: "v1"}, {Variant: "v2"}}}
	d.guards(0.8, inc, cands, out)
	g1, g2 := out.Options[0].Guard, out.Options[1].Guard
	if !g1.Known || g1.Same != 3 || g1.Prompts != 4 || g1.Share != 0.75 || !g1.Below {
		t.Errorf("v1 guard = %+v, want 3 of 4, below 0.8", g1)
	}
	if g2.Known || !g2.Below {
		t.Errorf("v2 guard = %+v, want unknown and barred", g2)
	}
	d.guards(0, inc, cands, out)
	if out.Options[1].Guard.Below {
		t.Error("an unknown guard barred a variant without a minimum")
	}
}
