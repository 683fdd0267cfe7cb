package runner

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"servelab.dev/execute/decide"
	"servelab.dev/execute/record"
	"servelab.dev/execute/sim"
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
	synctest.Test(t, testEarlyStopReplay)
}

func testEarlyStopReplay(t *testing.T) {
	r := replayEarlyStops(t)
	if r.missed != "" {
		t.Fatal(r.missed)
	}
	if len(r.changed) > 0 {
		t.Errorf("early stopping would change decisions: %v", r.changed)
	}
	if share := float64(r.saved) / float64(r.requests); share < 0.3 {
		t.Errorf("saved %d of %d requests (%.0f %%), want at least 30 %%", r.saved, r.requests, 100*share)
	}
}

// BenchmarkEarlyStopReplay prints the share of benchmark requests the
// rule saves on the three studies (make bench), on the wall clock.
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
	synctest.Test(t, func(t *testing.T) {
		es := earlyStudies[1] // base 2 slots: 4 wins, 1 loses
		s := study(t, earlyStudy(es.base, es.variants, true))
		runs, _, a := runSimulated(t, s)
		st := a.Steps[0]
		for _, o := range st.Options {
			r := runs[o.Key][0]
			switch {
			case o.Variant == "1" && (r.EarlyStop == nil || r.Metrics.Completed >= 90):
				t.Errorf("loser not stopped early (%d requests completed)", r.Metrics.Completed)
			case o.Variant == "4" && r.EarlyStop != nil:
				t.Errorf("winner stopped: %s", r.EarlyStop.Reason)
			}
		}
		if st.Adopted == nil || *st.Adopted != es.winner {
			t.Errorf("step %s (%s), want %s adopted", st.Outcome, st.Detail, es.winner)
		}
	})
}

// runSimulated runs s on the in-process simulator from an empty results
// folder and decides it from the records it wrote. Inside a synctest
// bubble (a test) the clock is virtual and the timings are the model's
// exactly; in a benchmark they are the wall clock's.
func runSimulated(t testing.TB, s *schema.Study) (map[string][]*record.Record, map[*record.Record][]record.Sample, *decide.Analysis) {
	t.Helper()
	dir := t.TempDir()
	o := inProcess(dir)
	if _, ok := t.(*testing.B); ok {
		o.Launcher = sim.Launcher{Clock: sim.Wall}
	}
	if _, err := Run(context.Background(), s, o); err != nil {
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

// Adaptive repeats decide the example study as a fixed 5 runs a side
// does, with fewer runs: the clear call stops at 2, the close one gets
// more. On the virtual clock the runs are the model's, so the figures
// are the same on any host.
func TestAdaptiveRepeatsDecideAsFixed(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		src, err := os.ReadFile("../../studies/examples/adaptive-repeats.cue")
		if err != nil {
			t.Fatal(err)
		}
		adaptive := runsAndFinal(t, string(src))
		fixed := runsAndFinal(t, strings.Replace(string(src), "repeats: {min: 2, max: 5}", "repeats: 5", 1))
		if adaptive.final != fixed.final || adaptive.final != "vllm serve Qwen/Qwen3-8B --max-num-seqs=16" {
			t.Errorf("adaptive final %q, fixed final %q", adaptive.final, fixed.final)
		}
		if adaptive.runs >= fixed.runs || adaptive.bench >= fixed.bench {
			t.Errorf("adaptive %d runs in %v against fixed %d in %v", adaptive.runs, adaptive.bench, fixed.runs, fixed.bench)
		}
		t.Logf("adaptive %d runs, %v of benchmark; fixed %d, %v", adaptive.runs, adaptive.bench, fixed.runs, fixed.bench)
	})
}

type outcome struct {
	final string
	runs  int
	bench time.Duration
}

func runsAndFinal(t *testing.T, src string) outcome {
	s := study(t, src)
	dir := t.TempDir()
	sum, err := Run(context.Background(), s, inProcess(dir))
	if err != nil || !sum.Decided {
		t.Fatalf("decided %v: %v", sum.Decided, err)
	}
	runs, samples, err := store.Open(dir).OKWithSamples()
	if err != nil {
		t.Fatal(err)
	}
	a, err := decide.Analyze(s, decide.Records{Runs: runs, Samples: samples}, decide.Simulated)
	if err != nil {
		t.Fatal(err)
	}
	return outcome{final: strings.Join(a.Final.Argv, " "), runs: sum.Run, bench: sum.Bench}
}
