package decide

import (
	"fmt"
	"slices"

	"servelab.dev/schema"
	"servelab.dev/schema/plan"
)

// Analysis is everything the reports say about a study.
type Analysis struct {
	Study      string          `json:"study"`
	Objective  Objective       `json:"objective"`
	Baseline   *Option         `json:"baseline"`
	Steps      []Step          `json:"steps"`
	Final      *Final          `json:"final"`
	Summary    []SummaryRow    `json:"summary"`
	Validation []ValidationRow `json:"validation"`
	// SLO answers the study's constraints for the final configuration,
	// and Tradeoffs lists what the final makes worse than the baseline.
	SLO       *SLOAnswer `json:"slo,omitempty"`
	Tradeoffs []Tradeoff `json:"tradeoffs"`
	// Unsettled are figures the final makes worse on average by a
	// quarter or more whose runs disagree too much to call it a cost.
	Unsettled []Tradeoff `json:"unsettled,omitempty"`
	Missing   []Missing  `json:"missing"`
	Warnings  []Warning  `json:"warnings"`
	// Notes say how figures were obtained where that is not obvious.
	Notes []string `json:"notes"`
	// Complete is true when every step is decided and every validation
	// trial has a valid record.
	Complete bool `json:"complete"`
	// Provenance counts the records the figures come from by kind
	// (measured, imported, simulated); SetAside counts this study's
	// records of the other class (simulated beside real ones, or real
	// ones when simulated figures were asked for), which no figure uses.
	Provenance map[string]int `json:"provenance"`
	SetAside   int            `json:"setAside,omitempty"`
	// Excluded are the study's failed runs and invalid record files,
	// which no decision uses (set by the caller, which reads the store).
	Excluded []Excluded `json:"excluded,omitempty"`
	// Plan is the plan the analysis decided (for renderers), and Runs
	// the records of the class it read.
	Plan *plan.Plan `json:"-"`
	Runs Runs       `json:"-"`
	// Simulated says the decisions read simulated records.
	Simulated bool `json:"-"`
}

// Objective restates the study's objective with the unit values carry.
type Objective struct {
	Metric  string  `json:"metric"`
	Goal    string  `json:"goal"`
	Profile string  `json:"profile"`
	Unit    string  `json:"unit"`
	MinGain float64 `json:"minGain"`
	// The rest of the decision rule: the level of every interval, the
	// failed share above which a run is invalid, the bootstrap's size.
	Confidence float64 `json:"confidence"`
	MaxFailed  float64 `json:"maxFailed"`
	Resamples  int     `json:"resamples"`
	EarlyStop  bool    `json:"earlyStop,omitempty"`
}

// Final is the recommended configuration.
type Final struct {
	Engine  string            `json:"engine"`
	Kind    string            `json:"kind"`
	Version string            `json:"version"`
	Model   string            `json:"model"`
	Argv    []string          `json:"argv"`
	Env     map[string]string `json:"env,omitempty"`
	// Files are the files the command names, by name (TensorRT-LLM's
	// options YAML); Command writes them first.
	Files   map[string]string `json:"files,omitempty"`
	Command string            `json:"command"`
	// Unmeasured says that no run of this configuration is valid (each
	// one failed): the steps chose it, but nothing shows it serves.
	Unmeasured bool `json:"unmeasured,omitempty"`
}

// SummaryRow is one step's best option against the baseline.
type SummaryRow struct {
	Step    string  `json:"step"`
	Best    string  `json:"best"`
	Adopted bool    `json:"adopted"`
	Value   float64 `json:"value"`
	Base    float64 `json:"baseline"`
	Ratio   float64 `json:"ratio"` // ≥ 1 when the step's best beats the baseline
}

// ValidationRow compares baseline and final on one validation profile.
type ValidationRow struct {
	Profile  string   `json:"profile"`
	Metric   string   `json:"metric"`
	Baseline *Value   `json:"baseline"`
	Final    *Value   `json:"final"`
	Ratio    *float64 `json:"ratio"`
	// RatioRange bounds the ratio when the source rounded its figures
	// (printed blocks carry two decimals): any value in it is consistent
	// with the records.
	RatioRange *[2]float64 `json:"ratioRange,omitempty"`
	Verdict    string      `json:"verdict,omitempty"`
	// Interval bounds Ratio at the study's confidence level; Method
	// says how (decide.MethodBootstrap or MethodRuns).
	Interval *[2]float64 `json:"interval,omitempty"`
	Method   string      `json:"method,omitempty"`
	// Invalid says why a side's runs cannot count (too many failed
	// requests); the row then shows no ratio.
	Invalid string `json:"invalid,omitempty"`
	// Latency is mean request latency, also when the objective is not.
	Latency *ValidationRow `json:"latency,omitempty"`
	// Throughput is output token throughput, also when the objective is
	// not: the report's load sweep plots latency against it.
	Throughput *ValidationRow `json:"throughput,omitempty"`
	TTFT       *ValidationRow `json:"ttft,omitempty"`
	TPOT       *ValidationRow `json:"tpot,omitempty"`
	ITL        *ValidationRow `json:"itl,omitempty"`
	// Percentiles are the P90 and P99 of TTFT, TPOT, ITL and latency,
	// where the records have them.
	Percentiles []*ValidationRow `json:"percentiles,omitempty"`
	// Capacity is set, and the rest left out, when the profile is a
	// capacity search: each side's search.
	Capacity *CapacityRow `json:"capacity,omitempty"`
}

// Missing is a planned trial without a record.
type Missing struct {
	Key     string `json:"key"`
	Step    string `json:"step"`
	Variant string `json:"variant"`
	Profile string `json:"profile"`
	Repeat  int    `json:"repeat"`
}

// Records are what a decision reads: ok runs by trial key and the
// per-request samples of those that have them.
type Records struct {
	Runs    Runs
	Samples Samples
}

// Plan is s's plan as far as the records of src decide it: trials with
// records are cached, and steps the records decide let the plan go on to
// the next. It is the one plan that plan, run and import act on.
func Plan(s *schema.Study, rs Records, src Source) (*plan.Plan, error) {
	// The plan does not count set-aside records: run re-plans often.
	rs, _ = rs.choose(s, src)
	return planWith(s, rs.Runs, newDecider(s, rs))
}

func newDecider(s *schema.Study, rs Records) *decider {
	return &decider{s: s, runs: rs.Runs, samples: rs.Samples, steps: map[string]*Step{}, level: s.Objective.Confidence}
}

func planWith(s *schema.Study, runs Runs, d *decider) (*plan.Plan, error) {
	return plan.New(s, plan.Options{Decider: d, Cached: func(k string) bool { return len(runs[k]) > 0 }, Probe: d.probe, Confirm: d.confirm})
}

// Analyze decides s from the records of src as far as they allow.
func Analyze(s *schema.Study, rs Records, src Source) (*Analysis, error) {
	rs, other := rs.choose(s, src)
	aside := countFor(s, rs, other)
	d := newDecider(s, rs)
	p, err := planWith(s, rs.Runs, d)
	if err != nil {
		return nil, err
	}
	a := &Analysis{Study: s.ID, Plan: p, Runs: rs.Runs, Missing: []Missing{}, Summary: []SummaryRow{}, Objective: Objective{
		Metric: s.Objective.Metric, Goal: s.Objective.Goal, Profile: s.Objective.Profile,
		Unit: Unit(s.Objective.Metric), MinGain: s.Objective.MinGain,
		Confidence: s.Objective.Confidence, MaxFailed: s.Objective.MaxFailed, Resamples: Resamples, EarlyStop: s.Objective.EarlyStop,
	}}
	a.Simulated = rs.simulated()
	a.steps(p, d)
	a.baseline(p, d)
	a.final(s, p, d)
	a.summary()
	a.validation(s, p, d)
	a.sloAnswer(s, p, d)
	a.Tradeoffs, a.Unsettled = tradeoffs(a.Validation, s.Objective.MinGain)
	a.missing(p)
	a.sources(p, rs.Runs, aside)
	a.Warnings = append([]Warning{}, lint(s, p, rs.Runs)...)
	a.Notes = a.notes()
	a.Complete = p.Final != nil && len(a.Missing) == 0 && !a.hasInvalid()
	return a, nil
}

func (a *Analysis) steps(p *plan.Plan, d *decider) {
	for i, st := range p.Steps {
		out := Step{ID: st.ID, Title: d.s.Steps[i].Title, Kind: st.Kind, Status: st.Status, Objective: map[string]*Value{}}
		if got, ok := d.steps[st.ID]; ok && st.Status != plan.StepPending && st.Status != plan.StepSkipped {
			out = *got
			out.Status = st.Status
		}
		switch st.Status {
		case plan.StepPending:
			out.Outcome = Pending
		case plan.StepSkipped:
			out.Outcome, out.Detail = Skipped, st.Detail
		}
		a.Steps = append(a.Steps, out)
	}
}

func (a *Analysis) hasInvalid() bool {
	for _, st := range a.Steps {
		if st.Outcome == Invalid {
			return true
		}
	}
	for _, row := range a.Validation {
		if row.Invalid != "" {
			return true
		}
	}
	return false
}

func (a *Analysis) baseline(p *plan.Plan, d *decider) {
	for _, t := range p.Trials {
		if t.Profile == d.s.Objective.Profile && t.HasRole("baseline/baseline") {
			o := d.option("baseline", p.WithRole("baseline/baseline", t.Profile))
			a.Baseline = &o
			return
		}
	}
}

func (a *Analysis) final(s *schema.Study, p *plan.Plan, d *decider) {
	if p.Final == nil {
		return
	}
	defer func() {
		if a.Final != nil {
			a.Final.Unmeasured = !d.measured(s, p)
		}
	}()
	l, err := plan.Command(s, *p.Final)
	if err != nil {
		return
	}
	cmd, _ := plan.ShellLaunch(l)
	e := s.Engines[p.Final.Engine]
	m, _ := s.Model.Variant(p.Final.ModelVariant())
	a.Final = &Final{Engine: p.Final.Engine, Kind: e.Kind, Version: e.Version, Model: m.ID, Argv: l.Argv, Env: l.Env, Files: l.Files, Command: cmd}
	if len(a.Final.Env) == 0 {
		a.Final.Env = nil
	}
}

// FinalUnmeasured says whether the plan that rs decides for s ends in a
// final configuration whose every run failed: Plan's decisions and the
// check Analyze marks Final.Unmeasured with, without the rest of the
// analysis.
func FinalUnmeasured(s *schema.Study, rs Records, src Source) (bool, error) {
	rs, _ = rs.choose(s, src)
	d := newDecider(s, rs)
	p, err := planWith(s, rs.Runs, d)
	if err != nil {
		return false, err
	}
	return p.Final != nil && !d.measured(s, p), nil
}

// measured says whether some trial of the final configuration has a
// valid run.
func (d *decider) measured(s *schema.Study, p *plan.Plan) bool {
	argv, err := plan.Argv(s, *p.Final)
	if err != nil {
		return true // no command to match: nothing to say against it
	}
	for _, t := range p.Trials {
		if t.Key != "" && t.Engine == p.Final.Engine && slices.Equal(t.Argv, argv) && len(d.validPooled([]*plan.Trial{t})) > 0 {
			return true
		}
	}
	return false
}

func (a *Analysis) summary() {
	if a.Baseline == nil || a.Baseline.Value == nil {
		return
	}
	lower := a.Objective.Goal == "min"
	for _, st := range a.Steps {
		if st.Best == "" {
			continue
		}
		for _, o := range st.Options {
			if o.Variant != st.Best || o.Value == nil {
				continue
			}
			r, _ := ratio(o.Value.Mean, a.Baseline.Value.Mean, lower)
			a.Summary = append(a.Summary, SummaryRow{Step: st.ID, Best: st.Best, Adopted: st.Adopted != nil,
				Value: o.Value.Mean, Base: a.Baseline.Value.Mean, Ratio: r})
		}
	}
}

func (a *Analysis) missing(p *plan.Plan) {
	for _, t := range p.Trials {
		if t.Status == plan.Runnable {
			a.Missing = append(a.Missing, Missing{Key: t.Key, Step: t.Step, Variant: t.Variant, Profile: t.Profile, Repeat: t.Repeat})
		}
	}
}

// DerivedLatencyNote explains derived mean latencies.
const DerivedLatencyNote = "mean request latency marked derived is computed because its source printed none: " +
	"at a fixed concurrency N, N × duration ÷ completed requests (Little's law; exact at N = 1, an upper bound above it), " +
	"elsewhere TTFT + TPOT × (mean output tokens − 1)"

// NoNoiseNote explains comparisons of single runs.
const NoNoiseNote = "comparisons of single runs have no noise estimate: a difference smaller than " +
	"run-to-run variation cannot be told from none; repeat the trials (benchmark.repeats) to get one"

func (a *Analysis) notes() []string {
	notes := []string{}
	derived, single := false, false
	for _, row := range a.Validation {
		for _, r := range []*ValidationRow{&row, row.Latency} {
			if r != nil && (r.Baseline != nil && r.Baseline.Derived || r.Final != nil && r.Final.Derived) {
				derived = true
			}
		}
	}
	for _, st := range a.Steps {
		if st.Comparison != nil && st.Comparison.Verdict == NoNoise {
			single = true
		}
	}
	if derived {
		notes = append(notes, DerivedLatencyNote)
	}
	if single {
		notes = append(notes, NoNoiseNote)
	}
	return notes
}

// Excluded is a run no decision uses: a failed run, or a file that is
// not a valid record.
type Excluded struct {
	Run     string `json:"run"` // step/variant/profile/repeat
	Path    string `json:"path"`
	Invalid bool   `json:"invalid"`
	Reason  string `json:"reason"`
}

// Exclude keeps the excluded runs that belong to the analysis's trials,
// named by their role, so analyze and its JSON list the same.
func (a *Analysis) Exclude(keys, paths, reasons []string, invalid []bool) {
	names := map[string]string{}
	for _, t := range a.Plan.Trials {
		if t.Key != "" {
			names[t.Key] = fmt.Sprintf("%s/%s/%s/%d", t.Step, t.Variant, t.Profile, t.Repeat)
		}
	}
	a.Excluded = []Excluded{}
	for i, k := range keys {
		if name, ok := names[k]; ok {
			a.Excluded = append(a.Excluded, Excluded{Run: name, Path: paths[i], Invalid: invalid[i], Reason: reasons[i]})
		}
	}
}
