// Package importer reads the output of other benchmark tools into
// servelab metrics: `vllm bench serve`'s printed block (vllm-text) and
// its --save-result JSON (vllm-json), guidellm's benchmarks.json
// (guidellm, layouts v0.3 to v0.7) and SGLang bench_serving JSONL
// (sglang-jsonl).
//
// Names are mapped to vLLM's meaning: guidellm's inter_token_latency_ms
// is a per-request (last token − first token)/(tokens − 1), which is
// vLLM's TPOT, so it becomes TPOT; guidellm has no per-gap ITL, so ITL
// stays absent rather than invented.
package importer

import (
	"fmt"
	"sort"
	"strings"

	"servelab.dev/execute/record"
)

// Formats are the names Parse accepts.
var Formats = []string{"vllm-text", "vllm-json", "guidellm", "sglang-jsonl"}

// Result is one benchmark run read from a file.
type Result struct {
	Metrics record.Metrics
	// What the file says about how it was run; empty when it does not say.
	Model   string
	Backend string
	Engine  string  // engine kind the file proves (sglang server_info)
	Client  string  // the tool that wrote it
	Rate    float64 // configured request rate; 0 when unknown or infinite
	Kind    string  // load kind the file states: constant, poisson, concurrency
	// Precision is the rounding of the figures (0.01 for printed blocks).
	Precision float64
	// Notes are things the import noticed and the analysis should show.
	Notes []string
}

// Parse reads every run in data. Most files hold one; JSONL and
// guidellm files may hold several.
func Parse(format string, data []byte) ([]Result, error) {
	rs, err := parse(format, data)
	if err != nil {
		return nil, err
	}
	for i := range rs {
		if err := rs[i].Metrics.Check(); err != nil {
			return nil, entryErr(i, len(rs), fmt.Errorf("figures a record cannot hold: %v", err))
		}
	}
	return rs, nil
}

func parse(format string, data []byte) ([]Result, error) {
	switch format {
	case "vllm-text":
		r, err := parseVLLMText(data)
		if err != nil {
			return nil, err
		}
		return []Result{*r}, nil
	case "vllm-json":
		return parseVLLMJSON(data)
	case "guidellm":
		return parseGuideLLM(data)
	case "sglang-jsonl":
		return parseSGLang(data)
	}
	return nil, fmt.Errorf("unknown format %q (want %s)", format, strings.Join(Formats, ", "))
}

// dists collects latency statistics by family while a file is read.
type dists map[string]*record.Dist

func (d dists) set(family, stat string, v float64) {
	x := d[family]
	if x == nil {
		x = &record.Dist{}
		d[family] = x
	}
	p := record.F(v)
	switch stat {
	case "mean":
		x.Mean = p
	case "median":
		x.Median = p
	case "std":
		x.Std = p
	case "p50":
		x.P50 = p
	case "p90":
		x.P90 = p
	case "p95":
		x.P95 = p
	case "p99":
		x.P99 = p
	}
}

func (d dists) into(m *record.Metrics) {
	m.Latency, m.TTFT, m.TPOT, m.ITL = d["latency"], d["ttft"], d["tpot"], d["itl"]
}

// required reports the figures a run cannot be compared without.
func required(m record.Metrics, have map[string]bool, names ...string) error {
	var missing []string
	for _, n := range names {
		if !have[n] {
			missing = append(missing, n)
		}
	}
	if len(missing) > 0 {
		sort.Strings(missing)
		return fmt.Errorf("missing %s", strings.Join(missing, "; "))
	}
	return nil
}
