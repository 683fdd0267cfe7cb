package report

import (
	"maps"
	"strings"

	"servelab.dev/execute/decide"
	"servelab.dev/execute/record"
	"servelab.dev/i18n"
	d "servelab.dev/render/document"
	"servelab.dev/schema"
)

// rule states the decision rule a reviewer can check every verdict of
// the page against.
func (b *builder) rule(k *sink) {
	o := b.a.Objective
	k.h(4, "rule", d.M("Decision rule"))
	var adopt d.Text = d.M("A variant is adopted when it beats the current configuration by more than %s and, where the records give a noise estimate, significantly at the %s level; otherwise the current configuration stays.", pct(o.MinGain), pct(o.Confidence))
	if b.tilde() {
		adopt = d.M("A variant is adopted when it beats the current configuration by more than %s and, where the records give a noise estimate, significantly at the %s level; otherwise the current configuration stays (no significant difference is written ~).", pct(o.MinGain), pct(o.Confidence))
	}
	if b.noInterval() {
		// The rule's second half then never applied: say so, not leave
		// a reader to believe the adoptions were tested.
		adopt = d.Sentences(adopt, d.M("No comparison in this study has an interval, so every gain above %s was adopted, also one within run-to-run variation; each step says how its gain compares with that variation.", pct(o.MinGain)))
	}
	k.add(d.List{Items: []d.Text{
		adopt,
		b.intervalRule(),
		d.M("A run that failed more than %s of its requests is invalid: it is never adopted, and the page names it with its failures.", pct(o.MaxFailed)),
		d.M("A step is decided only when every planned repeat of its trials has a record."),
	}})
	if o.EarlyStop {
		b.doc.Add(d.Para{Text: d.M("Early stopping is on: at a third, a half and two thirds of a variant's requests, servelab bootstraps the ratio to the current configuration and stops the trial when even its one-sided upper bound (each look at an equal share of the error rate) is not above 1 + minGain. A stopped variant is never adopted; a winning one always runs to the end.")})
	}
	switch {
	case !b.drove():
	case b.hasKind("vllm") || b.hasKind("sglang"):
		k.add(d.Para{Text: d.M("Each repeat of a configuration is its own engine launch. Every profile and repeat draws its own prompts and arrival times (seeds derived from the study's seed, the load and the repeat), so no trial meets a prefix cache warmed with its own prompts; between the trials of a launch servelab also resets the engine's prefix cache where the engine has an endpoint for it (vLLM: %s, SGLang: %s).", d.Code("/reset_prefix_cache"), d.Code("/flush_cache"))})
	default:
		// The reset endpoints are vLLM's and SGLang's: a page about
		// other engines does not name them.
		k.add(d.Para{Text: d.M("Each repeat of a configuration is its own engine launch. Every profile and repeat draws its own prompts and arrival times (seeds derived from the study's seed, the load and the repeat), so no trial meets a prefix cache warmed with its own prompts.")})
	}
}

// drove reports whether servelab itself ran any of the page's runs.
func (b *builder) drove() bool {
	return b.a.Provenance[record.Measured]+b.a.Provenance[record.Simulated] > 0
}

// figures says which kind of runs the page's figures come from.
func (b *builder) figures() {
	p := maps.Clone(b.a.Provenance)
	pooled := b.pooledOnly()
	for _, u := range pooled {
		for _, r := range b.runs[u.key] {
			p[r.Provenance.Kind]++
		}
	}
	var parts []d.Text
	if n := p[record.Measured]; n > 0 {
		parts = append(parts, d.M("measured on the GPU host by servelab: %d runs", n))
	}
	if n := p[record.Imported]; n > 0 {
		parts = append(parts, d.M("imported from other tools' output: %d runs", n))
	}
	if n := p[record.Simulated]; n > 0 {
		parts = append(parts, d.M("simulated by servelab-sim: %d runs", n))
	}
	if len(parts) == 0 {
		return
	}
	var t d.Text = d.M("Figures on this page: %s.", d.Join{Sep: "; ", Parts: parts})
	if b.a.SetAside > 0 {
		t = d.M("Figures on this page: %s. Set aside, used by no figure: %d runs of the other kind (simulated beside real ones, or the reverse).", d.Join{Sep: "; ", Parts: parts}, b.a.SetAside)
	}
	runs, trials := 0, 0
	for _, n := range p {
		runs += n
	}
	seen := map[string]bool{}
	for _, tr := range b.a.Plan.Trials {
		if !seen[tr.Key] && len(b.runs[tr.Key]) > 0 {
			seen[tr.Key] = true
			trials++
		}
	}
	trials += len(pooled)
	if trials > 0 && runs > trials {
		// A warning counts trials; the reader should not think runs lost.
		t = d.Sentences(t, d.M("%d trials: the runs of one configuration at one load, from any step, are one trial.", trials))
	}
	if when := b.runDates(); when != nil {
		t = d.Sentences(t, when)
	}
	if n := b.cardCount(); n > 1 {
		t = d.Sentences(t, d.M("The runs that name their GPU ran on %d cards of this model (told apart by their UUIDs); a step whose two sides ran on different cards says so.", n))
	}
	if src := b.s.Source; src != nil {
		t = d.Sentences(t, d.M("Source: %s.", sourceLink{src}))
	}
	b.doc.Add(d.Para{Text: t})
}

// runDates says when servelab measured the page's runs (UTC dates from
// their records), so that a reader can tell how old the versions are;
// nil where none was measured. An imported record's times are when it
// was imported, not when the source ran it.
func (b *builder) runDates() d.Text {
	first, last := "", ""
	var keys []string
	for _, t := range b.a.Plan.Trials {
		keys = append(keys, t.Key)
	}
	for _, u := range b.pooledOnly() {
		keys = append(keys, u.key)
	}
	for _, k := range keys {
		for _, r := range b.runs[k] {
			if r.Provenance.Kind != record.Measured {
				continue
			}
			day, _, _ := strings.Cut(r.Provenance.Start, "T")
			if len(day) != len("2006-01-02") {
				continue
			}
			if first == "" || day < first {
				first = day
			}
			last = max(last, day)
		}
	}
	switch {
	case first == "":
		return nil
	case first == last:
		return d.M("The runs were made on %s (UTC).", d.Lit(first))
	}
	return d.M("The runs were made from %s to %s (UTC).", d.Lit(first), d.Lit(last))
}

// hasKind says whether one of the study's engines is of kind.
func (b *builder) hasKind(kind string) bool {
	for _, e := range b.s.Engines {
		if e.Kind == kind {
			return true
		}
	}
	return false
}

// intervalRule says how the page's intervals were computed, naming only
// the methods its comparisons used: a page of run summaries does not
// describe a bootstrap of samples it does not have.
func (b *builder) intervalRule() d.Text {
	used := map[string]bool{}
	for _, st := range b.a.Steps {
		if c := st.Comparison; c != nil && c.Interval != nil {
			used[c.Method] = true
		}
	}
	for _, r := range b.a.Validation {
		if r.Interval != nil {
			used[r.Method] = true
		}
	}
	if used[decide.MethodBootstrap] {
		return d.M("All runs of one configuration at one load count together, whichever step or repeat ran them. With per-request samples on both sides, the interval is a bootstrap of the ratio (%d resamples, drawing runs and then requests with replacement, with a fixed seed); with run summaries only and three runs per side or more, a t interval on the logarithms of the run values, so no interval of a latency or throughput reaches zero. Fewer than three runs per side without samples give no noise estimate, and two runs are shown as their two values.", b.a.Objective.Resamples)
	}
	if used[decide.MethodRuns] {
		return d.M("All runs of one configuration at one load count together, whichever step or repeat ran them. Intervals come from whole runs: with three runs per side or more, a t interval on the logarithms of the run values, so no interval of a latency or throughput reaches zero (a bootstrap of requests applies only to a per-request objective, such as a latency, with samples on both sides); fewer runs give no noise estimate, and two runs are shown as their two values.")
	}
	return d.M("All runs of one configuration at one load count together, whichever step or repeat ran them. The records hold run summaries, not per-request samples, and no comparison has three runs per side, so the page gives no intervals: two runs are shown as their two values, and a single run is a single measurement.")
}

// tilde reports whether the page writes ~ for no significant difference
// anywhere, so that the rule explains the mark only where it appears.
func (b *builder) tilde() bool {
	for _, st := range b.a.Steps {
		for _, c := range []*decide.Comparison{st.Comparison, st.SLOComparison} {
			if c != nil && c.Verdict == decide.NoDifference {
				return true
			}
		}
	}
	for _, r := range b.a.Validation {
		if r.Verdict == decide.NoDifference {
			return true
		}
	}
	return false
}

// noInterval reports whether no step's comparison has an interval,
// while some step compared options.
func (b *builder) noInterval() bool {
	compared := false
	for _, st := range b.a.Steps {
		if c := st.Comparison; c != nil {
			if c.Interval != nil {
				return false
			}
			compared = true
		}
	}
	return compared
}

// sourceLink links the study's source, in the page's language where the
// source has a translation.
type sourceLink struct{ src *schema.Source }

func (l sourceLink) In(p *i18n.Printer, f d.Format) string {
	return f.Link(d.Prose(l.src.Title).In(p, f), l.src.URL.In(p.Lang()))
}

// cardCount is how many GPUs (sets of them, for a multi-GPU engine) the
// page's measured runs that name theirs ran on.
func (b *builder) cardCount() int {
	var all []*record.Record
	seen := map[*record.Record]bool{}
	for _, t := range b.a.Plan.Trials {
		for _, r := range b.loadRuns(t.Key) {
			if !seen[r] && r.Provenance.Kind == record.Measured && len(r.Provenance.GPUs) > 0 {
				seen[r] = true
				all = append(all, r)
			}
		}
	}
	cards, ok := cardsOf(all)
	if !ok {
		return 0
	}
	return len(cards)
}
