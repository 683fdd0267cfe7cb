package importer

import (
	"fmt"
	"math"
	"strconv"
)

// inference-perf names no cap line when its stage ran at a rate.
var _ = register(Format{Name: "inference-perf", Rank: 7, Parse: parseInferencePerf, Sniff: sniffInferencePerf, RatesOverDuration: true, CapUnsaid: true})

// inference-perf is one stage's report of kubernetes-sigs/inference-perf,
// stage_N_lifecycle_metrics.json, read from
// inference_perf/reportgen/base.py (summarize_requests; commit
// 010d12fb62cc3157b6bd228ef93dd865c7a05194, and the reports the repository
// keeps under demos/kubecon-na-2025 at a8a2a0ba and 305ea4b4). Times are
// in seconds. The summary_lifecycle_metrics.json over all stages states no
// load and is refused: each stage is one run.
//
//	key                                        -> record field
//	successes.count                            -> completed
//	failures.count                             -> failed
//	load_summary.count                         -> the requests sent (checked)
//	load_summary.requested_rate                -> the rate (checked; the
//	                                              report does not say whether
//	                                              arrivals were constant or
//	                                              Poisson)
//	load_summary.concurrency                   -> maxConcurrency, load kind
//	                                              concurrency (later versions)
//	benchmark_time_seconds                     -> duration (later versions);
//	                                              before: completed requests
//	                                              over requests_per_sec, with
//	                                              a note (the report's rates
//	                                              are over that same span)
//	successes.prompt_tokens.total, output_tokens.total
//	                                           -> inputTokens, outputTokens;
//	                                              before: prompt_len.mean and
//	                                              output_len.mean × completed,
//	                                              with a note
//	successes.throughput.requests_per_sec, output_tokens_per_sec,
//	  total_tokens_per_sec                     -> the throughputs
//	successes.latency.request_latency          -> latencyMs
//	successes.latency.time_to_first_token      -> ttftMs
//	successes.latency.time_per_output_token    -> tpotMs ((last − first
//	                                              token) / (tokens − 1), vLLM's
//	                                              TPOT)
//	successes.latency.inter_token_latency      -> itlMs (every gap between
//	                                              tokens, vLLM's ITL)
//	  statistics read: mean, median, p90, p95, p99 (× 1000)
//	not kept: normalized_time_per_output_token, schedule_delay,
//	send_duration, achieved_rate, prompt and output length distributions,
//	goodput_metrics, retries, multimodal counts, the failures' latencies.
//
// A run that did not stream reports null time_to_first_token,
// time_per_output_token and inter_token_latency: those stay unknown.
// Refused: no successes or load_summary (not an inference-perf report),
// no requested_rate (the all-stages summary), no way to the duration.
func parseInferencePerf(data []byte) ([]Result, error) {
	return eachObject(data, inferencePerfResult)
}

func inferencePerfResult(o node) (*Result, error) {
	succ, load := o.sub("successes"), o.sub("load_summary")
	if succ.m == nil || load.m == nil {
		return nil, fmt.Errorf("no \"successes\" and \"load_summary\": not an inference-perf lifecycle report")
	}
	if !load.has("requested_rate") && !load.has("concurrency") {
		return nil, fmt.Errorf("load_summary states no requested_rate: this is the summary over every stage, not one run; import one stage_N_lifecycle_metrics.json")
	}
	r := &Result{Client: "inference-perf"}
	m := &r.Metrics
	m.Completed = derefInt(succ.count("count"))
	m.Failed = o.sub("failures").count("count")
	r.Requests = derefInt(load.count("count"))
	r.Rate = load.rate("requested_rate")
	if c := load.count("concurrency"); c != nil {
		m.MaxConcurrency, r.Kind, r.Rate = c, "concurrency", 0
	}
	tp := succ.sub("throughput")
	m.RequestThroughput = tp.fp("requests_per_sec")
	m.OutputThroughput = tp.fp("output_tokens_per_sec")
	m.TotalThroughput = tp.fp("total_tokens_per_sec")
	if err := inferencePerfSpan(r, o); err != nil {
		return nil, err
	}
	inferencePerfTokens(r, succ)
	lat := succ.sub("latency")
	d := dists{}
	for _, f := range []struct{ key, family string }{{"request_latency", "latency"}, {"time_to_first_token", "ttft"},
		{"time_per_output_token", "tpot"}, {"inter_token_latency", "itl"}} {
		inferencePerfDist(d, lat.sub(f.key), f.family)
	}
	if d["latency"] == nil {
		return nil, fmt.Errorf("%s: no request_latency statistics", lat.path)
	}
	d.into(m)
	return r, nil
}

// inferencePerfSpan sets the duration: the report's own span, else the
// span its request rate was computed over (completed / rate).
func inferencePerfSpan(r *Result, o node) error {
	m := &r.Metrics
	if d := o.fp("benchmark_time_seconds"); d != nil && *d > 0 {
		m.Duration = *d
		return nil
	}
	if m.RequestThroughput == nil || *m.RequestThroughput <= 0 || m.Completed == 0 {
		return fmt.Errorf("no benchmark_time_seconds and no requests_per_sec to derive the duration from")
	}
	m.Duration = float64(m.Completed) / *m.RequestThroughput
	r.note(NoteDurationDerived, strconv.Itoa(m.Completed), num(*m.RequestThroughput))
	return nil
}

// inferencePerfTokens takes the totals where the report has them, else
// mean length × completed when that is a whole number (it is, up to the
// float rounding of the mean, for a mean of whole counts).
func inferencePerfTokens(r *Result, succ node) {
	m := &r.Metrics
	m.InputTokens = succ.sub("prompt_tokens").count("total")
	m.OutputTokens = succ.sub("output_tokens").count("total")
	if m.InputTokens != nil || m.OutputTokens != nil {
		return
	}
	in, ok1 := wholeTimes(succ.sub("prompt_len").fp("mean"), m.Completed)
	out, ok2 := wholeTimes(succ.sub("output_len").fp("mean"), m.Completed)
	if ok1 && ok2 {
		m.InputTokens, m.OutputTokens = &in, &out
		r.note(NoteTokensDerived, strconv.Itoa(m.Completed))
	}
}

func wholeTimes(mean *float64, n int) (int, bool) {
	if mean == nil || n == 0 {
		return 0, false
	}
	t := *mean * float64(n)
	w := math.Round(t)
	return int(w), math.Abs(t-w) <= 1e-6*math.Max(1, t)
}

func inferencePerfDist(d dists, s node, family string) {
	if s.m == nil {
		return
	}
	for _, st := range []string{"mean", "median", "p90", "p95", "p99"} {
		if v := s.fp(st); v != nil {
			d.set(family, st, *v*1000)
		}
	}
	if d[family] != nil && d[family].Mean == nil {
		delete(d, family) // a distribution without its mean is not one servelab compares
	}
}
