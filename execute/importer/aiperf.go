package importer

import (
	"fmt"
	"math"
	"strings"
)

var _ = register(Format{Name: "aiperf-json", Rank: 6, Parse: parseAIPerf})

// aiperf-json is AIPerf's profile_export_aiperf.json (`aiperf profile`),
// read from ai-dynamo/aiperf at commit
// db4f6397d11ee2d4cfbb41f70b2327315163dcf0: aiperf/exporters/json_exporter.py
// and aiperf/common/models/export_models.py (the layout), and
// aiperf/metrics/types/*.py (what each metric is). One object, one run;
// each metric is {"unit", "avg", "p1".."p99", "min", "max", "std"} in
// its display unit, written only when set.
//
//	key                                 -> record field
//	request_count.avg                   -> completed (valid requests)
//	error_request_count.avg             -> failed; absent: the sum of
//	                                       error_summary[].count when the
//	                                       list is there (empty: 0), else unknown
//	benchmark_duration.avg (sec)        -> duration (first request to last
//	                                       response)
//	total_isl.avg, total_osl.avg        -> inputTokens, outputTokens
//	request_throughput.avg              -> requestThroughput
//	output_token_throughput.avg         -> outputThroughput
//	(none)                              -> totalThroughput, computed as
//	                                       (total_isl + total_osl) / duration,
//	                                       with a note
//	request_latency (ms)                -> latencyMs
//	time_to_first_token (ms)            -> ttftMs
//	inter_token_latency (ms)            -> tpotMs: AIPerf's ITL is
//	                                       (latency − TTFT) / (tokens − 1) per
//	                                       request, vLLM's TPOT
//	inter_chunk_latency (ms)            -> itlMs: the gaps between chunks,
//	                                       vLLM's ITL
//	  statistics read: avg → mean, p50 → median, std, p90, p95, p99
//	input_config.endpoint.model_names[0] -> model (checked)
//	input_config.loadgen.concurrency, request_rate, request_rate_mode,
//	  request_count                     -> cap, rate, load kind, request
//	                                       count (checked)
//	not kept: time_to_second_token, output_token_throughput_per_user,
//	output/input_sequence_length distributions, goodput and
//	good_request_count, reasoning tokens, timestamps, p1-p25/p75, min, max.
//
// Refused: no request_count (not an AIPerf export), a latency metric in
// a unit other than ns, us, ms or sec, no duration, no TTFT or ITL.
func parseAIPerf(data []byte) ([]Result, error) {
	objs, err := decodeObjects(quoteNonFinite(data))
	if err != nil {
		return nil, err
	}
	var out []Result
	for i, o := range objs {
		r, err := aiperfResult(o)
		if err != nil {
			return nil, entryErr(i, len(objs), err)
		}
		out = append(out, *r)
	}
	return out, nil
}

func aiperfResult(o obj) (*Result, error) {
	if o.sub("request_count") == nil {
		return nil, fmt.Errorf("no \"request_count\": not an AIPerf profile_export_aiperf.json")
	}
	r := &Result{Client: "aiperf"}
	aiperfConfig(r, o.sub("input_config"))
	m := &r.Metrics
	m.Completed = derefInt(o.sub("request_count").intp("avg"))
	m.Failed = aiperfFailed(o)
	dur, err := aiperfScaled(o.sub("benchmark_duration"), "avg", 1)
	if err != nil || dur == nil || *dur <= 0 {
		return nil, fmt.Errorf("no benchmark_duration in seconds")
	}
	m.Duration = *dur
	m.InputTokens = o.sub("total_isl").intp("avg")
	m.OutputTokens = o.sub("total_osl").intp("avg")
	m.RequestThroughput = o.sub("request_throughput").fp("avg")
	m.OutputThroughput = o.sub("output_token_throughput").fp("avg")
	if m.TotalThroughput = tokenRate(m); m.TotalThroughput != nil {
		r.note(NoteTotalDerived)
	}
	d := dists{}
	for _, f := range []struct{ key, family string }{{"request_latency", "latency"}, {"time_to_first_token", "ttft"},
		{"inter_token_latency", "tpot"}, {"inter_chunk_latency", "itl"}} {
		if err := aiperfDist(d, o.sub(f.key), f.family); err != nil {
			return nil, fmt.Errorf("%s: %w", f.key, err)
		}
	}
	if d["ttft"] == nil || d["tpot"] == nil {
		return nil, fmt.Errorf("missing time_to_first_token or inter_token_latency (a streaming run has both)")
	}
	d.into(m)
	return r, nil
}

// aiperfFailed: the error count, else the error summary's total.
func aiperfFailed(o obj) *int {
	if n := o.sub("error_request_count").intp("avg"); n != nil {
		return n
	}
	list, ok := o["error_summary"].([]any)
	if !ok {
		return nil
	}
	total := 0
	for _, e := range list {
		if eo, ok := e.(map[string]any); ok {
			total += derefInt(obj(eo).intp("count"))
		}
	}
	return &total
}

func aiperfConfig(r *Result, cfg obj) {
	if cfg == nil {
		return
	}
	if names := cfg.sub("endpoint").list("model_names"); len(names) > 0 {
		r.Model, _ = names[0].(string)
	}
	lg := cfg.sub("loadgen")
	r.Metrics.MaxConcurrency = lg.intp("concurrency")
	r.Rate = lg.rate("request_rate")
	r.Requests = derefInt(lg.intp("request_count"))
	switch mode := strings.ToLower(lg.str("request_rate_mode")); {
	case r.Rate > 0 && (mode == "constant" || mode == "poisson"):
		r.Kind = mode
	case r.Rate == 0 && r.Metrics.MaxConcurrency != nil:
		r.Kind = "concurrency"
	}
}

// aiperfScaled reads stat of a metric and converts its unit to ms
// (times) or keeps it (sec for the duration: want 1 means seconds).
func aiperfScaled(metric obj, stat string, want float64) (*float64, error) {
	v := metric.fp(stat)
	if v == nil {
		return nil, nil
	}
	per, ok := map[string]float64{"ns": 1e9, "us": 1e6, "ms": 1e3, "sec": 1, "s": 1}[metric.str("unit")]
	if !ok {
		return nil, fmt.Errorf("unit %q is not a time unit", metric.str("unit"))
	}
	// per is units per second; want is units per second of the result.
	x := *v * want / per
	if math.IsInf(x, 0) || math.IsNaN(x) {
		return nil, fmt.Errorf("value %v", *v)
	}
	return &x, nil
}

func aiperfDist(d dists, metric obj, family string) error {
	if metric == nil {
		return nil
	}
	for _, s := range []struct{ from, to string }{{"avg", "mean"}, {"p50", "median"}, {"std", "std"}, {"p90", "p90"}, {"p95", "p95"}, {"p99", "p99"}} {
		v, err := aiperfScaled(metric, s.from, 1000)
		if err != nil {
			return err
		}
		if v != nil {
			d.set(family, s.to, *v)
		}
	}
	return nil
}
