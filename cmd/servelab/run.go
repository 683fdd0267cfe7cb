package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"

	"servelab.dev/execute/decide"
	"servelab.dev/execute/engine"
	"servelab.dev/execute/event"
	"servelab.dev/execute/host"
	"servelab.dev/execute/runner"
	"servelab.dev/execute/store"
	"servelab.dev/schema"
)

func runRun(e *env, args []string) error {
	o, file, cf, err := parseRun(e, args, len(host.GPUs()))
	if err != nil {
		return err
	}
	if o.Simulate {
		if o.SimPath, err = runner.SimBinary(o.SimPath); err != nil {
			return err
		}
	}
	if o.Cluster, err = clusterOptions(cf.kind, cf.partition, cf.account, cf.poll, o); err != nil {
		return err
	}
	s, err := loadStudy(file)
	if err != nil {
		return err
	}
	began := time.Now()
	log, finish := progress(e, s, o, began)
	// With --json-events, stdout carries the events alone; the summary
	// goes to stderr, under the log.
	out := e.stdout
	o.Events = log
	if cf.jsonEvents {
		o.Events, out = event.Tee(log, event.JSON(e.stdout)), e.stderr
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	sum, err := runner.Run(ctx, s, o)
	// The status line goes before anything else is printed, so the
	// summary starts on a clean line and no bar is left on screen.
	finish()
	for _, p := range sum.Invalid {
		e.named[p] = true // the runner named them in its progress
	}
	for _, l := range sum.Lines(o, time.Since(began)) {
		fmt.Fprintln(out, l)
	}
	if err != nil {
		return err
	}
	line, err := sum.Outcome(o)
	if line != "" {
		fmt.Fprintln(out, line)
	}
	return err
}

// progress is the run's log on stderr: on a terminal, under a status
// bar whose total and first ETA come from the plan; else the plain log.
// finish erases the bar.
func progress(e *env, s *schema.Study, o runner.Options, began time.Time) (event.Sink, func()) {
	if !isTerminal(e.stderr) {
		return event.Log(e.stderr), func() {}
	}
	bar := event.NewBar(e.stderr, 0, 0, began)
	if rs, err := loadRecords(&env{stdout: io.Discard, stderr: io.Discard, named: map[string]bool{}}, store.Open(o.Results)); err == nil {
		if p, err := decide.Plan(s, rs, source(o.Simulate)); err == nil {
			bar = event.NewBar(e.stderr, p.Estimate.Trials-p.Estimate.Cached, time.Duration(p.Estimate.TotalSeconds*float64(time.Second)), began)
		}
	}
	return bar, bar.Finish
}

// source is the class of records a run reads: simulated ones with
// --simulate, else the real ones (simulated records count as absent).
func source(simulate bool) decide.Source {
	if simulate {
		return decide.Simulated
	}
	return decide.Real
}

// clusterOptions checks the cluster flags; a run with --cluster submits
// jobs that run this same binary.
func clusterOptions(kind, partition, account string, poll time.Duration, o runner.Options) (*runner.Cluster, error) {
	switch {
	case kind == "" && (partition != "" || account != ""):
		return nil, usagef("--partition and --account are for --cluster slurm")
	case kind == "":
		return nil, nil
	case kind != "slurm":
		return nil, usagef("--cluster %q: the one cluster servelab drives is slurm", kind)
	case o.Group != "":
		return nil, usagef("--group is what a cluster job runs; it does not go with --cluster")
	case o.MaxTrials > 0 || len(o.GPUs) > 0:
		return nil, usagef("--max-trials and --gpus are for local runs; with --cluster, Slurm allocates the GPUs")
	}
	self, err := runner.SelfBinary()
	if err != nil {
		return nil, err
	}
	return &runner.Cluster{Partition: partition, Account: account, Self: self, Poll: poll}, nil
}

// runFlags are run's --cluster options, checked by clusterOptions, and
// where its events go.
type runFlags struct {
	kind, partition, account string
	poll                     time.Duration
	jsonEvents               bool
}

// parseRun reads and checks run's flags; gpus is how many GPUs the host
// has (0: unknown).
func parseRun(e *env, args []string, gpus int) (runner.Options, string, runFlags, error) {
	fs := newFlags(e, "run", "STUDY.cue [--simulate] [--only STEP] [--max-trials N] [--force] [--gpus 0,1] [--container docker|podman] [--json-events]")
	o := runner.Options{Version: version, Progress: e.stderr}
	var cf runFlags
	fs.StringVar(&o.Results, "results", "results", "results folder")
	fs.BoolVar(&o.Simulate, "simulate", false, "replace every engine by servelab-sim with the same arguments")
	fs.StringVar(&o.SimPath, "sim", "", "servelab-sim binary (default: beside servelab, then PATH)")
	fs.StringVar(&o.Only, "only", "", "run only this step's trials")
	fs.IntVar(&o.MaxTrials, "max-trials", 0, "stop after this many trials")
	fs.BoolVar(&o.Force, "force", false, "run trials again even when they have a record")
	list := fs.String("gpus", "", "GPUs for the engines (CUDA_VISIBLE_DEVICES), each once: indexes or UUIDs")
	container := fs.String("container", "", "run each engine in a container of this runtime (docker or podman), from the study's image")
	cache := fs.String("model-cache", "", "with --container: host folder mounted as the Hugging Face cache")
	fs.StringVar(&cf.kind, "cluster", "", "submit each configuration group as a batch job of this cluster (slurm)")
	fs.StringVar(&cf.partition, "partition", "", "with --cluster slurm: the partition to submit to")
	fs.StringVar(&cf.account, "account", "", "with --cluster slurm: the account to charge")
	fs.DurationVar(&cf.poll, "poll", 5*time.Second, "with --cluster: how often to read the job queue")
	fs.StringVar(&o.Group, "group", "", "run only this configuration group (what a cluster job runs)")
	fs.BoolVar(&cf.jsonEvents, "json-events", false, "write the run's events to stdout, one JSON object per line (the summary goes to stderr)")
	fs.DurationVar(&o.HealthTimeout, "health-timeout", 20*time.Minute, "how long an engine may take to become healthy")
	pos, err := parse(fs, args)
	switch {
	case err != nil:
		return o, "", cf, err
	case len(pos) != 1:
		return o, "", cf, usagef("want one study file, got %d arguments", len(pos))
	case o.MaxTrials < 0:
		return o, "", cf, usagef("--max-trials %d: want 0 (no limit) or more", o.MaxTrials)
	case o.HealthTimeout <= 0:
		return o, "", cf, usagef("--health-timeout %s: want a positive duration (e.g. 20m)", o.HealthTimeout)
	case cf.poll <= 0:
		return o, "", cf, usagef("--poll %s: want a positive duration (e.g. 5s)", cf.poll)
	case *container != "" && o.Simulate:
		return o, "", cf, usagef("--container and --simulate exclude each other: servelab-sim runs as a local process")
	case *container != "":
		o.Launcher = engine.Container{Runtime: *container, Cache: *cache}
	case *cache != "":
		return o, "", cf, usagef("--model-cache is for --container")
	}
	if o.GPUs, err = host.ParseGPUs(*list, gpus); err != nil {
		return o, "", cf, usagef("--gpus %s: %v", *list, err)
	}
	return o, pos[0], cf, nil
}
