package runner

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"servelab.dev/execute/decide"
	"servelab.dev/execute/engine"
	"servelab.dev/execute/event"
	"servelab.dev/execute/slurm"
	"servelab.dev/execute/store"
	"servelab.dev/schema/plan"
)

// Cluster is how a run goes through a Slurm cluster: each configuration
// group becomes one batch job that runs `servelab run --group` with the
// same binary on the allocated node, writing records into the same
// results folder, which must therefore be on a filesystem the nodes
// share.
type Cluster struct {
	Slurm     slurm.Client
	Partition string
	Account   string
	// Self is this servelab binary, as the nodes reach it.
	Self string
	// Poll is how often job states are read (default 5s).
	Poll time.Duration
}

// ClusterSummary is what the cluster did for a run.
type ClusterSummary struct {
	Submitted, Attached, Unfinished int
	// QueueWait is the time from submission to start, over the jobs
	// that started: the cluster's share of launch overhead.
	QueueWait time.Duration
	Started   int
}

// job is one batch job the driver follows.
type job struct {
	id, group, name string
	trials          []*plan.Trial
	submitted       time.Time // this driver's clock; zero for an attached job
	state           slurm.Status
	running, done   bool
}

func (r *runner) cluster(ctx context.Context) error {
	c := r.o.Cluster
	if c.Poll <= 0 {
		c.Poll = 5 * time.Second
	}
	runs, err := r.runs()
	if err != nil {
		return err
	}
	r.had = map[string]bool{}
	for key := range runs.Runs {
		r.had[key] = true
	}
	var flying []*job
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
		jobs, err := r.submit(ctx, groups(todo), flying)
		flying = append(flying, jobs...)
		if err != nil {
			return err
		}
		if len(flying) == 0 {
			r.sum.Decided = p.Final != nil && len(r.sum.Unsettled) == 0
			return nil
		}
		ended, err := r.watch(ctx, flying)
		if err != nil {
			return err
		}
		if err := r.settleJobs(ended); err != nil {
			return err
		}
		flying = slices.DeleteFunc(flying, func(j *job) bool { return j.done })
	}
}

// jobName carries the study and the group, so a restarted driver finds
// the jobs of its study; the comment carries the results folder, so it
// does not take another checkout's job of the same study for its own.
func (r *runner) jobName(group string) string { return "servelab-" + r.s.ID + "-" + group }

func (r *runner) jobComment() string { return "servelab results=" + r.abs(r.o.Results) }

func (r *runner) abs(p string) string {
	if a, err := filepath.Abs(p); err == nil {
		return a
	}
	return p
}

func (r *runner) jobLog(group, id string) string {
	return filepath.Join(r.abs(r.o.Results), ".slurm", group+"-"+id+".log")
}

// submit submits one job per group, or attaches to the job an earlier
// driver submitted for it and that is still queued or running. A group
// whose job is still flying waits for it: that job may run the new
// trials itself (the validation, on the engine it has up).
func (r *runner) submit(ctx context.Context, gs [][]*plan.Trial, flying []*job) ([]*job, error) {
	gs = slices.DeleteFunc(gs, func(g []*plan.Trial) bool {
		return slices.ContainsFunc(flying, func(j *job) bool { return j.group == GroupKey(g[0]) })
	})
	if len(gs) == 0 {
		return nil, nil
	}
	c := r.o.Cluster
	known, err := r.queue(ctx)
	if err != nil {
		return nil, err
	}
	active := map[string]slurm.Status{}
	for _, st := range known {
		if st.Active() && st.Comment == r.jobComment() {
			active[st.Name] = st
		}
	}
	var jobs []*job
	for _, g := range gs {
		gk := GroupKey(g[0])
		j := &job{group: gk, name: r.jobName(gk), trials: g}
		for _, t := range g {
			r.done[t.Key] = true // tried by this run: not submitted again
		}
		if st, ok := active[j.name]; ok {
			j.id, j.state = st.ID, st
			r.sum.Cluster.Attached++
			r.emit(event.Event{Kind: event.JobAttached, Job: &event.Job{ID: j.id, Name: j.name, State: st.State,
				Engine: g[0].Kind, Version: g[0].Version, Trials: len(g), Command: g[0].Command}})
			jobs = append(jobs, j)
			continue
		}
		sj, err := r.batchJob(j)
		if err != nil {
			return jobs, err
		}
		if j.id, err = c.Slurm.Submit(ctx, sj); err != nil {
			return jobs, fmt.Errorf("submitting %s: %w (jobs submitted before it keep running; run again to attach to them)", j.name, err)
		}
		j.submitted = time.Now()
		r.sum.Cluster.Submitted++
		r.emit(event.Event{Kind: event.JobSubmitted, Job: &event.Job{ID: j.id, Name: j.name, Engine: g[0].Kind, Version: g[0].Version,
			Trials: len(g), GPUs: sj.GPUs, TimeLimitMinutes: int(sj.Time.Minutes()), Command: g[0].Command}})
		jobs = append(jobs, j)
	}
	return jobs, nil
}

// batchJob writes the group's batch script and says how to submit it.
// The time limit covers the health timeout (a first launch may download
// weights) and twice the plan's benchmark estimate, plus five minutes.
func (r *runner) batchJob(j *job) (slurm.Job, error) {
	argv := append([]string{r.o.Cluster.Self, "run", r.abs(r.s.File), "--results", r.abs(r.o.Results), "--group", j.group}, r.jobFlags()...)
	line, err := plan.Shell(nil, argv)
	if err != nil {
		return slurm.Job{}, err
	}
	dir := filepath.Join(r.abs(r.o.Results), ".slurm")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return slurm.Job{}, err
	}
	script := filepath.Join(dir, j.group+".sh")
	// The start mark gives the driver the start to the sub-second, where
	// Slurm's own times have whole seconds.
	body := fmt.Sprintf("#!/bin/bash\n# servelab: study %s, configuration group %s:\n# %s\necho \"%s$(date +%%s.%%N)\"\nexec %s\n",
		r.s.ID, j.group, j.trials[0].Command, startMark, line)
	if err := store.WriteAtomic(script, []byte(body)); err != nil {
		return slurm.Job{}, err
	}
	var bench float64
	for _, t := range j.trials {
		bench += t.Seconds
	}
	wd, _ := os.Getwd()
	c := r.o.Cluster
	return slurm.Job{Name: j.name, Comment: r.jobComment(), Script: script, Output: filepath.Join(dir, j.group+"-%j.log"),
		Dir: wd, GPUs: tensorParallel(j.trials[0]), Partition: c.Partition, Account: c.Account,
		Time: r.o.HealthTimeout + 2*time.Duration(bench*float64(time.Second)) + 5*time.Minute}, nil
}

// jobFlags are the run's flags that the job's servelab needs too.
func (r *runner) jobFlags() []string {
	o := r.o
	f := []string{"--health-timeout", o.HealthTimeout.String()}
	if o.Simulate {
		f = append(f, "--simulate", "--sim", o.SimPath)
	}
	if o.Only != "" {
		f = append(f, "--only", o.Only)
	}
	if o.Force {
		f = append(f, "--force")
	}
	if c, ok := o.Launcher.(engine.Container); ok {
		f = append(f, "--container", c.Runtime)
		if c.Cache != "" {
			f = append(f, "--model-cache", c.Cache)
		}
	}
	return f
}

// watch follows jobs until one or more have ended, and returns those:
// the driver re-plans after each. Interrupted, it cancels them all
// (scancel), waits for Slurm to confirm, and reports what it stopped.
func (r *runner) watch(ctx context.Context, jobs []*job) ([]*job, error) {
	tick := time.NewTicker(r.o.Cluster.Poll)
	defer tick.Stop()
	for {
		if err := r.poll(ctx, jobs); err != nil && ctx.Err() == nil {
			return nil, err
		}
		if ended := slices.DeleteFunc(slices.Clone(jobs), func(j *job) bool { return !j.done }); len(ended) > 0 {
			return ended, nil
		}
		select {
		case <-ctx.Done():
			return nil, r.cancel(jobs)
		case <-tick.C:
		}
	}
}

// queue lists the jobs; while slurmctld does not answer (restarting,
// failing over) it asks again for up to queueOutage.
func (r *runner) queue(ctx context.Context) ([]slurm.Status, error) {
	var since time.Time
	for {
		jobs, err := r.o.Cluster.Slurm.Jobs(ctx)
		switch {
		case err == nil || ctx.Err() != nil:
			return jobs, err
		case since.IsZero():
			since = time.Now()
			r.emit(event.Event{Kind: event.Notice, Message: fmt.Sprintf("reading the queue: %v; asking again for up to %s", err, queueOutage)})
		case time.Since(since) > queueOutage:
			return nil, fmt.Errorf("reading the queue: %w (for %s; the jobs keep running: run again to attach to them)", err, queueOutage)
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(r.o.Cluster.Poll):
		}
	}
}

// queueOutage is how long squeue may fail before the driver gives up.
const queueOutage = 2 * time.Minute

func allDone(jobs []*job) bool {
	for _, j := range jobs {
		if !j.done {
			return false
		}
	}
	return true
}

// poll reads the queue once and reports each job's new state.
func (r *runner) poll(ctx context.Context, jobs []*job) error {
	c := r.o.Cluster
	queue, err := r.queue(ctx)
	if err != nil {
		return err
	}
	byID := map[string]slurm.Status{}
	for _, st := range queue {
		byID[st.ID] = st
	}
	for _, j := range jobs {
		if j.done {
			continue
		}
		st, ok := byID[j.id]
		if !ok { // aged out of slurmctld's memory: ask the accounting
			if st, err = c.Slurm.Accounting(ctx, j.id); err != nil {
				st = slurm.Status{ID: j.id, State: "UNKNOWN", Reason: "gone from squeue, and " + err.Error()}
				j.done = true
			}
		}
		r.observe(j, st)
	}
	return nil
}

func (r *runner) observe(j *job, st slurm.Status) {
	j.state = st
	if !j.running && st.State == "RUNNING" {
		j.running = true
		r.emit(event.Event{Kind: event.JobRunning, Job: &event.Job{ID: j.id, Name: j.name, State: st.State,
			Engine: j.trials[0].Kind, Version: j.trials[0].Version, Trials: len(j.trials)}})
	}
	if slurm.Terminal(st.State) {
		j.done = true
	}
}

const startMark = "servelab job started at "

// queueWait is how long a job took from submission to start: from this
// driver's sbatch to the job script's start mark, or, for a job attached
// to or one whose log lacks the mark, Slurm's submit and start times.
func (r *runner) queueWait(j *job) (time.Duration, bool) {
	if b, err := os.ReadFile(r.jobLog(j.group, j.id)); err == nil && !j.submitted.IsZero() {
		line, _, _ := strings.Cut(string(b), "\n")
		if v, ok := strings.CutPrefix(line, startMark); ok {
			if sec, err := strconv.ParseFloat(v, 64); err == nil {
				return time.Unix(0, int64(sec*1e9)).Sub(j.submitted), true
			}
		}
	}
	if j.state.Start.IsZero() || j.state.Submit.IsZero() {
		return 0, false
	}
	return j.state.Start.Sub(j.state.Submit), true
}

// cancel is the driver's answer to SIGINT: its jobs are its to stop.
func (r *runner) cancel(jobs []*job) error {
	var ids []string
	for _, j := range jobs {
		if !j.done {
			ids = append(ids, j.id)
		}
	}
	ctx, stop := context.WithTimeout(context.Background(), time.Minute)
	defer stop()
	if err := r.o.Cluster.Slurm.Cancel(ctx, ids...); err != nil {
		return fmt.Errorf("%w; cancelling jobs %s: %w", ErrInterrupted, strings.Join(ids, ","), err)
	}
	for !allDone(jobs) && ctx.Err() == nil {
		time.Sleep(200 * time.Millisecond)
		r.poll(ctx, jobs)
	}
	r.emit(event.Event{Kind: event.JobsCancelled, Job: &event.Job{IDs: ids}})
	r.settleJobs(jobs)
	return ErrInterrupted
}

// settleJobs counts what each ended job left in the results folder and
// reports a job that did not complete, with the tail of its log. Its
// trials are not tried again by this run; the next run submits them.
func (r *runner) settleJobs(jobs []*job) error {
	runs, err := r.runs()
	if err != nil {
		return err
	}
	// A job may run more trials than it was submitted for (the final
	// configuration's validation, on the engine it has up): count what
	// the folder gained.
	gained := map[string]bool{}
	for key := range runs.Runs {
		if !r.had[key] {
			r.had[key] = true
			gained[key] = true
			r.sum.Run++
		}
	}
	for _, j := range jobs {
		if !j.done {
			continue
		}
		r.jobTrials(j, runs.Runs, gained)
		ev := &event.Job{ID: j.id, Name: j.name, State: j.state.State, Reason: j.state.Reason,
			Engine: j.trials[0].Kind, Version: j.trials[0].Version, Trials: len(j.trials)}
		if wait, ok := r.queueWait(j); ok {
			r.sum.Cluster.QueueWait += wait
			r.sum.Cluster.Started++
			sec := wait.Seconds()
			ev.QueueWaitSeconds = &sec
		}
		if j.state.State != "COMPLETED" {
			r.sum.Cluster.Unfinished++
			ev.Log = r.jobLog(j.group, j.id)
			ev.Tail = engine.Tail(ev.Log, 12)
		}
		r.emit(event.Event{Kind: event.JobEnded, Job: ev})
	}
	return nil
}

// jobTrials tells what an ended job did for each trial it was submitted
// for: a record (trial finished, with the record's figures; the
// benchmark's duration stands for the trial's) or none (trial failed,
// counted). The job's own log has the trial-by-trial story.
func (r *runner) jobTrials(j *job, runs decide.Runs, gained map[string]bool) {
	for _, t := range j.trials {
		te := trialEvent(t)
		te.Job = j.id
		switch {
		case len(runs[t.Key]) == 0:
			r.sum.Failed++
			r.emit(event.Event{Kind: event.TrialFailed, Trial: te,
				Reason: fmt.Sprintf("job %s ended %s without a record of this trial (its log says why)", j.id, j.state.State)})
		case gained[t.Key]:
			rs := runs[t.Key]
			m := rs[len(rs)-1].Metrics
			failed, _ := m.FailedCount()
			r.emit(event.Event{Kind: event.TrialFinished, Trial: te,
				Result: &event.Result{Status: "ok", Seconds: m.Duration, Completed: m.Completed, Failed: failed}})
		}
	}
}
