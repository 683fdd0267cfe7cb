package report

import (
	"strings"

	"servelab.dev/execute/decide"
	"servelab.dev/execute/record"
	d "servelab.dev/render/document"
	"servelab.dev/schema"
	"servelab.dev/schema/plan"
)

// prefixRuns shows, for each run of the step, what its workload could
// reuse and what the engine's prefix cache did reuse: the shared-prefix
// ratio the client measured on the prompts it sent, and the hit rate
// from the requests' cached tokens (else from the engine's metrics).
// Only runs that recorded either are listed, so records from before
// these figures leave the report as it was.
func (b *builder) prefixRuns(ss *schema.Step, st decide.Step) {
	b.prefixTable("prefix-"+sanitize(st.ID), b.stepRuns(ss, st))
}

// validationPrefix is the same table for the baseline's and the
// optimized configuration's validation runs, profile by profile.
func (b *builder) validationPrefix() {
	var runs []namedTrial
	for i, role := range []string{"validate/baseline", "validate/final"} {
		name := []d.Text{d.M("Baseline"), d.M("Optimized")}[i]
		for _, row := range b.measured() {
			for _, t := range b.a.Plan.WithRole(role, row.Profile) {
				runs = append(runs, namedTrial{name, t})
			}
		}
	}
	b.prefixTable("prefix-validation", runs)
}

func (b *builder) prefixTable(id string, runs []namedTrial) {
	t := d.Table{Head: []d.Text{d.M("Run"), d.M("Load"), d.M("Shared prefix"), d.M("Cache hit rate"), d.M("Cached tokens")},
		Right: []bool{false, false, true, true, true}}
	reuse := b.reusedLoads(runs)
	for _, run := range runs {
		for _, r := range b.runs[run.t.Key] {
			m := r.Metrics
			if m.SharedPrefix == nil && m.CacheHitRate == nil || !reuse[run.t.Profile] {
				continue
			}
			t.Rows = append(t.Rows, []d.Text{run.name, ProfileTitle(b.s, run.t.Profile),
				share(m.SharedPrefix), share(hitRate(m)), cachedTokens(m)})
		}
	}
	if len(t.Rows) == 0 {
		return
	}
	// Folded on a web page: a table a run long, read when the cache is
	// in question.
	b.doc.Add(d.Details{ID: id, InText: true,
		Summary: d.M("Prefix caching, run by run"),
		Blocks:  []d.Block{d.Para{Text: d.M("Prefix caching, run by run: the share of prompt tokens in a prefix an earlier request of the run began with (what an unbounded cache could reuse), and the share the engine served from its cache.")}, t}})
}

// reusedLoads are the profiles where some run shared a prefix or hit
// the cache: rows of nothing but zeros (random prompts) say nothing a
// reader needs.
func (b *builder) reusedLoads(runs []namedTrial) map[string]bool {
	out := map[string]bool{}
	for _, run := range runs {
		for _, r := range b.runs[run.t.Key] {
			m := r.Metrics
			hit := hitRate(m)
			if m.SharedPrefix != nil && *m.SharedPrefix > 0 || hit != nil && *hit > 0 || m.CachedTokens != nil && *m.CachedTokens > 0 {
				out[run.t.Profile] = true
			}
		}
	}
	return out
}

type namedTrial struct {
	name d.Text
	t    *plan.Trial
}

// stepRuns are the trials that ran for the step: its incumbent and
// options on the deciding profile (whichever role the plan lists them
// under), then its own trials and those it shares on other profiles.
func (b *builder) stepRuns(ss *schema.Step, st decide.Step) []namedTrial {
	var out []namedTrial
	seen := map[string]bool{}
	add := func(name d.Text, t *plan.Trial) {
		if t != nil && !seen[t.Key] {
			seen[t.Key] = true
			out = append(out, namedTrial{name, t})
		}
	}
	// The incumbent by its name too, as in the step's objective table.
	incumbent := d.Text(d.M("current configuration"))
	if st.Incumbent != nil {
		incumbent = d.Sentences(b.optionName(ss, st.Incumbent.Variant), d.Paren{Text: incumbent})
		add(incumbent, b.trial(st.Incumbent.Key))
	}
	for _, o := range st.Options {
		add(b.optionName(ss, o.Variant), b.trial(o.Key))
	}
	for _, t := range b.a.Plan.Trials {
		if t.Step == st.ID || hasPrefix(t.Also, st.ID+"/") {
			name := b.variantName(t)
			if t.Variant == "incumbent" {
				name = incumbent
			}
			add(name, t)
		}
	}
	return out
}

func hasPrefix(ss []string, p string) bool {
	for _, s := range ss {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	return false
}

// hitRate is the requests' cached share, else the engine's own.
func hitRate(m record.Metrics) *float64 {
	if m.CacheHitRate != nil {
		return m.CacheHitRate
	}
	if m.Engine != nil {
		return m.Engine.PrefixHitRate
	}
	return nil
}

func share(p *float64) d.Text {
	if p == nil {
		return d.M("not reported")
	}
	return d.Num{V: *p * 100, Prec: 1, Unit: "%"}
}

func cachedTokens(m record.Metrics) d.Text {
	if m.CachedTokens == nil {
		return d.M("not reported")
	}
	return d.Num{V: float64(*m.CachedTokens), Prec: 0}
}
