package main

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"time"

	"servelab.dev/execute/dataset"
	"servelab.dev/execute/host"
	"servelab.dev/execute/load"
	"servelab.dev/execute/record"
	"servelab.dev/render/report"
	"servelab.dev/schema"
	"servelab.dev/schema/plan"
)

type benchFlags struct {
	target, model, api, kind, data, random, out string
	metrics                                     string
	rate, burst                                 float64
	conc, requests, warmup                      int
	seed                                        uint64
	timeout, maxDur, wait                       time.Duration
	ignoreEOS                                   bool
}

func runBench(e *env, args []string) error {
	b, err := parseBench(e, args)
	if err != nil {
		return err
	}
	return bench(e, b)
}

// parseBench reads and checks the flags; nothing is sent before both pass.
func parseBench(e *env, args []string) (benchFlags, error) {
	fs := newFlags(e, "bench", "--target URL --model NAME [--kind constant|poisson|concurrency] [--rate R | --concurrency N] [--dataset FILE | --random IN,OUT] [-o record.json]")
	var b benchFlags
	fs.StringVar(&b.target, "target", "", "base URL of the OpenAI-compatible server")
	fs.StringVar(&b.model, "model", "", "model name the server serves")
	fs.StringVar(&b.api, "api", "chat", "chat (/v1/chat/completions) or completions (/v1/completions)")
	fs.StringVar(&b.kind, "kind", "constant", "constant, poisson or concurrency")
	fs.Float64Var(&b.rate, "rate", 1, "requests per second (constant, poisson)")
	fs.Float64Var(&b.burst, "burstiness", 1, "gamma shape of poisson gaps (1 = Poisson)")
	fs.IntVar(&b.conc, "concurrency", 0, "slots (concurrency) or a cap (rate profiles)")
	fs.IntVar(&b.requests, "requests", 100, "measured requests")
	fs.IntVar(&b.warmup, "warmup", 0, "warm-up requests before the measured ones")
	fs.Uint64Var(&b.seed, "seed", 0, "seed of the schedule and of the dataset shuffle")
	fs.StringVar(&b.data, "dataset", "", "ShareGPT file")
	fs.StringVar(&b.random, "random", "", "random prompts of INPUT,OUTPUT tokens: token ids (completions API) or text checked with the server's /tokenize (chat API)")
	fs.StringVar(&b.metrics, "metrics", "/metrics", "path of the server's Prometheus metrics, scraped each second (\"\": none)")
	fs.DurationVar(&b.timeout, "timeout", 10*time.Minute, "per-request timeout")
	fs.DurationVar(&b.maxDur, "max-duration", 0, "cap on the whole run (0: none)")
	fs.BoolVar(&b.ignoreEOS, "ignore-eos", false, "ask the server to produce exactly the output budget")
	fs.StringVar(&b.out, "o", "", "write the record (and its samples beside it) to this file")
	fs.DurationVar(&b.wait, "wait", 0, "wait this long for the target's /health before starting")
	pos, err := parse(fs, args)
	if err != nil {
		return b, err
	}
	if len(pos) > 0 || b.target == "" || b.model == "" || (b.data == "") == (b.random == "") {
		return b, usagef("want --target, --model and one of --dataset or --random")
	}
	if b.random != "" {
		if _, _, err := parseRandom(b.random); err != nil {
			return b, err
		}
	}
	return b, checkBench(b)
}

func bench(e *env, b benchFlags) error {
	if err := freshOutput(b.out); err != nil {
		return err
	}
	if err := waitHealthy(b.target, b.wait); err != nil {
		return err
	}
	set, ds, err := benchPrompts(b)
	if err != nil {
		return err
	}
	l := load.Load{Kind: b.kind, Rate: b.rate, Burstiness: b.burst, Concurrency: b.conc, Requests: b.requests,
		Warmup: b.warmup, Seed: b.seed, Timeout: b.timeout, MaxDuration: b.maxDur, IgnoreEOS: b.ignoreEOS}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	began := time.Now().UTC()
	res, err := load.Measure(ctx, load.Target{URL: b.target, Model: b.model, API: b.api, Metrics: b.metrics}, l, set.prompts)
	if err != nil {
		return err
	}
	r := benchRecord(b, ds, began, res)
	if set.estimated {
		r.Notes = append(r.Notes, "prompt and output lengths estimated from characters: the server has no /tokenize")
	}
	fmt.Fprint(e.stdout, report.Block(r.Trial, r.Metrics, nil))
	printClient(e, r.Metrics)
	for _, why := range r.Metrics.FailReasons {
		fmt.Fprintf(e.stdout, "failed: %s\n", why)
	}
	for _, n := range r.Notes {
		fmt.Fprintf(e.stdout, "note: %s\n", n)
	}
	if b.out != "" {
		if err := writeBenchRecord(b.out, r, res); err != nil {
			return err
		}
	}
	if r.Status == "failed" {
		failed, _ := record.Count(r.Metrics.Failed) // bench counts every request it sent
		return fmt.Errorf("%s (%d requests failed; the reasons are above)", r.Reason, failed)
	}
	return nil
}

// printClient prints what the client measured of itself: how late the
// sends were (to the first byte on the wire), connections opened during
// the measured requests, and TTFT from the actual send.
func printClient(e *env, m record.Metrics) {
	line := func(label, val string) { fmt.Fprintf(e.stdout, "%-40s %s\n", label+":", val) }
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

// benchSet is the prompts of a bench run: random ones are made as they
// are sent, so no request count fills the memory with prompts.
type benchSet struct {
	prompts   load.Prompts
	estimated bool
}

func benchPrompts(b benchFlags) (benchSet, plan.DatasetSpec, error) {
	n := b.requests + b.warmup
	if b.random != "" {
		il, ol, err := parseRandom(b.random)
		if err != nil {
			return benchSet{}, plan.DatasetSpec{}, err
		}
		prompts, err := dataset.RandomFor(b.api, b.target, b.model, il, ol, 0, 0, n, b.seed)
		if err != nil {
			return benchSet{}, plan.DatasetSpec{}, fmt.Errorf("--random %s with --api %s: %v", b.random, b.api, err)
		}
		return benchSet{prompts: prompts}, plan.DatasetSpec{Name: "random", InputLen: il, OutputLen: ol}, nil
	}
	set, err := dataset.ShareGPT(b.data, "", n, b.seed, dataset.EngineTokenizer(b.target, b.model))
	return benchSet{load.List(set.Prompts), set.Estimated}, plan.DatasetSpec{Name: "sharegpt", File: filepath.Base(b.data)}, err
}

func benchRecord(b benchFlags, ds plan.DatasetSpec, began time.Time, res load.Result) *record.Record {
	api := b.api
	spec := plan.Spec{Schema: schema.Version, Engine: plan.EngineSpec{Kind: "external"}, Model: plan.ModelSpec{ID: b.model},
		Argv: []string{b.target}, Hardware: plan.HardwareSpec{GPU: "unknown", Count: 1},
		Profile: plan.ProfileSpec{Kind: b.kind, Requests: b.requests, Rate: rateOf(b), Burstiness: burstOf(b), Concurrency: b.conc},
		Benchmark: plan.BenchmarkSpec{Client: "builtin", ClientVersion: version, Dataset: ds, API: api, Seed: int(b.seed),
			Warmup: b.warmup, Timeout: b.timeout.Seconds(), IgnoreEOS: b.ignoreEOS}}
	if g := host.GPUs(); len(g) > 0 {
		spec.Hardware.GPU = g[0].Name
	}
	prov := host.Provenance(record.Measured, began, time.Now(), version)
	m := res.Metrics()
	r := &record.Record{Format: record.Format, Key: spec.Key(), Trial: spec, Provenance: prov, Status: "ok", Metrics: m,
		Notes: load.Notes(m)}
	if m.Completed == 0 {
		r.Status, r.Reason = "failed", "no request completed: "+strings.Join(m.FailReasons, "; ")
	}
	return r
}

func rateOf(b benchFlags) float64 {
	if b.kind == "concurrency" {
		return 0
	}
	return b.rate
}

func burstOf(b benchFlags) float64 {
	if b.kind == "poisson" {
		return b.burst
	}
	return 0
}

func writeBenchRecord(path string, r *record.Record, res load.Result) error {
	side, err := record.EncodeSidecar(res.Samples, res.Engine)
	if err != nil {
		return err
	}
	r.Samples = filepath.Base(strings.TrimSuffix(path, ".json")) + ".samples.jsonl.gz"
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	if err := writeAtomic(filepath.Join(filepath.Dir(path), r.Samples), side); err != nil {
		return err
	}
	data, err := record.Encode(r)
	if err != nil {
		return err
	}
	return writeAtomic(path, data)
}

// freshOutput refuses an -o record (or its samples) that exists: bench
// never writes over a file.
func freshOutput(path string) error {
	if path == "" {
		return nil
	}
	side := filepath.Join(filepath.Dir(path), filepath.Base(strings.TrimSuffix(path, ".json"))+".samples.jsonl.gz")
	for _, p := range []string{path, side} {
		if _, err := os.Lstat(p); err == nil {
			return usagef("-o %s: %s exists; bench never writes over a file: give a new name", path, p)
		}
	}
	return nil
}

// waitHealthy polls the target's /health until it answers 200.
func waitHealthy(target string, d time.Duration) error {
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
			return fmt.Errorf("--wait %s: %s did not answer 200 in that time; is the server up (and --target right)?", d, url)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
