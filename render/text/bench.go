package text

import (
	"fmt"
	"io"

	"servelab.dev/execute/record"
	"servelab.dev/render/report"
)

// Bench writes what servelab bench measured: the `vllm bench serve`
// block, what the client measured of itself, and why requests failed.
func Bench(w io.Writer, r *record.Record) {
	fmt.Fprint(w, report.Block(r.Trial, r.Metrics, nil))
	client(w, r.Metrics)
	for _, why := range r.Metrics.FailReasons {
		fmt.Fprintf(w, "failed: %s\n", why)
	}
	for _, n := range r.Notes {
		fmt.Fprintf(w, "note: %s\n", n)
	}
}

// client writes how late the sends were (to the first byte on the wire),
// connections opened during the measured requests, and TTFT from the
// actual send.
func client(w io.Writer, m record.Metrics) {
	line := func(label, val string) { fmt.Fprintf(w, "%-40s %s\n", label+":", val) }
	if d := m.ScheduleLag; d != nil {
		line("Schedule lag P50/P99 (ms)", fmt.Sprintf("%.3f / %.3f", *d.P50, *d.P99))
		line("Sent more than 1 ms late", fmt.Sprint(m.Late))
	}
	line("Connections opened", fmt.Sprint(m.Connections))
	if d := m.Connect; d != nil {
		line("Connection set-up P50/P99 (ms)", fmt.Sprintf("%.3f / %.3f", *d.P50, *d.P99))
	}
	if d := m.ServiceTTFT; d != nil {
		line("Service TTFT median/P99 (ms)", fmt.Sprintf("%.2f / %.2f", *d.Median, *d.P99))
	}
	if m.ClaimedInputTokens > 0 {
		counted, _ := record.Count(m.InputTokens)
		line("Input tokens sent/counted by server", fmt.Sprintf("%d / %d", m.ClaimedInputTokens, counted))
	}
}
