package importer

import (
	"strings"
	"testing"

	"servelab.dev/schema/plan"
)

func spec(kind string, rate float64, conc, requests int) plan.Spec {
	return plan.Spec{Model: plan.ModelSpec{ID: "Qwen/Qwen3-8B"}, Engine: plan.EngineSpec{Kind: "vllm"},
		Profile:   plan.ProfileSpec{Kind: kind, Rate: rate, Concurrency: conc, Requests: requests},
		Benchmark: plan.BenchmarkSpec{Client: "vllm-bench", Dataset: plan.DatasetSpec{Name: "sharegpt"}}}
}

// A sweep log's blocks are chosen by index, by load, or by the trial's
// profile; an ambiguous or empty choice is refused with the entries.
func TestPick(t *testing.T) {
	rs, err := parseFile(t, "vllm-text", "vllm-sweep.log")
	if err != nil || len(rs) != 3 {
		t.Fatalf("%d entries, %v", len(rs), err)
	}
	c8 := spec("concurrency", 0, 8, 200)
	cases := []struct {
		sel  string
		sp   plan.Spec
		want int
		err  string
	}{
		{"", c8, 1, ""},
		{"", spec("poisson", 4, 0, 200), 2, ""},
		{"", spec("concurrency", 0, 16, 200), 0, "none matches the trial's profile"},
		{"3", c8, 2, ""},
		{"4", c8, 0, "out of range: the file holds 3 entries"},
		{"rate=inf", c8, 0, "ambiguous: 2 entries match"},
		{"rate=inf,concurrency=4", c8, 0, ""},
		{"concurrency=8", c8, 1, ""},
		{"rate=4", c8, 2, ""},
		{"rate=2", c8, 0, "matches none"},
		{"speed=2", c8, 0, "want an index"},
	}
	for _, c := range cases {
		got, err := Pick(rs, c.sel, "vllm-text", c.sp)
		switch {
		case c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)):
			t.Errorf("--entry %q: err %v, want %q", c.sel, err, c.err)
		case c.err == "" && (err != nil || got != c.want):
			t.Errorf("--entry %q: entry %d, %v; want %d", c.sel, got, err, c.want)
		}
	}
	if err := func() error { _, err := Pick(rs, "", "vllm-text", spec("concurrency", 0, 16, 200)); return err }(); err == nil ||
		!strings.Contains(err.Error(), "2: rate inf, concurrency 8, 199 completed") {
		t.Errorf("the refusal lists the entries: %v", err)
	}
	if got := EntryName(rs, 1); got != "entry 2 of 3 (rate inf, concurrency 8, 199 completed)" {
		t.Errorf("entry name %q", got)
	}
}

// What the source says about its load and dataset is checked.
func TestCheckLoad(t *testing.T) {
	rs, _ := parseFile(t, "vllm-text", "vllm-sweep.log")
	sg, _ := parseFile(t, "sglang-jsonl", "sglang-sweep.jsonl")
	sgSpec := func(kind string, rate float64, conc int) plan.Spec {
		s := spec(kind, rate, conc, 200)
		s.Engine.Kind, s.Benchmark.Client, s.Benchmark.Dataset = "sglang", "sglang-bench", plan.DatasetSpec{Name: "random", InputLen: 1024, OutputLen: 256}
		return s
	}
	cases := []struct {
		r      Result
		format string
		sp     plan.Spec
		want   string
	}{
		{rs[0], "vllm-text", spec("poisson", 4, 0, 200), "rate: the file sent every request at once (rate inf), the trial's profile at 4 req/s"},
		{rs[2], "vllm-text", spec("poisson", 8, 0, 200), "rate: the file ran at 4 req/s, the trial's profile at 8"},
		{rs[0], "vllm-text", spec("poisson", 4, 0, 200), "concurrency: the file ran with a cap of 4, the trial's profile has no cap"},
		{rs[2], "vllm-text", spec("concurrency", 0, 4, 200), "concurrency: the file ran without a cap"},
		{rs[1], "vllm-text", spec("concurrency", 0, 8, 100), "requests: the file has 200 (199 completed, 1 failed)"},
		{sg[0], "sglang-jsonl", sgSpec("poisson", 2, 0), ""},
		{sg[2], "sglang-jsonl", sgSpec("concurrency", 0, 32), ""},
		{sg[2], "sglang-jsonl", func() plan.Spec { s := sgSpec("concurrency", 0, 32); s.Benchmark.Dataset.Name = "sharegpt"; return s }(), "dataset: the file ran random, the study's dataset is sharegpt"},
		{sg[2], "sglang-jsonl", func() plan.Spec { s := sgSpec("concurrency", 0, 32); s.Benchmark.Dataset.InputLen = 2048; return s }(), "random prompts are 1024 tokens, the study's 2048"},
		{sg[2], "sglang-jsonl", sgSpec("concurrency", 0, 32), ""},
		{sg[1], "sglang-jsonl", func() plan.Spec { s := sgSpec("poisson", 4, 0); s.Profile.Requests = 150; return s }(), "requests: the file completed 200, more than the 150"},
	}
	for i, c := range cases {
		bad := strings.Join(Check(&c.r, c.format, c.sp), "; ")
		if c.want == "" && bad != "" || !strings.Contains(bad, c.want) {
			t.Errorf("case %d: %q, want %q", i, bad, c.want)
		}
	}
}
