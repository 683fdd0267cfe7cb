// Package importer reads the output of other benchmark tools into
// servelab metrics: `vllm bench serve`'s printed blocks (vllm-text) and
// its --save-result JSON (vllm-json), the run=N.json and summary.json
// `vllm bench sweep serve` writes (vllm-sweep), SGLang bench_serving's printed
// block (sglang-text) and JSONL (sglang-jsonl), guidellm's
// benchmarks.json or .yaml (guidellm, layouts v0.2 to v0.7), AIPerf's
// profile_export_aiperf.json (aiperf-json) and inference-perf's
// stage_N_lifecycle_metrics.json (inference-perf). Detect recognises them
// by content (--format auto).
//
// Each format's field map is written next to its parser, from the
// writer's source (repository, file and commit cited there), and in the
// README's import table. The rules every parser keeps:
//
//   - A figure the source does not write stays absent (nil), never 0;
//     in particular an absent failed count is unknown, and the record
//     says so (a note) rather than claiming no request failed.
//   - Names take vLLM's meaning: guidellm's inter_token_latency_ms is a
//     per-request (last token − first token)/(tokens − 1), vLLM's TPOT,
//     so it becomes TPOT and ITL stays absent rather than invented.
//   - What the source says about its load (rate, with inf meaning all
//     requests at once; concurrency cap; dataset; request count) is kept
//     so Check can refuse an import into a trial that ran otherwise.
//   - What the import estimated, recomputed or found missing becomes a
//     translatable note (record.Note) that the reports show under the run.
//   - A field of the wrong type, a count that is not whole, an infinite
//     figure and figures that contradict each other (consistent) refuse
//     the file, naming the field: a damaged file must not become a record
//     that looks whole. NaN, which Python tools write for "no value", is
//     an unknown.
package importer

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"servelab.dev/execute/record"
)

// Result is one benchmark run read from a file.
type Result struct {
	Metrics record.Metrics
	// What the file says about how it was run; empty when it does not say.
	Model   string
	Backend string
	Engine  string // engine kind the file proves (sglang server_info)
	Client  string // the tool that wrote it
	Dataset string // dataset name the file states
	// RandomIn and RandomOut are the random dataset's input and output
	// lengths, where the file states them (SGLang JSONL).
	RandomIn, RandomOut int
	// Requests is the request count the tool was asked to send
	// (vLLM's num_prompts); 0 when the file does not say.
	Requests int
	// Rate is the configured request rate: finite and > 0, +Inf for
	// "all at once" (vLLM and SGLang write inf), 0 when unknown.
	Rate float64
	// NoCap is true when the file states that no concurrency cap was
	// set (SGLang's "not set", vLLM's "None"); MaxConcurrency is the cap.
	NoCap bool
	// capStated: MaxConcurrency comes from a line that only ever states
	// a configured cap (vLLM's preamble), not from the block's line,
	// which seed 000's tool used for the observed peak.
	capStated bool
	Kind      string // load kind the file states: constant, poisson, concurrency
	// SweepRun is the run_number vllm bench sweep gave the run (its
	// replicates of one combination share every other label); nil
	// elsewhere.
	SweepRun *int
	// Precision is the rounding of the figures (0.01 for printed blocks).
	Precision float64
	// Notes are what the import noticed; they go into the record.
	Notes []record.Note
}

// Notes an import can add, English keys of the i18n catalog (the
// importer's test checks each one is translated).
const (
	NoteFailedUnknown   = record.NoteFailedUnknown
	NoteFailedNone      = record.NoteFailedNone // said at analysis, where the profile settles the count
	NoteFailedDerived   = "Failed requests derived as the %s requests the tool was asked to send minus the %s that completed."
	NotePeakNotCap      = "The source's maximum request concurrency of %s is not a cap (the profile has none): it is kept as the observed peak."
	NoteIgnoredLine     = "Line %s of the source has no servelab field and was not read."
	NoteIncomplete      = "%s requests were cancelled unfinished when the run ended and are not counted."
	NoteTPOTIsITL       = "The source's inter-token latency is a per-request average, which servelab calls TPOT; the source measures no per-gap ITL."
	NoteWindow          = "Throughputs are the source's own, over its measured window (warm-up %s s and cool-down %s s excluded)."
	NoteRecomputed      = "The source reports no throughput over its measured window: throughputs are recomputed as completed requests and tokens over its %s s duration."
	NoteTotalDerived    = "Total token throughput is computed as input plus output tokens over the duration; the source does not report it."
	NoteDurationDerived = "The source reports no duration: it is the %s completed requests over the source's request throughput of %s req/s, the span the source's throughputs are over."
	NoteTokensDerived   = "The source reports no token totals: they are its mean prompt and output lengths times its %s completed requests."
	NoteAllAtOnce       = "The source sent all %s requests at once with no concurrency cap; the profile's cap of %s is no lower, so it never held a request back: the same load."
)

// NoteKeys are every note an import can write.
var NoteKeys = []string{NoteFailedUnknown, NoteFailedNone, NoteFailedDerived, NotePeakNotCap, NoteIgnoredLine, NoteIncomplete,
	NoteTPOTIsITL, NoteWindow, NoteRecomputed, NoteTotalDerived, NoteDurationDerived, NoteTokensDerived, NoteAllAtOnce}

func (r *Result) note(msg string, args ...string) {
	r.Notes = append(r.Notes, record.Note{Msg: msg, Args: args})
}

// Parse reads every run in data. Most files hold one; vLLM logs, JSONL
// and guidellm files may hold several.
func Parse(format string, data []byte) ([]Result, error) {
	f, err := lookup(format)
	if err != nil {
		return nil, err
	}
	rs, err := f.Parse(data)
	if err != nil {
		return nil, err
	}
	for i := range rs {
		if rs[i].Metrics.Failed == nil {
			rs[i].note(NoteFailedUnknown)
		}
		noLatency(&rs[i].Metrics)
		if err := rs[i].Metrics.Check(); err != nil {
			return nil, entryErr(i, len(rs), fmt.Errorf("figures a record cannot hold: %w", err))
		}
		if err := consistent(&rs[i], f); err != nil {
			return nil, entryErr(i, len(rs), err)
		}
	}
	return rs, nil
}

// Label says how an entry ran, to tell the entries of a file apart:
// "rate inf, concurrency 8", "rate 4 req/s, no concurrency cap".
func (r *Result) Label() string {
	var parts []string
	switch {
	case math.IsInf(r.Rate, 1):
		parts = append(parts, "rate inf")
	case r.Rate > 0:
		parts = append(parts, "rate "+num(r.Rate)+" req/s")
	case r.Kind != "" && r.Kind != "concurrency":
		parts = append(parts, r.Kind)
	}
	switch {
	case r.Metrics.MaxConcurrency != nil:
		parts = append(parts, fmt.Sprintf("concurrency %d", *r.Metrics.MaxConcurrency))
	case r.NoCap:
		parts = append(parts, "no concurrency cap")
	}
	if r.SweepRun != nil {
		parts = append(parts, fmt.Sprintf("run %d", *r.SweepRun))
	}
	parts = append(parts, fmt.Sprintf("%d completed", r.Metrics.Completed))
	return strings.Join(parts, ", ")
}

// num formats a figure the shortest way that reads it back exactly.
func num(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }

// dists collects latency statistics by family while a file is read.
type dists map[string]*record.Dist

func (d dists) set(family, stat string, v float64) {
	x := d[family]
	if x == nil {
		x = &record.Dist{}
		d[family] = x
	}
	if v == 0 {
		v = 0 // a printed -0.00 is a zero
	}
	p := record.F(v)
	switch stat {
	case "mean":
		x.Mean = p
	case "median":
		x.Median = p
	case "std":
		x.Std = p
	case "p50":
		x.P50 = p
	case "p90":
		x.P90 = p
	case "p95":
		x.P95 = p
	case "p99":
		x.P99 = p
	}
}

func (d dists) into(m *record.Metrics) {
	m.Latency, m.TTFT, m.TPOT, m.ITL = d["latency"], d["ttft"], d["tpot"], d["itl"]
}

// required reports the figures a run cannot be compared without.
func required(have map[string]bool, names ...string) error {
	var missing []string
	for _, n := range names {
		if !have[n] {
			missing = append(missing, n)
		}
	}
	if len(missing) > 0 {
		sort.Strings(missing)
		return fmt.Errorf("missing %s", strings.Join(missing, "; "))
	}
	return nil
}

// tokenRate is input plus output tokens over the duration, when both
// totals are known.
func tokenRate(m *record.Metrics) *float64 {
	in, ok1 := record.Count(m.InputTokens)
	out, ok2 := record.Count(m.OutputTokens)
	if !ok1 || !ok2 || m.Duration <= 0 {
		return nil
	}
	return record.F(float64(in+out) / m.Duration)
}

func entryErr(i, n int, err error) error {
	if n == 1 {
		return err
	}
	return fmt.Errorf("entry %d of %d: %w", i+1, n, err)
}

// noLatency: when no request completed, vLLM (0.25.1's all-failed
// result) and SGLang write 0 for every latency statistic, which no
// request measured; those stay unknown rather than latencies of 0 ms.
func noLatency(m *record.Metrics) {
	if m.Completed != 0 {
		return
	}
	for _, d := range []**record.Dist{&m.Latency, &m.TTFT, &m.TPOT, &m.ITL} {
		if allZero(*d) {
			*d = nil
		}
	}
}

// allZero: every statistic the source gave is 0 (and it gave some).
func allZero(x *record.Dist) bool {
	if x == nil {
		return false
	}
	for _, p := range []*float64{x.Mean, x.Median, x.Std, x.P50, x.P90, x.P95, x.P99} {
		if p != nil && *p != 0 {
			return false
		}
	}
	return true
}
