package decide

import (
	"testing"

	"servelab.dev/execute/record"
	"servelab.dev/execute/store"
	"servelab.dev/schema"
)

// withFailed analyses the committed seed records with each run's figures
// changed by f.
func withFailed(t *testing.T, f func(m *record.Metrics)) *Analysis {
	t.Helper()
	l, err := schema.NewLoader()
	if err != nil {
		t.Fatal(err)
	}
	s, err := l.LoadFile("../../studies/qwen3.5-9b-h100-latency.cue")
	if err != nil {
		t.Fatal(err)
	}
	all, err := store.Open("../../results").All()
	if err != nil {
		t.Fatal(err)
	}
	runs := Runs{}
	for k, rs := range all {
		for _, r := range rs {
			c := *r.Record
			f(&c.Metrics)
			runs[k] = append(runs[k], &c)
		}
	}
	a, err := Analyze(s, Records{Runs: runs}, Auto)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// An unknown failed count is neither a failure nor a pass: the runs
// count (the seeds' decisions stand), and each step names the runs whose
// failure limit could not be checked; their failed share is absent.
func TestUnknownFailedCounts(t *testing.T) {
	// One planned request short, so that the count stays unknown.
	a := withFailed(t, func(m *record.Metrics) { m.Failed = nil; m.Completed-- })
	want := adopted(seedAnalysis(t, "../../studies/qwen3.5-9b-h100-latency.cue"))
	if got := adopted(a); !equalMaps(got, want) {
		t.Errorf("decisions changed with unknown failed counts: %v, want %v", got, want)
	}
	for _, st := range a.Steps {
		if st.Outcome == Adopted && len(st.UnknownFailed) == 0 {
			t.Errorf("step %s: no run listed as unchecked", st.ID)
		}
		for _, o := range st.Options {
			if o.Invalid != nil {
				t.Errorf("step %s %s: invalid with unknown failures: %s", st.ID, o.Variant, o.Invalid.Message)
			}
		}
	}
	if _, _, ok := metricOf(&record.Record{Metrics: record.Metrics{Completed: 10}}, "failed"); ok {
		t.Error("an unknown failed count gave a failed share")
	}
	if v, _, ok := metricOf(&record.Record{Metrics: record.Metrics{Completed: 9, Failed: record.I(1)}}, "failed"); !ok || v != 0.1 {
		t.Errorf("failed share %v %v", v, ok)
	}
	// The same runs with as many failures as completions are invalid.
	bad := withFailed(t, func(m *record.Metrics) { m.Failed = record.I(m.Completed) })
	if st := bad.Steps[0]; st.Outcome != Invalid || len(st.UnknownFailed) != 0 {
		t.Errorf("step %s: %s with half the requests failed", st.ID, st.Outcome)
	}
}

// A source silent on failures whose run completed every request the
// profile plans failed none: the failure limit is checked, and the
// failed share is 0.
func TestFailedDerivedFromPlannedRequests(t *testing.T) {
	a := withFailed(t, func(m *record.Metrics) { m.Failed = nil })
	for _, st := range a.Steps {
		if len(st.UnknownFailed) != 0 {
			t.Errorf("step %s: runs listed as unchecked: %v", st.ID, st.UnknownFailed)
		}
	}
	r := &record.Record{Metrics: record.Metrics{Completed: 10}}
	r.Trial.Profile.Requests = 10
	if v, _, ok := metricOf(r, "failed"); !ok || v != 0 {
		t.Errorf("failed share %v %v, want 0 known", v, ok)
	}
	r.Metrics.Completed = 9
	if _, _, ok := metricOf(r, "failed"); ok {
		t.Error("a run short of its planned requests gave a failed share")
	}
}
