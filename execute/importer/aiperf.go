package importer

import (
	"fmt"
	"math"
	"strings"
)

var _ = register(Format{Name: "aiperf-json", Rank: 6, Parse: parseAIPerf, Sniff: sniffAIPerf, RatesOverDuration: true})

// aiperf-json is AIPerf's profile_export_aiperf.json (`aiperf profile`),
// read from ai-dynamo/aiperf at commit
// db4f6397d11ee2d4cfbb41f70b2327315163dcf0: aiperf/exporters/json_exporter.py
// and aiperf/common/models/export_models.py (the layout), and
// aiperf/metrics/types/*.py (what each metric is). One object, one run;
// each metric is {"unit", "avg", "p1".."p99", "min", "max", "std"} in
// its display unit, written only when set. Three layouts are read, each
// from a real file: before AIPerf's commit 43b78902 the metrics sit in a
// "records" object, keyed by tag ("ttft"); from it on they sit at the top
// level; with "schema_version" (AIPerf 0.8 on) the configuration names
// its models under input_config.models.items and its load as phases.
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
//	total_token_throughput.avg          -> totalThroughput; absent (before
//	                                       0.8): (total_isl + total_osl) /
//	                                       duration, with a note
//	request_latency (ms)                -> latencyMs
//	time_to_first_token, ttft (ms)      -> ttftMs
//	inter_token_latency (ms)            -> tpotMs: AIPerf's ITL is
//	                                       (latency − TTFT) / (tokens − 1) per
//	                                       request, vLLM's TPOT
//	inter_chunk_latency (ms)            -> itlMs: the gaps between chunks,
//	                                       vLLM's ITL
//	  statistics read: avg → mean, p50 → median, std, p90, p95, p99
//	input_config.endpoint.model_names[0],
//	  input_config.models.items[0].name -> model (checked)
//	input_config.loadgen.concurrency, request_rate, request_rate_mode,
//	  request_count; or the first phase of input_config.phases not
//	  excluded from results: type, concurrency, rate, requests
//	                                    -> cap, rate, load kind, request
//	                                       count (checked)
//	not kept: time_to_second_token, output_token_throughput_per_user,
//	output/input_sequence_length distributions, goodput and
//	good_request_count, reasoning tokens, usage_* counts, http_req_*
//	timings, telemetry, timestamps, p1-p25/p75, min, max.
//
// Refused: no request_count (not an AIPerf export), a latency metric in
// a unit other than ns, us, ms or sec, no duration, no TTFT or ITL.
func parseAIPerf(data []byte) ([]Result, error) {
	return eachObject(data, aiperfResult)
}

func aiperfResult(o node) (*Result, error) {
	mets := o
	if rec := o.sub("records"); rec.m != nil {
		mets = rec
	}
	if mets.sub("request_count").m == nil {
		return nil, fmt.Errorf("no \"request_count\": not an AIPerf profile_export_aiperf.json")
	}
	r := &Result{Client: "aiperf"}
	aiperfConfig(r, o.sub("input_config"))
	m := &r.Metrics
	m.Completed = derefInt(mets.sub("request_count").count("avg"))
	m.Failed = aiperfFailed(o, mets)
	dur, err := aiperfScaled(mets.sub("benchmark_duration"), "avg", 1)
	if err != nil || dur == nil || *dur <= 0 {
		return nil, fmt.Errorf("no benchmark_duration in seconds")
	}
	m.Duration = *dur
	m.InputTokens = mets.sub("total_isl").count("avg")
	m.OutputTokens = mets.sub("total_osl").count("avg")
	m.RequestThroughput = mets.sub("request_throughput").fp("avg")
	m.OutputThroughput = mets.sub("output_token_throughput").fp("avg")
	m.TotalThroughput = mets.sub("total_token_throughput").fp("avg")
	if m.TotalThroughput == nil {
		if m.TotalThroughput = tokenRate(m); m.TotalThroughput != nil {
			r.note(NoteTotalDerived)
		}
	}
	d := dists{}
	for _, f := range []struct{ key, tag, family string }{{"request_latency", "", "latency"}, {"time_to_first_token", "ttft", "ttft"},
		{"inter_token_latency", "", "tpot"}, {"inter_chunk_latency", "", "itl"}} {
		metric := mets.sub(f.key)
		if metric.m == nil && f.tag != "" {
			metric = mets.sub(f.tag)
		}
		if err := aiperfDist(d, metric, f.family); err != nil {
			return nil, fmt.Errorf("%s: %w", metric.path, err)
		}
	}
	if d["ttft"] == nil || d["tpot"] == nil {
		return nil, fmt.Errorf("missing time_to_first_token or inter_token_latency (a streaming run has both)")
	}
	d.into(m)
	return r, nil
}

// aiperfFailed: the error count, else the error summary's total.
func aiperfFailed(o, mets node) *int {
	if n := mets.sub("error_request_count").count("avg"); n != nil {
		return n
	}
	list := o.list("error_summary")
	if _, there := o.m["error_summary"]; !there {
		return nil
	}
	total := 0
	for i, e := range list {
		eo, err := o.item("error_summary", i, e)
		if err != nil {
			o.fail("error_summary", "entry %d is not an object; %s", i+1, fixEdited)
			return nil
		}
		total += derefInt(eo.count("count"))
	}
	return &total
}

// aiperfConfig reads the run's model and load from either layout of the
// configuration AIPerf writes back.
func aiperfConfig(r *Result, cfg node) {
	if cfg.m == nil {
		return
	}
	if names := cfg.sub("endpoint").list("model_names"); len(names) > 0 {
		r.Model, _ = names[0].(string)
	}
	if items := cfg.sub("models").list("items"); r.Model == "" && len(items) > 0 {
		if it, err := cfg.sub("models").item("items", 0, items[0]); err == nil {
			r.Model = it.str("name")
		}
	}
	if lg := cfg.sub("loadgen"); lg.m != nil {
		aiperfLoadgen(r, lg)
		return
	}
	phases := cfg.list("phases")
	for i, p := range phases {
		ph, err := cfg.item("phases", i, p)
		if err != nil {
			cfg.fail("phases", "phase %d is not an object; %s", i+1, fixEdited)
			return
		}
		if excluded, _ := ph.m["exclude_from_results"].(bool); !excluded {
			aiperfPhase(r, ph)
			return
		}
	}
}

func aiperfLoadgen(r *Result, lg node) {
	r.Metrics.MaxConcurrency = lg.count("concurrency")
	r.Rate = lg.rate("request_rate")
	r.Requests = derefInt(lg.count("request_count"))
	switch mode := strings.ToLower(lg.str("request_rate_mode")); {
	case r.Rate > 0 && (mode == "constant" || mode == "poisson"):
		r.Kind = mode
	case r.Rate == 0 && r.Metrics.MaxConcurrency != nil:
		r.Kind = "concurrency"
	}
}

// aiperfPhase reads a measured phase: its type is the load kind
// (concurrency, poisson, constant, or one servelab has no profile for,
// kept so Check names it), with its cap, rate and request count.
func aiperfPhase(r *Result, ph node) {
	r.Metrics.MaxConcurrency = ph.count("concurrency")
	r.Rate = ph.rate("rate")
	r.Requests = derefInt(ph.count("requests"))
	r.Kind = ph.str("type")
}

// aiperfScaled reads stat of a metric and converts its unit to ms
// (times) or keeps it (sec for the duration: want 1 means seconds).
func aiperfScaled(metric node, stat string, want float64) (*float64, error) {
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

func aiperfDist(d dists, metric node, family string) error {
	if metric.m == nil {
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
