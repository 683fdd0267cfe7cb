// Package bench drives one load profile against a running
// OpenAI-compatible endpoint and makes the run a record, as `servelab
// bench` does: an endpoint servelab did not launch, so the record's
// engine is "external" and its key is made from what the run asked for.
// It also measures the client's own headroom on a host (Calibrate).
package bench

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"

	"servelab.dev/execute/dataset"
	"servelab.dev/execute/host"
	"servelab.dev/execute/load"
	"servelab.dev/execute/record"
	"servelab.dev/execute/store"
	"servelab.dev/schema"
	"servelab.dev/schema/plan"
)

// Options are what one bench run asks for. Exactly one of Dataset (a
// ShareGPT file) and InputLen/OutputLen (random prompts) is set.
type Options struct {
	Target, Model string
	API           string // chat or completions
	Kind          string // constant, poisson or concurrency
	Rate          float64
	Burstiness    float64
	Concurrency   int
	Requests      int
	Warmup        int
	Seed          uint64
	Dataset       string
	InputLen      int
	OutputLen     int
	Metrics       string // path of the Prometheus metrics; "" scrapes none
	Timeout       time.Duration
	MaxDuration   time.Duration
	IgnoreEOS     bool
	Version       string // servelab's, recorded in the trial and provenance
}

// Prompts are the prompts of a run: random ones are made as they are
// sent, so no request count fills the memory with prompts.
type Prompts struct {
	load.Prompts
	// Estimated is true when lengths come from a character count: the
	// server has no /tokenize.
	Estimated bool
}

// MakePrompts reads or makes the run's prompts. Random prompts for the
// chat API are text checked with the server's /tokenize, so the server
// must be up.
func MakePrompts(o Options) (Prompts, error) {
	n := o.Requests + o.Warmup
	if o.Dataset == "" {
		ps, err := dataset.RandomFor(load.Target{URL: o.Target, Model: o.Model, API: o.API}, o.InputLen, o.OutputLen, 0, 0, n, o.Seed)
		return Prompts{Prompts: ps}, err
	}
	set, err := dataset.ShareGPT(o.Dataset, "", n, o.Seed, dataset.EngineTokenizer(load.Target{URL: o.Target, Model: o.Model}))
	return Prompts{Prompts: load.List(set.Prompts), Estimated: set.Estimated}, err
}

// DatasetOf is the dataset a run of o records: the ShareGPT file's
// name, or the random prompts' lengths.
func DatasetOf(o Options) plan.DatasetSpec {
	if o.Dataset == "" {
		return plan.DatasetSpec{Name: "random", InputLen: o.InputLen, OutputLen: o.OutputLen}
	}
	return plan.DatasetSpec{Name: "sharegpt", File: filepath.Base(o.Dataset)}
}

// Run is a measured run: its record, and the per-request samples and
// engine metrics that go beside it.
type Run struct {
	Record *record.Record
	result load.Result
}

// Measure sends the profile with the prompts and returns the run. A run
// in which no request completed is a failed record (with the reasons),
// not an error: its figures still say what happened.
func Measure(ctx context.Context, o Options, ps Prompts) (*Run, error) {
	l := load.Load{Kind: o.Kind, Rate: o.Rate, Burstiness: o.Burstiness, Concurrency: o.Concurrency, Requests: o.Requests,
		Warmup: o.Warmup, Seed: o.Seed, Timeout: o.Timeout, MaxDuration: o.MaxDuration, IgnoreEOS: o.IgnoreEOS}
	began := time.Now().UTC()
	res, err := load.Measure(ctx, load.Target{URL: o.Target, Model: o.Model, API: o.API, Metrics: o.Metrics}, l, ps.Prompts)
	if err != nil {
		return nil, err
	}
	r := Record(o, host.Provenance(record.Measured, began, time.Now(), o.Version), res.Metrics())
	if ps.Estimated {
		r.Notes = append(r.Notes, "prompt and output lengths estimated from characters: the server has no /tokenize")
	}
	return &Run{Record: r, result: res}, nil
}

// Record is the record of a run of o with metrics m: the trial spec
// (engine "external", the host's first GPU when nvidia-smi names one),
// status ok, or failed when no request completed.
func Record(o Options, prov record.Provenance, m record.Metrics) *record.Record {
	spec := plan.Spec{Schema: schema.Version, Engine: plan.EngineSpec{Kind: "external"}, Model: plan.ModelSpec{ID: o.Model},
		Argv: []string{o.Target}, Hardware: plan.HardwareSpec{GPU: "unknown", Count: 1},
		Profile: plan.ProfileSpec{Kind: o.Kind, Requests: o.Requests, Rate: rateOf(o), Burstiness: burstOf(o), Concurrency: o.Concurrency},
		Benchmark: plan.BenchmarkSpec{Client: "builtin", ClientVersion: o.Version, Dataset: DatasetOf(o), API: o.API, Seed: int(o.Seed),
			Warmup: o.Warmup, Timeout: o.Timeout.Seconds(), IgnoreEOS: o.IgnoreEOS}}
	if g := host.GPUs(); len(g) > 0 {
		spec.Hardware.GPU = g[0].Name
	}
	r := &record.Record{Format: record.Format, Key: spec.Key(), Trial: spec, Provenance: prov, Status: "ok", Metrics: m,
		Notes: load.Notes(m)}
	if m.Completed == 0 {
		r.Status, r.Reason = "failed", "no request completed: "+strings.Join(m.FailReasons, "; ")
	}
	return r
}

// rateOf and burstOf keep the fields a profile kind does not use at 0,
// so equal runs have equal keys whatever the other flags said.
func rateOf(o Options) float64 {
	if o.Kind == "concurrency" {
		return 0
	}
	return o.Rate
}

func burstOf(o Options) float64 {
	if o.Kind == "poisson" {
		return o.Burstiness
	}
	return 0
}

// SamplesPath is the sidecar written beside a record at path.
func SamplesPath(path string) string {
	return filepath.Join(filepath.Dir(path), filepath.Base(strings.TrimSuffix(path, ".json"))+".samples.jsonl.gz")
}

// Write writes the record to path and its samples beside it, each
// through a temporary file and a rename; the sidecar goes first, so a
// record never names a sidecar that is not there.
func (r *Run) Write(path string) error {
	side, err := record.EncodeSidecar(r.result.Samples, r.result.Engine)
	if err != nil {
		return err
	}
	r.Record.Samples = filepath.Base(SamplesPath(path))
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	if err := store.WriteAtomic(SamplesPath(path), side); err != nil {
		return err
	}
	data, err := record.Encode(r.Record)
	if err != nil {
		return err
	}
	return store.WriteAtomic(path, data)
}

// Fresh refuses a record path (or its samples) that exists: bench never
// writes over a file. "" (no record asked for) is fresh.
func Fresh(path string) error {
	if path == "" {
		return nil
	}
	for _, p := range []string{path, SamplesPath(path)} {
		if _, err := os.Lstat(p); err == nil {
			return fmt.Errorf("%s exists; bench never writes over a file: give a new name", p)
		}
	}
	return nil
}

// WaitHealthy polls target's /health until it answers 200, for at most
// d (0: not at all).
func WaitHealthy(target string, d time.Duration) error {
	if d <= 0 {
		return nil
	}
	deadline := time.Now().Add(d)
	url := strings.TrimRight(target, "/") + "/health"
	for {
		resp, err := http.Get(url)
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%s did not answer 200 in that time", url)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
