package report

import (
	"maps"
	"slices"
	"strings"

	"servelab.dev/execute/decide"
	"servelab.dev/execute/record"
	"servelab.dev/execute/startup"
	"servelab.dev/i18n"
	d "servelab.dev/render/document"
	"servelab.dev/schema"
	"servelab.dev/schema/plan"
)

// builder holds what every section needs.
type builder struct {
	s         *schema.Study
	a         *decide.Analysis
	runs      decide.Runs
	doc       *d.Doc
	levelSaid bool // an adaptive step's interval level has been explained
	nearSaid  bool // the near-repeat steps have been named
	// baselineSaid: a long baseline title has been said before a table.
	baselineSaid bool
	// peerGapSaid: the appendix has said that the peer client cannot
	// repeat a run's workload.
	peerGapSaid bool
	// lean is the command the page recommends in place of the final
	// one, where leanOK (leanLaunch).
	lean   plan.Launch
	leanOK bool
	// peerFirst is the first peer command the appendix printed in full,
	// with its notes; later runs say how theirs differs.
	peerFirst, peerNotes []string
	warn                 map[string][]decide.Warning // by trial key
	// startup is what each trial's engine printed at start-up, by key
	// (BuildWithLogs); empty for Build.
	startup map[string]*startup.Settings
	// shared are the import notes every run of the page carries, said
	// once at the top of the appendix instead of under each run.
	shared map[string]bool
}

// Build makes the report document of study s. It reads top-down: the
// recommendation (command, gain and its interval) first; the warnings,
// one callout per cause; one section per step (chart, table, verdict in
// words); the summary of steps against their incumbents; then the method
// and the raw benchmark blocks, folded (an appendix in Markdown).
func Build(s *schema.Study, a *decide.Analysis, runs decide.Runs) *d.Doc {
	return build(s, a, runs, nil)
}

// build is Build with the trials' start-up settings (nil: none).
func build(s *schema.Study, a *decide.Analysis, runs decide.Runs, st map[string]*startup.Settings) *d.Doc {
	b := &builder{s: s, a: a, runs: runs, doc: &d.Doc{ID: s.ID, Title: d.Prose(s.Title)}, warn: map[string][]decide.Warning{}, startup: st}
	b.lean, b.leanOK = leanLaunch(s, a)
	for _, w := range a.Warnings {
		b.warn[w.Key] = append(b.warn[w.Key], w)
	}
	if b.simulated() {
		b.doc.Add(d.Banner{Text: d.M("Simulated results: every figure in this report comes from servelab-sim on a machine without a GPU. They show how servelab works, not how the engines perform.")})
	}
	switch len(s.Summary) {
	case 0:
	case 1:
		b.doc.Add(d.Para{Text: d.Prose(s.Summary[0])})
	default:
		var points []d.Text
		for _, t := range s.Summary {
			points = append(points, d.Prose(t))
		}
		b.doc.Add(d.List{Items: points})
	}
	b.figures()
	b.conclusion()
	b.slo()
	b.warnings()
	b.results()
	b.summary()
	b.others()
	b.notes()
	b.doc.Add(d.Details{ID: "method", Summary: d.M("Method: objective, setup, statistics, load and client"), Blocks: b.method()})
	b.doc.Add(d.Details{ID: "raw", Summary: d.M("Appendix: commands and benchmark results of every run, in one format"), Blocks: b.appendix()})
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

// sink collects blocks for a folded part of the page.
type sink []d.Block

func (k *sink) add(bs ...d.Block) { *k = append(*k, bs...) }

func (k *sink) h(level int, id string, t d.Text) { k.add(d.Heading{Level: level, ID: id, Text: t}) }

func (b *builder) notes() {
	if len(b.s.Notes) == 0 && b.s.Footer == nil {
		return
	}
	b.h(2, "notes", d.M("Notes"))
	shown, more := splitNotes(b.s.Notes)
	if len(shown) > 0 {
		b.doc.Add(d.List{Items: shown})
	}
	if len(more) > 0 {
		b.doc.Add(d.Details{ID: "more-notes", Summary: d.M("More notes (%d)", len(more)), Blocks: []d.Block{d.List{Items: more}}, InText: true})
	}
	if b.s.Footer != nil {
		b.doc.Add(d.Para{Text: d.Prose(*b.s.Footer)})
	}
}

// notesShown is about how much of a study's notes a page shows before
// folding the rest (bytes of the English text, so that every language
// folds the same notes): the first notes are the ones a reader needs with the
// figures, later ones (how each session went) are there on demand.
const notesShown = 1000

// splitNotes keeps notes in view while they fit in notesShown, and at
// least the first; the rest are folded when they are as long again
// (folding a paragraph or two saves nothing worth a click).
func splitNotes(notes []schema.Text) (shown, more []d.Text) {
	n, rest := 0, 0
	for i, t := range notes {
		n += len(t.EN)
		if i == 0 || n <= notesShown && len(more) == 0 {
			shown = append(shown, d.Prose(t))
		} else {
			more = append(more, d.Prose(t))
			rest += len(t.EN)
		}
	}
	if rest <= notesShown {
		return append(shown, more...), nil
	}
	return shown, more
}

// objective explains what the study optimises and how the steps are
// judged; at a fixed concurrency it derives mean latency from throughput
// (Little's law), which is why a throughput objective also ranks latency.
func (b *builder) objective(k *sink) {
	o := b.s.Objective
	k.h(3, "objective", d.M("Optimization objective"))
	if o.Text != nil {
		k.add(d.Para{Text: d.Prose(*o.Text)})
	}
	goal := d.M("lowest")
	if o.Goal == "max" {
		goal = d.M("highest")
	}
	// Only a study with a choice among alternatives hears how one is made.
	judged := "Every step is judged by one figure: %s at %s; the goal is its %s value. A step that tries changes adopts its best change only when it beats the current configuration by more than %s."
	if slices.ContainsFunc(b.s.Steps, func(st schema.Step) bool { return st.Select != nil }) {
		judged = "Every step is judged by one figure: %s at %s; the goal is its %s value. A step that chooses among alternatives, such as the engine, adopts the best of them; a step that tries changes adopts its best change only when it beats the current configuration by more than %s."
	}
	k.add(d.Para{Text: d.M(judged,
		MetricName(o.Metric), withLoad{ProfileTitle(b.s, o.Profile), profileLoad(b.s, o.Profile)}, goal, pct(o.MinGain))})
	if p := b.s.Profiles[o.Profile]; p.Kind == "concurrency" && !strings.HasPrefix(o.Metric, "latency.") {
		k.add(d.Para{Text: d.M("At a fixed concurrency N the engine has N requests in flight for most of a run, so Little's law gives a mean latency of about N ÷ request throughput (somewhat less, as fewer are in flight while a run starts and drains). Every run of the profile draws its prompts the same way and generates about as many tokens, so a higher throughput means a lower mean latency: at concurrency %d, ranking by %s ranks by mean latency too.",
			p.Concurrency, MetricName(o.Metric))})
	}
}

// profileLoad says a profile's load in words: "concurrency 4", "8 requests per second".
func profileLoad(s *schema.Study, name string) d.Text {
	p := s.Profiles[name]
	if p.Kind == "concurrency" && s.DatasetOf(p).Name == "conversations" {
		return d.M("%d conversations at once", p.Concurrency)
	}
	if p.Kind == "concurrency" {
		return d.M("concurrency %d", p.Concurrency)
	}
	if p.Kind == "trace" {
		return d.M("the trace's arrival times × %s", num(timeScale(p)))
	}
	if p.Kind == "constant" {
		return d.M("%s requests per second at constant intervals", num(p.Rate))
	}
	return d.M("%s requests per second, Poisson arrivals", num(p.Rate))
}

func (b *builder) setup(k *sink) {
	s := b.s
	k.h(3, "setup", d.M("Experimental setup"))
	k.h(4, "model", d.M("Model"))
	items := []d.Text{d.M("%s: %s, %s parameters", d.Code(s.Model.ID), d.Lit(strings.ToUpper(s.Model.DType)), params(s.Model.Params))}
	for _, name := range slices.Sorted(maps.Keys(s.Model.Variants)) {
		v, _ := s.Model.Variant(name)
		items = append(items, d.M("%s: %s, %s parameters", d.Code(v.ID), d.Lit(strings.ToUpper(v.DType)), params(v.Params)))
	}
	k.add(d.List{Items: items})
	k.h(4, "hardware", d.M("Hardware"))
	h := s.Hardware
	// The GPU table holds the vendors' datasheet figures, given in GB.
	k.add(d.Para{Text: d.M("%s × %s: %s, %s memory bandwidth", d.Lit(itoa(h.Count)), d.Lit(h.GPU), d.Num{V: h.MemoryGiB, Prec: -1, Unit: "GB"}, d.Num{V: h.BandwidthTBs, Prec: -1, Unit: "TB/s"})})
	k.h(4, "engines", d.M("Engine versions"))
	var engines []d.Text
	for _, name := range slices.Sorted(maps.Keys(s.Engines)) {
		e := s.Engines[name]
		t := d.Text(d.Join{Sep: " ", Parts: []d.Text{d.Lit(EngineName(e.Kind)), d.Code(e.Version)}})
		if build := b.engineBuild(e.Kind); build != "" {
			t = d.M("%s; the engine reported its build as %s", t, d.Code(build))
		}
		engines = append(engines, t)
	}
	k.add(d.List{Items: engines})
}

// trialRuns are the records of a trial, for blocks.
func (b *builder) trialRuns(t *plan.Trial) []*record.Record {
	if t == nil {
		return nil
	}
	return b.runs[t.Key]
}

// withLoad is a profile's title followed by its load in words, unless
// the title already says it ("Concurrency 8 (concurrency 8)").
type withLoad struct{ title, load d.Text }

func (w withLoad) In(p *i18n.Printer, f d.Format) string {
	// Marked as a title inside a sentence, so that the message lowers
	// its first letter where the language does ("at concurrency 8").
	t, l := d.InSentence(w.title, p, f), w.load.In(p, f)
	title := w.title.In(p, f)
	if p.Lang() == "ru" {
		t = "«" + t + "»" // a name after "в профиле", as the catalog quotes it
	}
	// A title that already says its load ("ShareGPT, concurrency 4")
	// is not followed by it again.
	if strings.Contains(strings.ToLower(strings.ReplaceAll(title, " ", "")), strings.ToLower(strings.ReplaceAll(l, " ", ""))) {
		return t
	}
	if p.Lang() == "zh" {
		return t + d.Paren{Text: w.load}.In(p, f)
	}
	return t + " " + d.Paren{Text: w.load}.In(p, f)
}

// engineBuild is what the engine of kind said of its own build in the
// page's records, when they all say the same; a study's version string
// is the author's label, the build line is the binary's.
func (b *builder) engineBuild(kind string) string {
	seen := ""
	for _, runs := range b.runs {
		for _, r := range runs {
			got := r.Provenance.EngineBuild
			switch {
			case r.Trial.Engine.Kind != kind || got == "":
			case seen == "":
				seen = got
			case seen != got:
				return ""
			}
		}
	}
	return seen
}

// loadRuns are every run of key's configuration at its load, as the
// analysis pools them, in key order.
func (b *builder) loadRuns(key string) []*record.Record {
	rs := b.runs[key]
	if len(rs) == 0 {
		return nil
	}
	lk := rs[0].Trial.LoadKey()
	var out []*record.Record
	for _, k := range slices.Sorted(maps.Keys(b.runs)) {
		if r := b.runs[k]; len(r) > 0 && r[0].Trial.LoadKey() == lk {
			out = append(out, r...)
		}
	}
	return out
}

// cardsOf counts runs by the GPUs they ran on (their UUIDs, joined);
// ok is false when a run does not say.
func cardsOf(runs []*record.Record) (map[string]int, bool) {
	out := map[string]int{}
	for _, r := range runs {
		var ids []string
		for _, g := range r.Provenance.GPUs {
			ids = append(ids, g.UUID)
		}
		if len(ids) == 0 || slices.Contains(ids, "") {
			return nil, false
		}
		out[strings.Join(ids, ",")]++
	}
	return out, len(out) > 0
}

// cards says when the two sides of a step's comparison ran on GPUs the
// other side never used: timings of one GPU model differ from card to
// card, and that difference is then part of the comparison. nil when
// both sides share their cards or the records do not name them.
func (b *builder) cards(ss *schema.Step, st decide.Step) d.Text {
	c := st.Comparison
	var ka, kb string
	for _, o := range withIncumbent(st) {
		switch o.Variant {
		case c.A:
			ka = o.Key
		case c.B:
			kb = o.Key
		}
	}
	ca, okA := cardsOf(b.loadRuns(ka))
	cb, okB := cardsOf(b.loadRuns(kb))
	if !okA || !okB {
		return nil
	}
	na, ta := runsAlone(ca, cb)
	nb, tb := runsAlone(cb, ca)
	if na == 0 && nb == 0 {
		return nil
	}
	nameA, nameB := b.optionName(ss, c.A), b.optionName(ss, c.B)
	if st.Incumbent != nil && c.B == st.Incumbent.Variant {
		nameB = d.M("the current configuration")
	}
	return d.M("The two sides did not run on the same GPUs: %d of %d runs of %s and %d of %d of %s ran on a card the other side never used, so the cards' own differences are part of this comparison.", na, ta, nameA, nb, tb, nameB)
}

// runsAlone counts x's runs on cards y never used, and all of x's runs.
func runsAlone(x, y map[string]int) (n, all int) {
	for id, k := range x {
		all += k
		if y[id] == 0 {
			n += k
		}
	}
	return n, all
}
