package importer

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"servelab.dev/execute/record"
)

// obj is a decoded JSON object with numbers kept as json.Number.
type obj map[string]any

// decodeObjects reads one JSON value, or several separated by newlines
// (vllm --append-result, SGLang JSONL).
func decodeObjects(data []byte) ([]obj, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var out []obj
	for {
		var o obj
		err := dec.Decode(&o)
		if err != nil && err.Error() == "EOF" {
			break
		}
		if err != nil {
			return nil, jsonErr(data, dec, err)
		}
		out = append(out, o)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no JSON object in the file")
	}
	return out, nil
}

func jsonErr(data []byte, dec *json.Decoder, err error) error {
	end := int64(len(bytes.TrimRight(data, " \t\r\n")))
	var se *json.SyntaxError
	if err.Error() == "unexpected EOF" || errors.As(err, &se) && se.Offset >= end {
		return fmt.Errorf("truncated JSON: the file ends inside a value (%d bytes)", len(data))
	}
	off := int(dec.InputOffset())
	if se != nil {
		off = int(se.Offset)
	}
	line := 1 + bytes.Count(data[:min(off, len(data))], []byte("\n"))
	return fmt.Errorf("line %d: %w", line, err)
}

// num returns the number at key: a JSON number, or a string such as
// "inf" (vLLM writes request_rate that way).
func (o obj) num(key string) (float64, bool) {
	switch v := o[key].(type) {
	case json.Number:
		f, err := v.Float64()
		return f, err == nil
	case string:
		switch strings.ToLower(v) {
		case "inf", "infinity", "+inf":
			return math.Inf(1), true
		}
		f, err := strconv.ParseFloat(v, 64)
		return f, err == nil
	}
	return 0, false
}

func (o obj) str(key string) string {
	s, _ := o[key].(string)
	return s
}

func (o obj) sub(key string) obj {
	switch v := o[key].(type) {
	case map[string]any:
		return obj(v)
	case obj:
		return v
	}
	return nil
}

func (o obj) list(key string) []any {
	l, _ := o[key].([]any)
	return l
}

func (o obj) intp(key string) *int {
	v, ok := o.num(key)
	if !ok || math.IsInf(v, 0) {
		return nil
	}
	n := int(v)
	return &n
}

func (o obj) fp(key string) *float64 {
	v, ok := o.num(key)
	if !ok || math.IsInf(v, 0) || math.IsNaN(v) {
		return nil
	}
	return record.F(v)
}

// latencyKeys reads {stat}_{name}_ms keys (vLLM and SGLang naming).
func (o obj) latencyKeys(d dists, family, name string) bool {
	found := false
	for _, stat := range []string{"mean", "median", "std", "p50", "p90", "p95", "p99"} {
		if v, ok := o.num(stat + "_" + name + "_ms"); ok && !math.IsInf(v, 0) && !math.IsNaN(v) {
			d.set(family, stat, v)
			found = true
		}
	}
	return found
}

var _ = register(Format{Name: "vllm-json", Rank: 2, Parse: parseVLLMJSON})

// vllm-json is `vllm bench serve --save-result` (one JSON object) or
// --append-result (one per line), read from vllm-project/vllm
// vllm/benchmarks/serve.py at commit
// 009e6d4a1cd6ba3fb2a9fc00f4ec06f5297232a1 (result_json in main and
// result in benchmark):
//
//	key                                  -> record field
//	completed                            -> completed
//	failed                               -> failed (absent in old versions:
//	                                        derived from num_prompts when it
//	                                        is there, with a note; else unknown)
//	num_prompts                          -> the request count Check compares
//	duration                             -> duration
//	total_input_tokens, total_output_tokens -> inputTokens, outputTokens
//	request_throughput, output_throughput, total_token_throughput
//	                                     -> the throughputs of the same names
//	max_output_tokens_per_s              -> peakOutputThroughput
//	max_concurrent_requests              -> peakConcurrency
//	max_concurrency                      -> maxConcurrency (null: no cap)
//	request_rate                         -> the rate; "inf" = all at once
//	burstiness 1.0 with a finite rate    -> load kind poisson
//	model_id, backend                    -> model (checked), backend
//	dataset_name (written with --metadata) -> dataset (checked)
//	{mean,median,std,p50,p90,p95,p99}_{ttft,tpot,itl,e2el}_ms
//	                                     -> ttftMs, tpotMs, itlMs, latencyMs
//	not kept: request_goodput, rtfx, per-request lists (ttfts, itls, ...),
//	spec_decode_*, diffusion_*, probe_*, other percentiles.
//
// Refused: no "completed" (not a vLLM result), TTFT, TPOT or ITL
// statistics missing, and figures a record cannot hold (negative,
// non-finite).
func parseVLLMJSON(data []byte) ([]Result, error) {
	objs, err := decodeObjects(data)
	if err != nil {
		return nil, err
	}
	var out []Result
	for i, o := range objs {
		r, err := vllmResult(o)
		if err != nil {
			return nil, entryErr(i, len(objs), err)
		}
		out = append(out, *r)
	}
	return out, nil
}

func vllmResult(o obj) (*Result, error) {
	r := &Result{Client: "vllm-bench", Model: o.str("model_id"), Backend: o.str("backend"), Dataset: o.str("dataset_name")}
	if _, ok := o["completed"]; !ok {
		return nil, fmt.Errorf("no \"completed\": not a vllm bench serve result")
	}
	m := &r.Metrics
	if err := fillCounts(o, m); err != nil {
		return nil, err
	}
	r.Requests = derefInt(o.intp("num_prompts"))
	if m.Failed == nil && r.Requests >= m.Completed && r.Requests > 0 {
		m.Failed = record.I(r.Requests - m.Completed)
		r.note(NoteFailedDerived, strconv.Itoa(r.Requests), strconv.Itoa(m.Completed))
	}
	m.TotalThroughput = o.fp("total_token_throughput")
	m.MaxConcurrency = o.intp("max_concurrency")
	if v, ok := o["max_concurrency"]; ok && v == nil {
		r.NoCap = true
	}
	r.Rate = o.rate("request_rate")
	if b, ok := o.num("burstiness"); ok && b == 1 && r.Rate > 0 && !math.IsInf(r.Rate, 1) {
		r.Kind = "poisson"
	}
	d := dists{}
	o.latencyKeys(d, "latency", "e2el")
	for _, f := range []string{"ttft", "tpot", "itl"} {
		if !o.latencyKeys(d, f, f) {
			return nil, fmt.Errorf("missing %s statistics (mean_%s_ms ...)", strings.ToUpper(f), f)
		}
	}
	d.into(m)
	return r, nil
}

// rate reads a request rate: a number, or inf for all at once.
func (o obj) rate(key string) float64 {
	v, ok := o.num(key)
	if !ok || v <= 0 || math.IsNaN(v) {
		return 0
	}
	return v
}

// fillCounts reads the fields vLLM and SGLang name alike; a run needs
// its duration.
func fillCounts(o obj, m *record.Metrics) error {
	m.Completed = derefInt(o.intp("completed"))
	m.Failed = o.intp("failed")
	d, ok := o.num("duration")
	if !ok || d <= 0 || math.IsInf(d, 0) || math.IsNaN(d) {
		return fmt.Errorf("no \"duration\" (the run's length in seconds)")
	}
	m.Duration = d
	m.InputTokens = o.intp("total_input_tokens")
	m.OutputTokens = o.intp("total_output_tokens")
	m.RequestThroughput = o.fp("request_throughput")
	m.OutputThroughput = o.fp("output_throughput")
	m.PeakOutputThroughput = o.fp("max_output_tokens_per_s")
	m.PeakConcurrency = o.fp("max_concurrent_requests")
	return nil
}

func derefInt(p *int) int {
	if p == nil {
		return 0
	}
	return *p
}

var _ = register(Format{Name: "sglang-jsonl", Rank: 4, Parse: parseSGLang})

// sglang-jsonl is the JSONL `python -m sglang.bench_serving` appends to
// its --output-file, one object per run, read from sgl-project/sglang
// python/sglang/bench_serving.py at commit
// 0033168f0f58b2bc05aa0273bd475d9c01bafb1c and, for the later layout
// (server_info, total_throughput, p90_e2e_latency_ms, peaks), the same
// file in fzyzcjy/sglang at commit 0c69f5baf703987ee63e5c44ca397d6ffa26d4c0.
// It writes bare Infinity for an unset rate.
//
//	key                                  -> record field
//	completed                            -> completed (no failed count is
//	                                        written: failed stays unknown)
//	duration, total_input_tokens, total_output_tokens -> as vllm-json
//	request_throughput, output_throughput -> the throughputs
//	total_throughput                     -> totalThroughput (absent in old
//	                                        versions: input plus output tokens
//	                                        over the duration, with a note)
//	max_output_tokens_per_s, max_concurrent_requests -> the peaks
//	max_concurrency                      -> maxConcurrency (null: no cap)
//	request_rate                         -> the rate; Infinity = all at once,
//	                                        finite = Poisson arrivals
//	dataset_name, random_input_len, random_output_len -> dataset (checked)
//	server_info.model_path, backend      -> model (checked), engine sglang
//	{mean,median,std,p90,p99}_e2e_latency_ms -> latencyMs
//	{mean,median,std,p95,p99}_{ttft,tpot,itl}_ms -> ttftMs, tpotMs, itlMs
//	not kept: input_throughput, total_output_tokens_retokenized,
//	concurrency (the mean, Σ latency / duration), accept_length, tag,
//	sharegpt_output_len, random_range_ratio.
//
// Refused: no "completed", no latency statistics at all.
func parseSGLang(data []byte) ([]Result, error) {
	objs, err := decodeObjects(quoteNonFinite(data))
	if err != nil {
		return nil, err
	}
	var out []Result
	for i, o := range objs {
		r, err := sglangResult(o)
		if err != nil {
			return nil, entryErr(i, len(objs), err)
		}
		out = append(out, *r)
	}
	return out, nil
}

func sglangResult(o obj) (*Result, error) {
	if _, ok := o["completed"]; !ok {
		return nil, fmt.Errorf("no \"completed\": not an SGLang bench_serving result")
	}
	r := &Result{Client: "sglang-bench", Backend: o.str("backend"), Dataset: o.str("dataset_name")}
	if si := o.sub("server_info"); si != nil {
		r.Engine = "sglang"
		r.Model = si.str("model_path")
	}
	if strings.HasPrefix(r.Backend, "sglang") {
		r.Engine = "sglang"
	}
	if strings.HasPrefix(r.Dataset, "random") {
		r.RandomIn, r.RandomOut = derefInt(o.intp("random_input_len")), derefInt(o.intp("random_output_len"))
	}
	m := &r.Metrics
	if err := fillCounts(o, m); err != nil {
		return nil, err
	}
	m.TotalThroughput = o.fp("total_throughput")
	if t := tokenRate(m); m.TotalThroughput == nil && t != nil {
		m.TotalThroughput = t
		r.note(NoteTotalDerived)
	}
	m.MaxConcurrency = o.intp("max_concurrency")
	if v, ok := o["max_concurrency"]; ok && v == nil {
		r.NoCap = true
	}
	r.Rate = o.rate("request_rate")
	if r.Rate > 0 && !math.IsInf(r.Rate, 1) {
		r.Kind = "poisson"
	}
	d := dists{}
	o.latencyKeys(d, "latency", "e2e_latency")
	have := false
	for _, f := range []string{"ttft", "tpot", "itl"} {
		have = o.latencyKeys(d, f, f) || have
	}
	if !have {
		return nil, fmt.Errorf("no latency statistics (*_ttft_ms, *_tpot_ms, *_itl_ms)")
	}
	d.into(m)
	return r, nil
}

// quoteNonFinite turns bare Infinity, -Infinity and NaN outside strings
// into the strings "inf", "-inf" and "nan".
func quoteNonFinite(data []byte) []byte {
	var out bytes.Buffer
	inStr, esc := false, false
	for i := 0; i < len(data); i++ {
		c := data[i]
		if inStr {
			out.WriteByte(c)
			switch {
			case esc:
				esc = false
			case c == '\\':
				esc = true
			case c == '"':
				inStr = false
			}
			continue
		}
		if c == '"' {
			inStr = true
			out.WriteByte(c)
			continue
		}
		if lit, rep := nonFinite(data[i:]); lit > 0 {
			out.WriteString(rep)
			i += lit - 1
			continue
		}
		out.WriteByte(c)
	}
	return out.Bytes()
}

func nonFinite(b []byte) (int, string) {
	for _, lit := range []struct{ s, rep string }{{"-Infinity", `"-inf"`}, {"Infinity", `"inf"`}, {"NaN", `"nan"`}} {
		if bytes.HasPrefix(b, []byte(lit.s)) {
			return len(lit.s), lit.rep
		}
	}
	return 0, ""
}
