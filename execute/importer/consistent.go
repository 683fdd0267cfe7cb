package importer

import (
	"fmt"
	"math"

	"servelab.dev/execute/record"
)

// maxChunkTokens bounds the tokens one streamed chunk carries.
const maxChunkTokens = 64

// consistent refuses a run whose figures contradict each other: a
// throughput with no completed request, output above the total it is
// part of or far above the peak it averages, and, in formats that compute
// their throughputs as totals over the duration, a throughput the file's
// own totals do not give. Such a file was edited or damaged, and a
// record of it would carry the damage into every comparison.
func consistent(r *Result, f Format) error {
	m := &r.Metrics
	step := m.Rounding["throughput"]
	rates := []struct {
		name string
		v    *float64
	}{{"request throughput", m.RequestThroughput}, {"output throughput", m.OutputThroughput},
		{"total token throughput", m.TotalThroughput}, {"peak output throughput", m.PeakOutputThroughput}}
	for _, t := range rates {
		if m.Completed == 0 && t.v != nil && *t.v > 0 {
			return fmt.Errorf("%s is %s/s, but no request completed: a run without a completed request has no throughput; the file is inconsistent (edited or damaged): export it again from the tool",
				t.name, num(*t.v))
		}
	}
	out := m.OutputThroughput
	if out != nil && m.TotalThroughput != nil && *out > *m.TotalThroughput+step+1e-9*(*out) {
		return fmt.Errorf("output throughput %s tok/s is above the file's own total token throughput %s tok/s, which includes it; the file is inconsistent (edited or damaged): export it again from the tool",
			num(*out), num(*m.TotalThroughput))
	}
	// The peak is counted in streamed chunks per second, and a
	// speculative step streams several tokens in one chunk, so the average
	// in tokens may exceed the peak several fold (seed 004's speculative
	// runs: 2.5×). No step drafts maxChunkTokens tokens, so beyond that
	// (and the partial last second) the figure is no measurement.
	if p := m.PeakOutputThroughput; out != nil && p != nil && m.Duration > 0 && *out > maxChunkTokens**p*math.Ceil(m.Duration)/m.Duration+step {
		return fmt.Errorf("output throughput %s tok/s is above %d times the file's own peak output throughput %s tok/s; the file is inconsistent (edited or damaged): export it again from the tool",
			num(*out), maxChunkTokens, num(*p))
	}
	if f.RatesOverDuration {
		return overDuration(m)
	}
	return nil
}

// overDuration: each throughput is its total over the duration, within
// 1 %: tolerant of a writer that times the two a little apart, and still
// far below what an edited or damaged figure is off by.
func overDuration(m *record.Metrics) error {
	in, inOK := record.Count(m.InputTokens)
	out, outOK := record.Count(m.OutputTokens)
	checks := []struct {
		name  string
		v     *float64
		total float64
		ok    bool
		of    string
	}{
		{"request throughput", m.RequestThroughput, float64(m.Completed), true, "completed requests"},
		{"output throughput", m.OutputThroughput, float64(out), outOK, "output tokens"},
		{"total token throughput", m.TotalThroughput, float64(in + out), inOK && outOK, "input and output tokens"},
	}
	for _, c := range checks {
		if c.v == nil || !c.ok || m.Duration <= 0 {
			continue
		}
		want := c.total / m.Duration
		if math.Abs(*c.v-want) > 0.01*want+1e-9 {
			return fmt.Errorf("%s is %s/s, but the file's own %s over its %s s duration give %s/s; the file is inconsistent (edited or damaged): export it again from the tool",
				c.name, num(*c.v), c.of, num(m.Duration), num(want))
		}
	}
	return nil
}
