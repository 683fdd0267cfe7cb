package importer

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"servelab.dev/execute/record"
)

// decodeObjects reads one JSON object, or several separated by newlines
// (vllm --append-result, SGLang JSONL). Bare NaN and Infinity, which
// Python's json module writes, are read as the values they stand for.
func decodeObjects(data []byte) ([]node, error) {
	data = quoteNonFinite(data)
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var out []node
	for {
		var v any
		err := dec.Decode(&v)
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, jsonErr(data, dec, err)
		}
		m, ok := v.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("value %d of the file is %s, not a JSON object: not a benchmark result", len(out)+1, kindOf(v))
		}
		out = append(out, newNode(m, ""))
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no JSON object in the file (it is empty or blank)")
	}
	return out, nil
}

func jsonErr(data []byte, dec *json.Decoder, err error) error {
	end := int64(len(bytes.TrimRight(data, " \t\r\n")))
	var se *json.SyntaxError
	if errors.Is(err, io.ErrUnexpectedEOF) || errors.As(err, &se) && se.Offset >= end {
		return fmt.Errorf("truncated JSON: the file ends inside a value after %d bytes; copy or export it again, whole", len(data))
	}
	off := dec.InputOffset()
	if se != nil {
		off = se.Offset
	}
	line := 1 + bytes.Count(data[:min(int(off), len(data))], []byte("\n"))
	return fmt.Errorf("line %d (byte %d): %w: not valid JSON as the tool writes it; export the file again from the tool", line, off, err)
}

// latencyKeys reads {stat}_{name}_ms keys (vLLM and SGLang naming).
func (n node) latencyKeys(d dists, family, name string) bool {
	found := false
	for _, stat := range []string{"mean", "median", "std", "p50", "p90", "p95", "p99"} {
		if v := n.fp(stat + "_" + name + "_ms"); v != nil {
			d.set(family, stat, *v)
			found = true
		}
	}
	return found
}

var _ = register(Format{Name: "vllm-json", Rank: 2, Parse: parseVLLMJSON, Sniff: sniffVLLMJSON, RatesOverDuration: true})

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
	return eachObject(data, vllmResult)
}

// eachObject reads every object of a JSON or JSONL file with read; a
// field of the wrong type anywhere in an entry refuses the file.
func eachObject(data []byte, read func(node) (*Result, error)) ([]Result, error) {
	objs, err := decodeObjects(data)
	if err != nil {
		return nil, err
	}
	return eachNode(objs, read)
}

// eachNode reads every decoded object with read, as eachObject does.
func eachNode(objs []node, read func(node) (*Result, error)) ([]Result, error) {
	var out []Result
	for i, o := range objs {
		r, err := read(o)
		if e := o.err(); e != nil {
			err = e // the damaged field, rather than what it left missing
		}
		if err != nil {
			return nil, entryErr(i, len(objs), err)
		}
		out = append(out, *r)
	}
	return out, nil
}

func vllmResult(o node) (*Result, error) {
	r := &Result{Client: "vllm-bench", Model: o.str("model_id"), Backend: o.str("backend"), Dataset: o.str("dataset_name")}
	if !o.has("completed") {
		return nil, fmt.Errorf("no \"completed\": not a vllm bench serve result")
	}
	m := &r.Metrics
	if err := fillCounts(o, m); err != nil {
		return nil, err
	}
	r.Requests = derefInt(o.count("num_prompts"))
	if m.Failed == nil && r.Requests >= m.Completed && r.Requests > 0 {
		m.Failed = record.I(r.Requests - m.Completed)
		r.note(NoteFailedDerived, strconv.Itoa(r.Requests), strconv.Itoa(m.Completed))
	}
	m.TotalThroughput = o.fp("total_token_throughput")
	readCap(o, r)
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

// readCap reads max_concurrency: a cap, or null for none.
func readCap(o node, r *Result) {
	r.Metrics.MaxConcurrency = o.count("max_concurrency")
	if v, ok := o.m["max_concurrency"]; ok && v == nil {
		r.NoCap = true
	}
}

// fillCounts reads the fields vLLM and SGLang name alike; a run needs
// its duration.
func fillCounts(o node, m *record.Metrics) error {
	m.Completed = derefInt(o.count("completed"))
	m.Failed = o.count("failed")
	d := o.fp("duration")
	if d == nil || *d <= 0 {
		return fmt.Errorf("no \"duration\" (the run's length in seconds)")
	}
	m.Duration = *d
	m.InputTokens = o.count("total_input_tokens")
	m.OutputTokens = o.count("total_output_tokens")
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

var _ = register(Format{Name: "sglang-jsonl", Rank: 4, Parse: parseSGLang, Sniff: sniffSGLangJSON, RatesOverDuration: true})

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
	return eachObject(data, sglangResult)
}

func sglangResult(o node) (*Result, error) {
	if !o.has("completed") {
		return nil, fmt.Errorf("no \"completed\": not an SGLang bench_serving result")
	}
	r := &Result{Client: "sglang-bench", Backend: o.str("backend"), Dataset: o.str("dataset_name")}
	if si := o.sub("server_info"); si.m != nil {
		r.Engine = "sglang"
		r.Model = si.str("model_path")
	}
	if strings.HasPrefix(r.Backend, "sglang") {
		r.Engine = "sglang"
	}
	if strings.HasPrefix(r.Dataset, "random") {
		r.RandomIn, r.RandomOut = derefInt(o.count("random_input_len")), derefInt(o.count("random_output_len"))
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
	readCap(o, r)
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

// quoteNonFinite turns bare NaN, Infinity and -Infinity outside strings
// into strings no tool writes (litNaN, litInf, litNegInf), so that the
// decoder reads the file and node can tell them from text.
func quoteNonFinite(data []byte) []byte {
	if !bytes.Contains(data, []byte("NaN")) && !bytes.Contains(data, []byte("Infinity")) {
		return data
	}
	out := make([]byte, 0, len(data)+64)
	inStr, esc := false, false
	for i := 0; i < len(data); i++ {
		c := data[i]
		switch {
		case inStr:
			inStr = esc || c != '"'
			esc = !esc && c == '\\'
		case c == '"':
			inStr = true
		default:
			if lit, rep := nonFinite(data[i:]); lit > 0 {
				out = append(out, rep...)
				i += lit - 1
				continue
			}
		}
		out = append(out, c)
	}
	return out
}

func nonFinite(b []byte) (int, string) {
	for _, lit := range []struct{ s, rep string }{{"-Infinity", `"\u0000-Infinity"`}, {"Infinity", `"\u0000Infinity"`}, {"NaN", `"\u0000NaN"`}} {
		if bytes.HasPrefix(b, []byte(lit.s)) {
			return len(lit.s), lit.rep
		}
	}
	return 0, ""
}
