package text

import (
	"bytes"
	"strings"
	"testing"

	"servelab.dev/execute/decide"
	"servelab.dev/execute/store"
	"servelab.dev/schema"
)

// The seed study 000 decided from its committed records: the lines
// analyze prints for it (the testscript analyze_seeds holds the whole
// text; here the parts each writer owns).
func TestSeedAnalysis(t *testing.T) {
	l, err := schema.NewLoader()
	if err != nil {
		t.Fatal(err)
	}
	s, err := l.LoadFile("../../studies/qwen3.5-9b-h100-latency.cue")
	if err != nil {
		t.Fatal(err)
	}
	runs, samples, err := store.Open("../../results").OKWithSamples()
	if err != nil {
		t.Fatal(err)
	}
	a, err := decide.Analyze(s, decide.Records{Runs: runs, Samples: samples}, decide.Auto)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	Analysis(&b, a)
	got := b.String()
	for _, want := range []string{
		"study qwen3.5-9b-h100-latency: minimise latency.mean on rate-8\n",
		"figures: 16 imported runs\n",
		"\nstep engine (select): decided, adopted vllm (single-run)\n  vllm    2.62 s\n  sglang  8.13 s\n",
		"  on vs vllm: 2.69 s vs 2.62 s, 1.03x worse; TTFT 46.19 vs 41.12 ms; TPOT 1.38 vs 1.34 ms; no noise estimate\n",
		"\nfinal (vllm ",
		"\nvalidation, baseline → final:\n  PROFILE",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("analysis lacks %q:\n%s", want, got)
		}
	}
	var again bytes.Buffer
	Analysis(&again, a)
	if again.String() != got {
		t.Error("two writes of one analysis differ")
	}
}

// Failed runs show the first line of their reason; invalid files their
// whole reason; each list is headed with its count.
func TestExcluded(t *testing.T) {
	a := &decide.Analysis{Excluded: []decide.Excluded{
		{Run: "engine/vllm/c4/0", Path: "results/ab/1.json", Reason: "engine exited\nlog tail"},
		{Run: "engine/sglang/c4/0", Path: "results/cd/2.json", Invalid: true, Reason: "results/cd/2.json: metrics missing"},
	}}
	var b bytes.Buffer
	writeUnused(&b, a)
	want := "\nfailed runs, not used in decisions (1):\n  engine/vllm/c4/0  results/ab/1.json: engine exited\n" +
		"\ninvalid records, left out of decisions and left in place (1):\n  engine/sglang/c4/0  results/cd/2.json: metrics missing\n"
	if b.String() != want {
		t.Errorf("got\n%q\nwant\n%q", b.String(), want)
	}
	b.Reset()
	writeUnused(&b, &decide.Analysis{})
	if b.Len() != 0 {
		t.Errorf("nothing excluded, yet %q", b.String())
	}
}

func TestValues(t *testing.T) {
	low, high := 2100.0, 2300.0
	for _, c := range []struct {
		metric string
		v      *decide.Value
		want   string
	}{
		{"latency.mean", &decide.Value{Mean: 2200, Low: &low, High: &high, Runs: 3}, "2.20 s [2.10, 2.30] (3 runs)"},
		{"ttft.median", &decide.Value{Mean: 41.123}, "41.12 ms"},
		{"output_throughput", &decide.Value{Mean: 525.589, Derived: true}, "525.59 tok/s (derived)"},
		{"latency.mean", nil, "no record"},
	} {
		if got := fmtVal(c.metric, c.v); got != c.want {
			t.Errorf("%s %+v: got %q, want %q", c.metric, c.v, got, c.want)
		}
	}
	// A worse ratio reads as its inverse, as the seeds write it.
	if got := comparisonText("latency.mean", &decide.Comparison{A: "on", B: "off", ValueA: 2690, ValueB: 2620, Ratio: 2620.0 / 2690, Verdict: "no noise estimate"}); got != "on vs off: 2.69 s vs 2.62 s, 1.03x worse; no noise estimate" {
		t.Errorf("comparison: %q", got)
	}
}

// Each option's guard against the incumbent, flagged below the step's
// minimum; steps without a guard print nothing.
func TestQualityGuard(t *testing.T) {
	a := &decide.Analysis{Steps: []decide.Step{
		{ID: "batch", Options: []decide.Option{{Variant: "64"}}},
		{ID: "spec", Options: []decide.Option{
			{Variant: "same", Guard: &decide.Guard{Same: 2, Prompts: 2, Tokens: 32, Share: 1, Min: 0.9, Known: true}},
			{Variant: "half", Guard: &decide.Guard{Same: 1, Prompts: 2, Tokens: 32, Share: 0.5, Min: 0.9, Known: true, Below: true}},
			{Variant: "none", Guard: &decide.Guard{Min: 0.9, Below: true}}}}}}
	var b bytes.Buffer
	writeQuality(&b, a)
	want := "\nquality guard, step spec (greedy outputs identical to the incumbent's):\n" +
		"  same: 2 of 2 prompts (100 %) over 32 tokens\n" +
		"  half: 1 of 2 prompts (50 %) over 32 tokens, below the step's minimum of 90 %\n" +
		"  none: no guard outputs to compare\n"
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
}

// An unfinished search states the rate it has so far and the run it
// still needs, a confirming run where a probe broke the SLO in its tail.
func TestCapacityUnfinished(t *testing.T) {
	r := 7.375
	for _, c := range []struct {
		side decide.CapacitySide
		want string
	}{
		{decide.CapacitySide{Next: 7.875, Confirm: true, Sustained: &r}, "not known yet: at least 7.375 req/s so far (the search needs a second run at 7.875 req/s"},
		{decide.CapacitySide{Next: 10.5, Sustained: &r}, "not known yet: at least 7.375 req/s so far (the search needs a probe at 10.5 req/s)"},
		{decide.CapacitySide{Next: 2}, "not known yet: no probe has met the SLO so far (the search needs a probe at 2 req/s)"},
	} {
		if got := capacityText(&c.side); !strings.HasPrefix(got, c.want) {
			t.Errorf("capacityText = %q, want it to begin %q", got, c.want)
		}
	}
}
