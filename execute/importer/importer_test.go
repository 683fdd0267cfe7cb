package importer

import (
	"math"
	"os"
	"strings"
	"testing"

	"servelab.dev/execute/record"
)

func parseFile(t *testing.T, format, file string) ([]Result, error) {
	t.Helper()
	return Parse(format, readTestdata(t, file))
}

func readTestdata(t *testing.T, file string) []byte {
	t.Helper()
	data, err := os.ReadFile("testdata/" + file)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func stat(d *record.Dist, s string) float64 {
	v, ok := d.Stat(s)
	if !ok {
		return -1
	}
	return v
}

func TestParse(t *testing.T) {
	cases := []struct {
		format, file string
		entry        int
		check        func(r Result) []any // pairs of got, want
	}{
		{"vllm-text", "vllm-new.txt", 0, func(r Result) []any {
			m := r.Metrics
			return []any{m.Completed, 198, *m.Failed, 2, *m.MaxConcurrency, 16, r.Rate, 4.0, m.Duration, 51.37,
				*m.TotalThroughput, 1332.78, stat(m.TTFT, "p95"), 61.40, stat(m.Latency, "mean"), 1562.44, stat(m.ITL, "p99"), 21.06}
		}},
		{"vllm-text", "vllm-old.txt", 0, func(r Result) []any {
			m := r.Metrics
			return []any{m.Completed, 10, m.Failed == nil, true, *m.TotalThroughput, 619.85, m.PeakOutputThroughput == nil, true, m.Latency == nil, true}
		}},
		{"vllm-text", "seed000-latency-section.txt", 0, func(r Result) []any {
			m := r.Metrics
			return []any{stat(m.Latency, "mean"), 2620.0, stat(m.Latency, "p95"), 6810.0, stat(m.ITL, "median"), 0.0, *m.PeakConcurrency, 31.0}
		}},
		{"vllm-text", "seed001-table-pasted.txt", 0, func(r Result) []any {
			return []any{stat(r.Metrics.Latency, "mean"), 8130.0, *r.Metrics.OutputTokens, 281412}
		}},
		{"vllm-text", "seed004-no-latency.txt", 0, func(r Result) []any {
			return []any{r.Metrics.Latency == nil, true, *r.Metrics.MaxConcurrency, 4, stat(r.Metrics.TPOT, "p99"), 7.96}
		}},
		{"vllm-text", "sglang-printed.txt", 0, func(r Result) []any {
			m := r.Metrics
			return []any{*m.MaxConcurrency, 8, stat(m.Latency, "p90"), 6121.09, stat(m.ITL, "p95"), 16.61, *m.PeakConcurrency, 9.0}
		}},
		{"vllm-json", "vllm-result.json", 0, func(r Result) []any {
			m := r.Metrics
			return []any{r.Model, "Qwen/Qwen3-8B", math.IsInf(r.Rate, 1), true, *m.MaxConcurrency, 4, stat(m.TTFT, "std"), 9.1, m.Latency == nil, true}
		}},
		{"vllm-json", "vllm-append.jsonl", 1, func(r Result) []any {
			m := r.Metrics
			return []any{*m.Failed, 1, *m.MaxConcurrency, 8, stat(m.Latency, "p99"), 2300.0}
		}},
		{"sglang-jsonl", "sglang.jsonl", 0, func(r Result) []any {
			m := r.Metrics
			return []any{r.Engine, "sglang", r.Model, "Qwen/Qwen3-8B", math.IsInf(r.Rate, 1), true, stat(m.Latency, "p90"), 6121.09, *m.TotalThroughput, 1129.64}
		}},
		{"sglang-jsonl", "sglang.jsonl", 1, func(r Result) []any {
			m := r.Metrics
			return []any{r.Rate, 16.0, stat(m.TTFT, "median"), 120.5, m.TTFT.Mean == nil, true, m.MaxConcurrency == nil, true}
		}},
		{"guidellm", "guidellm-v0.3.json", 0, func(r Result) []any {
			m := r.Metrics
			return []any{r.Model, "Qwen/Qwen3.5-9B", r.Kind, "constant", r.Rate, 8.0, m.Duration, 130.18 - 0.0,
				stat(m.Latency, "mean"), 2620.0, stat(m.TPOT, "mean"), 9.1, m.ITL == nil, true}
		}},
		{"guidellm", "guidellm-v0.4.json", 0, func(r Result) []any {
			return []any{r.Model, "Qwen/Qwen3-8B", r.Kind, "concurrency", stat(r.Metrics.Latency, "mean"), 1700.0}
		}},
		{"guidellm", "guidellm-v0.5.json", 0, func(r Result) []any {
			m := r.Metrics
			return []any{r.Kind, "concurrency", *m.MaxConcurrency, 4, m.Completed, 100, stat(m.TTFT, "p99"), 98.59, stat(m.TPOT, "p90"), 7.7,
				*m.OutputThroughput, 22061 / 44.4}
		}},
		{"guidellm", "guidellm-v0.7.json", 1, func(r Result) []any {
			m := r.Metrics
			return []any{r.Model, "Qwen/Qwen3-8B", r.Kind, "poisson", r.Rate, 4.0, m.Duration, 25.0, stat(m.Latency, "p99"), 2400.0}
		}},
	}
	for _, c := range cases {
		rs, err := parseFile(t, c.format, c.file)
		if err != nil {
			t.Errorf("%s: %v", c.file, err)
			continue
		}
		if c.entry >= len(rs) {
			t.Errorf("%s: %d entries", c.file, len(rs))
			continue
		}
		pairs := c.check(rs[c.entry])
		for i := 0; i < len(pairs); i += 2 {
			if !equal(pairs[i], pairs[i+1]) {
				t.Errorf("%s entry %d, check %d: got %v, want %v", c.file, c.entry, i/2, pairs[i], pairs[i+1])
			}
		}
	}
}

func equal(a, b any) bool {
	if x, ok := a.(float64); ok {
		y, _ := b.(float64)
		d := x - y
		return d < 1e-6 && d > -1e-6
	}
	return a == b
}

func TestParseErrors(t *testing.T) {
	cases := []struct{ format, file, want string }{
		{"vllm-text", "vllm-missing-section.txt", `missing section "Time per Output Token (excl. 1st token)" (no Mean TPOT line)`},
		{"vllm-text", "vllm-truncated.txt", "has no closing ===== line (truncated?)"},
		{"vllm-text", "vllm-result.json", `no "Serving Benchmark Result" block`},
		{"vllm-json", "vllm-truncated.json", "truncated JSON"},
		{"vllm-json", "sglang.jsonl", "entry 2 of 2: missing TPOT statistics"},
		{"guidellm", "vllm-result.json", `no "benchmarks" list`},
		{"sglang-jsonl", "guidellm-v0.3.json", `no "completed"`},
		{"nope", "vllm-new.txt", `unknown format "nope"`},
	}
	for _, c := range cases {
		_, err := parseFile(t, c.format, c.file)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s as %s: err = %v, want %q", c.file, c.format, err, c.want)
		}
	}
}

// The failure the issue found: guidellm totals over the measured window
// count whole requests straddling its edges and come out 6.4 % high;
// the import takes guidellm's own rate instead, and says so.
func TestGuideLLMWindow(t *testing.T) {
	rs, err := parseFile(t, "guidellm", "guidellm-warmup.json")
	if err != nil {
		t.Fatal(err)
	}
	m := rs[0].Metrics
	if *m.OutputThroughput != 500.0 || *m.RequestThroughput != 2.2 || *m.TotalThroughput != 1000.0 {
		t.Errorf("throughputs %v %v %v, want guidellm's own 500, 2.2, 1000", *m.OutputThroughput, *m.RequestThroughput, *m.TotalThroughput)
	}
	if naive := float64(*m.OutputTokens) / m.Duration; math.Abs(naive / *m.OutputThroughput - 1.064) > 1e-9 {
		t.Errorf("fixture: totals over the window are %.4f × guidellm's rate, want 1.064", naive / *m.OutputThroughput)
	}
	if *m.PeakConcurrency != 5 || *m.Failed != 1 {
		t.Errorf("peak concurrency %v, failed %v", *m.PeakConcurrency, *m.Failed)
	}
}

// A source without a failed count gives an unknown, noted; never 0.
func TestFailedUnknown(t *testing.T) {
	for _, c := range []struct{ format, file string }{{"vllm-text", "vllm-old.txt"}, {"sglang-text", "sglang-bench.log"}, {"sglang-jsonl", "sglang-sweep.jsonl"}} {
		rs, err := parseFile(t, c.format, c.file)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range rs {
			if r.Metrics.Failed != nil || len(r.Notes) == 0 || r.Notes[len(r.Notes)-1].Msg != NoteFailedUnknown {
				t.Errorf("%s: failed %v, notes %v", c.file, r.Metrics.Failed, r.Notes)
			}
		}
	}
}

// A run where every request failed has no latency: vLLM 0.25.1 writes
// 0.0 for each statistic (a real result), which must stay unknown, not
// become latencies of 0 ms; the failed count is the file's.
func TestNoCompletedNoLatency(t *testing.T) {
	rs, err := parseFile(t, "vllm-json", "real/vllm-bench-serve-all-failed-0.25.1.json")
	if err != nil {
		t.Fatal(err)
	}
	m := rs[0].Metrics
	if m.TTFT != nil || m.TPOT != nil || m.ITL != nil || m.Latency != nil || m.Failed == nil || *m.Failed != 8 {
		t.Errorf("ttft %v, tpot %v, itl %v, failed %v; want no latency and 8 failed", m.TTFT, m.TPOT, m.ITL, m.Failed)
	}
}
