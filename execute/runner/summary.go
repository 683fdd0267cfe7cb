package runner

import (
	"fmt"
	"time"

	"servelab.dev/schema/plan"
)

// Lines are what a run did, for its end: trials, launches and GPU time,
// the steps it left unsettled, and the cluster's jobs when it used one.
func (s Summary) Lines(o Options, wall time.Duration) []string {
	out := []string{fmt.Sprintf("trials: %d run, %d cached, %d failed; launches: %d; GPU time: %s in benchmarks, %s launching, waiting for health and tearing down; %s in all",
		s.Run, s.Cached, s.Failed, s.Launches, s.Bench.Round(time.Millisecond), s.Overhead.Round(time.Millisecond), wall.Round(time.Millisecond))}
	for _, st := range s.Unsettled {
		out = append(out, fmt.Sprintf("step %s %s: %s", st.ID, st.Status, st.Detail))
	}
	if c := s.Cluster; o.Cluster != nil {
		out = append(out, fmt.Sprintf("slurm jobs: %d submitted, %d attached, %d did not complete; submission to start: %s over %d jobs",
			c.Submitted, c.Attached, c.Unfinished, c.QueueWait.Round(10*time.Millisecond), c.Started))
	}
	return out
}

// Outcome is the run's last word: a line when it ended as asked (the
// study decided, or the trials it was limited to done), else an error
// that says why the study is not decided and what to do.
func (s Summary) Outcome(o Options) (string, error) {
	switch {
	case s.Cluster.Unfinished > 0:
		return "", fmt.Errorf("study not decided: %d cluster jobs did not complete (reported above); run the same command again to resume", s.Cluster.Unfinished)
	case s.Unmeasured:
		return "", fmt.Errorf("study not decided: every run of the final configuration failed, so nothing shows that it serves (servelab analyze lists the failed runs and why)")
	case s.Decided:
		return "study decided: servelab analyze / render show the result", nil
	case s.Failed > 0:
		return "", fmt.Errorf("study not decided: %d trials failed (their records say why; servelab analyze lists them)", s.Failed)
	case o.Group != "":
		return "configuration group done: the driver that submitted this job decides the study", nil
	case invalidStep(s.Unsettled):
		return "", fmt.Errorf("study not decided: a step's records cannot decide it (see above; servelab analyze shows the runs)")
	case o.Only != "" || o.MaxTrials > 0:
		return "study not decided yet: some trials were left out (--only, --max-trials)", nil
	}
	return "", fmt.Errorf("study not decided: steps are still waiting for runs (see above)")
}

func invalidStep(sts []plan.StepState) bool {
	for _, st := range sts {
		if st.Status == plan.StepInvalid {
			return true
		}
	}
	return false
}
