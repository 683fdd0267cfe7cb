package importer

import (
	"bytes"
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"

	"servelab.dev/execute/record"
	"sigs.k8s.io/yaml"
)

// guidellm prints no cap line when none was set.
var _ = register(Format{Name: "guidellm", Rank: 5, Parse: parseGuideLLM, Sniff: sniffGuideLLM, CapUnsaid: true})

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
// incomplete, total). The request counts sit beside "metrics" up to 0.3
// and inside it from 0.4 on. guidellm writes the same report as YAML when
// asked to (benchmarks.yaml), which is read alike. Each benchmark (one per
// rate of a sweep) is one entry.
//
//	key (per benchmark)                          -> record field
//	metrics.request_totals.successful (≤0.3:
//	  request_totals.successful)                 -> completed
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
// Refused: no "benchmarks" list, a benchmark without metrics, request
// totals or duration, or without request_latency, time_to_first_token_ms
// and inter_token_latency_ms.
func parseGuideLLM(data []byte) ([]Result, error) {
	data, err := guidellmJSON(data)
	if err != nil {
		return nil, err
	}
	objs, err := decodeObjects(data)
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
		bo, err := top.item("benchmarks", i, b)
		if err != nil {
			return nil, entryErr(i, len(benches), err)
		}
		r, err := guidellmResult(bo, model)
		if e := top.err(); e != nil {
			err = e
		}
		if err != nil {
			return nil, entryErr(i, len(benches), err)
		}
		out = append(out, *r)
	}
	return out, nil
}

func guidellmResult(b node, model string) (*Result, error) {
	mets := b.sub("metrics")
	if mets.m == nil {
		return nil, fmt.Errorf("%s: no \"metrics\"", b.path)
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
	if err := guidellmTotals(r, b, mets); err != nil {
		return nil, err
	}
	m.Duration = guidellmDuration(b)
	if m.Duration <= 0 {
		return nil, fmt.Errorf("%s: no benchmark duration (duration or start_time/end_time)", b.path)
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
		return nil, fmt.Errorf("%s: missing request_latency, time_to_first_token_ms or inter_token_latency_ms", mets.path)
	}
	d.into(m)
	r.note(NoteTPOTIsITL)
	return r, nil
}

// guidellmTotals reads the request counts: under metrics from guidellm
// 0.4 on, beside metrics in 0.2 and 0.3 (GenerativeBenchmark.request_totals
// at v0.3.0). A file with neither does not say how many requests
// completed, which no figure can be read without.
func guidellmTotals(r *Result, b, mets node) error {
	totals := mets.sub("request_totals")
	if totals.m == nil {
		totals = b.sub("request_totals")
	}
	if totals.m == nil {
		return fmt.Errorf("%s: no request_totals (neither under metrics, as guidellm 0.4 on writes it, nor beside metrics, as 0.2 and 0.3 do)", b.path)
	}
	m := &r.Metrics
	m.Completed = derefInt(totals.count("successful"))
	m.Failed = totals.count("errored")
	if inc := derefInt(totals.count("incomplete")); inc > 0 {
		r.note(NoteIncomplete, strconv.Itoa(inc))
	}
	return nil
}

// guidellmRates takes guidellm's own throughputs where the file has
// them, else recomputes totals over the duration and says so.
func guidellmRates(r *Result, b, mets node) {
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
func maxOf(dist node) *float64 {
	for _, g := range []string{"total", "successful"} {
		if v := dist.sub(g).fp("max"); v != nil {
			return v
		}
	}
	return nil
}

// guidellmStrategy reads the load: kind, rate, and the streams of a
// concurrent strategy (guidellm 0.5 writes them as config.strategy.streams).
func guidellmStrategy(b node) (string, float64, int) {
	st := b.sub("config").sub("strategy")
	if st.m == nil {
		st = b.sub("args").sub("strategy")
	}
	kind := st.str("type_")
	rate := st.rate("rate")
	switch kind {
	case "concurrent":
		return "concurrency", 0, derefInt(st.count("streams"))
	case "synchronous":
		return "concurrency", 0, 1
	case "throughput":
		return "concurrency", 0, derefInt(st.count("max_concurrency"))
	case "constant", "async":
		return "constant", rate, derefInt(st.count("max_concurrency"))
	case "poisson":
		return "poisson", rate, derefInt(st.count("max_concurrency"))
	}
	return "", 0, 0
}

func guidellmDuration(b node) float64 {
	if d, ok := b.num("duration"); ok && d > 0 {
		return d
	}
	for _, o := range []node{b, b.sub("run_stats")} {
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
func groupSum(mets node, name string) *int {
	return mets.sub(name).sub("successful").count("total_sum")
}

// guidellmDist reads the successful group of a distribution metric,
// scaled to milliseconds.
func guidellmDist(d dists, mets node, name, family string, scale float64) bool {
	g := mets.sub(name).sub("successful")
	mean := g.fp("mean")
	if mean == nil {
		return false
	}
	d.set(family, "mean", *mean*scale)
	set := func(stat string, v *float64) {
		if v != nil {
			d.set(family, stat, *v*scale)
		}
	}
	set("median", g.fp("median"))
	set("std", g.fp("std_dev"))
	p := g.sub("percentiles")
	for _, k := range []string{"p50", "p90", "p95", "p99"} {
		set(k, p.fp(k))
	}
	return true
}

// findString looks for the first string field named one of names, up to
// depth levels down, in field order of a sorted walk (deterministic).
func findString(o node, depth int, names ...string) string {
	if o.m == nil || depth < 0 {
		return ""
	}
	for _, n := range names {
		if s, ok := o.m[n].(string); ok && s != "" && !strings.Contains(s, "://") {
			return s
		}
	}
	for _, k := range slices.Sorted(maps.Keys(o.m)) {
		if sub, ok := o.m[k].(map[string]any); ok {
			if s := findString(node{m: sub, path: o.name(k), bad: o.bad}, depth-1, names...); s != "" {
				return s
			}
		}
	}
	return ""
}

// maxYAML bounds the YAML a guidellm import converts: the conversion
// holds the whole document several times over, and a report of one run is
// far smaller.
const maxYAML = 32 << 20

// guidellmJSON is data as JSON: guidellm writes the same report as
// benchmarks.yaml when asked for YAML.
func guidellmJSON(data []byte) ([]byte, error) {
	trimmed := bytes.TrimLeft(data, " \t\r\n")
	if len(trimmed) == 0 || trimmed[0] == '{' || trimmed[0] == '[' {
		return data, nil
	}
	if len(data) > maxYAML {
		return nil, fmt.Errorf("a YAML report of %d MiB, above the %d MiB a YAML import converts: export the report as JSON (benchmarks.json)", len(data)>>20, maxYAML>>20)
	}
	out, err := yaml.YAMLToJSON(data)
	if err != nil {
		return nil, fmt.Errorf("neither JSON nor YAML guidellm writes: %w", err)
	}
	return out, nil
}
