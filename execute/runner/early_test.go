package runner

import (
	"context"
	"fmt"
	"testing"
	"time"

	"servelab.dev/execute/decide"
	"servelab.dev/execute/record"
	"servelab.dev/execute/store"
	"servelab.dev/schema"
)

// earlyStudies have known winners on servelab-sim, on mean latency at 4
// requests in flight: fewer slots than requests queue them (a loser),
// more slots, up to 4, serve them at once (a winner). The effects are
// large (2× and more) so that a loaded machine cannot hide them.
var earlyStudies = []struct {
	base     int
	variants string
	winner   string
}{
	{4, `[{name: "2", knobs: maxSeqs: 2}, {name: "1", knobs: maxSeqs: 1}]`, ""},
	{2, `[{name: "4", knobs: maxSeqs: 4}, {name: "1", knobs: maxSeqs: 1}]`, "4"},
	{2, `[{name: "8", knobs: maxSeqs: 8}, {name: "1", knobs: maxSeqs: 1}]`, "8"},
}

func earlyStudy(base int, variants string, earlyStop bool) string {
	return fmt.Sprintf(`import "servelab.dev/schema"
"early": schema.#Study & {
	title: en: "Early"
	i18n: fallback: "en"
	model: {id: "m/m", params: 1e9, dtype: "bf16", variants: fp8: {id: "m/m-FP8", dtype: "fp8"}}
	hardware: gpu: "NVIDIA H200"
	engines: vllm: version: "0.11.0"
	base: knobs: maxSeqs: %d
	benchmark: {client: name: "builtin", dataset: {name: "random", inputLen: 8, outputLen: 12}, api: "completions", warmup: 2, output: ignoreEos: true}
	profiles: c4: {kind: "concurrency", concurrency: 4, requests: 90}
	objective: {metric: "latency.mean", profile: "c4", earlyStop: %t}
	baseline: engine: "vllm"
	steps: [{id: "s", title: en: "S", variants: %s}]
}
`, base, earlyStop, variants)
}

// replayed is what the early-stopping rule would have done to the
// finished runs of the three studies.
type replayed struct {
	requests, saved int
	changed         []string
	// missed says which study's known winner the full runs did not
	// adopt: the machine was too loaded to measure the model.
	missed string
}

// replayEarlyStops runs the studies to the end (early stopping off), then
// replays each variant's requests, in completion order, through the rule
// against the incumbent's.
func replayEarlyStops(t testing.TB) replayed {
	var out replayed
	for _, es := range earlyStudies {
		s := study(t, earlyStudy(es.base, es.variants, false))
		runs, samples, a := runSimulated(t, s)
		st := a.Steps[0]
		adopted := ""
		if st.Adopted != nil {
			adopted = *st.Adopted
		}
		if adopted != es.winner {
			out.missed = fmt.Sprintf("study with base %d: %q adopted (%s), the model says %q", es.base, adopted, st.Detail, es.winner)
			return out
		}
		s.Objective.EarlyStop = true // the rule the replay asks about
		rule := decide.NewEarlyStop(s, [][]float64{values(runs[st.Incumbent.Key], samples)})
		for _, o := range st.Options {
			v := values(runs[o.Key], samples)
			out.requests += len(v)
			if stop := rule.Replay(v); stop != nil {
				out.saved += len(v) - stop.After
				if o.Variant == adopted {
					out.changed = append(out.changed, fmt.Sprintf("%s would have stopped: %s", o.Variant, stop.Reason))
				}
			}
		}
	}
	return out
}

func values(rs []*record.Record, samples map[*record.Record][]record.Sample) []float64 {
	return decide.CompletionOrder("latency.mean", samples[rs[0]])
}

// The rule stops the losers early, never the winners, and saves at least
// 30 % of the variants' benchmark requests.
func TestEarlyStopReplay(t *testing.T) {
	r := replayEarlyStops(t)
	if r.missed != "" {
		t.Logf("attempt missed: %s; trying again", r.missed)
		if r = replayEarlyStops(t); r.missed != "" {
			t.Fatal(r.missed)
		}
	}
	if len(r.changed) > 0 {
		t.Errorf("early stopping would change decisions: %v", r.changed)
	}
	if share := float64(r.saved) / float64(r.requests); share < 0.3 {
		t.Errorf("saved %d of %d requests (%.0f %%), want at least 30 %%", r.saved, r.requests, 100*share)
	}
}

// BenchmarkEarlyStopReplay prints the share of benchmark requests the
// rule saves on the three studies (make bench).
func BenchmarkEarlyStopReplay(b *testing.B) {
	for range b.N {
		r := replayEarlyStops(b)
		if r.missed != "" {
			b.Fatal(r.missed)
		}
		b.ReportMetric(100*float64(r.saved)/float64(r.requests), "saved-%")
		b.ReportMetric(float64(len(r.changed)), "changed-decisions")
	}
}

// At run time the rule stops the loser part-way, never the winner: the
// loser's record says so and holds only the requests the rule saw, and
// the step still adopts the winner.
func TestEarlyStopAtRunTime(t *testing.T) {
	es := earlyStudies[1] // base 2 slots: 4 wins, 1 loses
	for attempt := range 2 {
		s := study(t, earlyStudy(es.base, es.variants, true))
		runs, _, a := runSimulated(t, s)
		st := a.Steps[0]
		var msgs []string
		for _, o := range st.Options {
			r := runs[o.Key][0]
			switch {
			case o.Variant == "1" && (r.EarlyStop == nil || r.Metrics.Completed >= 90):
				msgs = append(msgs, fmt.Sprintf("loser not stopped early (%d requests completed)", r.Metrics.Completed))
			case o.Variant == "4" && r.EarlyStop != nil:
				msgs = append(msgs, "winner stopped: "+r.EarlyStop.Reason)
			}
		}
		if st.Adopted == nil || *st.Adopted != es.winner {
			msgs = append(msgs, fmt.Sprintf("step %s (%s), want %s adopted", st.Outcome, st.Detail, es.winner))
		}
		if len(msgs) == 0 {
			return
		}
		if attempt == 1 {
			t.Fatal(msgs)
		}
		t.Logf("attempt missed: %v; trying again", msgs)
	}
}

// runSimulated runs s on servelab-sim from an empty results folder and
// decides it from the records it wrote.
func runSimulated(t testing.TB, s *schema.Study) (map[string][]*record.Record, map[*record.Record][]record.Sample, *decide.Analysis) {
	t.Helper()
	dir := t.TempDir()
	if _, err := Run(context.Background(), s, Options{Results: dir, Simulate: true, SimPath: simBin, HealthTimeout: 10 * time.Second}); err != nil {
		t.Fatal(err)
	}
	runs, samples, err := store.Open(dir).OKWithSamples()
	if err != nil {
		t.Fatal(err)
	}
	a, err := decide.Analyze(s, decide.Records{Runs: runs, Samples: samples}, decide.Simulated)
	if err != nil {
		t.Fatal(err)
	}
	return runs, samples, a
}
