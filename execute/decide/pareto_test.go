package decide

import (
	"testing"

	"servelab.dev/execute/record"
	"servelab.dev/schema/plan"
)

// twoLoads runs one step at two unrelated loads: random prompts at
// concurrency 8 and shared prefixes at concurrency 8.
const twoLoads = `import "servelab.dev/schema"
"loads": schema.#Study & {
	title: en: "Loads"
	i18n: fallback: "en"
	model: {id: "m/m", params: 1e9, dtype: "bf16"}
	hardware: {gpu: "NVIDIA H200", count: 2}
	engines: vllm: version: "0.11.0"
	benchmark: {client: name: "builtin", dataset: {name: "random", inputLen: 8, outputLen: 16}, warmup: 0}
	profiles: {
		c8: {kind: "concurrency", concurrency: 8, requests: 10}
		prefix: {kind: "concurrency", concurrency: 8, requests: 10, dataset: {name: "prefix-repetition", prefixLen: 64, suffixLen: 8, prefixes: 2, outputLen: 16}}
	}
	objective: {metric: "output_throughput", profile: "c8"}
	baseline: engine: "vllm"
	steps: [{id: "seqs", title: en: "S", profiles: ["c8", "prefix"], variants: [{name: "8", knobs: maxSeqs: 8}]}]
	validate: profiles: ["c8"]
}
`

// The Pareto view compares points of one load only: at c8 neither
// option beats the other on both throughput per GPU and per user, so
// both are on the frontier although the prefix load's baseline beats
// them both; at the prefix load the variant is dominated. Throughput is
// per GPU and tok/s per user is output tokens per request ÷ mean latency
// (100 tokens a request here).
func TestParetoPerLoad(t *testing.T) {
	figures := map[string][2]float64{ // variant@profile: output tok/s, mean latency ms
		"baseline@c8": {200, 1000}, "8@c8": {400, 2000},
		"baseline@prefix": {800, 500}, "8@prefix": {100, 5000},
	}
	runs := Runs{}
	a := untilDone(t, studyFrom(t, twoLoads), Records{Runs: runs}, func(tr *plan.Trial) {
		f, ok := figures[tr.Variant+"@"+tr.Profile]
		if !ok {
			f = figures["baseline@"+tr.Profile]
		}
		runs[tr.Key] = []*record.Record{{Provenance: record.Provenance{Kind: record.Measured},
			Metrics: record.Metrics{Completed: 10, Failed: record.I(0), Duration: 1, OutputThroughput: record.F(f[0]),
				OutputTokens: record.I(1000), Latency: &record.Dist{Mean: record.F(f[1]), P99: record.F(1000)}}}}
	})
	var st *Step
	for i := range a.Steps {
		if a.Steps[i].ID == "seqs" {
			st = &a.Steps[i]
		}
	}
	if st == nil || len(st.Pareto) != 4 {
		t.Fatalf("want 4 Pareto points, got %+v", st)
	}
	for _, p := range st.Pareto {
		f := figures[p.Variant+"@"+p.Profile]
		if p.Variant != "8" {
			f = figures["baseline@"+p.Profile]
		}
		want := p.Variant == "8" && p.Profile == "prefix"
		if p.Dominated != want || p.Throughput != f[0]/2 || p.PerUser != 100/(f[1]/1000) || p.Key == "" {
			t.Errorf("%+v: want dominated %v, %v tok/s/GPU, %v tok/s/user", p, want, f[0]/2, 100/(f[1]/1000))
		}
	}
}
