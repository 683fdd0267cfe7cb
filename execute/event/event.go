// Package event is what a run tells as it goes: typed events the runner
// (and its Slurm driver) emit, and the sinks that show them: the plain
// log a CI job keeps (Log), the terminal's status bar above it (Bar),
// and a JSON stream, one object per line (JSON). Every view is built
// from the same events, so they cannot tell different stories; a
// recorded stream (ReadJSON) replays into any of them.
package event

import (
	"sync"
	"time"
)

// Kind names what happened. The names are part of the JSON stream's
// contract: add kinds, never rename one.
type Kind string

// Event kinds, in the order a launch goes through them.
const (
	// Replan: the runner planned again from the records (once at the
	// start, then after every pass); Plan says what is left.
	Replan Kind = "replan"
	// GPUWait: no GPU the launch may use has its memory free (another
	// process holds it); GPUs says how much each one has in use.
	GPUWait Kind = "gpu-wait"
	// Launching: an engine configuration is starting (Launch).
	Launching Kind = "launching"
	// HealthWait: the engine's process is up; the health wait begins
	// (Launch.LaunchSeconds).
	HealthWait Kind = "health-wait"
	// Ready: the engine answered its health check (Launch.HealthSeconds).
	Ready Kind = "ready"
	// LaunchFailed: the engine did not become healthy; its trials fail
	// (one TrialFailed each, with the reason).
	LaunchFailed Kind = "launch-failed"
	// QualityGuard: the guard's greedy outputs were taken on the fresh
	// launch (Quality).
	QualityGuard Kind = "quality-guard"
	// TrialStarted: a trial's benchmark begins (Trial).
	TrialStarted Kind = "trial-started"
	// EarlyStop: the early-stopping rule stopped the trial (Stop); its
	// TrialFinished follows.
	EarlyStop Kind = "early-stop"
	// TrialFinished: a trial was measured and its record stored
	// (Result.Status "ok", or "failed" when no request completed or the
	// engine died).
	TrialFinished Kind = "trial-finished"
	// TrialFailed: a trial could not be measured (the engine did not
	// start, its prompts could not be made; Reason says why); a record
	// with status failed is stored.
	TrialFailed Kind = "trial-failed"
	// Teardown: the engine was stopped (Launch.TeardownSeconds).
	Teardown Kind = "teardown"
	// InvalidRecord: a file in the results folder is not a valid record;
	// it is left where it is and out of every decision (Path, Reason).
	InvalidRecord Kind = "invalid-record"
	// Notice: housekeeping worth a line (a temporary file removed, an
	// orphan engine stopped, the queue not answering): Message.
	Notice Kind = "notice"
	// JobSubmitted, JobAttached, JobRunning, JobEnded: a Slurm job of the
	// cluster driver (Job); JobsCancelled: the driver cancelled its jobs
	// on an interrupt.
	JobSubmitted  Kind = "job-submitted"
	JobAttached   Kind = "job-attached"
	JobRunning    Kind = "job-running"
	JobEnded      Kind = "job-ended"
	JobsCancelled Kind = "jobs-cancelled"
	// Summary: the run's last event (Summary).
	Summary Kind = "summary"
)

// Event is one thing that happened in a run. Kind says which of the
// optional parts are set.
type Event struct {
	Time    time.Time `json:"time"` // UTC
	Kind    Kind      `json:"kind"`
	Trial   *Trial    `json:"trial,omitempty"`
	Launch  *Launch   `json:"launch,omitempty"`
	Result  *Result   `json:"result,omitempty"`
	Stop    *Stop     `json:"stop,omitempty"`
	Quality *Quality  `json:"quality,omitempty"`
	Plan    *Plan     `json:"plan,omitempty"`
	GPUs    []GPU     `json:"gpus,omitempty"`
	Job     *Job      `json:"job,omitempty"`
	Summary *RunSum   `json:"summary,omitempty"`
	Path    string    `json:"path,omitempty"`
	Reason  string    `json:"reason,omitempty"`
	Message string    `json:"message,omitempty"`
}

// Trial names one trial: its key, where the plan put it (step,
// variant, profile, repeat) and the configuration it runs.
type Trial struct {
	Key     string `json:"key"`
	Step    string `json:"step"`
	Variant string `json:"variant"`
	Profile string `json:"profile"`
	Repeat  int    `json:"repeat"`
	Engine  string `json:"engine"`
	Version string `json:"version"`
	Command string `json:"command"`
	// Job is the Slurm job that ran the trial, for the driver's events
	// (the job's own log tells the trial's story line by line).
	Job string `json:"job,omitempty"`
}

// Launch is one engine configuration's launch: what was started on
// which GPUs, and how long each phase took (set as the phases end).
type Launch struct {
	Group           string   `json:"group"`
	Engine          string   `json:"engine"`
	Version         string   `json:"version"`
	Trials          int      `json:"trials"`
	GPUs            []string `json:"gpus,omitempty"`
	Command         string   `json:"command"`
	LaunchSeconds   float64  `json:"launchSeconds,omitempty"`
	HealthSeconds   float64  `json:"healthSeconds,omitempty"`
	TeardownSeconds float64  `json:"teardownSeconds,omitempty"`
}

// Result is a measured trial's outcome.
type Result struct {
	Status    string  `json:"status"` // ok or failed
	Seconds   float64 `json:"seconds"`
	Completed int     `json:"completed"`
	Failed    int     `json:"failed"`
}

// Stop is an early stop: after how many requests of the planned ones,
// and why.
type Stop struct {
	After   int    `json:"after"`
	Planned int    `json:"planned"`
	Reason  string `json:"reason"`
}

// Quality is the quality guard's take on a launch.
type Quality struct {
	Outputs int    `json:"outputs"`
	Tokens  int    `json:"tokens"`
	Error   string `json:"error,omitempty"`
}

// Plan is what a re-plan left to do.
type Plan struct {
	Round    int `json:"round"`    // 1 for the run's first plan
	Runnable int `json:"runnable"` // trials this run will try now
	Cached   int `json:"cached"`   // trials of the plan with a record
	Trials   int `json:"trials"`   // trials of the plan
	// Waiting are the steps waiting for runs, or invalid.
	Waiting []string `json:"waiting,omitempty"`
}

// GPU is one GPU's memory as nvidia-smi read it.
type GPU struct {
	ID      string `json:"id"`
	UsedMiB int    `json:"usedMiB"`
}

// Job is a Slurm job of the cluster driver.
type Job struct {
	ID               string   `json:"id,omitempty"` // empty for JobsCancelled
	Name             string   `json:"name,omitempty"`
	State            string   `json:"state,omitempty"`
	Reason           string   `json:"reason,omitempty"`
	Engine           string   `json:"engine,omitempty"`
	Version          string   `json:"version,omitempty"`
	Trials           int      `json:"trials,omitempty"`
	GPUs             int      `json:"gpus,omitempty"`
	TimeLimitMinutes int      `json:"timeLimitMinutes,omitempty"`
	Command          string   `json:"command,omitempty"`
	QueueWaitSeconds *float64 `json:"queueWaitSeconds,omitempty"` // submission to start, when known
	Log              string   `json:"log,omitempty"`
	Tail             string   `json:"tail,omitempty"` // the log's tail, for a job that did not complete
	IDs              []string `json:"ids,omitempty"`  // JobsCancelled
}

// RunSum is what the run did, as runner.Summary counts it.
type RunSum struct {
	Run             int      `json:"run"`
	Cached          int      `json:"cached"`
	Failed          int      `json:"failed"`
	Launches        int      `json:"launches"`
	BenchSeconds    float64  `json:"benchSeconds"`
	OverheadSeconds float64  `json:"overheadSeconds"`
	Decided         bool     `json:"decided"`
	Interrupted     bool     `json:"interrupted,omitempty"`
	Waiting         []string `json:"waiting,omitempty"`
}

// Sink receives events. The runner calls Emit from one goroutine at a
// time (it serialises its groups' events), in the order they happened.
type Sink interface {
	Emit(Event)
}

// Func makes a function a Sink.
type Func func(Event)

// Emit calls f.
func (f Func) Emit(e Event) { f(e) }

// Tee sends every event to each sink in turn; nil sinks are skipped.
func Tee(sinks ...Sink) Sink {
	var out []Sink
	for _, s := range sinks {
		if s != nil {
			out = append(out, s)
		}
	}
	return Func(func(e Event) {
		for _, s := range out {
			s.Emit(e)
		}
	})
}

// Serial makes s safe to call from several goroutines at once.
func Serial(s Sink) Sink {
	var mu sync.Mutex
	return Func(func(e Event) {
		mu.Lock()
		defer mu.Unlock()
		s.Emit(e)
	})
}
