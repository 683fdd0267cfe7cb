package decide

import (
	"fmt"

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

	values   []float64
	requests []float64 // per-request values of the objective, when sampled
}

// Step is one step's outcome.
type Step struct {
	ID        string            `json:"id"`
	Title     schema.Text       `json:"title"`
	Kind      string            `json:"kind"`
	Status    string            `json:"status"`
	Adopted   *string           `json:"adopted"`
	Objective map[string]*Value `json:"objective"`
	Incumbent *Option           `json:"incumbent,omitempty"`
	Options   []Option          `json:"options,omitempty"`
	Best      string            `json:"best,omitempty"`
	// Comparison is the best option against the incumbent (try steps) or
	// against the runner-up (select steps).
	Comparison *Comparison `json:"comparison,omitempty"`
	Missing    []string    `json:"missing,omitempty"`
}

// decider implements plan.Decider over records and remembers what it
// saw, step by step, for the report.
type decider struct {
	s       *schema.Study
	runs    Runs
	samples Samples
	steps   map[string]*Step
}

func (d *decider) Decide(st schema.Step, inc plan.Candidate, cands []plan.Candidate) (int, bool) {
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
	if !st.IsSelect() {
		o := d.option(inc.Variant, inc.Trials)
		out.Incumbent = &o
	}
	if out.Missing = d.missing(out); len(out.Missing) > 0 {
		return 0, false
	}
	best := d.best(out.Options)
	out.Best = out.Options[best].Variant
	lower := d.s.Objective.Goal == "min"
	if st.IsSelect() {
		out.Comparison = compare(out.Options, best, runnerUp(out.Options, best, lower), lower)
		out.Adopted = &out.Best
		return best, true
	}
	c := compareWith(out.Options[best], *out.Incumbent, lower)
	c.Adopt = c.Gain > d.s.Objective.MinGain && c.Verdict != Worse && c.Verdict != NoDifference
	out.Comparison = c
	if !c.Adopt {
		return -1, true
	}
	out.Adopted = &out.Best
	return best, true
}

// option gathers the objective over every run of every repeat of the
// option's trials on the objective's profile (or the step's first).
func (d *decider) option(variant string, trials []*plan.Trial) Option {
	o := Option{Variant: variant}
	profile := d.s.Objective.Profile
	if !hasProfile(trials, profile) && len(trials) > 0 {
		profile = trials[0].Profile
	}
	var ttft, tpot []float64
	derived := false
	for _, t := range trials {
		if t.Profile != profile {
			continue
		}
		if o.Key == "" {
			o.Key = t.Key
		}
		o.requests = append(o.requests, sampleValues(d.s.Objective.Metric, d.runs[t.Key], d.samples)...)
		for _, r := range d.runs[t.Key] {
			if v, der, ok := metricOf(r.Metrics, d.s.Objective.Metric); ok {
				o.values = append(o.values, v)
				derived = derived || der
			}
			if v, _, ok := metricOf(r.Metrics, "ttft.mean"); ok {
				ttft = append(ttft, v)
			}
			if v, _, ok := metricOf(r.Metrics, "tpot.mean"); ok {
				tpot = append(tpot, v)
			}
		}
	}
	if len(o.values) > 0 {
		v := summarize(o.values, derived)
		o.Value = &v
	}
	o.TTFT, o.TPOT = maybe(ttft), maybe(tpot)
	return o
}

func maybe(xs []float64) *Value {
	if len(xs) == 0 {
		return nil
	}
	v := summarize(xs, false)
	return &v
}

func hasProfile(trials []*plan.Trial, p string) bool {
	for _, t := range trials {
		if t.Profile == p {
			return true
		}
	}
	return false
}

func (d *decider) missing(st *Step) []string {
	var out []string
	all := st.Options
	if st.Incumbent != nil {
		all = append([]Option{*st.Incumbent}, all...)
	}
	for _, o := range all {
		if o.Value == nil {
			out = append(out, fmt.Sprintf("%s/%s (%s)", st.ID, o.Variant, short(o.Key)))
		}
	}
	return out
}

// best is the option with the best mean; the first wins a tie, so an
// equal variant never displaces the one listed before it.
func (d *decider) best(opts []Option) int {
	lower := d.s.Objective.Goal == "min"
	b := 0
	for i, o := range opts {
		if better(o.Value.Mean, opts[b].Value.Mean, lower) {
			b = i
		}
	}
	return b
}

func runnerUp(opts []Option, best int, lower bool) int {
	r := -1
	for i, o := range opts {
		if i != best && (r < 0 || better(o.Value.Mean, opts[r].Value.Mean, lower)) {
			r = i
		}
	}
	return r
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
