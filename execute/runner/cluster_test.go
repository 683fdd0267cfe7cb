package runner

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"servelab.dev/execute/event"
	"servelab.dev/execute/slurm"
)

// fakeSlurm answers sbatch, squeue, sacct and scancel from a table of
// jobs, in the commands' machine-readable formats; the jobs never run,
// so the driver's bookkeeping is tested where no cluster can start (the
// real cluster's testscripts are in cmd/servelab/testdata/slurm).
type fakeSlurm struct {
	mu       sync.Mutex
	jobs     []slurm.Status
	submits  []string // job names, in order
	cancels  []string
	next     int
	squeueKO int // squeue fails this many times first
	// end is the state a submitted job takes on its second squeue.
	end, reason string
	polls       map[string]int
}

func (f *fakeSlurm) run(_ context.Context, name string, args ...string) ([]byte, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	switch name {
	case "sbatch":
		f.next++
		st := slurm.Status{ID: fmt.Sprint(100 + f.next), State: "PENDING"}
		for _, a := range args {
			if v, ok := strings.CutPrefix(a, "--job-name="); ok {
				st.Name = v
			}
			if v, ok := strings.CutPrefix(a, "--comment="); ok {
				st.Comment = v
			}
		}
		f.jobs = append(f.jobs, st)
		f.submits = append(f.submits, st.Name)
		return []byte(st.ID + "\n"), nil
	case "squeue":
		if f.squeueKO > 0 {
			f.squeueKO--
			return nil, fmt.Errorf("squeue: slurm_load_jobs error: Unable to contact slurm controller")
		}
		var b strings.Builder
		for i := range f.jobs {
			j := &f.jobs[i]
			if f.polls[j.ID]++; f.polls[j.ID] >= 2 && (j.State == "PENDING" || j.State == "RUNNING") {
				j.State, j.Reason = f.end, f.reason
			}
			fmt.Fprintf(&b, "%s|%s|N/A|N/A|%s|%s|%s\n", j.ID, j.State, j.Reason, j.Name, j.Comment)
		}
		return []byte(b.String()), nil
	case "scancel":
		f.cancels = append(f.cancels, args...)
		for i := range f.jobs {
			for _, id := range args {
				if f.jobs[i].ID == id {
					f.jobs[i].State = "CANCELLED"
				}
			}
		}
		return nil, nil
	}
	return nil, fmt.Errorf("%s: not faked", name)
}

func clusterRun(t *testing.T, ctx context.Context, f *fakeSlurm, dir string) (Summary, string, error) {
	t.Helper()
	if f.polls == nil {
		f.polls = map[string]int{}
	}
	var progress strings.Builder
	s := study(t, fourProfiles)
	sum, err := Run(ctx, s, Options{Results: dir, Simulate: true, SimPath: "/x/servelab-sim", HealthTimeout: time.Minute, Progress: &progress,
		Cluster: &Cluster{Slurm: slurm.Client{Command: f.run}, Self: "/x/servelab", Poll: 10 * time.Millisecond}})
	return sum, progress.String(), err
}

// Jobs that end FAILED are reported with their state and log, their
// trials count as failed, and this run submits them once only.
func TestClusterFailedJobs(t *testing.T) {
	f := &fakeSlurm{end: "FAILED", reason: "NonZeroExitCode", squeueKO: 1}
	sum, out, err := clusterRun(t, context.Background(), f, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if len(f.submits) != 2 || sum.Cluster.Submitted != 2 || sum.Cluster.Unfinished != 2 || sum.Failed != 8 || sum.Decided {
		t.Errorf("submits %v, summary %+v\n%s", f.submits, sum, out)
	}
	for _, want := range []string{"Unable to contact slurm controller; asking again", "job 101 (servelab-four-", ") FAILED (NonZeroExitCode); log ", "time limit 6 min"} {
		if !strings.Contains(out, want) {
			t.Errorf("progress lacks %q:\n%s", want, out)
		}
	}
}

// A driver started again attaches to the queued job of its results
// folder, found by name and comment, and submits only the other group.
func TestClusterAttaches(t *testing.T) {
	dir := t.TempDir()
	abs, _ := filepath.Abs(dir)
	first := &fakeSlurm{end: "PENDING"}
	ctx, cancel := context.WithCancel(context.Background())
	go func() { time.Sleep(100 * time.Millisecond); cancel() }()
	if _, out, err := clusterRun(t, ctx, first, dir); err == nil || !strings.Contains(out, "cancelled jobs 101,102") {
		t.Fatalf("interrupted run: err %v\n%s", err, out)
	}
	f := &fakeSlurm{end: "COMPLETED", jobs: []slurm.Status{
		{ID: "7", State: "RUNNING", Name: first.submits[0], Comment: "servelab results=" + abs},
		{ID: "8", State: "RUNNING", Name: first.submits[1], Comment: "servelab results=/elsewhere"},
	}}
	sum, out, err := clusterRun(t, context.Background(), f, dir)
	if err != nil {
		t.Fatal(err)
	}
	if sum.Cluster.Attached != 1 || len(f.submits) != 1 || f.submits[0] != first.submits[1] {
		t.Errorf("attached %d, submitted %v; want job 7 attached and %s submitted\n%s", sum.Cluster.Attached, f.submits, first.submits[1], out)
	}
}

// The driver emits the local run's event types where they make sense: a
// re-plan, each job's submission and end, each of its trials' outcome
// (here: failed, with the job named), and the summary last.
func TestClusterEvents(t *testing.T) {
	f := &fakeSlurm{end: "FAILED", reason: "NonZeroExitCode", polls: map[string]int{}}
	var evs []event.Event
	s := study(t, fourProfiles)
	sum, err := Run(context.Background(), s, Options{Results: t.TempDir(), Simulate: true, SimPath: "/x/servelab-sim", HealthTimeout: time.Minute,
		Events:  event.Func(func(e event.Event) { evs = append(evs, e) }),
		Cluster: &Cluster{Slurm: slurm.Client{Command: f.run}, Self: "/x/servelab", Poll: 10 * time.Millisecond}})
	if err != nil || len(evs) == 0 {
		t.Fatal(err, evs)
	}
	count := map[event.Kind]int{}
	for _, e := range evs {
		count[e.Kind]++
		switch e.Kind {
		case event.TrialFailed:
			if e.Trial.Job == "" || !strings.Contains(e.Reason, "ended FAILED without a record") {
				t.Errorf("trial-failed %+v: %s", e.Trial, e.Reason)
			}
		case event.JobEnded:
			if e.Job.State != "FAILED" || e.Job.Reason != "NonZeroExitCode" || e.Job.Log == "" {
				t.Errorf("job-ended %+v", e.Job)
			}
		}
	}
	if count[event.Replan] < 1 || count[event.JobSubmitted] != 2 || count[event.JobEnded] != 2 || count[event.TrialFailed] != sum.Failed || sum.Failed != 8 {
		t.Errorf("events %v, summary %+v", count, sum)
	}
	if last := evs[len(evs)-1]; last.Kind != event.Summary || last.Summary.Failed != 8 || last.Summary.Decided {
		t.Errorf("last event %+v", last)
	}
}
