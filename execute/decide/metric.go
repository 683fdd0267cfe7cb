// Package decide decides a study from its records: which variant each
// step adopts under the study's objective and rule, the final
// configuration, the comparisons the reports print, the validation of
// baseline against final, and warnings about figures that cannot be
// true. It does no I/O: records come in, an Analysis goes out.
package decide

import (
	"strings"

	"servelab.dev/execute/record"
)

// Value is a metric of one trial over its runs.
type Value struct {
	Mean float64 `json:"mean"`
	// Runs is how many runs the mean is over; with 2 or more, Low and
	// High bound it (see Interval).
	Runs    int      `json:"runs"`
	Low     *float64 `json:"low,omitempty"`
	High    *float64 `json:"high,omitempty"`
	Derived bool     `json:"derived,omitempty"` // computed, not reported by the source
	// Interval says what Low and High are: IntervalT, a Student-t
	// interval of the mean at the study's confidence (3 runs or more), or
	// IntervalRange, the two runs themselves.
	Interval string `json:"interval,omitempty"`
}

// What a Value's Low and High are.
const (
	IntervalT     = "t"
	IntervalRange = "range"
)

// Unit is the unit servelab keeps a metric in.
func Unit(metric string) string {
	switch metric {
	case "output_throughput", "total_throughput":
		return "tok/s"
	case "request_throughput", "goodput", "capacity":
		return "req/s"
	case "failed":
		return "share"
	}
	return "ms"
}

// Lower reports whether smaller values of metric are better.
func Lower(metric string) bool { return Unit(metric) == "ms" || metric == "failed" }

// MetricOf reads metric from one run, as the decisions do.
func MetricOf(r *record.Record, metric string) (float64, bool) {
	v, _, ok := metricOf(r, metric)
	return v, ok
}

// metricOf reads metric from one record. Mean latency, which `vllm bench
// serve` does not print unless asked, is derived when missing (derived
// is then true): see derivedLatency.
func metricOf(r *record.Record, metric string) (v float64, derived, ok bool) {
	m := r.Metrics
	switch metric {
	case "output_throughput":
		return ptr(m.OutputThroughput)
	case "request_throughput":
		return ptr(m.RequestThroughput)
	case "total_throughput":
		return ptr(m.TotalThroughput)
	case "failed":
		// An unknown failed count is an absent share, never 0 %.
		failed, known, _ := r.Failed()
		if n := m.Completed + failed; known && n > 0 {
			return float64(failed) / float64(n), false, true
		}
		return 0, false, false
	}
	fam, stat, _ := strings.Cut(metric, ".")
	var d *record.Dist
	switch fam {
	case "latency":
		d = m.Latency
	case "ttft":
		d = m.TTFT
	case "tpot":
		d = m.TPOT
	case "itl":
		d = m.ITL
	}
	if v, ok := d.Stat(stat); ok {
		return v, false, true
	}
	if metric == "latency.mean" {
		v, ok := derivedLatency(r)
		return v, ok, ok
	}
	return 0, false, false
}

// derivedLatency is a run's mean request latency where its source
// printed none. At a fixed concurrency N, Little's law gives it from the
// run itself: N × duration ÷ completed requests, exact at N = 1 and an
// upper bound above it (fewer requests are in flight while a run starts
// and drains), and it ranks runs of one profile as their throughput
// does. Elsewhere it is TTFT + TPOT × (mean output tokens − 1), the
// formula the seeds use: exact for each request, an approximation for
// the mean because it ignores how TPOT and length covary.
func derivedLatency(r *record.Record) (float64, bool) {
	m, p := r.Metrics, r.Trial.Profile
	if LittlesLaw(p.Kind, p.Concurrency, r.Trial.Benchmark.Dataset.Name) && m.Duration > 0 && m.Completed > 0 {
		return 1000 * float64(p.Concurrency) * m.Duration / float64(m.Completed), true
	}
	return FormulaLatency(m)
}

// LittlesLaw reports whether a load keeps a fixed number of requests in
// flight, so that a run's mean latency is its concurrency × duration ÷
// completed requests: a fixed concurrency of single requests, not of
// conversations, whose turns can wait between them.
func LittlesLaw(kind string, concurrency int, dataset string) bool {
	return kind == "concurrency" && concurrency > 0 && dataset != "conversations"
}

// FormulaLatency is TTFT + TPOT × (mean output tokens − 1), the mean
// latency the seeds derive from a run's printed figures.
func FormulaLatency(m record.Metrics) (float64, bool) {
	out, known := record.Count(m.OutputTokens)
	ttft, ok1 := m.TTFT.Stat("mean")
	tpot, ok2 := m.TPOT.Stat("mean")
	if !known || m.Completed == 0 || !ok1 || !ok2 {
		return 0, false
	}
	return ttft + tpot*(float64(out)/float64(m.Completed)-1), true
}

func ptr(p *float64) (float64, bool, bool) {
	if p == nil {
		return 0, false, false
	}
	return *p, false, true
}

// Values is metric over the runs (derived where the seeds' formula
// applies).
func Values(runs []*record.Record, metric string) []float64 {
	var out []float64
	for _, r := range runs {
		if v, _, ok := metricOf(r, metric); ok {
			out = append(out, v)
		}
	}
	return out
}
