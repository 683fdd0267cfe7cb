package sim_test

import (
	"context"
	"math"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"servelab.dev/execute/engine"
	"servelab.dev/execute/load"
	"servelab.dev/execute/sim"
)

// fixed is a timing model of 6 ms steps and no other cost.
const fixed = "step=6ms,per-seq=0s,prefill=0s"

// launch starts argv in-process on the bubble's virtual clock and
// returns the target the client reaches it by.
func launch(t *testing.T, timing string, argv ...string) load.Target {
	t.Helper()
	in, err := sim.Launcher{Clock: sim.Timer, Timing: timing}.Launch(context.Background(), engine.Spec{Argv: argv}, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(in.Stop)
	return load.Target{URL: in.Endpoint(), Model: argv[2], API: "chat", Dial: in.(engine.Dialer).DialContext}
}

func prompts(n, in, out int) load.List {
	ps := make(load.List, n)
	for i := range ps {
		ps[i] = load.Prompt{Text: strings.Repeat("w ", in), MaxTokens: out}
	}
	return ps
}

func tpot(t *testing.T, timing string, argv ...string) float64 {
	s, err := load.RunPrompts(context.Background(), launch(t, timing, argv...),
		load.Load{Kind: "concurrency", Concurrency: 1, Requests: 6}, prompts(2, 10, 60))
	if err != nil {
		t.Fatal(err)
	}
	return *load.Summarize(s).TPOT.Mean
}

func exactly(t *testing.T, name string, got, want float64) {
	t.Helper()
	if math.Abs(got-want) > 1e-6 {
		t.Errorf("%s = %.6f ms, want %.6f", name, got, want)
	}
}

// On the virtual clock the client measures the timing model exactly: one
// request at a time sees its first token after one 6 ms step and every
// later one a step apart.
func TestTimingMatchesModel(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		samples, err := load.RunPrompts(context.Background(), launch(t, fixed, "vllm", "serve", "m/m"),
			load.Load{Kind: "concurrency", Concurrency: 1, Requests: 12, Warmup: 2}, prompts(4, 50, 30))
		if err != nil {
			t.Fatal(err)
		}
		m := load.Summarize(samples)
		if m.Completed != 12 || m.Warmup != 2 || *m.OutputTokens != 12*30 {
			t.Fatalf("%d completed, %d warm-up, %d tokens: %v", m.Completed, m.Warmup, *m.OutputTokens, m.FailReasons)
		}
		exactly(t, "mean TPOT", *m.TPOT.Mean, 6)
		exactly(t, "median ITL", *m.ITL.Median, 6)
		exactly(t, "median TTFT", *m.TTFT.Median, 6)
	})
}

// Speculative decoding and FP8 change the timing the way the model says:
// more tokens per step, shorter steps.
func TestFlagEffects(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		base := tpot(t, fixed, "vllm", "serve", "m/m")
		spec := tpot(t, fixed, "vllm", "serve", "m/m", `--speculative-config={"method":"mtp","num_speculative_tokens":2}`)
		fp8 := tpot(t, fixed, "vllm", "serve", "m/m-FP8")
		exactly(t, "base TPOT", base, 6)
		// MTP with 2 drafted tokens: a step of 6.9 ms emits 1 + floor(2·0.6)
		// = 2 tokens, after the first step's one: the other 59 of 60
		// tokens take 30 steps.
		exactly(t, "speculative TPOT", spec, 30*6.9/59)
		exactly(t, "FP8 TPOT", fp8, 6*0.7)
	})
}
