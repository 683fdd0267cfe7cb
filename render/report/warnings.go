package report

import (
	"strings"

	"servelab.dev/execute/decide"
	d "servelab.dev/render/document"
	"servelab.dev/schema/plan"
)

// causes is the order warnings appear in.
var causes = []string{decide.CodeDecodeBound, decide.CodeITLBound, decide.CodePeakRate, decide.CodePeakLow, decide.CodePeakConc, decide.CodeBursts, decide.CodeOutlier}

// warnings writes one callout per cause for the whole page, each naming
// the runs it concerns; the appendix marks the lines with (!).
func (b *builder) warnings() {
	var notes []d.Block
	if b.s.Benchmark.Warmup == 0 && len(b.runs) > 0 {
		t := d.M("These runs had no warm-up requests: the first requests of each run include start-up effects (a single slow first request can move a mean).")
		if !b.drove() {
			t = d.M("The imported runs report no warm-up requests: if they had none, the first requests of each run include start-up effects (a single slow first request can move a mean).")
		}
		notes = append(notes, d.Note{Warn: true, Cause: "warmup", Text: t})
	}
	notes = append(notes, b.defaultEquals()...) // about the study, before the runs' data
	notes = append(notes, b.lintNotes()...)
	if len(notes) == 0 {
		return
	}
	b.h(2, "warnings", d.M("Warnings about the data"))
	b.doc.Add(notes...)
}

// lintNotes is one callout per cause, but causes that flag the same
// runs share one: the reader learns once which runs a group of (!)
// marks concerns.
func (b *builder) lintNotes() []d.Block {
	type group struct {
		code  string
		runs  []d.Text
		n     int
		texts []d.Text
	}
	var groups []*group
	byKeys := map[string]*group{}
	for _, code := range causes {
		runs, n, first, keys := b.runsWith(code)
		if n == 0 {
			continue
		}
		g := byKeys[keys]
		if g == nil {
			g = &group{code: code, runs: runs, n: n}
			byKeys[keys] = g
			groups = append(groups, g)
		}
		g.texts = append(g.texts, lintText(first, b.s.Benchmark.Client.Name))
	}
	var notes []d.Block
	for _, g := range groups {
		text := d.Sentences(append(g.texts, b.concerned(g.code, g.runs, g.n))...)
		notes = append(notes, d.Note{Warn: true, Cause: g.code, Text: text})
	}
	return notes
}

// defaultEquals is one callout naming the options vet warned write
// the engine's own default: their runs measure the incumbent again, so
// their figures are not the effect of a change.
func (b *builder) defaultEquals() []d.Block {
	var texts []d.Text
	for _, w := range b.s.DefaultEquals {
		option := d.M("%s: %s", b.stepTitle(w.Step), b.optionName(studyStep(b.s, w.Step), w.Variant))
		texts = append(texts, d.M(
			"%s sets %s, the default of %s %s (read from %s): this option measures the configuration it is compared with again; drop it or choose another value.",
			option, d.Code(w.Flag+" "+w.Value), d.Lit(w.Engine), d.Lit(w.Version), d.Code(w.Source.Cite())))
	}
	if len(texts) == 0 {
		return nil
	}
	return []d.Block{d.Note{Warn: true, Cause: "default-equal", Text: d.Sentences(texts...)}}
}

// runsWith names the trials a lint code flags, each with its step,
// their count, the first warning and their keys joined (which tells
// two codes that flag the same trials).
func (b *builder) runsWith(code string) (groups []d.Text, n int, first decide.Warning, keys string) {
	var flaggedKeys []string
	flagged := func(t *plan.Trial) bool {
		for _, w := range b.warn[t.Key] {
			if w.Code == code {
				if n == 0 {
					first = w
				}
				n++
				flaggedKeys = append(flaggedKeys, t.Key)
				return true
			}
		}
		return false
	}
	groups = b.trialNames(flagged)
	return groups, n, first, strings.Join(flaggedKeys, " ")
}

// concerned says which runs a warning concerns in a few words: the runs
// themselves when they are few, else the runs it spares, else a count
// (the appendix marks each run).
func (b *builder) concerned(code string, groups []d.Text, n int) d.Text {
	if n <= 6 {
		return d.M("Runs concerned (%d): %s.", n, d.Join{Sep: "; ", Parts: groups})
	}
	measured := func(t *plan.Trial) bool { return len(b.runs[t.Key]) > 0 }
	total := len(b.trialsWhere(measured))
	spared := b.trialNames(func(t *plan.Trial) bool {
		if !measured(t) {
			return false
		}
		for _, w := range b.warn[t.Key] {
			if w.Code == code {
				return false
			}
		}
		return true
	})
	if len(spared) > 0 && total-n <= 4 {
		return d.M("This concerns %d of the %d measured trials: all but %s.", n, total, d.Join{Sep: "; ", Parts: spared})
	}
	if total == n {
		return d.M("This concerns every measured trial (%d).", n)
	}
	return d.M("This concerns %d of the %d measured trials; the appendix marks each of their lines with (!).", n, total)
}

// trialsWhere lists the trials pick keeps.
func (b *builder) trialsWhere(pick func(*plan.Trial) bool) []*plan.Trial {
	var out []*plan.Trial
	for _, t := range b.a.Plan.Trials {
		if pick(t) {
			out = append(out, t)
		}
	}
	return out
}

// trialNames names the trials pick keeps, each with its step
// ("`--attention-backend flashinfer` in Attention Backend").
func (b *builder) trialNames(pick func(*plan.Trial) bool) (names []d.Text) {
	for _, t := range b.trialsWhere(pick) {
		name := b.variantName(t)
		if t.Profile != b.s.Objective.Profile || t.Step == "validate" {
			name = d.Sentences(name, d.Paren{Text: ProfileTitle(b.s, t.Profile)})
		}
		names = append(names, d.M("%s in %s", name, b.stepTitle(t.Step)))
	}
	return names
}

// variantName is a trial's option as the page calls it; the validation
// runs are the baseline and the optimized configuration.
func (b *builder) variantName(t *plan.Trial) d.Text {
	if t.Step == "validate" {
		if t.Variant == "final" {
			return d.M("Optimized")
		}
		return d.M("Baseline")
	}
	return b.optionName(studyStep(b.s, t.Step), t.Variant)
}

func (b *builder) stepTitle(id string) d.Text {
	if ss := studyStep(b.s, id); ss != nil {
		return d.Prose(ss.Title)
	}
	return d.M("Other benchmark cases")
}

// trialLabel names a trial for a reader: step, option, profile, repeat.
func (b *builder) trialLabel(t *plan.Trial) d.Text {
	ss := studyStep(b.s, t.Step)
	var step d.Text = d.Code(t.Step)
	if ss != nil {
		step = d.Prose(ss.Title)
	}
	if t.Step == "validate" {
		step = d.M("Other benchmark cases")
	}
	parts := []d.Text{step, b.variantName(t), ProfileTitle(b.s, t.Profile)}
	if t.Step == "baseline" {
		parts = []d.Text{d.M("Baseline"), ProfileTitle(b.s, t.Profile)}
	}
	if p, ok := b.s.Profiles[t.Profile]; ok && p.Kind == "search" && t.Spec != nil {
		parts = append(parts, rateN(t.Spec.Profile.Rate)) // one probe of the search
	}
	if b.s.Benchmark.Repeats.Max > 1 {
		parts = append(parts, d.M("repeat %d", t.Repeat+1))
	}
	return d.Join{Sep: " · ", Parts: parts}
}
