package decide

import (
	"fmt"
	"slices"
	"strings"

	"servelab.dev/execute/record"
	"servelab.dev/schema"
	"servelab.dev/schema/plan"
)

// Runs are the ok records of each trial, by key.
type Runs map[string][]*record.Record

// Option is one candidate of a step (or its incumbent) on the objective.
type Option struct {
	Variant string `json:"variant"`
	Key     string `json:"key"`
	Value   *Value `json:"value"` // nil when the trial has no record
	TTFT    *Value `json:"ttft,omitempty"`
	TPOT    *Value `json:"tpot,omitempty"`
	// Latency is the mean request latency, which a throughput objective
	// does not show: at a fixed concurrency it is the user's side of
	// the same runs.
	Latency *Value `json:"latency,omitempty"`
	// Planned and Recorded count the option's runs: one per repeat of
	// each trial on the deciding profile.
	Planned  int `json:"planned"`
	Recorded int `json:"recorded"`
	// Invalid says why the option's runs cannot count, when they cannot.
	Invalid *InvalidRun `json:"invalid,omitempty"`
	// SLO checks the option against each bound of the study; Goodput is
	// each run's (nil where the run has no per-request samples).
	SLO     []Check    `json:"slo,omitempty"`
	Goodput []*float64 `json:"goodput,omitempty"`
	// Violation is how far the option is from meeting the SLO: the
	// largest ratio of its value to a bound (≤ 1 meets them all); nil
	// without bounds or when one cannot be checked.
	Violation *float64 `json:"violation,omitempty"`
	// Search is the capacity search behind the option's value, when the
	// objective is capacity.
	Search *plan.Search `json:"search,omitempty"`
	// Stopped is why the early-stopping rule stopped one of its runs: it
	// cannot beat the incumbent, and is not adopted.
	Stopped string `json:"stopped,omitempty"`
	// UnknownFailed lists the runs that count although their source did
	// not report failed requests: the study's failure limit could not
	// be checked for them, and the reports say so.
	UnknownFailed []string `json:"unknownFailed,omitempty"`
	// Guard is the quality guard against the incumbent, in steps that
	// change outputs.
	Guard *Guard `json:"guard,omitempty"`
	// TokensPerChunk is, under speculative decoding, the mean over the
	// runs of mean ITL ÷ mean TPOT: the tokens a streamed chunk carries,
	// which estimates the tokens accepted per verify step. nil without
	// speculative decoding, where a run lacks either figure, or where
	// the TPOT is below the weights' read time (no real per-token time).
	TokensPerChunk *float64 `json:"tokensPerChunk,omitempty"`

	values     []float64
	violations []float64   // each run's violation of the SLO
	requests   [][]float64 // per-request values of the objective, per run
	missing    []string
}

// InvalidRun is a run that cannot count in a decision.
type InvalidRun struct {
	Reason  string   `json:"reason"` // ReasonFailed or ReasonNoMetric
	Run     string   `json:"run"`    // step/variant/profile#repeat and key prefix
	Failed  int      `json:"failed,omitempty"`
	Total   int      `json:"total,omitempty"`
	Reasons []string `json:"reasons,omitempty"` // the first failure reasons
	Message string   `json:"message"`
}

// Step is one step's outcome.
type Step struct {
	ID    string      `json:"id"`
	Title schema.Text `json:"title"`
	Kind  string      `json:"kind"`
	// Status is the plan's state of the step; Outcome, Reason and Detail
	// say what the records decided and why.
	Status    string            `json:"status"`
	Outcome   string            `json:"outcome"`
	Reason    string            `json:"reason,omitempty"`
	Detail    string            `json:"detail,omitempty"`
	Adopted   *string           `json:"adopted"`
	Objective map[string]*Value `json:"objective"`
	Incumbent *Option           `json:"incumbent,omitempty"`
	Options   []Option          `json:"options,omitempty"`
	Best      string            `json:"best,omitempty"`
	// Comparison is the best option against the incumbent (try steps) or
	// against the reference (select steps: the incumbent's own candidate,
	// else the runner-up).
	Comparison *Comparison `json:"comparison,omitempty"`
	// SLOComparison sets the violations of the SLO side by side where
	// no option meets it: the one significantly closer to it wins.
	SLOComparison *Comparison  `json:"sloComparison,omitempty"`
	Missing       []string     `json:"missing,omitempty"`
	Invalid       []InvalidRun `json:"invalid,omitempty"`
	// Pareto is every option's load points, throughput per GPU against
	// ParetoMetric, the dominated ones marked; nil with one load each.
	Pareto       []Point `json:"pareto,omitempty"`
	ParetoMetric string  `json:"paretoMetric,omitempty"`
	// UnknownFailed are the step's runs counted without a failed count
	// (their source did not report one), once each.
	UnknownFailed []string `json:"unknownFailed,omitempty"`
}

// Outcomes of a step.
const (
	Adopted = "adopted" // a variant was adopted (select steps always adopt one)
	Kept    = "kept"    // the incumbent stays
	Waiting = "waiting" // runs are missing
	Invalid = "invalid" // the records cannot decide it
	Pending = "pending" // an earlier step is not decided
	Skipped = "skipped" // pinned to an engine the study did not adopt
)

// Reasons behind an outcome.
const (
	ReasonBetter          = "better"                    // significantly better by more than minGain
	ReasonSingleRun       = "single-run"                // better by more than minGain, but no noise estimate (fewer than 3 runs a side, no samples)
	ReasonNotBetter       = "not-better"                // the best variant is not ahead
	ReasonNoDifference    = "no-significant-difference" // inside the noise
	ReasonBelowMinGain    = "below-min-gain"            // ahead, by no more than minGain
	ReasonRunsMissing     = "runs-missing"
	ReasonFailed          = "failed-requests" // a run failed more requests than the study allows
	ReasonNoMetric        = "missing-metric"  // a record lacks the objective's metric
	ReasonMeetsSLO        = "meets-slo"       // adopted: the incumbent breaks the SLO, the variant meets it
	ReasonViolatesSLO     = "violates-slo"    // kept: no variant meets the SLO
	ReasonNoneMeetSLO     = "no-candidate-meets-slo"
	ReasonCloserToSLO     = "closer-to-slo"     // adopted: nothing meets the SLO, the variant is significantly closer
	ReasonStoppedEarly    = "stopped-early"     // kept: the early-stopping rule stopped every variant
	ReasonSameAsIncumbent = "same-as-incumbent" // kept: every variant runs the incumbent's own command
)

// decider implements plan.Decider over records and remembers what it
// saw, step by step, for the report.
type decider struct {
	s       *schema.Study
	runs    Runs
	samples Samples
	steps   map[string]*Step
	byLoad  map[string][]string // record keys by plan.Spec.LoadKey
	// origin names each trial key by the step and variant that first
	// planned it, so a run keeps one name in every step that reuses it.
	origin map[string]string
	// level is the confidence of the step being decided: the study's,
	// or, in an adaptive step, the study's error spread over its looks.
	level float64
}

// Decide decides one step. In an adaptive step (repeats {min, max}) it
// asks for one more run a side while the comparison is open, and judges
// every look at the level that keeps the step's error at the study's:
// Bonferroni across the max−min+1 looks the step may take.
func (d *decider) Decide(st schema.Step, inc plan.Candidate, cands []plan.Candidate) plan.Decision {
	rep := plan.StepRepeats(d.s, st)
	adaptive := rep.Adaptive() && d.s.Objective.Metric != schema.Capacity
	d.level = d.s.Objective.Confidence
	if adaptive {
		d.level = 1 - (1-d.level)/float64(rep.Looks())
	}
	dec := d.decide(st, inc, cands)
	if adaptive && dec.State == plan.StepDecided {
		dec.More = d.open(d.steps[st.ID])
	}
	return dec
}

// open reports whether one more run a side could change the step's
// outcome: its comparison has no noise estimate yet, or is not adopted
// while its interval still reaches past the adoption threshold.
func (d *decider) open(out *Step) bool {
	c, lower := out.SLOComparison, true
	if c == nil {
		c, lower = out.Comparison, d.s.Objective.Goal == "min"
	}
	if c == nil {
		return false
	}
	if c.Interval == nil {
		// More runs give an interval, unless the figures are equal.
		return c.Ratio != 1 && min(c.RunsA, c.RunsB) < MinRunsT
	}
	adopt, _ := d.rule(c)
	thr := 1 + d.s.Objective.MinGain
	if lower {
		thr = 1 / (1 - d.s.Objective.MinGain)
	}
	return !adopt && c.Interval[1] > thr
}

func (d *decider) decide(st schema.Step, inc plan.Candidate, cands []plan.Candidate) plan.Decision {
	out := &Step{ID: st.ID, Title: st.Title, Kind: "try", Objective: map[string]*Value{}}
	if st.IsSelect() {
		out.Kind = "select"
	}
	d.steps[st.ID] = out
	for _, c := range cands {
		o := d.option(c.Variant, c.Trials)
		out.Options = append(out.Options, o)
		out.Objective[c.Variant] = o.Value
	}
	incOpt := d.option(inc.Variant, inc.Trials)
	if st.Quality != nil {
		d.guards(st.Quality.Min, inc, cands, out)
	}
	if !st.IsSelect() {
		out.Incumbent = &incOpt
	}
	trials, order := map[string][]*plan.Trial{}, []string{}
	if !st.IsSelect() {
		trials[inc.Variant], order = inc.Trials, append(order, inc.Variant)
	}
	for _, c := range cands {
		trials[c.Variant], order = c.Trials, append(order, c.Variant)
	}
	if out.Pareto = d.pareto(trials, order); out.Pareto != nil {
		out.ParetoMetric = paretoMetric(d.s)
	}
	if dec, stop := d.check(out); stop {
		return dec
	}
	if !st.IsSelect() && sameAsIncumbent(out) {
		// A knob set to the engine's default adds no flag: comparing the
		// incumbent with itself would decide on noise.
		out.Outcome, out.Reason = Kept, ReasonSameAsIncumbent
		out.Detail = "every variant runs the same command as the incumbent (a setting equal to the engine's default adds no flag)"
		return plan.Decision{Winner: -1, State: plan.StepDecided}
	}
	if st.IsSelect() {
		return d.selectOne(out, reference(inc, cands))
	}
	return d.try(out)
}

// check stops a step that waits for runs or whose records cannot
// decide it.
func (d *decider) check(out *Step) (plan.Decision, bool) {
	all := out.Options
	if out.Incumbent != nil {
		all = append([]Option{*out.Incumbent}, all...)
	}
	var waiting []string
	for _, o := range all {
		out.Missing = append(out.Missing, o.missing...)
		for _, u := range o.UnknownFailed {
			if !slices.Contains(out.UnknownFailed, u) {
				out.UnknownFailed = append(out.UnknownFailed, u)
			}
		}
		if o.Invalid != nil {
			out.Invalid = append(out.Invalid, *o.Invalid)
		}
		if o.Recorded < o.Planned {
			waiting = append(waiting, fmt.Sprintf("%s: %d of %d runs missing", o.Variant, o.Planned-o.Recorded, o.Planned))
		}
	}
	if len(waiting) > 0 {
		return d.stop(out, Waiting, ReasonRunsMissing, strings.Join(waiting, "; "), plan.StepWaiting), true
	}
	for _, iv := range out.Invalid {
		if iv.Reason == ReasonNoMetric {
			return d.stop(out, Invalid, ReasonNoMetric, iv.Message, plan.StepInvalid), true
		}
	}
	if out.Incumbent != nil && out.Incumbent.Invalid != nil {
		return d.stop(out, Invalid, ReasonFailed, "the incumbent's "+out.Incumbent.Invalid.Message, plan.StepInvalid), true
	}
	if eligible(out.Options) < 0 {
		return d.stop(out, Invalid, ReasonFailed, "no variant has valid runs: "+out.Invalid[0].Message, plan.StepInvalid), true
	}
	return plan.Decision{}, false
}

func (d *decider) stop(out *Step, outcome, reason, detail, state string) plan.Decision {
	out.Outcome, out.Reason, out.Detail = outcome, reason, detail
	return plan.Decision{Winner: -1, State: state, Detail: detail}
}

// try adopts the best valid variant when the rule says it beats the
// incumbent.
func (d *decider) try(out *Step) plan.Decision {
	if d.best(out.Options, -1) < 0 {
		if g := d.bestBarred(out.Options); g >= 0 {
			return d.keepBelowGuard(out, g)
		}
		// Every valid variant was stopped early: none can win.
		stopped := out.Options[stoppedIndex(out.Options)]
		out.Best = stopped.Variant
		out.Comparison = d.compare(stopped, *out.Incumbent)
		out.Outcome, out.Reason, out.Detail = Kept, ReasonStoppedEarly, stopped.Variant+": "+stopped.Stopped
		return plan.Decision{Winner: -1, State: plan.StepDecided}
	}
	best := d.bestFeasible(out.Options, -1)
	if best < 0 || !out.Incumbent.feasible() {
		return d.trySLO(out, best)
	}
	out.Best = out.Options[best].Variant
	c := d.compare(out.Options[best], *out.Incumbent)
	out.Comparison = c
	c.Adopt, out.Reason = d.rule(c)
	out.Detail = d.detail(c, out.Reason)
	if !c.Adopt {
		out.Outcome = Kept
		return plan.Decision{Winner: -1, State: plan.StepDecided}
	}
	out.Outcome, out.Adopted = Adopted, &out.Best
	return plan.Decision{Winner: best, State: plan.StepDecided}
}

// trySLO decides a try step where the SLO settles it: no variant meets
// it (the incumbent stays), or the incumbent breaks it and the best
// variant that meets it is adopted whatever the objective says.
func (d *decider) trySLO(out *Step, feasible int) plan.Decision {
	shown := feasible
	if shown < 0 {
		shown = d.best(out.Options, -1)
	}
	out.Best = out.Options[shown].Variant
	c := d.compare(out.Options[shown], *out.Incumbent)
	out.Comparison = c
	if feasible < 0 && !out.Incumbent.feasible() {
		return d.closer(out)
	}
	if feasible < 0 {
		out.Outcome, out.Reason = Kept, ReasonViolatesSLO
		out.Detail = "no variant meets the SLO: " + out.Options[shown].Variant + " breaks " + out.Options[shown].violated()
		return plan.Decision{Winner: -1, State: plan.StepDecided}
	}
	c.Adopt = true
	out.Outcome, out.Reason, out.Adopted = Adopted, ReasonMeetsSLO, &out.Best
	out.Detail = "the incumbent breaks the SLO (" + out.Incumbent.violated() + "); " + out.Best + " meets it"
	return plan.Decision{Winner: feasible, State: plan.StepDecided}
}

// bestFeasible is best among the options that meet the SLO.
func (d *decider) bestFeasible(opts []Option, skip int) int {
	var keep []Option
	var idx []int
	for i, o := range opts {
		if i != skip && o.feasible() {
			keep, idx = append(keep, o), append(idx, i)
		}
	}
	if b := d.best(keep, -1); b >= 0 {
		return idx[b]
	}
	return -1
}

// selectOne adopts one candidate. Where one of them is the incumbent's
// own configuration (ref), another displaces it only under the rule of
// a try step; otherwise the best is chosen and compared with the
// runner-up, so the report can say how clear the choice was.
func (d *decider) selectOne(out *Step, ref int) plan.Decision {
	best := d.bestFeasible(out.Options, -1)
	if best < 0 && d.best(out.Options, -1) < 0 {
		g := out.Options[d.bestBarred(out.Options)]
		reason := ReasonBelowQuality
		if !g.Guard.Known {
			reason = ReasonNoGuard
		}
		return d.stop(out, Invalid, reason, "no candidate meets the quality minimum: "+g.Guard.detail(g.Variant), plan.StepInvalid)
	}
	if best < 0 {
		return d.selectCloser(out, ref)
	}
	if ref >= 0 && !out.Options[ref].feasible() {
		ref = -1 // an incumbent that breaks the SLO has no claim to stay
	}
	win := best
	var c *Comparison
	switch {
	case ref >= 0 && out.Options[ref].Invalid == nil && ref != best:
		c = d.compare(out.Options[best], out.Options[ref])
		c.Adopt, out.Reason = d.rule(c)
		if !c.Adopt {
			win = ref
		}
	default:
		if r := d.bestFeasible(out.Options, best); r >= 0 {
			c = d.compare(out.Options[best], out.Options[r])
			c.Adopt = true
			_, out.Reason = d.rule(c)
		}
	}
	out.Comparison = c
	out.Best = out.Options[win].Variant
	out.Outcome, out.Adopted = Adopted, &out.Best
	if c != nil {
		out.Detail = d.detail(c, out.Reason)
	}
	return plan.Decision{Winner: win, State: plan.StepDecided}
}

// reference is the candidate that is the incumbent itself (same trials),
// or −1.
func reference(inc plan.Candidate, cands []plan.Candidate) int {
	keys := func(ts []*plan.Trial) string {
		var ks []string
		for _, t := range ts {
			ks = append(ks, t.Key)
		}
		return strings.Join(ks, ",")
	}
	for i, c := range cands {
		if len(c.Trials) > 0 && keys(c.Trials) == keys(inc.Trials) {
			return i
		}
	}
	return -1
}

// rule is the study's acceptance rule: adopt when the candidate is ahead
// by more than minGain and, where the records give a noise estimate,
// significantly so.
func (d *decider) rule(c *Comparison) (bool, string) {
	switch {
	case c.Verdict == Worse || c.Gain <= 0 && c.Verdict != NoDifference:
		return false, ReasonNotBetter
	case c.Verdict == NoDifference:
		return false, ReasonNoDifference
	case c.Gain <= d.s.Objective.MinGain:
		return false, ReasonBelowMinGain
	case c.Verdict == NoNoise:
		return true, ReasonSingleRun
	}
	return true, ReasonBetter
}

// detail says in one English line what a comparison showed.
func (d *decider) detail(c *Comparison, reason string) string {
	s := fmt.Sprintf("%s vs %s: %.2fx", c.A, c.B, c.Ratio)
	if c.Interval != nil {
		s += fmt.Sprintf(" (%.4g %% interval %.2fx to %.2fx)", c.Level*100, c.Interval[0], c.Interval[1])
	}
	switch reason {
	case ReasonSingleRun:
		if max(c.RunsA, c.RunsB) <= 1 {
			s += ", one run a side: no noise estimate"
		} else {
			s += ", fewer than 3 runs a side and no per-request samples: no noise estimate"
		}
	case ReasonBelowMinGain:
		s += fmt.Sprintf(", gain %.1f %% is not above minGain %.1f %%", c.Gain*100, d.s.Objective.MinGain*100)
	case ReasonNoDifference:
		s += ", no significant difference"
	case ReasonNotBetter:
		s += ", not better"
	}
	return s
}

// sameAsIncumbent reports whether every variant is the incumbent's own
// configuration (the same trials).
func sameAsIncumbent(out *Step) bool {
	for _, o := range out.Options {
		if o.Key != out.Incumbent.Key {
			return false
		}
	}
	return len(out.Options) > 0
}

func stoppedIndex(opts []Option) int {
	for i, o := range opts {
		if o.Stopped != "" && o.Value != nil {
			return i
		}
	}
	return 0
}

// eligible is the first option with valid runs, or −1.
func eligible(opts []Option) int {
	for i, o := range opts {
		if o.Invalid == nil && o.Value != nil {
			return i
		}
	}
	return -1
}

// best is the valid option with the best mean, skipping index skip; the
// first wins a tie, so an equal variant never displaces the one listed
// before it. −1 when none is left.
func (d *decider) best(opts []Option, skip int) int {
	lower := d.s.Objective.Goal == "min"
	b := -1
	for i, o := range opts {
		if i == skip || o.Invalid != nil || o.Value == nil || o.Stopped != "" || o.barred() {
			continue
		}
		if b < 0 || better(o.Value.Mean, opts[b].Value.Mean, lower) {
			b = i
		}
	}
	return b
}

func (d *decider) compare(a, b Option) *Comparison {
	return compareWith(d.s.Objective.Metric, a, b, d.s.Objective.Goal == "min", d.level)
}

func better(a, b float64, lower bool) bool {
	if lower {
		return a < b
	}
	return a > b
}

func short(k string) string {
	if len(k) > 12 {
		return k[:12]
	}
	return k
}
