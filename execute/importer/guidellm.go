package importer

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"

	"servelab.dev/execute/record"
)

// guidellm prints no cap line when none was set.
var _ = register(Format{Name: "guidellm", Rank: 5, Parse: parseGuideLLM, CapUnsaid: true})

// guidellm is guidellm's benchmarks.json, read from vllm-project/guidellm
// at v0.3.0 (ad9513fd5f8993123e9d1648cd20f532f199c72c,
// src/guidellm/benchmark/benchmark.py), v0.5.0
// (adfa108ab1df6f2a1452d1037a71817a493303a8,
// src/guidellm/benchmark/schemas/generative/{benchmark,metrics}.py) and
// main (ee7a77457ba668b4b5ccb40f110518829893b36a,
// src/guidellm/benchmark/schemas/{benchmark,metrics}.py,
// src/guidellm/schemas/statistics.py). The layouts differ by version
// (≤0.3: benchmarks[].args/run_stats; 0.4: top-level args; 0.5-0.6:
// metadata v1; 0.7: metadata v2 and config); every one keeps
// per-benchmark "metrics" with status groups (successful, errored,
// incomplete, total). Each benchmark (one per rate of a sweep) is one
// entry.
//
//	key (per benchmark)                          -> record field
//	metrics.request_totals.successful            -> completed
//	metrics.request_totals.errored               -> failed
//	metrics.request_totals.incomplete            -> a note (not counted)
//	duration, else end_time − start_time, else
//	  run_stats.end_time − run_stats.start_time  -> duration (0.4+: the
//	                                                measured window)
//	warmup_duration, cooldown_duration           -> the window note
//	metrics.prompt_token_count.successful.total_sum -> inputTokens
//	metrics.output_token_count.successful.total_sum -> outputTokens
//	metrics.requests_per_second.successful.mean  -> requestThroughput
//	metrics.output_tokens_per_second.successful.mean -> outputThroughput
//	metrics.tokens_per_second.successful.mean    -> totalThroughput
//	  (guidellm's own rates: events over the time they span, which is
//	  what guidellm reports; totals over "duration" would count whole
//	  requests that straddle the window's edges against the window only,
//	  and come out high. A version without them gets totals over the
//	  duration, with a note.)
//	metrics.request_concurrency.{total,successful}.max -> peakConcurrency
//	metrics.request_latency.successful (s)       -> latencyMs (× 1000)
//	metrics.time_to_first_token_ms.successful    -> ttftMs
//	metrics.inter_token_latency_ms.successful    -> tpotMs (see the package
//	                                                comment; itlMs stays absent)
//	  statistics read: mean, median, std_dev, percentiles.p50/p90/p95/p99
//	config.strategy (or args.strategy): type_ concurrent/streams,
//	  synchronous, throughput/max_concurrency, constant|async/rate,
//	  poisson/rate                               -> load kind, rate, cap
//	args.model, config.backend.model, backend_model -> model (checked)
//	not kept: time_per_output_token_ms (latency / tokens, a different
//	figure), time_to_first_output_token_ms, iteration and per-modality
//	metrics, the errored and incomplete groups' distributions, requests.
//
// Refused: no "benchmarks" list, a benchmark without metrics or
// duration, or without request_latency, time_to_first_token_ms and
// inter_token_latency_ms.
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
	m.Failed = totals.intp("errored")
	if inc := derefInt(totals.intp("incomplete")); inc > 0 {
		r.note(NoteIncomplete, strconv.Itoa(inc))
	}
	m.Duration = guidellmDuration(b)
	if m.Duration <= 0 {
		return nil, fmt.Errorf("no benchmark duration (duration or start_time/end_time)")
	}
	m.InputTokens = groupSum(mets, "prompt_token_count")
	m.OutputTokens = groupSum(mets, "output_token_count")
	guidellmRates(r, b, mets)
	if c := maxOf(mets.sub("request_concurrency")); c != nil {
		m.PeakConcurrency = c
	}
	d := dists{}
	if !guidellmDist(d, mets, "request_latency", "latency", 1000) ||
		!guidellmDist(d, mets, "time_to_first_token_ms", "ttft", 1) ||
		!guidellmDist(d, mets, "inter_token_latency_ms", "tpot", 1) {
		return nil, fmt.Errorf("missing request_latency, time_to_first_token_ms or inter_token_latency_ms")
	}
	d.into(m)
	r.note(NoteTPOTIsITL)
	return r, nil
}

// guidellmRates takes guidellm's own throughputs where the file has
// them, else recomputes totals over the duration and says so.
func guidellmRates(r *Result, b, mets obj) {
	m := &r.Metrics
	mean := func(name string) *float64 { return mets.sub(name).sub("successful").fp("mean") }
	m.RequestThroughput = mean("requests_per_second")
	m.OutputThroughput = mean("output_tokens_per_second")
	m.TotalThroughput = mean("tokens_per_second")
	if m.RequestThroughput != nil && m.OutputThroughput != nil {
		warm, _ := b.num("warmup_duration")
		cool, _ := b.num("cooldown_duration")
		r.note(NoteWindow, num(round3(warm)), num(round3(cool)))
		return
	}
	m.RequestThroughput = record.F(float64(m.Completed) / m.Duration)
	m.OutputThroughput = nil
	if out, ok := record.Count(m.OutputTokens); ok {
		m.OutputThroughput = record.F(float64(out) / m.Duration)
	}
	m.TotalThroughput = tokenRate(m)
	r.note(NoteRecomputed, num(round3(m.Duration)))
}

func round3(v float64) float64 { return math.Round(v*1000) / 1000 }

// maxOf is the largest value of a distribution, from its total group,
// else its successful one.
func maxOf(dist obj) *float64 {
	for _, g := range []string{"total", "successful"} {
		if v := dist.sub(g).fp("max"); v != nil {
			return v
		}
	}
	return nil
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

// groupSum is the successful group's total_sum of a count metric; nil
// when the file does not have it.
func groupSum(mets obj, name string) *int {
	return mets.sub(name).sub("successful").intp("total_sum")
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
