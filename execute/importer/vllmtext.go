package importer

import (
	"bufio"
	"bytes"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"servelab.dev/execute/record"
)

// statRE matches a latency line's label: "Mean TTFT (ms)", "P99 ITL
// (ms)", "Median Latency(s)" (seed 000's extra section), "Mean E2EL (ms)",
// SGLang's "Mean E2E Latency (ms)".
var statRE = regexp.MustCompile(`^(Mean|Median|Std|P[0-9.]+) (TTFT|TPOT|ITL|E2EL|E2E Latency|Latency) ?\((ms|s)\)$`)

var families = map[string]string{"TTFT": "ttft", "TPOT": "tpot", "ITL": "itl", "E2EL": "latency", "E2E Latency": "latency", "Latency": "latency"}

// sections are the latency sections and the line that proves each was
// present.
var sections = []struct{ name, family string }{
	{"Time to First Token", "ttft"},
	{"Time per Output Token (excl. 1st token)", "tpot"},
	{"Inter-token Latency", "itl"},
}

// parseVLLMText reads the `vllm bench serve` result block, in any of its
// label variants, also when pasted into a table (leading "| ") or with
// single spaces instead of column padding.
func parseVLLMText(data []byte) (*Result, error) {
	lines, err := blockLines(data)
	if err != nil {
		return nil, err
	}
	r := &Result{Client: "vllm-bench", Precision: 0.01}
	d := dists{}
	have := map[string]bool{}
	for _, ln := range lines {
		label, val, ok := strings.Cut(ln.text, ":")
		if !ok {
			return nil, fmt.Errorf("line %d: %q is not `label: value`", ln.no, ln.text)
		}
		label, val = strings.TrimSpace(label), strings.TrimSpace(val)
		if err := r.textLine(d, have, label, val); err != nil {
			return nil, fmt.Errorf("line %d: %s: %v", ln.no, label, err)
		}
	}
	d.into(&r.Metrics)
	for _, s := range sections {
		if !have[s.family+".mean"] {
			return nil, fmt.Errorf("missing section %q (no Mean %s line)", s.name, strings.ToUpper(s.family))
		}
	}
	return r, required(r.Metrics, have, "Successful requests", "Benchmark duration (s)", "Total generated tokens")
}

type line struct {
	no   int
	text string
}

// blockLines returns the lines between the block's header and footer.
func blockLines(data []byte) ([]line, error) {
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 64*1024), 1<<20)
	var out []line
	in, done := false, false
	for n := 1; sc.Scan(); n++ {
		t := strings.TrimSpace(sc.Text())
		t = strings.TrimSpace(strings.TrimSuffix(strings.TrimPrefix(t, "|"), "|"))
		switch {
		case !in && strings.Contains(t, "Serving Benchmark Result"):
			in = true
		case !in || t == "":
		case strings.Trim(t, "=") == "":
			in, done = false, true
		case strings.Trim(t, "-") != t && strings.HasPrefix(t, "-"):
			// a section header such as ----Time to First Token----
		default:
			out = append(out, line{n, t})
		}
		if done {
			break
		}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	switch {
	case !done && !in:
		return nil, fmt.Errorf("no \"Serving Benchmark Result\" block")
	case !done:
		return nil, fmt.Errorf("the block has no closing ===== line (truncated?)")
	}
	return out, nil
}

func (r *Result) textLine(d dists, have map[string]bool, label, val string) error {
	if m := statRE.FindStringSubmatch(label); m != nil {
		v, err := number(val)
		if err != nil {
			return err
		}
		step := 0.01
		if m[3] == "s" {
			v *= 1000
			step = 10
		}
		fam, stat := families[m[2]], statName(m[1])
		r.round(fam+"Ms", step)
		if stat != "" {
			d.set(fam, stat, v)
			have[fam+"."+stat] = true
		}
		return nil
	}
	set, known := textFields[label]
	if !known {
		r.Notes = append(r.Notes, fmt.Sprintf("ignored line %q", label))
		return nil
	}
	if set == nil || absent(val) {
		return nil
	}
	v, err := number(val)
	if err != nil {
		return err
	}
	have[label] = true
	set(r, v)
	if strings.Contains(label, "throughput") {
		r.round("throughput", 0.01)
	}
	return nil
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
	if err != nil {
		return 0, fmt.Errorf("%q is not a number", s)
	}
	return v, nil
}

// textFields maps the block's labels; nil means known and not kept.
var textFields = map[string]func(*Result, float64){
	"Successful requests":    func(r *Result, v float64) { r.Metrics.Completed = int(v) },
	"Failed requests":        func(r *Result, v float64) { r.Metrics.Failed = int(v) },
	"Benchmark duration (s)": func(r *Result, v float64) { r.Metrics.Duration = v },
	"Total input tokens":     func(r *Result, v float64) { r.Metrics.InputTokens = int(v) },
	"Total generated tokens": func(r *Result, v float64) { r.Metrics.OutputTokens = int(v) },
	"Request throughput (req/s)": func(r *Result, v float64) {
		r.Metrics.RequestThroughput = record.F(v)
	},
	"Output token throughput (tok/s)":      func(r *Result, v float64) { r.Metrics.OutputThroughput = record.F(v) },
	"Peak output token throughput (tok/s)": func(r *Result, v float64) { r.Metrics.PeakOutputThroughput = record.F(v) },
	"Peak concurrent requests":             func(r *Result, v float64) { r.Metrics.PeakConcurrency = record.F(v) },
	"Total Token throughput (tok/s)":       func(r *Result, v float64) { r.Metrics.TotalThroughput = record.F(v) },
	"Total token throughput (tok/s)":       func(r *Result, v float64) { r.Metrics.TotalThroughput = record.F(v) },
	"Maximum request concurrency":          setMaxConc,
	"Max request concurrency":              setMaxConc,
	"Max reqeuest concurrency":             setMaxConc,
	"Request rate configured (RPS)":        func(r *Result, v float64) { r.Rate = v },
	"Request goodput (req/s)":              nil,
	"RTFx (Inverse Real-Time Factor)":      nil,
	"Total input text tokens":              nil,
	"Total input vision tokens":            nil,
	"Total generated tokens (retokenized)": nil,
	"Input token throughput (tok/s)":       nil,
	"Concurrency":                          nil,
	"Accept length":                        nil,
	"Max ITL (ms)":                         nil,
	"Backend":                              nil,
	"Traffic request rate":                 nil,
	"Burstiness factor":                    nil,
}

// absent values are printed where a setting is off.
func absent(v string) bool {
	switch strings.ToLower(v) {
	case "none", "inf", "not set", "n/a":
		return true
	}
	return false
}

func setMaxConc(r *Result, v float64) {
	n := int(v)
	r.Metrics.MaxConcurrency = &n
}
