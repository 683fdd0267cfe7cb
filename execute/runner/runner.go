// Package runner executes a study: it plans, launches each engine
// configuration once for all its profiles and repeats, drives the
// benchmark client against it, stores every run, re-plans with the new
// records (so the next step's trials appear), and stops when the study
// is decided, a limit is reached, or it is interrupted. Trials whose
// record exists are not run again.
package runner

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"servelab.dev/execute/decide"
	"servelab.dev/execute/engine"
	"servelab.dev/execute/event"
	"servelab.dev/execute/host"
	"servelab.dev/execute/store"
	"servelab.dev/schema"
	"servelab.dev/schema/plan"
)

// Options control a run.
type Options struct {
	Results string
	// Simulate replaces every engine by the simulator with the same
	// arguments: the servelab-sim binary at SimPath, or, with no
	// SimPath, whatever the Launcher starts (execute/sim's in-process
	// one); either way the records are marked simulated.
	Simulate  bool
	SimPath   string
	Only      string // run only this step's trials
	MaxTrials int    // stop after this many trials (0: no limit)
	Force     bool   // run trials again even when they have a record
	// GPUs are the GPUs launches may use (--gpus); each launch gets
	// those it needs (its tensor-parallel size) among the ones free.
	GPUs []string
	// GPUQuery reads the GPUs and their memory in use; nil: nvidia-smi
	// (host.Query).
	GPUQuery      func(context.Context) ([]host.GPU, error)
	HealthTimeout time.Duration
	Launcher      engine.Launcher // how engines start; nil: local processes
	// Events receives what the run does as typed events (the terminal
	// bar, the JSON stream); nil: Progress gets them as the plain log.
	Events event.Sink
	// Progress is where the plain log goes when Events is nil.
	Progress io.Writer
	Version  string
	// Group runs only the trials of this configuration group (GroupKey):
	// what one cluster job does.
	Group string
	// Cluster submits each configuration group as a batch job instead of
	// launching engines here.
	Cluster *Cluster
	// WriteFile replaces the store's atomic write (tests inject a full disk).
	WriteFile func(path string, data []byte) error
}

// Summary is what a run did.
type Summary struct {
	Run, Cached, Failed, Launches int
	Bench, Overhead               time.Duration // GPU time in benchmarks; in launches, health waits, teardowns
	Decided                       bool
	// Unmeasured says the steps chose a final configuration whose every
	// run failed: the study is not decided.
	Unmeasured bool
	Cluster    ClusterSummary
	// Unsettled are the steps the run left waiting or invalid, with why.
	Unsettled []plan.StepState
	// Invalid are the files in the results folder that are not valid
	// records: named in the progress, left out of every decision.
	Invalid []string
}

// ErrInterrupted is returned when the run was stopped by a signal.
var ErrInterrupted = errors.New("interrupted: the trial in progress was not recorded; run again to continue")

type runner struct {
	s    *schema.Study
	o    Options
	st   *store.Store
	ev   event.Sink // serialised: groups on different GPUs emit at once
	pool *gpuPool
	mu   sync.Mutex // guards sum and done: groups on different GPUs run at once
	sum  Summary
	done map[string]bool // trials run (or failed) by this invocation
	had  map[string]bool // keys with records, as a cluster driver last counted
}

// Run executes s. Its last event is the Summary.
func Run(ctx context.Context, s *schema.Study, o Options) (Summary, error) {
	if o.Progress == nil {
		o.Progress = io.Discard
	}
	if o.Events == nil {
		o.Events = event.Log(o.Progress)
	}
	if o.Launcher == nil {
		o.Launcher = engine.Local{}
	}
	if o.HealthTimeout == 0 {
		o.HealthTimeout = 20 * time.Minute
	}
	r := &runner{s: s, o: o, st: store.Open(o.Results), ev: event.Serial(o.Events), done: map[string]bool{}}
	r.st.WriteFile = o.WriteFile
	err := r.run(ctx)
	r.emitSummary(err)
	return r.sum, err
}

func (r *runner) run(ctx context.Context) error {
	o, s := r.o, r.s
	if err := CheckWorkloads(s); err != nil {
		return err // before any launch: a bad file is the study's error, not a trial's
	}
	if o.Group != "" {
		// A cluster job: the driver holds the folder's lock, and other
		// jobs write other groups' trials at the same time.
		unlock, err := r.st.LockFile(".lock-group-"+o.Group, 0, "servelab job "+s.File)
		if err != nil {
			return err
		}
		defer unlock()
		return r.loop(ctx)
	}
	unlock, err := r.st.Lock(0, "servelab run "+s.File)
	if err != nil {
		return err
	}
	defer unlock()
	if o.Cluster != nil {
		return r.cluster(ctx)
	}
	r.reapOrphan()
	for _, f := range r.st.CleanTemp() {
		r.emit(event.Event{Kind: event.Notice, Path: f, Message: fmt.Sprintf("removed %s, left by a servelab killed mid-write", f)})
	}
	return r.loop(ctx)
}

// pidFile holds the identity of an engine a run has up (engine.Spec's
// PidFile), so that the next run can stop it if servelab itself died.
func (r *runner) pidFile(key string) string {
	return filepath.Join(r.o.Results, ".engine-"+key[:16]+".pid")
}

// reapOrphan stops the engines a dead run left up, once their identity
// is proved, and removes every pid file; it runs under the lock, so no
// live run owns one of them.
func (r *runner) reapOrphan() {
	files, _ := filepath.Glob(filepath.Join(r.o.Results, ".engine*.pid"))
	for _, f := range files {
		r.emit(event.Event{Kind: event.Notice, Path: f, Message: engine.Reap(f)})
	}
}

func (r *runner) loop(ctx context.Context) error {
	query := r.o.GPUQuery
	if query == nil {
		query = host.Query
	}
	r.pool = newGPUPool(ctx, r.o.GPUs, query, r.emit)
	if err := r.sameGPU(ctx, query); err != nil {
		return err
	}
	first := true
	for round := 1; ; round++ {
		p, err := r.plan()
		if err != nil {
			return err
		}
		r.settle(p)
		todo := r.todo(p, first)
		first = false
		r.emitReplan(round, p, len(todo))
		if len(todo) == 0 {
			r.sum.Decided = p.Final != nil && len(r.sum.Unsettled) == 0
			if r.sum.Decided && r.finalUnmeasured() {
				r.sum.Decided, r.sum.Unmeasured = false, true
			}
			return nil
		}
		if r.limited() {
			return nil
		}
		before := r.tried()
		if err := r.pass(ctx, groups(todo)); err != nil {
			return err
		}
		if r.tried() == before {
			return nil // nothing could run: do not spin on the same plan
		}
	}
}

// finalUnmeasured says whether every run of the final configuration
// failed.
func (r *runner) finalUnmeasured() bool {
	runs, err := r.runs()
	if err != nil {
		return false
	}
	unmeasured, err := decide.FinalUnmeasured(r.s, runs, r.source())
	return err == nil && unmeasured
}

func (r *runner) tried() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.done)
}

// pass runs the groups of one plan: one after another, or, with several
// GPUs, at once on disjoint GPU sets as their tensor-parallel size asks,
// each on GPUs whose memory no other process holds (gpuPool).
func (r *runner) pass(ctx context.Context, gs [][]*plan.Trial) error {
	if len(r.o.GPUs) <= 1 {
		for _, g := range gs {
			if r.isDone(g[0].Key) || r.limited() {
				continue
			}
			if err := r.onGPUs(ctx, g, len(r.pool.ids)); err != nil {
				return err
			}
		}
		return nil
	}
	var wg sync.WaitGroup
	errs := make([]error, len(gs))
	for i, g := range gs {
		need := tensorParallel(g[0])
		if need > len(r.o.GPUs) {
			errs[i] = r.failAll(g, nil, fmt.Sprintf("needs %d GPUs (tensor parallel), --gpus gives %d", need, len(r.o.GPUs)))
			continue
		}
		if r.isDone(g[0].Key) || r.limited() {
			continue
		}
		gpus, used, err := r.pool.acquire(ctx, need)
		if err != nil {
			errs[i] = ErrInterrupted
			break
		}
		wg.Add(1)
		go func(i int, g []*plan.Trial) {
			defer wg.Done()
			defer r.pool.release(gpus)
			if !r.isDone(g[0].Key) && !r.limited() {
				errs[i] = r.group(ctx, g, gpus, used)
			}
		}(i, g)
	}
	wg.Wait()
	return errors.Join(errs...)
}

// onGPUs runs a group on need GPUs of the pool, once they are free.
func (r *runner) onGPUs(ctx context.Context, g []*plan.Trial, need int) error {
	gpus, used, err := r.pool.acquire(ctx, need)
	if err != nil {
		return ErrInterrupted
	}
	defer r.pool.release(gpus)
	return r.group(ctx, g, gpus, used)
}

func tensorParallel(t *plan.Trial) int {
	v, _ := schema.Number(t.Config.Knobs["tensorParallel"])
	return max(1, int(v))
}

func (r *runner) isDone(key string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.done[key]
}

func (r *runner) limited() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.o.MaxTrials > 0 && r.sum.Run+r.sum.Failed >= r.o.MaxTrials
}

// runs are the records the run decides from, with their samples, so
// that its re-plans decide exactly as analyze and the reports do.
// Invalid files are named once, left where they are, and left out
// (their trials run again).
func (r *runner) runs() (decide.Records, error) {
	runs, samples, err := r.st.OKWithSamples()
	var bad store.Invalid
	if errors.As(err, &bad) {
		r.mu.Lock()
		for _, b := range bad {
			if !slices.Contains(r.sum.Invalid, b.Path) {
				r.sum.Invalid = append(r.sum.Invalid, b.Path)
				r.emit(event.Event{Kind: event.InvalidRecord, Path: b.Path, Reason: b.Reason})
			}
		}
		r.mu.Unlock()
		err = nil
	}
	return decide.Records{Runs: runs, Samples: samples}, err
}

// source is the class of records this run reads: a real run plans the
// trials that only have simulated records again.
func (r *runner) source() decide.Source {
	if r.o.Simulate {
		return decide.Simulated
	}
	return decide.Real
}

// settle notes the steps the plan leaves waiting or invalid.
func (r *runner) settle(p *plan.Plan) {
	r.sum.Unsettled = nil
	for _, st := range p.Steps {
		if st.Status == plan.StepWaiting || st.Status == plan.StepInvalid {
			r.sum.Unsettled = append(r.sum.Unsettled, st)
		}
	}
}

// plan is the study as far as the records decide it: the one place the
// runner (and its cluster driver) re-plans.
func (r *runner) plan() (*plan.Plan, error) {
	runs, err := r.runs()
	if err != nil {
		return nil, err
	}
	return decide.Plan(r.s, runs, r.source())
}

// todo lists the trials to run now: runnable ones (and, with Force,
// cached ones once), in the chosen step, not yet tried by this run.
func (r *runner) todo(p *plan.Plan, first bool) []*plan.Trial {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []*plan.Trial
	for _, t := range p.Trials {
		if t.Key == "" || r.done[t.Key] || !r.inStep(t) || r.o.Group != "" && GroupKey(t) != r.o.Group {
			continue
		}
		switch {
		case t.Status == plan.Runnable:
			out = append(out, t)
		case t.Status == plan.Cached && r.o.Force:
			out = append(out, t)
		case t.Status == plan.Cached && first:
			r.sum.Cached++
		}
	}
	return out
}

func (r *runner) inStep(t *plan.Trial) bool {
	if r.o.Only == "" || t.Step == r.o.Only {
		return true
	}
	for _, a := range t.Also {
		if strings.HasPrefix(a, r.o.Only+"/") {
			return true
		}
	}
	return false
}

// followUps are the trials of the same configuration that the records
// just made runnable (the final configuration's validation, once the
// last step adopted it): they run on the engine already up.
func (r *runner) followUps(key string) ([]*plan.Trial, error) {
	p, err := r.plan()
	if err != nil {
		return nil, err
	}
	var out []*plan.Trial
	for _, t := range r.todo(p, false) {
		if plan.LaunchKey(t) == key {
			out = append(out, t)
		}
	}
	return out, nil
}

// GroupKey names a configuration group (one launch, and one cluster
// job): its launch key hashed, so that it stays the same whichever of
// its trials are left to run.
func GroupKey(t *plan.Trial) string {
	sum := sha256.Sum256([]byte(plan.LaunchKey(t)))
	return hex.EncodeToString(sum[:8])
}

// groups collects trials by engine configuration, in plan order: one
// launch serves every profile of a configuration. With repeats, each
// repeat is its own launch and the groups go round by round (every
// variant's repeat 0, then every variant's repeat 1, ...), so that drift
// of the machine over time does not favour the variant that ran first.
func groups(ts []*plan.Trial) [][]*plan.Trial {
	var order []string
	by := map[string][]*plan.Trial{}
	for _, t := range ts {
		k := plan.LaunchKey(t)
		if _, ok := by[k]; !ok {
			order = append(order, k)
		}
		by[k] = append(by[k], t)
	}
	out := make([][]*plan.Trial, len(order))
	for i, k := range order {
		out[i] = by[k]
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i][0].Repeat < out[j][0].Repeat })
	return out
}

// sameGPU refuses GPUs that are not the study's: a record names the
// study's GPU, and a figure measured on another would pass for it. A
// host whose GPUs nvidia-smi cannot list (the simulator's, a CPU build's)
// has nothing to check.
func (r *runner) sameGPU(ctx context.Context, query func(context.Context) ([]host.GPU, error)) error {
	smi, err := query(ctx)
	if err != nil || len(smi) == 0 {
		return nil
	}
	want := r.s.Hardware.GPU
	for _, id := range r.pool.ids {
		if g, ok := host.Find(smi, id); ok && !host.SameModel(want, g.Name) {
			return fmt.Errorf("%s: hardware.gpu is %q, but GPU %s is %s (nvidia-smi): its records would name a GPU they did not run on; run on a host with %s, pick those GPUs with --gpus, or set hardware.gpu to the GPU you measure on", r.s.File, want, id, g.Name, want)
		}
	}
	return nil
}
