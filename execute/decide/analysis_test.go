package decide

import (
	"math"
	"testing"

	"servelab.dev/execute/record"
	"servelab.dev/execute/store"
	"servelab.dev/schema"
	"servelab.dev/schema/plan"
)

func TestDerivedLatency(t *testing.T) {
	// Seed 004, design.md: 59.01 ms + 7.28 ms × 219.61 = 1.66 s, where
	// the run's load is not a fixed concurrency.
	m := record.Metrics{Completed: 100, Duration: 166.04, OutputTokens: record.I(22061),
		TTFT: &record.Dist{Mean: record.F(59.01)}, TPOT: &record.Dist{Mean: record.F(7.28)}}
	r := &record.Record{Metrics: m}
	r.Trial.Profile = plan.ProfileSpec{Kind: "poisson", Rate: 1, Requests: 100}
	v, derived, ok := metricOf(r, "latency.mean")
	if !ok || !derived || math.Abs(v-1657.77) > 0.01 {
		t.Errorf("latency.mean = %v %v %v", v, derived, ok)
	}
	// At a fixed concurrency, Little's law from the run's duration: the
	// same run at concurrency 1 took 166.04 s for 100 requests.
	r.Trial.Profile = plan.ProfileSpec{Kind: "concurrency", Concurrency: 1, Requests: 100}
	if v, derived, ok := metricOf(r, "latency.mean"); !ok || !derived || math.Abs(v-1660.4) > 0.01 {
		t.Errorf("latency.mean at concurrency 1 = %v %v %v, want 1660.4 ms", v, derived, ok)
	}
	r.Trial.Profile.Concurrency = 4
	if v, _, _ := metricOf(r, "latency.mean"); math.Abs(v-6641.6) > 0.01 {
		t.Errorf("latency.mean at concurrency 4 = %v, want 4 × 166.04 s ÷ 100", v)
	}
	r.Metrics.Latency = &record.Dist{Mean: record.F(1700)}
	if v, derived, _ := metricOf(r, "latency.mean"); derived || v != 1700 {
		t.Errorf("reported latency not preferred: %v %v", v, derived)
	}
}

func TestVerdict(t *testing.T) {
	cases := []struct {
		a, b  []float64
		lower bool
		want  string
	}{
		{[]float64{10}, []float64{12}, true, NoNoise},
		{[]float64{10, 10.1, 9.9}, []float64{12, 12.1, 11.9}, true, Better},
		{[]float64{10, 10.1, 9.9}, []float64{12, 12.1, 11.9}, false, Worse},
		{[]float64{10, 12, 8}, []float64{10.5, 8.5, 12.5}, true, NoDifference},
	}
	for _, c := range cases {
		if got, _ := runRatio(c.a, c.b, c.lower, 0.95); got != c.want {
			t.Errorf("verdict(%v, %v) = %s, want %s", c.a, c.b, got, c.want)
		}
	}
}

func TestRatioRange(t *testing.T) {
	// Seed 000 at 1 req/s: 2.09 s → 1.65 s, each rounded to 10 ms.
	r := ratioRange(1650, 2090, 10, 10, true)
	if r == nil || r[0] > 1.26 || r[1] < 1.27 || r[0] < 1.259 || r[1] > 1.274 {
		t.Errorf("range = %v", r)
	}
	if ratioRange(1, 2, 0, 0, true) != nil {
		t.Error("range without rounding")
	}
}

func seedAnalysis(t *testing.T, file string) *Analysis {
	t.Helper()
	l, err := schema.NewLoader()
	if err != nil {
		t.Fatal(err)
	}
	s, err := l.LoadFile(file)
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
			runs[k] = append(runs[k], r.Record)
		}
	}
	a, err := Analyze(s, Records{Runs: runs}, Auto)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

func adopted(a *Analysis) map[string]string {
	out := map[string]string{}
	for _, st := range a.Steps {
		if st.Adopted != nil {
			out[st.ID] = *st.Adopted
		} else {
			out[st.ID] = "-"
		}
	}
	return out
}

// The committed records reproduce the seeds' decisions.
func TestSeedDecisions(t *testing.T) {
	a := seedAnalysis(t, "../../studies/qwen3.5-9b-h100-latency.cue")
	want := map[string]string{"engine": "vllm", "prefix-cache": "-", "max-batched-tokens": "-", "max-num-seqs": "-",
		"speculative-decoding": "mtp", "performance-mode": "interactivity", "language-model-only": "on"}
	if got := adopted(a); !equalMaps(got, want) {
		t.Errorf("000: %v", got)
	}
	wantVal := [][2]float64{{2090, 1650}, {2330, 1900}, {2620, 2320}, {4370, 3720}}
	for i, row := range a.Validation {
		if math.Abs(row.Baseline.Mean-wantVal[i][0]) > 1e-6 || math.Abs(row.Final.Mean-wantVal[i][1]) > 1e-6 {
			t.Errorf("000 %s: %v → %v", row.Profile, row.Baseline.Mean, row.Final.Mean)
		}
	}
	if !a.Complete {
		t.Errorf("000 incomplete: %v", a.Missing)
	}
	a = seedAnalysis(t, "../../studies/qwen3-8b-h100-latency.cue")
	want = map[string]string{"engine": "sglang", "cuda-graph-max-bs": "-", "quantization": "fp8",
		"attention-backend": "-", "speculative-decoding": "tengyunw-4-4-16", "torch-compile": "-"}
	if got := adopted(a); !equalMaps(got, want) {
		t.Errorf("004: %v", got)
	}
}

func equalMaps(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

// Seed 000's baseline blocks are flagged: chunk bursts, a decode (and a
// mean gap between chunks) faster than an H100 can stream the weights,
// a peak rate above the run's total. SGLang's run, whose TPOT is
// plausible, has no decode-bound flag of either kind.
func TestLintSeed000(t *testing.T) {
	a := seedAnalysis(t, "../../studies/qwen3.5-9b-h100-latency.cue")
	codes := map[string]bool{}
	for _, w := range a.Warnings {
		if w.Step == "engine" && w.Variant == "vllm" {
			codes[w.Code] = true
		}
	}
	for _, c := range []string{CodeBursts, CodeDecodeBound, CodeITLBound, CodePeakRate} {
		if !codes[c] {
			t.Errorf("engine/vllm lacks %s: %v", c, codes)
		}
	}
	for _, w := range a.Warnings {
		if w.Variant == "sglang" && (w.Code == CodeDecodeBound || w.Code == CodeITLBound) {
			t.Errorf("engine/sglang flagged %s: %s", w.Code, w.Message)
		}
	}
}

func TestMinStep(t *testing.T) {
	s := &schema.Study{Model: schema.Model{ID: "m", Params: 9e9, DType: "bf16"}, Hardware: schema.Hardware{BandwidthTBs: 3.35}}
	got := minStepMs(s, plan.Config{Knobs: schema.Knobs{}})
	if math.Abs(got-5.373) > 0.01 {
		t.Errorf("step = %v ms, want 18 GB / 3.35 TB/s = 5.37 ms", got)
	}
	spec := plan.Config{Knobs: schema.Knobs{"speculative": map[string]any{"method": "mtp", "tokens": 1}}}
	if got2 := minStepMs(s, spec); math.Abs(got2-got/2) > 1e-9 {
		t.Errorf("with one speculative token: %v", got2)
	}
}

func TestBootstrapRatio(t *testing.T) {
	mk := func(base float64, n int) [][]float64 {
		xs := make([]float64, n)
		for i := range xs {
			xs[i] = base + float64(i%10) // spread 0..9
		}
		return [][]float64{xs}
	}
	v, iv := bootstrapRatio("latency.mean", mk(100, 200), mk(110, 200), true, 0.95, "x")
	if v != Better || iv[0] <= 1 || iv[0] > 110.0/100 || iv[1] < 110.0/100 {
		t.Errorf("10 ms lower with spread 9: %s %v", v, iv)
	}
	if v, _ := bootstrapRatio("latency.mean", mk(100, 200), mk(100.1, 200), true, 0.95, "x"); v != NoDifference {
		t.Errorf("0.1 ms apart: %s", v)
	}
	if v, _ := bootstrapRatio("latency.mean", mk(100, 200), mk(110, 200), false, 0.95, "x"); v != Worse {
		t.Errorf("higher taken as better, 100 vs 110: %s", v)
	}
	if v, _ := bootstrapRatio("latency.p99", mk(100, 200), mk(110, 200), true, 0.95, "x"); v != Better {
		t.Errorf("p99 10 ms lower: %s", v)
	}
	_, i1 := bootstrapRatio("latency.mean", mk(100, 50), mk(103, 50), true, 0.95, "x")
	_, i2 := bootstrapRatio("latency.mean", mk(100, 50), mk(103, 50), true, 0.95, "x")
	if *i1 != *i2 {
		t.Error("bootstrap not deterministic")
	}
}

func TestTQuantile(t *testing.T) {
	// Student's t tables: df 1 → 12.706, 4 → 2.776, 30 → 2.042; 99 % at df 10 → 3.169.
	for _, c := range []struct{ p, df, want float64 }{{0.975, 1, 12.706}, {0.975, 4, 2.776}, {0.975, 30, 2.042}, {0.995, 10, 3.169}} {
		if got := tQuantile(c.p, c.df); math.Abs(got-c.want) > 0.001 {
			t.Errorf("t(%v, %v) = %.4f, want %.3f", c.p, c.df, got, c.want)
		}
	}
}

func TestIntervalsPositive(t *testing.T) {
	// Two TTFT runs far apart: a t interval in units would cross zero.
	v := summarize([]float64{20, 70}, false, 0.95)
	if v.Low == nil || *v.Low <= 0 || *v.High < v.Mean || *v.Low > v.Mean {
		t.Errorf("interval %v..%v around %v", v.Low, v.High, v.Mean)
	}
}
