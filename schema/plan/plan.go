package plan

import (
	"fmt"

	"servelab.dev/schema"
)

// Status says whether a trial can run now.
type Status string

const (
	Runnable Status = "runnable" // its configuration is known, no record yet
	Pending  Status = "pending"  // depends on a step not decided yet
	Cached   Status = "cached"   // a record with its key exists
)

// Trial is one configuration × profile × repeat.
type Trial struct {
	Key     string   `json:"key"`
	Step    string   `json:"step"`
	Variant string   `json:"variant"`
	Also    []string `json:"also,omitempty"`
	Engine  string   `json:"engine"`
	Kind    string   `json:"kind"`
	Version string   `json:"version"`
	Model   string   `json:"model"`
	Profile string   `json:"profile"`
	// Rate is the probe's request rate on a search profile.
	Rate    float64           `json:"rate,omitempty"`
	Repeat  int               `json:"repeat"`
	Argv    []string          `json:"argv"`
	Env     map[string]string `json:"env,omitempty"`
	Command string            `json:"command,omitempty"`
	Status  Status            `json:"status"`
	Changes []string          `json:"changes,omitempty"`
	Seconds float64           `json:"seconds"`
	Spec    *Spec             `json:"spec,omitempty"`

	// Config is the configuration the trial launches (zero when pending).
	Config Config `json:"-"`
}

// StepState is how far a step has got.
type StepState struct {
	ID      string `json:"id"`
	Kind    string `json:"kind"`
	Status  string `json:"status"`
	Adopted string `json:"adopted,omitempty"`
	// Detail says why a step waits, is invalid or was skipped.
	Detail string `json:"detail,omitempty"`
	// Runs is an adaptive step's repeats ("2–6"); "" when fixed.
	Runs string `json:"runs,omitempty"`
}

// Step states.
const (
	StepDecided = "decided" // its records decided it
	StepWaiting = "waiting" // its trials are known; runs are missing
	StepInvalid = "invalid" // its records cannot decide it (see Detail)
	StepPending = "pending" // an earlier step is not decided
	StepSkipped = "skipped" // pinned to an engine the study did not adopt
)

// Plan is a study's trial matrix as far as it can be known.
type Plan struct {
	Study    string      `json:"study"`
	File     string      `json:"file"`
	Steps    []StepState `json:"steps"`
	Trials   []*Trial    `json:"trials"`
	Estimate Estimate    `json:"estimate"`

	// Final is the configuration all steps adopted; nil until decided.
	Final *Config `json:"-"`
}

// Candidate is one option of a step, with its trials on the step's
// profiles.
type Candidate struct {
	Variant string
	Config  Config
	Trials  []*Trial
}

// Decision is a decider's answer for one step.
type Decision struct {
	// Winner is the index of the candidate the step adopts, or -1 to
	// keep the incumbent; it counts only when State is StepDecided.
	Winner int
	State  string // StepDecided, StepWaiting or StepInvalid
	Detail string // why the step waits or is invalid
	// More asks for one more run a side of an adaptive step: the
	// comparison is still open. The plan adds it while the step's
	// repeats allow.
	More bool
}

// Decider decides a step from its trials' records.
type Decider interface {
	Decide(st schema.Step, incumbent Candidate, candidates []Candidate) Decision
}

// Options feed the plan with what is already known.
type Options struct {
	Decider Decider
	Cached  func(key string) bool
	// Probe says whether the runs of one search probe (its repeats' keys)
	// meet the SLO; known is false while any has no record.
	Probe func(keys []string) (meets, known bool)
	// Confirm says whether a probe that broke the SLO needs one more run
	// before the search believes it: every run broke it by an outlier
	// alone (one stall), which another run confirms or overrules.
	Confirm func(keys []string) bool
}

// New expands s. Steps run in order; the first step whose decision is
// not known leaves every later step pending.
func New(s *schema.Study, opt Options) (*Plan, error) {
	b := &builder{s: s, opt: opt}
	p := &Plan{Study: s.ID, File: s.File}
	final, err := b.steps(p)
	if err != nil {
		return nil, err
	}
	if err := b.validation(final); err != nil {
		return nil, err
	}
	p.Final = final
	p.Trials = b.merge()
	p.Estimate = estimate(s, p.Trials)
	return p, nil
}

type builder struct {
	s   *schema.Study
	opt Options
	occ []*Trial // every occurrence, in plan order, before merging equal keys
}

func (b *builder) steps(p *Plan) (*Config, error) {
	s := b.s
	obj := []string{s.Objective.Profile}
	inc := Candidate{Variant: "baseline", Config: BaseConfig(s, s.Baseline.Engine)}
	var err error
	if inc.Trials, err = b.trials("baseline", "baseline", inc.Config, obj, s.Benchmark.Repeats.Min, true); err != nil {
		return nil, err
	}
	decided := true
	// engineKnown stays true past an undecided step while no step can
	// still change the engine: a step pinned to another engine is then
	// known to be skipped, not pending.
	engineKnown := true
	for _, st := range s.Steps {
		state := StepState{ID: st.ID, Kind: "try"}
		if rep := StepRepeats(s, st); rep.Adaptive() {
			state.Runs = rep.String()
		}
		if st.IsSelect() {
			state.Kind = "select"
		}
		if !decided && st.Select != nil && len(st.Select.Engines) > 0 {
			engineKnown = false
		}
		switch {
		case !decided && engineKnown && st.Engine != "" && st.Engine != inc.Config.Engine:
			state.Status = StepSkipped
			state.Detail = fmt.Sprintf("engine %s not adopted (the study runs %s)", st.Engine, inc.Config.Engine)
		case !decided:
			state.Status = StepPending
			b.pendingStep(st)
		case st.Engine != "" && st.Engine != inc.Config.Engine:
			state.Status = StepSkipped
			state.Detail = fmt.Sprintf("engine %s not adopted (the study runs %s)", st.Engine, inc.Config.Engine)
		default:
			next, d, err := b.step(st, inc)
			if err != nil {
				return nil, err
			}
			state.Status, state.Detail = d.State, d.Detail
			if d.State == StepDecided {
				state.Adopted = ""
				if d.Winner >= 0 {
					state.Adopted = next.Variant
				}
				inc = next
			}
			decided = d.State == StepDecided
			engineKnown = decided || st.Select == nil || len(st.Select.Engines) == 0
		}
		p.Steps = append(p.Steps, state)
	}
	if !decided {
		return nil, nil
	}
	return &inc.Config, nil
}

// step lists a step's candidates and asks the decider which it adopts:
// it returns the new incumbent (the old one when it is kept) and the
// decision.
func (b *builder) step(st schema.Step, inc Candidate) (Candidate, Decision, error) {
	profiles := b.stepProfiles(st)
	waiting := Decision{Winner: -1, State: StepWaiting}
	rep := b.stepRepeats(st)
	// Adaptive repeats: while the decider finds the comparison open, one
	// more run a side, up to the step's max.
	for n := rep.Min; ; n++ {
		cands, err := b.candidates(st, inc, profiles, n)
		if err != nil {
			return inc, waiting, err
		}
		// The incumbent was measured on the objective's profile already; a
		// step that compares on other profiles, or more often, needs it
		// measured there too.
		incTrials, err := b.trials(st.ID, "incumbent", inc.Config, profiles, n, false)
		if err != nil {
			return inc, waiting, err
		}
		d := waiting
		if b.opt.Decider != nil {
			d = b.opt.Decider.Decide(st, Candidate{Variant: inc.Variant, Config: inc.Config, Trials: incTrials}, cands)
		}
		if d.More && d.State == StepDecided && n < rep.Max {
			continue
		}
		for _, c := range cands {
			b.occ = append(b.occ, c.Trials...)
		}
		if len(st.Profiles) > 0 || n > b.s.Benchmark.Repeats.Min {
			b.occ = append(b.occ, incTrials...)
		}
		return b.adopt(st, inc, cands, d)
	}
}

// adopt applies the decider's decision: the new incumbent (the old one
// when it is kept).
func (b *builder) adopt(st schema.Step, inc Candidate, cands []Candidate, d Decision) (Candidate, Decision, error) {
	w := d.Winner
	switch {
	case b.opt.Decider == nil || d.State != StepDecided:
		return inc, d, nil
	case w >= len(cands) || w < 0 && st.IsSelect():
		return inc, d, fmt.Errorf("step %s: decider chose candidate %d of %d", st.ID, w, len(cands))
	case w < 0:
		return inc, d, nil
	}
	return cands[w], d, nil
}

func (b *builder) candidates(st schema.Step, inc Candidate, profiles []string, n int) ([]Candidate, error) {
	var cands []Candidate
	add := func(name string, c Config) error {
		ts, err := b.trials(st.ID, name, c, profiles, n, false)
		cands = append(cands, Candidate{Variant: name, Config: c, Trials: ts})
		return err
	}
	if st.Select != nil && len(st.Select.Engines) > 0 {
		for _, e := range st.Select.Engines {
			if err := add(e, BaseConfig(b.s, e)); err != nil {
				return nil, err
			}
		}
		return cands, nil
	}
	for _, v := range variantsOf(st) {
		if err := add(v.Name, inc.Config.Apply(v)); err != nil {
			return nil, err
		}
	}
	return cands, nil
}

func variantsOf(st schema.Step) []schema.Variant {
	if st.Select != nil {
		return st.Select.Variants
	}
	return st.Variants
}

// stepRepeats is how often each of the step's trials runs: the step's
// own repeats, else the study's.
func (b *builder) stepRepeats(st schema.Step) schema.Repeats {
	return StepRepeats(b.s, st)
}

// StepRepeats is how often each of st's trials runs: the step's own
// repeats, else the study's.
func StepRepeats(s *schema.Study, st schema.Step) schema.Repeats {
	if st.Repeats != (schema.Repeats{}) {
		return st.Repeats
	}
	return s.Benchmark.Repeats
}

func (b *builder) stepProfiles(st schema.Step) []string {
	if len(st.Profiles) > 0 {
		return st.Profiles
	}
	return []string{b.s.Objective.Profile}
}

func (b *builder) validation(final *Config) error {
	s := b.s
	if len(s.Validate.Profiles) == 0 {
		return nil
	}
	if _, err := b.trials("validate", "baseline", BaseConfig(s, s.Baseline.Engine), s.Validate.Profiles, s.Benchmark.Repeats.Min, true); err != nil {
		return err
	}
	if final == nil {
		b.pending("validate", "final", "", nil, s.Validate.Profiles, s.Benchmark.Repeats.Min)
		return nil
	}
	_, err := b.trials("validate", "final", *final, s.Validate.Profiles, s.Benchmark.Repeats.Min, true)
	return err
}

// WithRole lists every repeat of the trial that plays role on profile,
// among the trials that have a key (pending ones have none yet).
func (p *Plan) WithRole(role, profile string) []*Trial {
	var out []*Trial
	for _, t := range p.Trials {
		if t.Profile == profile && t.Key != "" && t.HasRole(role) {
			out = append(out, t)
		}
	}
	return out
}

// HasRole reports whether the trial plays role ("step/variant"), as its
// own step and variant or as one of the roles merged into it.
func (t *Trial) HasRole(role string) bool {
	if t.Step+"/"+t.Variant == role {
		return true
	}
	for _, r := range t.Also {
		if r == role {
			return true
		}
	}
	return false
}
