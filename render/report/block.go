package report

import (
	"fmt"
	"strings"

	"servelab.dev/execute/decide"
	"servelab.dev/execute/record"
	"servelab.dev/schema/plan"
)

// Block writes a record in the `vllm bench serve` result layout the
// seeds use, regenerated from its figures. Labels mean one thing each:
// "Maximum request concurrency" is the configured cap and is printed only
// when the profile has one; the observed peak is "Peak concurrent
// requests". Lines whose figure the lint found impossible end in " (!)".
func Block(spec plan.Spec, m record.Metrics, flagged map[string]bool) string {
	var b strings.Builder
	line := func(label, val string) {
		if flagged[label] {
			val += " (!)"
		}
		fmt.Fprintf(&b, "%-40s %s\n", label+":", val)
	}
	f := func(p *float64) string { return fmt.Sprintf("%.2f", *p) }
	b.WriteString(center(" Serving Benchmark Result ", '=') + "\n")
	line("Successful requests", fmt.Sprint(m.Completed))
	if n, ok, _ := record.FailedOf(spec, m); ok {
		line("Failed requests", fmt.Sprint(n)) // absent: nothing says
	}
	if c := spec.Profile.Concurrency; c > 0 {
		line("Maximum request concurrency", fmt.Sprint(c))
	}
	if r := spec.Profile.Rate; r > 0 {
		line("Request rate configured (RPS)", fmt.Sprintf("%.2f", r))
	}
	line("Benchmark duration (s)", fmt.Sprintf("%.2f", m.Duration))
	for _, c := range []struct {
		label string
		n     *int
	}{{"Total input tokens", m.InputTokens}, {"Total generated tokens", m.OutputTokens}} {
		if c.n != nil {
			line(c.label, fmt.Sprint(*c.n))
		}
	}
	for _, x := range []struct {
		label string
		p     *float64
	}{
		{"Request throughput (req/s)", m.RequestThroughput},
		{"Output token throughput (tok/s)", m.OutputThroughput},
		{"Peak output token throughput (tok/s)", m.PeakOutputThroughput},
		{"Peak concurrent requests", m.PeakConcurrency},
		{"Total token throughput (tok/s)", m.TotalThroughput},
	} {
		if x.p != nil {
			line(x.label, f(x.p))
		}
	}
	section(&b, line, "Latency", "Latency(s)", m.Latency, 1000, latencyDigits(m))
	section(&b, line, "Time to First Token", "TTFT (ms)", m.TTFT, 1, 2)
	section(&b, line, "Time per Output Token (excl. 1st token)", "TPOT (ms)", m.TPOT, 1, 2)
	section(&b, line, "Inter-token Latency", "ITL (ms)", m.ITL, 1, 2)
	engineSection(&b, line, m.Engine)
	b.WriteString(strings.Repeat("=", 50) + "\n")
	return b.String()
}

// latencyDigits: seconds with 2 decimals keep a source that printed
// them so; figures finer than 10 ms get 5 decimals (0.01 ms, as the ms
// lines), so a block imported back loses nothing.
func latencyDigits(m record.Metrics) int {
	if m.Rounding["latencyMs"] >= 10 {
		return 2
	}
	return 5
}

func section(b *strings.Builder, line func(string, string), title, unit string, dist *record.Dist, div float64, digits int) {
	if dist == nil {
		return
	}
	b.WriteString(center(title, '-') + "\n")
	for _, s := range []struct{ name, stat string }{{"Mean", "mean"}, {"Median", "median"}, {"P90", "p90"}, {"P95", "p95"}, {"P99", "p99"}} {
		if v, ok := dist.Stat(s.stat); ok {
			line(s.name+" "+unit, fmt.Sprintf("%.*f", digits, v/div))
		}
	}
}

// engineSection prints what the engine's metrics endpoint said: the
// speculative decoding lines as `vllm bench serve` prints them, then the
// prefix cache's hit rate and the KV cache and queue peaks.
func engineSection(b *strings.Builder, line func(string, string), e *record.EngineMetrics) {
	if e == nil {
		return
	}
	pct := func(p *float64) string { return fmt.Sprintf("%.2f", *p*100) }
	if e.AcceptanceRate != nil || e.AcceptanceLength != nil {
		b.WriteString(center("Speculative Decoding", '-') + "\n")
		if e.AcceptanceRate != nil {
			line("Acceptance rate (%)", pct(e.AcceptanceRate))
		}
		if e.AcceptanceLength != nil {
			line("Acceptance length", fmt.Sprintf("%.2f", *e.AcceptanceLength))
		}
	}
	b.WriteString(center("Engine Metrics ("+e.Source+")", '-') + "\n")
	for _, x := range []struct {
		label string
		p     *float64
		val   func(*float64) string
	}{
		{"Prefix cache hit rate (%)", e.PrefixHitRate, pct},
		{"Mean KV-cache usage (%)", e.MeanKVCache, pct},
		{"Peak KV-cache usage (%)", e.MaxKVCache, pct},
		{"Peak running requests", e.MaxRunning, func(p *float64) string { return fmt.Sprintf("%.0f", *p) }},
		{"Peak waiting requests", e.MaxWaiting, func(p *float64) string { return fmt.Sprintf("%.0f", *p) }},
	} {
		if x.p != nil {
			line(x.label, x.val(x.p))
		}
	}
}

// center pads s to 50 columns with c, as Python's format "{:c^50}".
func center(s string, c byte) string {
	pad := max(0, 50-len(s))
	left := pad / 2
	return strings.Repeat(string(c), left) + s + strings.Repeat(string(c), pad-left)
}

// flaggedLines maps lint warnings of a trial to the block lines they
// concern.
func flaggedLines(ws []decide.Warning) map[string]bool {
	out := map[string]bool{}
	for _, w := range ws {
		for _, m := range lintFigures[w.Code] {
			out[blockLines[m]] = true
		}
	}
	return out
}
