package runner

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"servelab.dev/execute/dataset"
	"servelab.dev/execute/engine"
	"servelab.dev/execute/engine/llamacpp"
	"servelab.dev/execute/event"
	"servelab.dev/execute/host"
	"servelab.dev/execute/load"
	"servelab.dev/execute/record"
	"servelab.dev/schema/plan"
)

// group launches one configuration, runs its trials, and tears it down.
// gpus are the GPUs it was given (CUDA_VISIBLE_DEVICES when --gpus
// names them), used what nvidia-smi said of them, for the records.
func (r *runner) group(ctx context.Context, g []*plan.Trial, gpus []string, used []record.GPU) error {
	t0 := g[0]
	e := r.s.Engines[t0.Engine]
	argv := t0.Argv
	if r.o.Simulate && r.o.SimPath != "" {
		argv = append([]string{r.o.SimPath}, argv...)
	}
	dir := filepath.Join(r.o.Results, t0.Key)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	argv, err := withFiles(r.s, t0, argv, dir)
	if err != nil {
		return r.failAll(g, used, "writing the launch's files: "+err.Error())
	}
	logPath := filepath.Join(dir, "engine.log")
	if !r.pool.assign {
		gpus = nil // the engine sees what it would see without servelab
	}
	spec := engine.Spec{Name: t0.Key, Argv: argv, Env: launchEnv(t0.Env, e.Def.CacheReset), FlagStyle: e.Def.FlagStyle, HostFlag: e.Def.HostFlag,
		PortFlag: e.Def.PortFlag, Health: e.Def.Health, GPUs: strings.Join(gpus, ","), Log: logPath, Image: e.ImageRef()}
	// In a cluster job the scheduler ends what the job leaves, and a pid
	// file on the shared folder would name a process of another node.
	if r.o.Group == "" {
		spec.PidFile = r.pidFile(t0.Key)
	}
	launch := launchEvent(g, gpus)
	r.emit(event.Event{Kind: event.Launching, Launch: launch})
	spec.HealthWait = func(d time.Duration) {
		l := *launch
		l.LaunchSeconds = d.Seconds()
		r.emit(event.Event{Kind: event.HealthWait, Launch: &l})
	}
	proc, err := r.o.Launcher.Launch(ctx, spec, r.o.HealthTimeout)
	r.mu.Lock()
	r.sum.Launches++
	if proc != nil {
		tm := proc.Timing()
		r.sum.Overhead += tm.Launch + tm.Health + tm.Teardown
		launch.LaunchSeconds, launch.HealthSeconds, launch.TeardownSeconds = tm.Launch.Seconds(), tm.Health.Seconds(), tm.Teardown.Seconds()
	}
	r.mu.Unlock()
	if ctx.Err() != nil {
		return ErrInterrupted
	}
	if err != nil {
		r.emit(event.Event{Kind: event.LaunchFailed, Launch: launch, Reason: err.Error()})
		return r.failAll(g, used, "engine did not start: "+err.Error())
	}
	r.emit(event.Event{Kind: event.Ready, Launch: launch})
	quality := r.guard(ctx, proc, t0)
	var ran []string
	defer func() {
		proc.Stop()
		if s, ok := proc.(engine.Survivor); ok && len(s.Survivors()) > 0 {
			r.emit(event.Event{Kind: event.Notice, Message: fmt.Sprintf("engine %s: %s outlived SIGKILL; its pid file stays, and the next run stops them",
				t0.Key[:12], strings.Join(s.Survivors(), ", "))})
		}
		r.mu.Lock()
		r.sum.Overhead += proc.Timing().Teardown
		r.mu.Unlock()
		l := *launch
		l.TeardownSeconds = proc.Timing().Teardown.Seconds()
		r.emit(event.Event{Kind: event.Teardown, Launch: &l})
		for _, key := range ran[min(1, len(ran)):] {
			copyLog(logPath, filepath.Join(r.o.Results, key, "engine.log"))
		}
	}()
	for len(g) > 0 {
		for _, t := range g {
			if r.limited() {
				return nil
			}
			var note string
			if len(ran) > 0 {
				note = resetCache(ctx, target(proc, t), e.Def.CacheReset)
			}
			ran = append(ran, t.Key)
			if err := r.trial(ctx, proc, t, note, quality, used); err != nil {
				return err
			}
		}
		if g, err = r.followUps(plan.LaunchKey(t0)); err != nil {
			return err
		}
	}
	return nil
}

func copyLog(from, to string) {
	b, err := os.ReadFile(from)
	if err == nil && os.MkdirAll(filepath.Dir(to), 0o755) == nil {
		os.WriteFile(to, b, 0o644)
	}
}

// failAll records every trial of a configuration that could not start.
func (r *runner) failAll(g []*plan.Trial, used []record.GPU, why string) error {
	for _, t := range g {
		rec := r.record(t, used, time.Now(), time.Now())
		rec.Status, rec.Reason = "failed", why
		if _, _, err := r.st.Put(rec); err != nil {
			return err
		}
		r.mu.Lock()
		r.done[t.Key] = true
		r.sum.Failed++
		r.mu.Unlock()
		r.emit(event.Event{Kind: event.TrialFailed, Trial: trialEvent(t), Reason: why})
	}
	return nil
}

// trial drives one profile against the running engine and stores the run.
func (r *runner) trial(ctx context.Context, proc engine.Instance, t *plan.Trial, note string, quality *record.Quality, used []record.GPU) error {
	tg := target(proc, t)
	wl, err := r.workload(t, tg)
	if err != nil {
		return r.failAll([]*plan.Trial{t}, used, err.Error())
	}
	prompts, estimated := wl.prompts, wl.estimated
	sp := t.Spec
	_, arrivals := sp.Seeds()
	l := load.Load{Kind: sp.Profile.Kind, Rate: sp.Profile.Rate, Burstiness: sp.Profile.Burstiness, Concurrency: sp.Profile.Concurrency,
		Requests: sp.Profile.Requests, Warmup: sp.Benchmark.Warmup, Seed: arrivals,
		Timeout: time.Duration(sp.Benchmark.Timeout * float64(time.Second)), IgnoreEOS: sp.Benchmark.IgnoreEOS,
		Offsets: wl.offsets, Conversations: wl.convs, Think: wl.think}
	if l.Timeout == 0 {
		l.Timeout = 10 * time.Minute
	}
	watch, stopped := r.earlyWatch(t)
	l.Watch = watch
	r.emit(event.Event{Kind: event.TrialStarted, Trial: trialEvent(t)})
	began := time.Now()
	tg.Metrics = load.MetricsPath(t.Kind)
	res, err := load.Measure(ctx, tg, l, prompts)
	r.mu.Lock()
	r.sum.Bench += time.Since(began)
	r.mu.Unlock()
	if ctx.Err() != nil {
		return ErrInterrupted
	}
	if err != nil {
		return err
	}
	rec := r.record(t, used, began, time.Now())
	if stopped != nil && stopped() != nil {
		st := stopped()
		res.Samples = keepSeen(res.Samples)
		rec.EarlyStop = &record.EarlyStop{After: st.After, Planned: sp.Profile.Requests, Reason: st.Reason}
		r.emit(event.Event{Kind: event.EarlyStop, Trial: trialEvent(t), Stop: &event.Stop{After: st.After, Planned: sp.Profile.Requests, Reason: st.Reason}})
	}
	rec.Metrics = res.Metrics()
	rec.Metrics.SharedPrefix = record.F(dataset.SharedPrefix(wl.sent, sp.Benchmark.Warmup, sp.Benchmark.Warmup+sp.Profile.Requests))
	rec.Quality = quality
	if estimated {
		rec.Notes = append(rec.Notes, "prompt and output lengths estimated from characters: the engine has no /tokenize")
	}
	if note != "" {
		rec.Notes = append(rec.Notes, note)
	}
	rec.Notes = append(rec.Notes, load.Notes(rec.Metrics)...)
	if dead, why := proc.Exited(); dead {
		rec.Status, rec.Reason = "failed", fmt.Sprintf("engine died mid-benchmark (%v); log tail:\n%s", why, proc.Tail(12))
	} else if rec.Metrics.Completed == 0 {
		rec.Status, rec.Reason = "failed", "no request completed: "+strings.Join(rec.Metrics.FailReasons, "; ")
	}
	_, _, err = r.st.PutWithSidecar(rec, res.Samples, res.Engine)
	if err != nil {
		return fmt.Errorf("trial %s: storing its record: %w (nothing was written)", t.Key[:12], err)
	}
	r.mu.Lock()
	r.done[t.Key] = true
	if rec.Status == "ok" {
		r.sum.Run++
	} else {
		r.sum.Failed++
	}
	r.mu.Unlock()
	failed, _ := rec.Metrics.FailedCount() // measured: always known
	r.emit(event.Event{Kind: event.TrialFinished, Trial: trialEvent(t), Reason: rec.Reason,
		Result: &event.Result{Status: rec.Status, Seconds: time.Since(began).Seconds(), Completed: rec.Metrics.Completed, Failed: failed}})
	return nil
}

// target is the launched engine as trial t's client reaches it.
func target(proc engine.Instance, t *plan.Trial) load.Target {
	tg := load.Target{URL: proc.Endpoint(), Model: t.Model, API: t.Spec.Benchmark.API}
	if d, ok := proc.(engine.Dialer); ok {
		tg.Dial = d.DialContext
	}
	return tg
}

// guard decodes the quality guard's prompts greedily on a fresh launch,
// before any load, when a step of the study asks for the guard. A
// failure is recorded, not fatal: the speed figures stand on their own.
func (r *runner) guard(ctx context.Context, proc engine.Instance, t *plan.Trial) *record.Quality {
	size, ok := r.s.GuardSize()
	if !ok {
		return nil
	}
	q := &record.Quality{Prompts: size.Prompts, Tokens: size.Tokens}
	seed, _ := t.Spec.Seeds()
	tg := target(proc, t)
	prompts, _, err := r.promptSet(t, tg, size.Prompts, seed^0x9a4d)
	if err == nil {
		q.Outputs, err = load.Greedy(ctx, tg, prompts, size.Tokens)
	}
	if err != nil {
		q.Error = err.Error()
	}
	r.emit(event.Event{Kind: event.QualityGuard, Trial: trialEvent(t), Quality: &event.Quality{Outputs: len(q.Outputs), Tokens: size.Tokens, Error: q.Error}})
	return q
}

// promptSet is n prompts of trial t's dataset, drawn from seed; random
// ones are made as they are sent. A trace's rows and a conversation
// file's turns (all turns, history included) are used in order.
func (r *runner) promptSet(t *plan.Trial, tg load.Target, n int, seed uint64) (load.Prompts, bool, error) {
	ds := r.datasetOf(t)
	switch ds.Name {
	case "random":
		prompts, err := dataset.RandomFor(tg, ds.InputLen, ds.OutputLen, ds.RangeRatio, ds.PrefixLen, n, seed)
		return prompts, false, err
	case "prefix-repetition":
		return r.forAPI(dataset.PrefixRepetition(ds.PrefixLen, ds.SuffixLen, ds.Prefixes, ds.OutputLen, n, seed)), false, nil
	case "mooncake":
		rows, err := readTrace(ds)
		if err != nil {
			return nil, false, err
		}
		return r.forAPI(dataset.TracePrompts(rows, ds.Block(), r.maxOut(), seed)), false, nil
	case "conversations":
		wl, err := r.dialogs(t, ds, tg, seed)
		return wl.sent, wl.estimated, err
	}
	set, err := dataset.ShareGPT(ds.Path, ds.SHA256, n, seed, dataset.EngineTokenizer(tg))
	return load.List(set.Prompts), set.Estimated, err
}

func (r *runner) record(t *plan.Trial, used []record.GPU, began, ended time.Time) *record.Record {
	kind := record.Measured
	if r.o.Simulate {
		kind = record.Simulated
	}
	prompts, arrivals := t.Spec.Seeds()
	p := host.Provenance(kind, began, ended, r.o.Version)
	host.OnGPUs(&p, used)
	if t.Kind == "llamacpp" && !r.o.Simulate && len(t.Argv) > 0 {
		p.EngineBuild = llamacpp.BuildInfo(t.Argv[0])
	}
	return &record.Record{Format: record.Format, Key: t.Key, Trial: *t.Spec, Provenance: p,
		Status: "ok", Seeds: &record.Seeds{Prompts: prompts, Arrivals: arrivals}}
}
