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
	t := d.Table{Head: []d.Text{d.M("Run"), d.M("Load"), d.M("Shared prefix"), d.M("Cache hit rate"), d.M("Cached tokens")},
		Right: []bool{false, false, true, true, true}}
	for _, tr := range b.stepTrials(st.ID) {
		for _, r := range b.runs[tr.Key] {
			m := r.Metrics
			if m.SharedPrefix == nil && m.CacheHitRate == nil {
				continue
			}
			name := b.variantName(tr)
			if tr.Variant == "incumbent" {
				name = d.M("adopted so far")
			}
			t.Rows = append(t.Rows, []d.Text{name, ProfileTitle(b.s, tr.Profile),
				share(m.SharedPrefix), share(hitRate(m)), cachedTokens(m)})
		}
	}
	if len(t.Rows) == 0 {
		return
	}
	b.doc.Add(d.Para{Text: d.M("Prefix caching, run by run: the share of prompt tokens in a prefix an earlier request of the run began with (what an unbounded cache could reuse), and the share the engine served from its cache.")}, t)
}

// stepTrials are the plan's trials that run for step id, its own and
// those it shares with another role (listed there, named in Also).
func (b *builder) stepTrials(id string) []*plan.Trial {
	var out []*plan.Trial
	for _, t := range b.a.Plan.Trials {
		if t.Step == id || hasPrefix(t.Also, id+"/") {
			out = append(out, t)
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
