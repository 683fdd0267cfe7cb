package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"time"

	"servelab.dev/execute/bench"
	"servelab.dev/execute/record"
	"servelab.dev/render/text"
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
	return benchWith(e, b)
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
	if b.wait < 0 {
		return b, usagef("--wait %s: want a duration of 0 or more (0: none)", b.wait)
	}
	if err := b.options().Check(); err != nil {
		return b, usagef("%v", err)
	}
	return b, nil
}

func benchWith(e *env, b benchFlags) error {
	o := b.options()
	if err := bench.Fresh(b.out); err != nil {
		return usagef("-o %s: %v", b.out, err)
	}
	if err := bench.WaitHealthy(b.target, b.wait); err != nil {
		return fmt.Errorf("--wait %s: %w; is the server up (and --target right)?", b.wait, err)
	}
	ps, err := bench.MakePrompts(o)
	if err != nil && b.random != "" {
		return fmt.Errorf("--random %s with --api %s: %w", b.random, b.api, err)
	} else if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	run, err := bench.Measure(ctx, o, ps)
	if err != nil {
		return err
	}
	r := run.Record
	text.Bench(e.stdout, r)
	if b.out != "" {
		if err := run.Write(b.out); err != nil {
			return err
		}
	}
	if r.Status == "failed" {
		failed, _ := record.Count(r.Metrics.Failed) // bench counts every request it sent
		return fmt.Errorf("%s (%d requests failed; the reasons are above)", r.Reason, failed)
	}
	return nil
}

// options are the run the flags ask for (parseBench has checked them).
func (b benchFlags) options() bench.Options {
	in, out, _ := parseRandom(b.random)
	return bench.Options{Target: b.target, Model: b.model, API: b.api, Kind: b.kind, Rate: b.rate, Burstiness: b.burst,
		Concurrency: b.conc, Requests: b.requests, Warmup: b.warmup, Seed: b.seed, Dataset: b.data, InputLen: in, OutputLen: out,
		Metrics: b.metrics, Timeout: b.timeout, MaxDuration: b.maxDur, IgnoreEOS: b.ignoreEOS, Version: version}
}
