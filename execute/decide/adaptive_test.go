package decide

import (
	"fmt"
	"hash/fnv"
	"math"
	"math/rand/v2"
	"testing"

	"servelab.dev/execute/record"
	"servelab.dev/schema/plan"
)

// mixedStudy has clear and close comparisons on mean latency at 8
// concurrent requests: maxSeqs 16 is 40 % faster than 8 (clear), FP8
// KV cache 25 % slower (clear), 32 slots 7 % faster than 16 (close),
// the prefix cache 1 % faster (close, below minGain 3 %), chunked
// prefill 25 % faster (clear). %s is the repeats.
const mixedStudy = `import "servelab.dev/schema"
"mixed": schema.#Study & {
	title: en: "Mixed"
	i18n: fallback: "en"
	model: {id: "m/m", params: 8e9, dtype: "bf16"}
	hardware: gpu: "NVIDIA H200"
	engines: vllm: version: "0.11.0"
	base: knobs: maxSeqs: 8
	benchmark: {client: name: "builtin", dataset: {name: "random", inputLen: 8, outputLen: 64}, warmup: 0, repeats: %s}
	profiles: c8: {kind: "concurrency", concurrency: 8, requests: 80}
	objective: {metric: "latency.mean", profile: "c8"}
	baseline: engine: "vllm"
	estimate: {launch: 120, latency: 1}
	steps: [
		{id: "seqs", title: en: "S", variants: [{name: "16", knobs: maxSeqs: 16}]},
		{id: "kv", title: en: "K", variants: [{name: "fp8", knobs: kvCacheDtype: "fp8"}]},
		{id: "more-seqs", title: en: "M", variants: [{name: "32", knobs: maxSeqs: 32}]},
		{id: "prefix", title: en: "P", variants: [{name: "on", knobs: prefixCaching: true}]},
		{id: "chunked", title: en: "C", variants: [{name: "8k", knobs: maxBatchedTokens: 8192}]},
	]
}
`

// mixedTruth is the true mean latency (ms) of a configuration, from its
// command line.
func mixedTruth(t *plan.Trial) float64 {
	ms := 1000.0
	for _, a := range t.Argv {
		switch a {
		case "--max-num-seqs=16":
			ms *= 0.6
		case "--max-num-seqs=32":
			ms *= 0.6 * 0.93
		case "--kv-cache-dtype=fp8":
			ms *= 1.25
		case "--enable-prefix-caching":
			ms *= 0.99
		case "--max-num-batched-tokens=8192":
			ms *= 0.75
		}
	}
	return ms
}

// decided is a study run to its end on synthetic records: what it
// adopted, the runs each step took a side, and the GPU time spent.
type decided struct {
	adopted map[string]string
	runs    map[string]int
	gpu     float64
}

// runSynthetic runs the plan until nothing is runnable, recording each
// runnable trial as a run whose mean latency is the truth times a
// launch's lognormal spread (4 %), with 80 requests around it (30 %
// apart); every draw is seeded by the trial's key. GPU time is each
// run's estimated length plus one launch per configuration and repeat.
func runSynthetic(t testing.TB, repeats string, truth func(*plan.Trial) float64) decided {
	t.Helper()
	s := studyFrom(t, fmt.Sprintf(mixedStudy, repeats))
	rs := Records{Runs: Runs{}, Samples: Samples{}}
	out := decided{adopted: map[string]string{}, runs: map[string]int{}}
	launches := map[string]bool{}
	a := untilDone(t, s, rs, func(tr *plan.Trial) {
		r, samples := syntheticRun(tr, truth(tr))
		rs.Runs[tr.Key], rs.Samples[r] = []*record.Record{r}, samples
		out.gpu += tr.Seconds
		if !launches[plan.LaunchKey(tr)] {
			launches[plan.LaunchKey(tr)] = true
			out.gpu += s.Estimate.Launch
		}
	})
	for _, st := range a.Steps {
		out.adopted[st.ID] = "kept"
		if st.Adopted != nil {
			out.adopted[st.ID] = *st.Adopted
		}
		for _, o := range st.Options {
			out.runs[st.ID] = max(out.runs[st.ID], o.Recorded)
		}
	}
	return out
}

func syntheticRun(tr *plan.Trial, truth float64) (*record.Record, []record.Sample) {
	h := fnv.New64a()
	h.Write([]byte(tr.Key))
	rng := rand.New(rand.NewPCG(h.Sum64(), 1))
	run := truth * math.Exp(0.04*rng.NormFloat64())
	samples := make([]record.Sample, 80)
	sum := 0.0
	for i := range samples {
		v := run * math.Exp(0.3*rng.NormFloat64()-0.045)
		samples[i] = record.Sample{Latency: v, TTFT: v / 10, OutputTokens: 64}
		sum += v
	}
	m := sum / float64(len(samples))
	r := &record.Record{Key: tr.Key, Trial: *tr.Spec, Provenance: record.Provenance{Kind: record.Measured},
		Metrics: record.Metrics{Completed: len(samples), Failed: record.I(0), Duration: m / 1000 * 10,
			Latency: &record.Dist{Mean: record.F(m)}}}
	return r, samples
}

// Adaptive repeats reach the decisions of the fixed maximum, spending
// runs on the close call only: with three clear calls, one small effect
// below minGain and one close call (which runs to max on both sides and
// stays undecided either way), they take 58 % of its GPU time (make
// bench-decide prints the figures). The bound below catches a rule that
// stops spending less.
func TestAdaptiveRepeats(t *testing.T) {
	fixed := runSynthetic(t, "6", mixedTruth)
	adaptive := runSynthetic(t, "{min: 2, max: 6}", mixedTruth)
	for step, want := range fixed.adopted {
		if got := adaptive.adopted[step]; got != want {
			t.Errorf("step %s: adaptive adopted %s, the fixed maximum %s", step, got, want)
		}
	}
	for _, clear := range []string{"seqs", "kv", "chunked"} {
		if adaptive.runs[clear] != 2 {
			t.Errorf("clear call %s took %d runs a side, want 2", clear, adaptive.runs[clear])
		}
	}
	if adaptive.runs["more-seqs"] <= 2 {
		t.Errorf("the close call took %d runs a side, want more than the clear ones", adaptive.runs["more-seqs"])
	}
	t.Logf("GPU time: fixed 6 runs %.0f s, adaptive 2-6 %.0f s (%.0f %%); runs a side %v; adopted %v", fixed.gpu, adaptive.gpu, 100*adaptive.gpu/fixed.gpu, adaptive.runs, adaptive.adopted)
	if adaptive.gpu > 0.6*fixed.gpu {
		t.Errorf("adaptive repeats took %.0f s of GPU time, more than 60 %% of the fixed maximum's %.0f s", adaptive.gpu, fixed.gpu)
	}
}
