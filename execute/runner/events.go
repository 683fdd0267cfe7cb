package runner

import (
	"errors"
	"time"

	"servelab.dev/execute/event"
	"servelab.dev/schema/plan"
)

// emit stamps e with the time and hands it to the run's sink.
func (r *runner) emit(e event.Event) {
	e.Time = time.Now().UTC()
	r.ev.Emit(e)
}

func trialEvent(t *plan.Trial) *event.Trial {
	return &event.Trial{Key: t.Key, Step: t.Step, Variant: t.Variant, Profile: t.Profile, Repeat: t.Repeat,
		Engine: t.Kind, Version: t.Version, Command: t.Command}
}

func launchEvent(g []*plan.Trial, gpus []string) *event.Launch {
	t := g[0]
	return &event.Launch{Group: GroupKey(t), Engine: t.Kind, Version: t.Version, Trials: len(g), GPUs: gpus, Command: t.Command}
}

func waiting(sts []plan.StepState) []string {
	var out []string
	for _, st := range sts {
		out = append(out, st.ID)
	}
	return out
}

func (r *runner) emitReplan(round int, p *plan.Plan, runnable int) {
	r.emit(event.Event{Kind: event.Replan, Plan: &event.Plan{Round: round, Runnable: runnable, Cached: p.Estimate.Cached,
		Trials: p.Estimate.Trials, Waiting: waiting(r.sum.Unsettled)}})
}

func (r *runner) emitSummary(err error) {
	r.mu.Lock()
	s := r.sum
	r.mu.Unlock()
	r.emit(event.Event{Kind: event.Summary, Summary: &event.RunSum{Run: s.Run, Cached: s.Cached, Failed: s.Failed, Launches: s.Launches,
		BenchSeconds: s.Bench.Seconds(), OverheadSeconds: s.Overhead.Seconds(), Decided: s.Decided,
		Interrupted: errors.Is(err, ErrInterrupted), Waiting: waiting(s.Unsettled)}})
}
