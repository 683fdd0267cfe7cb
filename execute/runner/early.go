package runner

import (
	"strings"

	"servelab.dev/execute/decide"
	"servelab.dev/execute/load"
	"servelab.dev/execute/record"
	"servelab.dev/schema/plan"
)

// earlyWatch is the watcher that stops a try step's variant once the
// study's early-stopping rule says it cannot beat the incumbent, and a
// function that says whether (and why) it stopped. Both are nil when the
// study does not ask for early stopping, the trial is not a variant on
// the objective's profile, or the incumbent has no per-request samples
// yet (it must have run first).
func (r *runner) earlyWatch(t *plan.Trial) (func(record.Sample) bool, func() *decide.Stop) {
	o := r.s.Objective
	if !o.EarlyStop || t.Profile != o.Profile || t.Variant == "incumbent" || t.Step == "baseline" || t.Step == "validate" {
		return nil, nil
	}
	rs, err := r.runs()
	if err != nil {
		return nil, nil
	}
	a, err := decide.Analyze(r.s, rs, r.source())
	if err != nil {
		return nil, nil
	}
	var inc [][]float64
	for _, st := range a.Steps {
		if st.ID != t.Step || st.Kind != "try" || st.Incumbent == nil {
			continue
		}
		for _, run := range rs.Runs[st.Incumbent.Key] {
			if v := decide.CompletionOrder(o.Metric, rs.Samples[run]); len(v) > 0 {
				inc = append(inc, v)
			}
		}
	}
	rule := decide.NewEarlyStop(r.s, inc)
	if rule == nil {
		return nil, nil
	}
	fam, _, _ := strings.Cut(o.Metric, ".")
	planned := t.Spec.Profile.Requests
	var values []float64
	var stop *decide.Stop
	watch := func(s record.Sample) bool {
		// Called one request at a time (the client serialises watchers).
		v, ok := decide.RequestValue(fam, s)
		if !ok {
			return false
		}
		values = append(values, v)
		stop = rule.Check(values, planned)
		return stop != nil
	}
	return watch, func() *decide.Stop { return stop }
}

// keepSeen drops the requests an early stop left unsent or cut short:
// they were never measured.
func keepSeen(samples []record.Sample) []record.Sample {
	out := samples[:0:0]
	for _, s := range samples {
		if s.Error != load.StoppedEarly {
			out = append(out, s)
		}
	}
	return out
}
