// Package record defines servelab's result record: one JSON document per
// run of a trial, versioned, self-describing and checked on load.
//
// Format "servelab.record/v1":
//
//	{
//	  "format":     "servelab.record/v1",
//	  "key":        trial key (sha256 hex of the canonical trial spec),
//	  "trial":      the trial spec the key hashes (see schema/plan.Spec),
//	  "provenance": {"kind": "measured"|"imported"|"simulated",
//	                 measured:  "host", "gpu", "driver", "gpuMemoryMiB",
//	                            "start", "end" (RFC 3339, UTC),
//	                            "gpus" ([{"index", "uuid", "name",
//	                            "memoryMiB", "usedMiB"}]: the GPUs the
//	                            engine was given; absent in older records),
//	                 imported:  "source" (path as given), "sha256" (of the
//	                            source bytes), "format" (vllm-text, vllm-json,
//	                            guidellm, sglang-jsonl, sglang-text),
//	                            "entry" (which entry of a multi-entry file),
//	                 all:       "servelab" (version that wrote it)},
//	  "status":     "ok" | "failed",
//	  "reason":     why it failed ("" when ok),
//	  "metrics":    {see Metrics: counts, duration (s), throughputs
//	                 (per s), peaks, latency distributions in ms},
//	  "samples":    file name of the per-request sidecar, when measured,
//	  "notes":      what the writer noticed (e.g. a label it ignored),
//	  "importNotes": [{"msg": English message with %s verbs, "args": [...]}]:
//	                what the importer estimated, recomputed or found missing
//	}
//
// "failed", "inputTokens" and "outputTokens" are absent when the source
// did not report them: unknown, not zero.
//
// A distribution holds mean, median, std, p50, p90, p95, p99; a field the
// source did not report is absent, never zero. Records are written once
// and never rewritten; the store names each file after the hash of its
// bytes, so a corrupt or hand-edited record is detected on load.
package record

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strconv"

	"servelab.dev/schema/plan"
)

// Format is the version tag of this record format.
const Format = "servelab.record/v1"

// Provenance kinds.
const (
	Measured  = "measured"
	Imported  = "imported"
	Simulated = "simulated"
)

// Record is one run of one trial.
type Record struct {
	Format     string     `json:"format"`
	Key        string     `json:"key"`
	Trial      plan.Spec  `json:"trial"`
	Provenance Provenance `json:"provenance"`
	Status     string     `json:"status"`
	Reason     string     `json:"reason,omitempty"`
	Metrics    Metrics    `json:"metrics"`
	Samples    string     `json:"samples,omitempty"`
	// Seeds are the prompt and arrival seeds the run drew with (runs
	// servelab drove; see plan.Spec.Seeds).
	Seeds *Seeds `json:"seeds,omitempty"`
	// EarlyStop says the run was stopped before its last request because
	// it could not beat the incumbent (the study's early-stopping rule).
	EarlyStop *EarlyStop `json:"earlyStop,omitempty"`
	// Notes are what the writer noticed about the figures, in English.
	Notes []string `json:"notes,omitempty"`
	// ImportNotes are what the importer noticed reading the source
	// (what was estimated, recomputed or missing), translatable; the
	// reports show them under the run.
	ImportNotes []Note `json:"importNotes,omitempty"`
	// Quality holds the quality guard's greedy outputs of the launch this
	// run was measured on, when the study asks for the guard.
	Quality *Quality `json:"quality,omitempty"`
}

// EarlyStop is why and when a run was stopped early.
type EarlyStop struct {
	After   int    `json:"after"`
	Planned int    `json:"planned"`
	Reason  string `json:"reason"`
}

// Seeds are a run's random seeds.
type Seeds struct {
	Prompts  uint64 `json:"prompts"`
	Arrivals uint64 `json:"arrivals"`
}

// Quality is what the engine answered to the quality guard's prompts,
// decoded greedily: Outputs[i] is the text of the first Tokens tokens of
// the answer to prompt i (Error says why there are none).
type Quality struct {
	Prompts int      `json:"prompts"`
	Tokens  int      `json:"tokens"`
	Outputs []string `json:"outputs,omitempty"`
	Error   string   `json:"error,omitempty"`
}

// Provenance says where a record's figures come from.
type Provenance struct {
	Kind         string `json:"kind"`
	Host         string `json:"host,omitempty"`
	GPU          string `json:"gpu,omitempty"`
	Driver       string `json:"driver,omitempty"`
	GPUMemoryMiB int    `json:"gpuMemoryMiB,omitempty"`
	// CUDA is the CUDA version the driver supports (nvidia-smi's header).
	CUDA string `json:"cuda,omitempty"`
	// EngineBuild is what the engine binary says of its own build (for
	// llama.cpp: `llama-server --version`, which names the commit).
	EngineBuild  string  `json:"engineBuild,omitempty"`
	Start        string  `json:"start,omitempty"`
	End          string  `json:"end,omitempty"`
	Source       string  `json:"source,omitempty"`
	SHA256       string  `json:"sha256,omitempty"`
	SourceFormat string  `json:"format,omitempty"`
	Servelab     string  `json:"servelab"`
	Precision    float64 `json:"precision,omitempty"` // rounding of imported figures, e.g. 0.01
	// Entry names the entry of a multi-entry source that was read
	// ("block 2 of 4: rate 8 req/s, no concurrency cap"); empty when
	// the source holds one.
	Entry string `json:"entry,omitempty"`
	// GPUs are the GPUs the run's engine was given (--gpus, or the
	// GPUs it could see), as nvidia-smi described them at launch; "gpu"
	// and "gpuMemoryMiB" are then the first one's. Absent in records
	// written before servelab recorded them, and in imported ones: the
	// field is left out when empty, so those records keep their bytes
	// and their hashes.
	GPUs []GPU `json:"gpus,omitempty"`
}

// GPU is one GPU a run's engine was given.
type GPU struct {
	// Index is nvidia-smi's index; -1 when the GPU was named by a UUID
	// that nvidia-smi did not list.
	Index     int    `json:"index"`
	UUID      string `json:"uuid,omitempty"`
	Name      string `json:"name,omitempty"`
	MemoryMiB int    `json:"memoryMiB,omitempty"`
	// UsedMiB is the memory other processes held on it at launch.
	UsedMiB int `json:"usedMiB,omitempty"`
}

// Note is a translatable remark: Msg is an English message with %s
// verbs, a key of the i18n catalog; Args fill them, already formatted.
type Note struct {
	Msg  string   `json:"msg"`
	Args []string `json:"args,omitempty"`
}

// String is the note in English.
func (n Note) String() string {
	args := make([]any, len(n.Args))
	for i, a := range n.Args {
		args[i] = a
	}
	return fmt.Sprintf(n.Msg, args...)
}

// Metrics are a run's summary figures. Pointers are absent figures.
type Metrics struct {
	Completed int `json:"completed"`
	// Failed is nil when the source did not say how many requests
	// failed: unknown, which is not zero. (Records imported before it
	// could be absent say 0 even where their source printed no count.)
	Failed      *int     `json:"failed,omitempty"`
	FailReasons []string `json:"failReasons,omitempty"`
	Duration    float64  `json:"duration"`
	// InputTokens and OutputTokens are the totals over completed
	// requests; nil when the source did not report them.
	InputTokens  *int `json:"inputTokens,omitempty"`
	OutputTokens *int `json:"outputTokens,omitempty"`

	RequestThroughput    *float64 `json:"requestThroughput,omitempty"`
	OutputThroughput     *float64 `json:"outputThroughput,omitempty"`
	TotalThroughput      *float64 `json:"totalThroughput,omitempty"`
	PeakOutputThroughput *float64 `json:"peakOutputThroughput,omitempty"`
	PeakConcurrency      *float64 `json:"peakConcurrency,omitempty"`
	// MaxConcurrency is the configured cap the source reports, if any.
	MaxConcurrency *int `json:"maxConcurrency,omitempty"`

	// Rounding is the step the source rounded each family to, in the
	// family's unit here (a "Latency(s)" line printed with 2 decimals is
	// rounded to 10 ms): keys latencyMs, ttftMs, tpotMs, itlMs, throughput.
	Rounding map[string]float64 `json:"rounding,omitempty"`

	Latency     *Dist `json:"latencyMs,omitempty"`
	TTFT        *Dist `json:"ttftMs,omitempty"`
	TPOT        *Dist `json:"tpotMs,omitempty"`
	ITL         *Dist `json:"itlMs,omitempty"`
	ScheduleLag *Dist `json:"scheduleLagMs,omitempty"`
	// ServiceLatency and ServiceTTFT are measured from the actual write
	// of each request instead of its intended time (measured runs only):
	// the gap to Latency and TTFT is time the request waited to be sent.
	ServiceLatency *Dist `json:"serviceLatencyMs,omitempty"`
	ServiceTTFT    *Dist `json:"serviceTtftMs,omitempty"`
	// Late counts requests sent more than 1 ms after they were due.
	Late int `json:"late,omitempty"`
	// Warmup counts the warm-up requests sent before the measured ones.
	Warmup int `json:"warmup,omitempty"`
	// Connections counts measured requests that had to open a connection
	// (the warm-up fills the keep-alive pool), and Connect is how long
	// they waited for it: set-up reported apart from the schedule lag it
	// is part of.
	Connections int   `json:"connections,omitempty"`
	Connect     *Dist `json:"connectMs,omitempty"`
	// ClaimedInputTokens is the input the client meant to send, by its
	// own count, over the requests where it had one; InputMismatch counts
	// those whose server-counted input differs from it by more than 2 %.
	ClaimedInputTokens int `json:"claimedInputTokens,omitempty"`
	InputMismatch      int `json:"inputTokenMismatch,omitempty"`
	// CachedTokens is the prompt tokens the engine served from its prefix
	// cache, summed over the completed requests whose usage said, and
	// CacheHitRate their share of those requests' prompt tokens; nil
	// when no request's usage said.
	CachedTokens *int     `json:"cachedTokens,omitempty"`
	CacheHitRate *float64 `json:"cacheHitRate,omitempty"`
	// SharedPrefix is the workload's share of prompt tokens in a prefix
	// an earlier request of the run began with (in 16-token blocks): the
	// hit rate an unbounded prefix cache would reach.
	SharedPrefix *float64 `json:"sharedPrefix,omitempty"`
	// Engine summarises the engine's own metrics endpoint over the run.
	Engine *EngineMetrics `json:"engine,omitempty"`
}

// Dist summarises one latency distribution, in milliseconds.
type Dist struct {
	Mean   *float64 `json:"mean,omitempty"`
	Median *float64 `json:"median,omitempty"`
	Std    *float64 `json:"std,omitempty"`
	P50    *float64 `json:"p50,omitempty"`
	P90    *float64 `json:"p90,omitempty"`
	P95    *float64 `json:"p95,omitempty"`
	P99    *float64 `json:"p99,omitempty"`
}

// F returns a pointer to v, for building records.
func F(v float64) *float64 { return &v }

// I returns a pointer to n, for building records.
func I(n int) *int { return &n }

// FailedCount is the failed count and whether the source reported it.
func (m *Metrics) FailedCount() (int, bool) { return Count(m.Failed) }

// Notes on the failed count of an imported run, English keys of the i18n
// catalog.
const (
	NoteFailedUnknown = "The source does not report failed requests: their number is unknown, not zero, and the study's failure limit cannot be checked for this run."
	NoteFailedNone    = "The source does not report failed requests, but all %s requests the profile plans completed: none failed."
)

// FailedOf is the failed count of a run of spec and whether it is known:
// as the source reported it, or none where the source is silent but
// every request the profile plans completed (derived).
func FailedOf(spec plan.Spec, m Metrics) (n int, known, derived bool) {
	if n, ok := m.FailedCount(); ok {
		return n, true, false
	}
	if p := spec.Profile.Requests; p > 0 && m.Completed == p {
		return 0, true, true
	}
	return 0, false, false
}

// Failed is FailedOf the record's trial and figures.
func (r *Record) Failed() (n int, known, derived bool) { return FailedOf(r.Trial, r.Metrics) }

// ImportNotesKnown are the record's import notes, with the unknown failed count
// replaced by its derivation where the profile settles it.
func (r *Record) ImportNotesKnown() []Note {
	if _, known, derived := r.Failed(); !known || !derived {
		return r.ImportNotes
	}
	out := make([]Note, 0, len(r.ImportNotes))
	for _, n := range r.ImportNotes {
		if n.Msg == NoteFailedUnknown {
			n = Note{Msg: NoteFailedNone, Args: []string{strconv.Itoa(r.Trial.Profile.Requests)}}
		}
		out = append(out, n)
	}
	return out
}

// Stat returns the named statistic ("mean", "median", "p99", ...).
func (d *Dist) Stat(name string) (float64, bool) {
	if d == nil {
		return 0, false
	}
	var p *float64
	switch name {
	case "mean":
		p = d.Mean
	case "median":
		p = d.Median
		if p == nil {
			p = d.P50
		}
	case "std":
		p = d.Std
	case "p50":
		p = d.P50
		if p == nil {
			p = d.Median
		}
	case "p90":
		p = d.P90
	case "p95":
		p = d.P95
	case "p99":
		p = d.P99
	}
	if p == nil {
		return 0, false
	}
	return *p, true
}

// Encode writes r as indented JSON with a trailing newline: the exact
// bytes the store hashes.
func Encode(r *Record) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(r); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// Decode parses and checks a record.
func Decode(data []byte) (*Record, error) {
	var r Record
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&r); err != nil {
		return nil, describe(data, err)
	}
	if dec.More() {
		return nil, fmt.Errorf("data after the record")
	}
	if err := r.Check(); err != nil {
		return nil, err
	}
	return &r, nil
}

// describe turns a JSON error into a message with the byte offset and
// line, so a truncated or damaged file can be found by eye.
func describe(data []byte, err error) error {
	var off int64 = -1
	switch e := err.(type) {
	case *json.SyntaxError:
		off = e.Offset
	case *json.UnmarshalTypeError:
		off = e.Offset
	}
	if err.Error() == "unexpected EOF" {
		return fmt.Errorf("truncated: the JSON ends after %d bytes", len(data))
	}
	if off >= 0 {
		line := 1 + bytes.Count(data[:min(int(off), len(data))], []byte("\n"))
		return fmt.Errorf("line %d (byte %d): %w", line, off, err)
	}
	return err
}

// Check validates a decoded record's invariants.
func (r *Record) Check() error {
	switch {
	case r.Format != Format:
		return fmt.Errorf("format %q, want %q", r.Format, Format)
	case len(r.Key) != 64:
		return fmt.Errorf("key %q is not a sha256", r.Key)
	case r.Trial.Key() != r.Key:
		return fmt.Errorf("key %s does not match its trial (which hashes to %s)", short(r.Key), short(r.Trial.Key()))
	case r.Status != "ok" && r.Status != "failed":
		return fmt.Errorf("status %q, want ok or failed", r.Status)
	case r.Status == "failed" && r.Reason == "":
		return fmt.Errorf("status failed without a reason")
	case r.Status == "ok" && r.Metrics.Completed == 0:
		return fmt.Errorf("status ok with metrics.completed 0: a run with no completed request is failed")
	}
	switch r.Provenance.Kind {
	case Measured, Imported, Simulated:
	default:
		return fmt.Errorf("provenance kind %q, want measured, imported or simulated", r.Provenance.Kind)
	}
	for i, g := range r.Provenance.GPUs {
		if g.Index < -1 {
			return fmt.Errorf("provenance.gpus[%d].index: %d is not a GPU index (0, 1, ...; -1 for a GPU named by a UUID nvidia-smi did not list)", i, g.Index)
		}
	}
	return r.Metrics.Check()
}

// Check validates figures, naming the field (as in the JSON) that is
// wrong: counts, durations, rates and latencies non-negative and finite,
// percentiles in order, an ok run with a completed request.
func (m *Metrics) Check() error {
	for _, c := range []struct {
		name string
		v    *int
	}{{"completed", &m.Completed}, {"failed", m.Failed}, {"inputTokens", m.InputTokens}, {"outputTokens", m.OutputTokens},
		{"late", &m.Late}, {"warmup", &m.Warmup}, {"connections", &m.Connections},
		{"claimedInputTokens", &m.ClaimedInputTokens}, {"inputTokenMismatch", &m.InputMismatch}} {
		if negative(c.v) {
			return fmt.Errorf("metrics.%s: %d is negative (a count)", c.name, *c.v)
		}
	}
	if m.MaxConcurrency != nil && *m.MaxConcurrency < 0 {
		return fmt.Errorf("metrics.maxConcurrency: %d is negative", *m.MaxConcurrency)
	}
	if failed, known := Count(m.Failed); known && m.Late > m.Completed+failed {
		return fmt.Errorf("metrics.late: %d late of %d requests", m.Late, m.Completed+failed)
	}
	if err := nonNegative("metrics.duration", m.Duration); err != nil {
		return err
	}
	for _, f := range []struct {
		name string
		p    *float64
	}{{"requestThroughput", m.RequestThroughput}, {"outputThroughput", m.OutputThroughput}, {"totalThroughput", m.TotalThroughput},
		{"peakOutputThroughput", m.PeakOutputThroughput}, {"peakConcurrency", m.PeakConcurrency}} {
		if f.p != nil {
			if err := nonNegative("metrics."+f.name, *f.p); err != nil {
				return err
			}
		}
	}
	for k, v := range m.Rounding {
		if err := nonNegative("metrics.rounding."+k, v); err != nil {
			return err
		}
	}
	for _, d := range []struct {
		name string
		d    *Dist
	}{{"latencyMs", m.Latency}, {"ttftMs", m.TTFT}, {"tpotMs", m.TPOT}, {"itlMs", m.ITL}, {"scheduleLagMs", m.ScheduleLag},
		{"serviceLatencyMs", m.ServiceLatency}, {"serviceTtftMs", m.ServiceTTFT}, {"connectMs", m.Connect}} {
		if err := d.d.check("metrics." + d.name); err != nil {
			return err
		}
	}
	return m.Engine.check()
}

// check: every statistic finite and non-negative (they are durations),
// percentiles in order.
func (d *Dist) check(name string) error {
	if d == nil {
		return nil
	}
	stats := []struct {
		name string
		p    *float64
	}{{"mean", d.Mean}, {"median", d.Median}, {"std", d.Std}, {"p50", d.P50}, {"p90", d.P90}, {"p95", d.P95}, {"p99", d.P99}}
	for _, st := range stats {
		if st.p != nil {
			if err := nonNegative(name+"."+st.name, *st.p); err != nil {
				return err
			}
		}
	}
	prev, prevName := -1.0, ""
	for _, st := range stats[3:] {
		if st.p == nil {
			continue
		}
		if *st.p < prev {
			return fmt.Errorf("%s.%s: %v is below %s %v (percentiles must not decrease)", name, st.name, *st.p, prevName, prev)
		}
		prev, prevName = *st.p, st.name
	}
	return nil
}

func nonNegative(name string, v float64) error {
	switch {
	case !finite(v):
		return fmt.Errorf("%s: %v is not a finite number", name, v)
	case v < 0:
		return fmt.Errorf("%s: %v is negative", name, v)
	}
	return nil
}

func negative(p *int) bool { return p != nil && *p < 0 }

// Count is *p and whether it is known.
func Count(p *int) (int, bool) {
	if p == nil {
		return 0, false
	}
	return *p, true
}

func finite(f float64) bool { return !math.IsInf(f, 0) && !math.IsNaN(f) }

func short(k string) string {
	if len(k) > 12 {
		return k[:12]
	}
	return k
}
