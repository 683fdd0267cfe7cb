package importer

import (
	"bytes"
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"

	"servelab.dev/execute/record"
)

// Printed result blocks.
//
// vllm-text is the block `vllm bench serve` prints, read from
// vllm-project/vllm vllm/benchmarks/serve.py at commit
// 009e6d4a1cd6ba3fb2a9fc00f4ec06f5297232a1 (function benchmark; older
// benchmarks/benchmark_serving.py prints the same labels, some with
// other spellings, all accepted below). Before the block vLLM prints
// "Traffic request rate: R" (inf when unset), "Burstiness factor: B
// (Poisson process)" and "Maximum request concurrency: N" (None when
// unset): a log of a sweep holds one such preamble and block per run,
// and each block is one entry.
//
//	label                                  -> record field
//	Successful requests                    -> completed
//	Failed requests                        -> failed (absent: unknown)
//	Maximum request concurrency            -> maxConcurrency (the cap; printed
//	                                          only when set; "None" = no cap)
//	Request rate configured (RPS)          -> the rate Check compares (printed
//	                                          only when finite)
//	Traffic request rate (preamble)        -> the rate; "inf" = all at once
//	Burstiness factor 1.0                  -> load kind poisson (finite rate)
//	Benchmark duration (s)                 -> duration
//	Total input tokens                     -> inputTokens
//	Total generated tokens                 -> outputTokens
//	Request throughput (req/s)             -> requestThroughput
//	Output token throughput (tok/s)        -> outputThroughput
//	Peak output token throughput (tok/s)   -> peakOutputThroughput
//	Peak concurrent requests               -> peakConcurrency
//	Total token throughput (tok/s)         -> totalThroughput
//	{Mean,Median,Std,P50,P90,P95,P99} {TTFT,TPOT,ITL,E2EL} (ms)
//	                                       -> ttftMs, tpotMs, itlMs, latencyMs
//	Mean/Median/P.. Latency(s)             -> latencyMs (× 1000; servelab's own
//	                                          report blocks and seed 000)
//	not kept: Request goodput, RTFx, P99.9 and other percentiles; the
//	client-queue, probe, speculative-decoding and diffusion sections'
//	lines are named in a note when present.
//
// sglang-text is the block `python -m sglang.bench_serving` prints, read
// from sgl-project/sglang python/sglang/bench_serving.py at commit
// 0033168f0f58b2bc05aa0273bd475d9c01bafb1c and, for the later layout
// with peaks and P90 E2E latency, the same file in the fork
// fzyzcjy/sglang at commit 0c69f5baf703987ee63e5c44ca397d6ffa26d4c0.
// It has no failed count (failed stays unknown) and prints its load in
// the block:
//
//	Backend                                -> backend (sglang* proves the engine)
//	Traffic request rate                   -> the rate; "inf" = all at once,
//	                                          finite = Poisson arrivals
//	Max request concurrency                -> maxConcurrency; "not set" = no cap
//	Successful requests, Benchmark duration (s), Total input tokens,
//	Total generated tokens, Request throughput, Output token throughput,
//	Peak output token throughput, Peak concurrent requests
//	                                       -> as vllm-text
//	Total token throughput (tok/s), and the older "Total throughput (tok/s)"
//	                                       -> totalThroughput
//	{Mean,Median,P90,P99} E2E Latency (ms) -> latencyMs
//	{Mean,Median,P99} TTFT, TPOT; {Mean,Median,P95,P99} ITL (ms)
//	                                       -> ttftMs, tpotMs, itlMs
//	not kept: Total generated tokens (retokenized), Total input text/vision
//	tokens, Input token throughput (input tokens over the duration),
//	Concurrency (mean, Σ latency / duration), Accept length, Max ITL.
//
// Refused: a file with no block, a block without its closing line, a
// line that is not "label: value", a value that is not a number, and a
// block without the figures a run needs (counts, duration, tokens and
// the latency sections named in textFormat.sections).

// The printed blocks: vLLM's names no client and may print the peak as
// the cap; neither prints a line when no cap was set.
var (
	_ = register(Format{Name: "vllm-text", Rank: 1, Parse: func(d []byte) ([]Result, error) { return parseText(d, vllmText) },
		Sniff:     sniffVLLMText,
		AnyClient: true, PeakAsCap: true, CapUnsaid: true})
	_ = register(Format{Name: "sglang-text", Rank: 3, Parse: func(d []byte) ([]Result, error) { return parseText(d, sglangText) },
		Sniff:     sniffSGLangText,
		CapUnsaid: true})
)

// textFormat is what differs between the vLLM and the SGLang block.
type textFormat struct {
	name, client string
	// sections must each have a Mean line.
	sections []struct{ name, family string }
}

var vllmText = textFormat{name: "vllm-text", client: "vllm-bench", sections: []struct{ name, family string }{
	{"Time to First Token", "ttft"},
	{"Time per Output Token (excl. 1st token)", "tpot"},
	{"Inter-token Latency", "itl"},
}}

var sglangText = textFormat{name: "sglang-text", client: "sglang-bench", sections: []struct{ name, family string }{
	{"Time to First Token", "ttft"},
	{"Inter-Token Latency", "itl"},
}}

// statRE matches a latency line's label: "Mean TTFT (ms)", "P99 ITL
// (ms)", "Median Latency(s)" (seed 000's extra section), "Mean E2EL (ms)",
// SGLang's "Mean E2E Latency (ms)".
var statRE = regexp.MustCompile(`^(Mean|Median|Std|P[0-9.]+) (TTFT|TPOT|ITL|E2EL|E2E Latency|Latency) ?\((ms|s)\)$`)

var families = map[string]string{"TTFT": "ttft", "TPOT": "tpot", "ITL": "itl", "E2EL": "latency", "E2E Latency": "latency", "Latency": "latency"}

// parseText reads every result block of a console log, in any of its
// label variants, also when pasted into a table (leading "| ") or with
// single spaces instead of column padding.
func parseText(data []byte, f textFormat) ([]Result, error) {
	blocks, err := textBlocks(data)
	if err != nil {
		return nil, err
	}
	var out []Result
	for i, b := range blocks {
		r, err := f.block(b)
		if err != nil && len(blocks) > 1 {
			return nil, entryErr(i, len(blocks), fmt.Errorf("block at line %d: %w", b.start, err))
		}
		if err != nil {
			return nil, err
		}
		out = append(out, *r)
	}
	return out, nil
}

func (f textFormat) block(b block) (*Result, error) {
	r := &Result{Client: f.client, Precision: 0.01}
	for _, ln := range b.preamble {
		r.preambleLine(ln)
	}
	d := dists{}
	have := map[string]bool{}
	for _, ln := range b.lines {
		label, val, ok := strings.Cut(ln.text, ":")
		if !ok {
			return nil, fmt.Errorf("line %d: %q is not `label: value`", ln.no, ln.text)
		}
		label, val = strings.TrimSpace(label), strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(val), "(!)"))
		if err := r.textLine(d, have, label, val); err != nil {
			return nil, fmt.Errorf("line %d: %s: %w", ln.no, label, err)
		}
	}
	for _, s := range f.sections {
		if !have[s.family+".mean"] {
			return nil, fmt.Errorf("missing section %q (no Mean %s line)", s.name, strings.ToUpper(s.family))
		}
	}
	// SGLang prints 0.00 for every ITL statistic when it saw no gap
	// between chunks (a response that came in one piece): no measurement,
	// so the ITL stays unknown rather than a latency of 0.
	if f.name == "sglang-text" && allZero(d["itl"]) {
		delete(d, "itl")
	}
	d.into(&r.Metrics)
	if strings.HasPrefix(r.Backend, "sglang") {
		r.Engine = "sglang"
	}
	// Arrivals are Poisson only at a finite rate (SGLang always draws
	// exponential gaps; vLLM says so in its burstiness line); at rate
	// inf every request is sent at once, and the kind is the profile's.
	if r.Rate <= 0 || math.IsInf(r.Rate, 1) {
		r.Kind = ""
	} else if f.name == "sglang-text" {
		r.Kind = "poisson"
	}
	return r, required(have, "Successful requests", "Benchmark duration (s)", "Total generated tokens")
}

// preambleLine reads what vLLM prints before a block about its load.
func (r *Result) preambleLine(ln line) {
	label, val, ok := strings.Cut(ln.text, ":")
	if !ok {
		return
	}
	val = strings.TrimSpace(val)
	switch strings.TrimSpace(label) {
	case "Traffic request rate":
		r.setRate(val)
	case "Burstiness factor":
		if strings.Contains(val, "Poisson") {
			r.Kind = "poisson"
		}
	case "Maximum request concurrency":
		if n, err := strconv.Atoi(val); err == nil {
			r.Metrics.MaxConcurrency, r.capStated = &n, true
		} else if strings.EqualFold(val, "none") {
			r.NoCap = true
		}
	}
}

func (r *Result) setRate(val string) {
	switch strings.ToLower(val) {
	case "inf", "infinity", "+inf":
		r.Rate = math.Inf(1)
	default:
		if v, err := strconv.ParseFloat(val, 64); err == nil && v > 0 {
			r.Rate = v
		}
	}
}

type line struct {
	no   int
	text string
}

// block is one result block: its lines, and the lines printed before
// it since the previous block.
type block struct {
	start           int
	preamble, lines []line
}

// textBlocks splits a log into its result blocks.
func textBlocks(data []byte) ([]block, error) {
	var out []block
	var cur *block
	var pre []line
	// Lines are split in memory, with no length limit: the file is
	// already bounded as a whole (ingest.MaxSize).
	for n, rest := 1, data; len(rest) > 0; n++ {
		raw, after, _ := bytes.Cut(rest, []byte("\n"))
		rest = after
		t := strings.TrimSpace(string(raw))
		t = strings.TrimSpace(strings.TrimSuffix(strings.TrimPrefix(t, "|"), "|"))
		t = strings.TrimSpace(strings.TrimPrefix(t, "# ")) // logs kept as comments
		switch {
		case cur == nil && strings.Contains(t, "Serving Benchmark Result"):
			cur = &block{start: n, preamble: pre}
			pre = nil
		case cur == nil:
			if t != "" {
				pre = append(pre, line{n, t})
			}
		case t == "":
		case strings.Trim(t, "=") == "":
			out = append(out, *cur)
			cur = nil
		case strings.Trim(t, "-") != t && strings.HasPrefix(t, "-"):
			// a section header such as ----Time to First Token----
		default:
			cur.lines = append(cur.lines, line{n, t})
		}
	}
	switch {
	case cur != nil:
		return nil, fmt.Errorf("the block at line %d has no closing ===== line (truncated?)", cur.start)
	case len(out) == 0:
		return nil, fmt.Errorf("no \"Serving Benchmark Result\" block")
	}
	return out, nil
}

func (r *Result) textLine(d dists, have map[string]bool, label, val string) error {
	if strings.EqualFold(val, "nan") {
		return nil // the tool had no value to print: unknown, as in the JSON formats
	}
	if m := statRE.FindStringSubmatch(label); m != nil {
		v, err := number(val)
		if err != nil {
			return err
		}
		step := decimalStep(val)
		if m[3] == "s" {
			v *= 1000
			step *= 1000
		}
		fam, stat := families[m[2]], statName(m[1])
		if stat != "" {
			r.round(fam+"Ms", step)
			d.set(fam, stat, v)
			have[fam+"."+stat] = true
		}
		return nil
	}
	if done, err := r.loadLine(label, val); done {
		return err
	}
	set, known := textFields[label]
	if !known {
		r.note(NoteIgnoredLine, strconv.Quote(label))
		return nil
	}
	if set == nil {
		return nil
	}
	v, err := number(val)
	if err != nil {
		return err
	}
	if countLabels[label] && v != math.Trunc(v) {
		return fmt.Errorf("%s is not a whole number, and the tool prints this count as one; %s", val, fixEdited)
	}
	have[label] = true
	set(r, v)
	if strings.Contains(label, "throughput") {
		r.round("throughput", decimalStep(val))
	}
	return nil
}

// loadLine reads the lines that state the load, whose value may be a
// word ("inf", "not set", "None").
func (r *Result) loadLine(label, val string) (bool, error) {
	switch label {
	case "Backend":
		r.Backend = val
	case "Traffic request rate":
		r.setRate(val)
	case "Request rate configured (RPS)":
		v, err := number(val)
		if err != nil {
			return true, err
		}
		r.Rate = v
	case "Maximum request concurrency", "Max request concurrency", "Max reqeuest concurrency":
		switch strings.ToLower(val) {
		case "not set", "none":
			r.NoCap, r.Metrics.MaxConcurrency = true, nil
			return true, nil
		}
		v, err := number(val)
		if err != nil {
			return true, err
		}
		if v != math.Trunc(v) || v < 0 {
			return true, fmt.Errorf("%s is not a whole number of requests; %s", val, fixEdited)
		}
		n := int(v)
		r.Metrics.MaxConcurrency, r.NoCap = &n, false
	default:
		return false, nil
	}
	return true, nil
}

// round notes the rounding step of a family, keeping the coarsest seen.
func (r *Result) round(family string, step float64) {
	if r.Metrics.Rounding == nil {
		r.Metrics.Rounding = map[string]float64{}
	}
	if step > r.Metrics.Rounding[family] {
		r.Metrics.Rounding[family] = step
	}
}

// decimalStep is the rounding a printed number shows: "2.62" → 0.01.
func decimalStep(s string) float64 {
	_, frac, ok := strings.Cut(s, ".")
	if !ok {
		return 1
	}
	return math.Pow(10, -float64(len(frac)))
}

// statName maps "Mean", "Median", "P99" to record statistic names; other
// percentiles (P99.9) are not kept.
func statName(s string) string {
	switch s {
	case "Mean":
		return "mean"
	case "Median":
		return "median"
	case "Std":
		return "std"
	case "P50", "P90", "P95", "P99":
		return strings.ToLower(s)
	}
	return ""
}

func number(s string) (float64, error) {
	s = strings.ReplaceAll(s, ",", "")
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsInf(v, 0) || math.IsNaN(v) {
		return 0, fmt.Errorf("%q is not a number; %s", s, fixEdited)
	}
	return v, nil
}

// countLabels are the labels whose values are counts.
var countLabels = map[string]bool{"Successful requests": true, "Failed requests": true, "Total input tokens": true, "Total generated tokens": true}

// textFields maps the block's labels; nil means known and not kept.
var textFields = map[string]func(*Result, float64){
	"Successful requests":    func(r *Result, v float64) { r.Metrics.Completed = int(v) },
	"Failed requests":        func(r *Result, v float64) { r.Metrics.Failed = record.I(int(v)) },
	"Benchmark duration (s)": func(r *Result, v float64) { r.Metrics.Duration = v },
	"Total input tokens":     func(r *Result, v float64) { r.Metrics.InputTokens = record.I(int(v)) },
	"Total generated tokens": func(r *Result, v float64) { r.Metrics.OutputTokens = record.I(int(v)) },
	"Request throughput (req/s)": func(r *Result, v float64) {
		r.Metrics.RequestThroughput = record.F(v)
	},
	"Output token throughput (tok/s)":      func(r *Result, v float64) { r.Metrics.OutputThroughput = record.F(v) },
	"Peak output token throughput (tok/s)": func(r *Result, v float64) { r.Metrics.PeakOutputThroughput = record.F(v) },
	"Peak concurrent requests":             func(r *Result, v float64) { r.Metrics.PeakConcurrency = record.F(v) },
	"Total Token throughput (tok/s)":       func(r *Result, v float64) { r.Metrics.TotalThroughput = record.F(v) },
	"Total token throughput (tok/s)":       func(r *Result, v float64) { r.Metrics.TotalThroughput = record.F(v) },
	"Total throughput (tok/s)":             func(r *Result, v float64) { r.Metrics.TotalThroughput = record.F(v) },
	"Request goodput (req/s)":              nil,
	"RTFx (Inverse Real-Time Factor)":      nil,
	"Total input text tokens":              nil,
	"Total input vision tokens":            nil,
	"Total generated tokens (retokenized)": nil,
	"Input token throughput (tok/s)":       nil,
	"Concurrency":                          nil,
	"Accept length":                        nil,
	"Max ITL (ms)":                         nil,
	"Burstiness factor":                    nil,
}
