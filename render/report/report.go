package report

import (
	"maps"
	"slices"
	"strings"

	"servelab.dev/execute/decide"
	"servelab.dev/execute/record"
	d "servelab.dev/render/document"
	"servelab.dev/schema"
	"servelab.dev/schema/plan"
)

// builder holds what every section needs.
type builder struct {
	s    *schema.Study
	a    *decide.Analysis
	runs decide.Runs
	doc  *d.Doc
	warn map[string][]decide.Warning // by trial key
}

// Build makes the report document of study s.
func Build(s *schema.Study, a *decide.Analysis, runs decide.Runs) *d.Doc {
	b := &builder{s: s, a: a, runs: runs, doc: &d.Doc{ID: s.ID, Title: d.Prose(s.Title)}, warn: map[string][]decide.Warning{}}
	for _, w := range a.Warnings {
		b.warn[w.Key] = append(b.warn[w.Key], w)
	}
	if b.simulated() {
		b.doc.Add(d.Banner{Text: d.M("Simulated results: every figure in this report comes from servelab-sim on a machine without a GPU. They show how servelab works, not how the engines perform.")})
	}
	if s.Summary != nil {
		b.doc.Add(d.Para{Text: d.Prose(*s.Summary)})
	}
	b.figures()
	b.conclusion()
	b.notes()
	b.objective()
	b.setup()
	b.method()
	b.results()
	b.summary()
	b.others()
	return b.doc
}

func (b *builder) simulated() bool {
	for _, t := range b.a.Plan.Trials {
		for _, r := range b.runs[t.Key] {
			if r.Provenance.Kind == record.Simulated {
				return true
			}
		}
	}
	return false
}

func (b *builder) h(level int, id string, t d.Text) {
	b.doc.Add(d.Heading{Level: level, ID: id, Text: t})
}

func (b *builder) notes() {
	if len(b.s.Notes) == 0 && b.s.Footer == nil {
		return
	}
	b.h(2, "notes", d.M("Notes"))
	var items []d.Text
	for _, n := range b.s.Notes {
		items = append(items, d.Prose(n))
	}
	if len(items) > 0 {
		b.doc.Add(d.List{Items: items})
	}
	if b.s.Footer != nil {
		b.doc.Add(d.Para{Text: d.Prose(*b.s.Footer)})
	}
}

func (b *builder) objective() {
	o := b.s.Objective
	b.h(2, "objective", d.M("Optimization objective"))
	if o.Text != nil {
		b.doc.Add(d.Para{Text: d.Prose(*o.Text)})
	}
	rule := d.M("Every step is judged by %s at %s. A select step adopts its best candidate; a step of variants adopts its best variant only when it beats the configuration adopted so far by more than %s.",
		MetricName(o.Metric), ProfileTitle(b.s, o.Profile), d.Lit(percent(o.MinGain)))
	b.doc.Add(d.Para{Text: rule})
	b.slo()
}

func percent(f float64) string {
	return strings.TrimSuffix(strings.TrimSuffix(d.Fixed(f*100).In(nil, d.Plain), "0"), ".0") + " %"
}

func (b *builder) setup() {
	s := b.s
	b.h(2, "setup", d.M("Experimental setup"))
	b.h(3, "model", d.M("Model"))
	items := []d.Text{d.M("%s: %s, %s parameters", d.Code(s.Model.ID), d.Lit(strings.ToUpper(s.Model.DType)), d.Lit(billions(s.Model.Params)))}
	for _, name := range slices.Sorted(maps.Keys(s.Model.Variants)) {
		v, _ := s.Model.Variant(name)
		items = append(items, d.M("%s: %s, %s parameters", d.Code(v.ID), d.Lit(strings.ToUpper(v.DType)), d.Lit(billions(v.Params))))
	}
	b.doc.Add(d.List{Items: items})
	b.h(3, "hardware", d.M("Hardware"))
	h := s.Hardware
	b.doc.Add(d.Para{Text: d.M("%s × %s: %s GiB, %s TB/s memory bandwidth", d.Lit(itoa(h.Count)), d.Lit(h.GPU), d.Lit(trim(h.MemoryGiB)), d.Lit(trim(h.BandwidthTBs)))})
	b.h(3, "engines", d.M("Engine versions"))
	var engines []d.Text
	for _, name := range slices.Sorted(maps.Keys(s.Engines)) {
		e := s.Engines[name]
		engines = append(engines, d.Join{Sep: " ", Parts: []d.Text{d.Lit(EngineName(e.Kind)), d.Code(e.Version)}})
	}
	b.doc.Add(d.List{Items: engines})
}

// trialRuns are the records of a trial, for blocks.
func (b *builder) trialRuns(t *plan.Trial) []*record.Record {
	if t == nil {
		return nil
	}
	return b.runs[t.Key]
}
