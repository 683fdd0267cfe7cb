// Package runner executes a study: it plans, launches each engine
// configuration once for all its profiles and repeats, drives the
// benchmark client against it, stores every run, re-plans with the new
// records (so the next step's trials appear), and stops when the study
// is decided, a limit is reached, or it is interrupted. Trials whose
// record exists are not run again.
package runner

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"servelab.dev/execute/engine"
	"servelab.dev/execute/store"
	"servelab.dev/render/analysis"
	"servelab.dev/schema"
	"servelab.dev/schema/plan"
)

// Options control a run.
type Options struct {
	Results       string
	Simulate      bool   // replace every engine by servelab-sim with the same arguments
	SimPath       string // the servelab-sim binary
	Only          string // run only this step's trials
	MaxTrials     int    // stop after this many trials (0: no limit)
	Force         bool   // run trials again even when they have a record
	GPUs          []string
	HealthTimeout time.Duration
	Progress      io.Writer
	Version       string
	// WriteFile replaces the store's atomic write (tests inject a full disk).
	WriteFile func(path string, data []byte) error
}

// Summary is what a run did.
type Summary struct {
	Run, Cached, Failed, Launches int
	Bench, Overhead               time.Duration // GPU time in benchmarks; in launches, health waits, teardowns
	Decided                       bool
	Interrupted                   bool
}

// ErrInterrupted is returned when the run was stopped by a signal.
var ErrInterrupted = errors.New("interrupted: the trial in progress was not recorded; run again to continue")

type runner struct {
	s      *schema.Study
	o      Options
	st     *store.Store
	sum    Summary
	done   map[string]bool // trials run (or failed) by this invocation
	logDir string
}

// Run executes s.
func Run(ctx context.Context, s *schema.Study, o Options) (Summary, error) {
	if o.Progress == nil {
		o.Progress = io.Discard
	}
	if o.HealthTimeout == 0 {
		o.HealthTimeout = 20 * time.Minute
	}
	r := &runner{s: s, o: o, st: store.Open(o.Results), done: map[string]bool{}}
	r.st.WriteFile = o.WriteFile
	unlock, err := r.st.Lock(0, "servelab run "+s.File)
	if err != nil {
		return r.sum, err
	}
	defer unlock()
	r.reapOrphan()
	err = r.loop(ctx)
	return r.sum, err
}

// pidFile names the engine process group a run has up, so that the next
// run can stop it if servelab itself died.
func (r *runner) pidFile() string { return filepath.Join(r.o.Results, ".engine.pid") }

func (r *runner) reapOrphan() {
	b, err := os.ReadFile(r.pidFile())
	if err != nil {
		return
	}
	if pgid, _ := strconv.Atoi(strings.TrimSpace(string(b))); engine.KillGroup(pgid) {
		fmt.Fprintf(r.o.Progress, "stopped engine process group %d left by an earlier run\n", pgid)
	}
	os.Remove(r.pidFile())
}

func (r *runner) loop(ctx context.Context) error {
	first := true
	for {
		runs, err := r.runs()
		if err != nil {
			return err
		}
		p, err := plan.New(r.s, plan.Options{Decider: analysis.NewDecider(r.s, runs), Cached: func(k string) bool { return len(runs[k]) > 0 }})
		if err != nil {
			return err
		}
		todo := r.todo(p, first)
		first = false
		if len(todo) == 0 {
			r.sum.Decided = p.Final != nil
			return nil
		}
		for _, g := range groups(todo) {
			if r.done[g[0].Key] {
				continue // run already, as a follow-up of an earlier group
			}
			if r.o.MaxTrials > 0 && r.sum.Run+r.sum.Failed >= r.o.MaxTrials {
				return nil
			}
			if err := r.group(ctx, g); err != nil {
				return err
			}
		}
	}
}

func (r *runner) runs() (analysis.Runs, error) {
	all, err := r.st.All()
	if err != nil {
		return nil, err
	}
	runs := analysis.Runs{}
	for k, rs := range all {
		for _, x := range rs {
			if x.Record.Status == "ok" {
				runs[k] = append(runs[k], x.Record)
			}
		}
	}
	return runs, nil
}

// todo lists the trials to run now: runnable ones (and, with Force,
// cached ones once), in the chosen step, not yet tried by this run.
func (r *runner) todo(p *plan.Plan, first bool) []*plan.Trial {
	var out []*plan.Trial
	for _, t := range p.Trials {
		if t.Key == "" || r.done[t.Key] || !r.inStep(t) {
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
	runs, err := r.runs()
	if err != nil {
		return nil, err
	}
	p, err := plan.New(r.s, plan.Options{Decider: analysis.NewDecider(r.s, runs), Cached: func(k string) bool { return len(runs[k]) > 0 }})
	if err != nil {
		return nil, err
	}
	var out []*plan.Trial
	for _, t := range r.todo(p, false) {
		if launchKey(t) == key {
			out = append(out, t)
		}
	}
	return out, nil
}

func launchKey(t *plan.Trial) string {
	return t.Kind + "\x00" + t.Version + "\x00" + strings.Join(t.Argv, "\x00") + "\x00" + fmt.Sprint(t.Env)
}

// groups collects trials by engine configuration, in plan order: one
// launch serves every profile and repeat of a configuration.
func groups(ts []*plan.Trial) [][]*plan.Trial {
	var order []string
	by := map[string][]*plan.Trial{}
	for _, t := range ts {
		k := launchKey(t)
		if _, ok := by[k]; !ok {
			order = append(order, k)
		}
		by[k] = append(by[k], t)
	}
	out := make([][]*plan.Trial, len(order))
	for i, k := range order {
		out[i] = by[k]
	}
	return out
}
