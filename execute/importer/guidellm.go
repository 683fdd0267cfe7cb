package importer

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"

	"servelab.dev/execute/record"
)

// parseGuideLLM reads guidellm's benchmarks.json. The layouts differ by
// version (≤0.3: benchmarks[].args/run_stats; 0.4: top-level args; 0.5-0.6:
// metadata v1; 0.7: metadata v2 and config); every one keeps per-benchmark
// "metrics" with status groups (successful, errored, incomplete, total).
func parseGuideLLM(data []byte) ([]Result, error) {
	objs, err := decodeObjects(quoteNonFinite(data))
	if err != nil {
		return nil, err
	}
	top := objs[0]
	benches := top.list("benchmarks")
	if benches == nil {
		return nil, fmt.Errorf("no \"benchmarks\" list: not a guidellm benchmarks.json")
	}
	model := findString(top.sub("args"), 3, "model")
	if model == "" {
		model = findString(top.sub("config"), 4, "model")
	}
	var out []Result
	for i, b := range benches {
		bo, ok := b.(map[string]any)
		if !ok {
			return nil, entryErr(i, len(benches), fmt.Errorf("benchmark is not an object"))
		}
		r, err := guidellmResult(obj(bo), model)
		if err != nil {
			return nil, entryErr(i, len(benches), err)
		}
		out = append(out, *r)
	}
	return out, nil
}

func guidellmResult(b obj, model string) (*Result, error) {
	mets := b.sub("metrics")
	if mets == nil {
		return nil, fmt.Errorf("benchmark has no \"metrics\"")
	}
	r := &Result{Client: "guidellm", Model: model}
	if m := findString(b, 4, "model", "backend_model"); m != "" {
		r.Model = m
	}
	var streams int
	r.Kind, r.Rate, streams = guidellmStrategy(b)
	m := &r.Metrics
	if streams > 0 {
		m.MaxConcurrency = &streams
	}
	totals := mets.sub("request_totals")
	m.Completed = derefInt(totals.intp("successful"))
	m.Failed = derefInt(totals.intp("errored"))
	if inc := derefInt(totals.intp("incomplete")); inc > 0 {
		r.Notes = append(r.Notes, fmt.Sprintf("%d requests incomplete (cancelled at the end), not counted", inc))
	}
	m.Duration = guidellmDuration(b)
	if m.Duration <= 0 {
		return nil, fmt.Errorf("no benchmark duration (duration or start_time/end_time)")
	}
	m.InputTokens = int(groupSum(mets, "prompt_token_count"))
	m.OutputTokens = int(groupSum(mets, "output_token_count"))
	// Throughputs as vLLM defines them (totals over the duration), not
	// guidellm's instantaneous rate distributions.
	m.RequestThroughput = record.F(float64(m.Completed) / m.Duration)
	m.OutputThroughput = record.F(float64(m.OutputTokens) / m.Duration)
	m.TotalThroughput = record.F(float64(m.InputTokens+m.OutputTokens) / m.Duration)
	d := dists{}
	if !guidellmDist(d, mets, "request_latency", "latency", 1000) ||
		!guidellmDist(d, mets, "time_to_first_token_ms", "ttft", 1) ||
		!guidellmDist(d, mets, "inter_token_latency_ms", "tpot", 1) {
		return nil, fmt.Errorf("missing request_latency, time_to_first_token_ms or inter_token_latency_ms")
	}
	d.into(m)
	r.Notes = append(r.Notes, "guidellm's inter_token_latency is vLLM's TPOT; guidellm measures no per-gap ITL")
	return r, nil
}

// guidellmStrategy reads the load: kind, rate, and the streams of a
// concurrent strategy (guidellm 0.5 writes them as config.strategy.streams).
func guidellmStrategy(b obj) (string, float64, int) {
	st := b.sub("config").sub("strategy")
	if st == nil {
		st = b.sub("args").sub("strategy")
	}
	kind := st.str("type_")
	rate, _ := st.num("rate")
	switch kind {
	case "concurrent":
		return "concurrency", 0, derefInt(st.intp("streams"))
	case "synchronous":
		return "concurrency", 0, 1
	case "throughput":
		return "concurrency", 0, derefInt(st.intp("max_concurrency"))
	case "constant", "async":
		return "constant", rate, derefInt(st.intp("max_concurrency"))
	case "poisson":
		return "poisson", rate, derefInt(st.intp("max_concurrency"))
	}
	return "", 0, 0
}

func guidellmDuration(b obj) float64 {
	if d, ok := b.num("duration"); ok && d > 0 {
		return d
	}
	for _, o := range []obj{b, b.sub("run_stats")} {
		s, ok1 := o.num("start_time")
		e, ok2 := o.num("end_time")
		if ok1 && ok2 && e > s {
			return e - s
		}
	}
	return 0
}

// groupSum is the successful group's total_sum of a count metric.
func groupSum(mets obj, name string) float64 {
	v, _ := mets.sub(name).sub("successful").num("total_sum")
	return v
}

// guidellmDist reads the successful group of a distribution metric,
// scaled to milliseconds.
func guidellmDist(d dists, mets obj, name, family string, scale float64) bool {
	g := mets.sub(name).sub("successful")
	if g == nil {
		return false
	}
	set := func(stat string, v float64, ok bool) {
		if ok && !math.IsInf(v, 0) && !math.IsNaN(v) {
			d.set(family, stat, v*scale)
		}
	}
	v, ok := g.num("mean")
	if !ok {
		return false
	}
	set("mean", v, ok)
	v, ok = g.num("median")
	set("median", v, ok)
	v, ok = g.num("std_dev")
	set("std", v, ok)
	p := g.sub("percentiles")
	for _, k := range []string{"p50", "p90", "p95", "p99"} {
		v, ok = p.num(k)
		set(k, v, ok)
	}
	return true
}

// findString looks for the first string field named one of names, up to
// depth levels down, in field order of a sorted walk (deterministic).
func findString(o obj, depth int, names ...string) string {
	if o == nil || depth < 0 {
		return ""
	}
	for _, n := range names {
		if s := o.str(n); s != "" && !strings.Contains(s, "://") {
			return s
		}
	}
	for _, k := range slices.Sorted(maps.Keys(o)) {
		if sub := o.sub(k); sub != nil {
			if s := findString(sub, depth-1, names...); s != "" {
				return s
			}
		}
	}
	return ""
}
