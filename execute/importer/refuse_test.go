package importer

import (
	"bytes"
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"
	"testing"
)

// vllmJSON is a consistent --save-result object with some fields replaced.
func vllmJSON(over map[string]string) []byte {
	fields := [][2]string{{"model_id", `"Qwen/Qwen3-8B"`}, {"num_prompts", "100"}, {"request_rate", `"inf"`}, {"max_concurrency", "4"},
		{"duration", "40"}, {"completed", "100"}, {"failed", "0"}, {"total_input_tokens", "20000"}, {"total_output_tokens", "20000"},
		{"request_throughput", "2.5"}, {"output_throughput", "500"}, {"total_token_throughput", "1000"},
		{"mean_ttft_ms", "60"}, {"mean_tpot_ms", "7"}, {"mean_itl_ms", "7"}}
	var b strings.Builder
	b.WriteString("{")
	seen := map[string]bool{}
	for i, f := range fields {
		v := f[1]
		if o, ok := over[f[0]]; ok {
			v = o
		}
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%q: %s", f[0], v)
		seen[f[0]] = true
	}
	for _, k := range slices.Sorted(maps.Keys(over)) {
		if !seen[k] {
			fmt.Fprintf(&b, ", %q: %s", k, over[k])
		}
	}
	b.WriteString("}\n")
	return []byte(b.String())
}

// A field of the wrong type, a count that is not whole and a figure the
// file's own totals contradict are refused, naming the field; NaN is an
// unknown; a JSON error names its line and byte.
func TestRefusedFields(t *testing.T) {
	if _, err := Parse("vllm-json", vllmJSON(nil)); err != nil {
		t.Fatalf("the consistent file: %v", err)
	}
	cases := []struct {
		field, value, want string
	}{
		{"completed", `"100"`, `completed: "100" is a string where a number belongs`},
		{"mean_ttft_ms", `[1, 2]`, "mean_ttft_ms: a list where a number belongs"},
		{"completed", `99.5`, "completed: 99.5 is not a whole number"},
		{"failed", `-1`, "failed: -1 is not a whole number"},
		{"output_throughput", `1e308`, "output throughput 1e+308 tok/s is above the file's own total token throughput 1000 tok/s"},
		{"total_token_throughput", `1e308`, "total token throughput is 1e+308/s, but the file's own input and output tokens over its 40 s duration give 1000/s"},
		{"output_throughput", `1e400`, "output_throughput: 1e400 is out of range"},
		{"mean_ttft_ms", `Infinity`, "mean_ttft_ms: Infinity is not a measurement"},
		{"model_id", `7`, "model_id: 7 (a number) where a string belongs"},
		{"duration", `{"s": 40}`, "duration: an object where a number belongs"},
		{"request_rate", `"fast"`, `request_rate: "fast" is a string where a number belongs`},
	}
	for _, c := range cases {
		_, err := Parse("vllm-json", vllmJSON(map[string]string{c.field: c.value}))
		if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: %s: err %v, want one line with %q", c.field, c.value, err, c.want)
		}
	}
	rs, err := Parse("vllm-json", vllmJSON(map[string]string{"mean_tpot_ms": "NaN", "median_tpot_ms": "7"}))
	if err != nil || rs[0].Metrics.TPOT.Mean != nil || *rs[0].Metrics.TPOT.Median != 7 {
		t.Errorf("NaN is unknown, not refused: %v", err)
	}
	_, err = Parse("vllm-json", []byte("{\"completed\": 100,\n \"duration\": Nope}"))
	if err == nil || !strings.Contains(err.Error(), "line 2 (byte 33): invalid character 'N'") || !strings.Contains(err.Error(), "export the file again") {
		t.Errorf("a JSON syntax error: %v", err)
	}
}

// Defect: a run with no completed request claiming a throughput became a
// record of throughput without requests. Every format refuses it.
func TestNoCompletedNoThroughput(t *testing.T) {
	block := "============ Serving Benchmark Result ============\nSuccessful requests: 0\nBenchmark duration (s): 10.00\n" +
		"Total input tokens: 0\nTotal generated tokens: 0\nOutput token throughput (tok/s): 500.00\n" +
		"Mean TTFT (ms): 1.00\nMean TPOT (ms): 1.00\nMean ITL (ms): 1.00\n" +
		"==================================================\n"
	cases := map[string][]byte{
		"vllm-json": vllmJSON(map[string]string{"completed": "0", "failed": "100", "total_input_tokens": "0", "total_output_tokens": "0", "request_throughput": "0", "total_token_throughput": "0"}),
		"vllm-sweep": vllmJSON(map[string]string{"completed": "0", "failed": "100", "total_input_tokens": "0", "total_output_tokens": "0", "request_throughput": "0", "total_token_throughput": "0",
			"run_number": "0"}),
		"sglang-jsonl": []byte(`{"completed": 0, "duration": 10, "output_throughput": 5, "mean_ttft_ms": 1}`),
		"vllm-text":    []byte(block),
		"guidellm": []byte(`{"benchmarks": [{"duration": 10, "metrics": {"request_totals": {"successful": 0}, ` +
			`"requests_per_second": {"successful": {"mean": 2}}, "output_tokens_per_second": {"successful": {"mean": 9}}, ` +
			`"request_latency": {"successful": {"mean": 1}}, "time_to_first_token_ms": {"successful": {"mean": 1}}, "inter_token_latency_ms": {"successful": {"mean": 1}}}}]}`),
		"aiperf-json": []byte(`{"request_count": {"avg": 0}, "benchmark_duration": {"unit": "sec", "avg": 10}, "output_token_throughput": {"avg": 7}, ` +
			`"time_to_first_token": {"unit": "ms", "avg": 1}, "inter_token_latency": {"unit": "ms", "avg": 1}}`),
		"inference-perf": []byte(`{"benchmark_time_seconds": 10, "load_summary": {"count": 5, "requested_rate": 1}, "successes": {"count": 0, ` +
			`"throughput": {"output_tokens_per_sec": 3}, "latency": {"request_latency": {"mean": 1}}}, "failures": {"count": 5}}`),
	}
	for _, f := range Formats() {
		data, ok := cases[f]
		if !ok {
			continue
		}
		_, err := Parse(f, data)
		if err == nil || !strings.Contains(err.Error(), "but no request completed") {
			t.Errorf("%s: err %v, want the run refused for a throughput without a completed request", f, err)
		}
	}
	if len(cases) != len(Formats())-1 { // sglang-text prints no throughput without its block's counts
		t.Errorf("cases cover %d of %d formats", len(cases), len(Formats()))
	}
}

// Defect: guidellm 0.2 and 0.3 write request_totals beside metrics; the
// import read 0 completed requests from a real report of 14.
func TestGuideLLMTotalsBesideMetrics(t *testing.T) {
	rs, err := parseFile(t, "guidellm", "real/guidellm-0.3-sync.yaml")
	if err != nil {
		t.Fatal(err)
	}
	m := rs[0].Metrics
	if m.Completed != 14 || m.Failed == nil || *m.Failed != 0 || *m.OutputTokens != 1792 {
		t.Errorf("completed %d, failed %v, output tokens %v; want 14, 0, 1792 as the file's request_totals and sums say", m.Completed, m.Failed, m.OutputTokens)
	}
	_, err = Parse("guidellm", []byte(`{"benchmarks": [{"duration": 10, "metrics": {"request_latency": {"successful": {"mean": 1}}}}]}`))
	if err == nil || !strings.Contains(err.Error(), "no request_totals") {
		t.Errorf("a benchmark without request totals: %v", err)
	}
}

// Defect: rate inf with no cap (the tools' default) was refused as "ran
// without a cap" against a concurrency profile whose cap is no lower than
// its request count, which is the same load. It matches now, with a note;
// a lower cap is still another load.
func TestAllAtOnceIsConcurrency(t *testing.T) {
	noCap := func() Result {
		rs, err := Parse("vllm-json", vllmJSON(map[string]string{"max_concurrency": "null"}))
		if err != nil {
			t.Fatal(err)
		}
		return rs[0]
	}
	r := noCap()
	if !r.NoCap || !math.IsInf(r.Rate, 1) {
		t.Fatalf("fixture: no cap %v, rate %v", r.NoCap, r.Rate)
	}
	if bad := Check(&r, "vllm-json", spec("concurrency", 0, 100, 100)); len(bad) > 0 {
		t.Errorf("cap 100 for 100 requests: refused: %v", bad)
	}
	if len(r.Notes) == 0 || r.Notes[len(r.Notes)-1].Msg != NoteAllAtOnce {
		t.Errorf("the match is not said: notes %v", r.Notes)
	}
	r = noCap()
	if bad := Check(&r, "vllm-json", spec("concurrency", 0, 8, 100)); len(bad) != 1 || !strings.Contains(bad[0], "ran without a cap") {
		t.Errorf("cap 8 for 100 requests: %v", bad)
	}
	r = noCap()
	if bad := Check(&r, "vllm-json", spec("poisson", 4, 0, 100)); len(bad) == 0 {
		t.Error("rate inf against a Poisson profile accepted")
	}
}

// --format auto names each golden file's format, and says what it cannot
// decide between.
func TestDetect(t *testing.T) {
	for _, g := range goldenFiles {
		data := readTestdata(t, g.file)
		if got, err := Detect(data); err != nil || got != g.format {
			t.Errorf("%s: detected %q, %v; want %s", g.file, got, err, g.format)
		}
	}
	_, err := Detect([]byte("hello\n"))
	if err == nil || !strings.Contains(err.Error(), "none of the formats servelab reads (vllm-text, vllm-json") {
		t.Errorf("unknown content: %v", err)
	}
	both := []byte(`{"completed": 1, "num_prompts": 1, "benchmarks": [], "load_summary": {}, "successes": {}}`)
	_, err = Detect(both)
	if err == nil || !strings.Contains(err.Error(), "reads as any of vllm-json, guidellm, inference-perf; choose one with --format") {
		t.Errorf("ambiguous content: %v", err)
	}
	if got, err := Detect([]byte(`{"completed": 100, "num_prompts": 100, "dura`)); err != nil || got != "vllm-json" {
		t.Errorf("a truncated vllm file is recognised, so its parser can say it is truncated: %q, %v", got, err)
	}
}

// A text line of any length is read; bufio.Scanner's limit is gone.
func TestLongTextLine(t *testing.T) {
	data := []byte("Traffic request rate: inf\n# " + strings.Repeat("x", 3<<20) + "\n" + string(readTestdata(t, "vllm-new.txt")))
	if _, err := Parse("vllm-text", data); err != nil {
		t.Errorf("a 3 MiB line before the block: %v", err)
	}
}

// A sweep's warm-up run, a plain --save-result object and a list with
// anything but run objects are refused, each with the fix; detection
// tells a sweep's run from a plain result by its run_number.
func TestVLLMSweep(t *testing.T) {
	run := readTestdata(t, "real/vllm-sweep-0.25.1-run0.json")
	warm := bytes.Replace(run, []byte(`"run_number": 0`), []byte(`"run_number": -1`), 1)
	plain := readTestdata(t, "real/vllm-bench-serve-0.25.1.json")
	for _, c := range []struct {
		data []byte
		want string
	}{
		{warm, "run_number is -1: this is the sweep's warm-up run (warmup.json), not a measurement"},
		{plain, "no \"run_number\": not a run of vllm bench sweep serve; a plain --save-result file is read with --format vllm-json"},
		{[]byte(`[` + string(run) + `, 3]`), "item 2 of the list is 3 (a number), not a run object"},
		{[]byte(`[]`), "the list of runs is empty"},
		{run[:len(run)/2], "truncated JSON"},
	} {
		if _, err := Parse("vllm-sweep", c.data); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("got %v, want %q", err, c.want)
		}
	}
	sum := readTestdata(t, "real/vllm-sweep-0.25.1-summary.json")
	if got, err := Detect(sum[:len(sum)-100]); err != nil || got != "vllm-sweep" {
		t.Errorf("a truncated summary.json is recognised, so its parser can say it is truncated: %q, %v", got, err)
	}
}
