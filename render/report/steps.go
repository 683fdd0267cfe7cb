package report

import (
	"fmt"
	"math"

	"servelab.dev/execute/decide"
	"servelab.dev/execute/record"
	d "servelab.dev/render/document"
	"servelab.dev/schema"
	"servelab.dev/schema/plan"
)

func (b *builder) results() {
	b.h(2, "results", d.M("Experiment results"))
	for i, st := range b.a.Steps {
		ss := studyStep(b.s, st.ID)
		b.h(3, "step-"+st.ID, d.M("%d. %s", i+1, d.Prose(ss.Title)))
		if ss.Note != nil {
			b.doc.Add(d.Para{Text: d.Prose(*ss.Note)})
		}
		switch st.Outcome {
		case decide.Skipped:
			b.doc.Add(d.Note{Text: d.M("Skipped: this step is for %s, and the study adopted another engine.", d.Lit(EngineName(b.s.Engines[ss.Engine].Kind)))})
			continue
		case decide.Pending:
			b.doc.Add(d.Note{Text: d.M("Not run yet: an earlier step is not decided.")})
			continue
		}
		for _, o := range st.Options {
			b.option(ss, o)
		}
		b.decision(ss, st)
	}
}

// option prints one candidate: its command, its profile and the
// benchmark block of each run, with the lint's warnings beside it.
func (b *builder) option(ss *schema.Step, o decide.Option) {
	b.h(4, "", optionName(b.s, ss, o.Variant))
	t := b.trial(o.Key)
	if t == nil {
		return
	}
	b.doc.Add(d.Para{Text: d.M("Profile: %s", ProfileTitle(b.s, t.Profile))})
	b.doc.Add(d.Para{Text: d.M("Serving command:")})
	b.doc.Add(d.CodeBlock{Lang: "bash", Body: MultiLine(t.Env, t.Argv)})
	b.blocks(t)
}

func (b *builder) blocks(t *plan.Trial) {
	runs := b.trialRuns(t)
	if len(runs) == 0 {
		b.doc.Add(d.Note{Warn: true, Text: d.M("No record yet for this trial (%s).", d.Code(t.Key[:12]))})
		return
	}
	flagged := flaggedLines(b.warn[t.Key])
	for i, r := range runs {
		label := d.M("Benchmark result:")
		if len(runs) > 1 {
			label = d.M("Benchmark result, run %d of %d:", i+1, len(runs))
		}
		b.doc.Add(d.Para{Text: label}, d.CodeBlock{Lang: "text", Body: Block(*t.Spec, r.Metrics, flagged)})
		b.importNotes(r)
	}
	b.warnings(t)
}

// importNotes say under a run what its importer estimated, recomputed
// or found missing.
func (b *builder) importNotes(r *record.Record) {
	for _, n := range r.ImportNotes {
		args := make([]any, len(n.Args))
		for i, a := range n.Args {
			args[i] = d.Lit(a)
		}
		b.doc.Add(d.Note{Text: d.M(n.Msg, args...)})
	}
}

// warnings print the lint's findings for a trial, once each.
func (b *builder) warnings(t *plan.Trial) {
	seen := map[string]bool{}
	for _, w := range b.warn[t.Key] {
		if seen[w.Code] || w.Code == decide.CodeNote {
			continue
		}
		seen[w.Code] = true
		b.doc.Add(d.Note{Warn: true, Text: lintText(w)})
	}
}

func lintText(w decide.Warning) d.Text {
	switch w.Code {
	case decide.CodeBursts:
		return d.M("Lines marked (!) are not what they seem: the median inter-token latency is about 0 ms while its mean is not, so tokens arrived in bursts of chunks and the ITL and TPOT medians describe the client's buffering, not decoding.")
	case decide.CodeDecodeBound:
		return d.M("A TPOT marked (!) is below the time one decode step needs to read this model's weights at the GPU's memory bandwidth: it cannot be a real per-token time.")
	case decide.CodePeakRate:
		return d.M("The peak output throughput marked (!) is more than this run or this GPU can produce: the tool that measured it counted chunk arrivals per second, not tokens.")
	case decide.CodePeakConc:
		return d.M("The peak concurrent requests marked (!) exceed the configured cap: the tool that measured it counted one-second buckets, not requests in flight.")
	case decide.CodeOutlier:
		return d.M("The P99 TTFT marked (!) is more than twenty times the median: a few requests waited far longer than the rest, as after a cold start without warm-up, and they move the mean.")
	}
	return d.Lit(w.Message)
}

func (b *builder) trial(key string) *plan.Trial {
	for _, t := range b.a.Plan.Trials {
		if t.Key == key {
			return t
		}
	}
	return nil
}

// decision prints the comparison sentence, the verdict, the decision,
// and the step's chart; or why the step is not decided.
func (b *builder) decision(ss *schema.Step, st decide.Step) {
	switch st.Outcome {
	case decide.Waiting:
		planned, recorded := runCounts(st)
		b.doc.Add(d.Note{Warn: true, Text: d.M("Not decided: %d of %d runs of this step have no record yet.", planned-recorded, planned)})
		return
	case decide.Invalid:
		for _, iv := range st.Invalid {
			b.doc.Add(d.Note{Warn: true, Text: invalidText(b.s, iv)})
		}
		if st.Reason == decide.ReasonNoneMeetSLO {
			b.doc.Add(d.Note{Warn: true, Text: d.M("Not decided: no candidate meets the service-level objective. Loosen the bounds or lower the load.")})
			b.sloChecks(ss, st)
			return
		}
		if st.Reason == decide.ReasonNoMetric {
			b.doc.Add(d.Note{Warn: true, Text: d.M("Not decided: a record lacks the objective's metric. Import the run again from a source that reports it, or remove the record.")})
			return
		}
		b.doc.Add(d.Note{Warn: true, Text: d.M("Not decided: these records cannot decide the step. Run the trials again, or raise the study's failure limit if the failures are expected.")})
		return
	}
	c := st.Comparison
	if c == nil {
		return
	}
	m := b.s.Objective.Metric
	nameA, nameB := optionName(b.s, ss, c.A), optionName(b.s, ss, c.B)
	if st.Incumbent != nil && c.B == st.Incumbent.Variant {
		nameB = d.M("the configuration adopted so far")
	}
	for _, iv := range st.Invalid {
		b.doc.Add(d.Note{Warn: true, Text: invalidText(b.s, iv)})
	}
	b.doc.Add(d.Para{Text: d.Sentences(d.M("Summary:"), comparison(m, nameA, nameB, c))})
	b.doc.Add(d.Note{Text: verdictText(b.s, c)})
	b.doc.Add(d.Para{Text: decisionText(b.s, ss, st)})
	b.doc.Add(b.stepChart(ss, st))
	b.sloChecks(ss, st)
	b.searches(ss, st)
	b.pareto(ss, st)
}

func runCounts(st decide.Step) (planned, recorded int) {
	all := st.Options
	if st.Incumbent != nil {
		all = append([]decide.Option{*st.Incumbent}, all...)
	}
	for _, o := range all {
		planned, recorded = planned+o.Planned, recorded+o.Recorded
	}
	return planned, recorded
}

// invalidText says why a run cannot count; the engine's own failure
// messages stay as they were written.
func invalidText(s *schema.Study, iv decide.InvalidRun) d.Text {
	if iv.Reason == decide.ReasonNoMetric {
		return d.M("Invalid record: %s has no %s, the objective's metric.", d.Code(iv.Run), MetricName(s.Objective.Metric))
	}
	var t d.Text = d.M("Invalid run: %s failed %d of %d requests; the study allows %s.", d.Code(iv.Run), iv.Failed, iv.Total, d.Lit(percent(s.Objective.MaxFailed)))
	if len(iv.Reasons) > 0 {
		var rs []d.Text
		for _, r := range iv.Reasons {
			rs = append(rs, d.Code(r))
		}
		t = d.Sentences(t, d.M("First failures: %s.", d.Join{Sep: "; ", Parts: rs}))
	}
	return t
}

func comparison(m string, a, b d.Text, c *decide.Comparison) d.Text {
	name := MetricName(m)
	parts := []d.Text{d.M("%s: %s = %s; %s: %s = %s.", a, name, value(m, c.ValueA), b, name, value(m, c.ValueB))}
	delta := value(m, math.Abs(c.Delta))
	better := c.Ratio >= 1
	switch {
	case decide.Lower(m) && better:
		parts = append(parts, d.M("%s is faster by %s (%s).", a, delta, RatioText(m, c.Ratio)))
	case decide.Lower(m):
		parts = append(parts, d.M("%s is slower by %s (%s).", a, delta, RatioText(m, c.Ratio)))
	case better:
		parts = append(parts, d.M("%s is higher by %s (%s).", a, delta, RatioText(m, c.Ratio)))
	default:
		parts = append(parts, d.M("%s is lower by %s (%s).", a, delta, RatioText(m, c.Ratio)))
	}
	var secondary []d.Text
	for _, x := range []struct {
		name string
		p    *decide.Pair
	}{{"TTFT", c.TTFT}, {"TPOT", c.TPOT}} {
		if x.p != nil {
			secondary = append(secondary, pairText(x.name, x.p))
		}
	}
	if len(secondary) > 0 {
		parts = append(parts, d.Join{Sep: "", Parts: []d.Text{d.Join{Sep: "; ", Parts: secondary}, d.M(".")}})
	}
	return d.Sentences(parts...)
}

func pairText(name string, p *decide.Pair) d.Text {
	ms := func(v float64) d.Lit { return d.Lit(fmt.Sprintf("%.2f ms", v)) }
	if p.Delta <= 0 {
		return d.M("%s = %s vs %s, reduced by %s (%s)", d.Lit(name), ms(p.A), ms(p.B), ms(-p.Delta), RatioText("ttft.mean", p.Ratio))
	}
	return d.M("%s = %s vs %s, increased by %s (%s)", d.Lit(name), ms(p.A), ms(p.B), ms(p.Delta), RatioText("ttft.mean", p.Ratio))
}

func verdictText(s *schema.Study, c *decide.Comparison) d.Text {
	if c.Interval == nil {
		return d.M("No noise estimate: each side is a single run without per-request samples, so this difference may be run-to-run variation.")
	}
	level := d.Lit(percent(s.Objective.Confidence))
	lo, hi := d.Lit(fmt.Sprintf("%.2fx", c.Interval[0])), d.Lit(fmt.Sprintf("%.2fx", c.Interval[1]))
	switch c.Verdict {
	case decide.NoDifference:
		return d.M("No significant difference (~): the %s interval of the ratio, %s to %s, includes 1.", level, lo, hi)
	case decide.Better:
		return d.M("Significantly better: the %s interval of the ratio is %s to %s.", level, lo, hi)
	}
	return d.M("Significantly worse: the %s interval of the ratio is %s to %s.", level, lo, hi)
}

func decisionText(s *schema.Study, ss *schema.Step, st decide.Step) d.Text {
	minGain := d.Lit(percent(s.Objective.MinGain))
	gain := d.Lit("0 %")
	if st.Comparison != nil {
		gain = d.Lit(percent(st.Comparison.Gain))
	}
	if st.Kind == "select" && st.Adopted != nil {
		name := optionName(s, ss, *st.Adopted)
		if st.Comparison != nil && !st.Comparison.Adopt {
			return d.M("Adopted: %s, the configuration adopted so far: no other candidate beats it under the study's rule.", name)
		}
		return d.M("Adopted: %s, the best candidate.", name)
	}
	switch st.Reason {
	case decide.ReasonBetter:
		return d.M("Adopted: %s.", optionName(s, ss, *st.Adopted))
	case decide.ReasonSingleRun:
		return d.M("Adopted: %s, on single runs: its gain of %s is above the required %s, but there is no noise estimate.", optionName(s, ss, *st.Adopted), gain, minGain)
	case decide.ReasonNoDifference:
		return d.M("Not adopted: the difference is inside the noise, so the configuration adopted so far stays.")
	case decide.ReasonBelowMinGain:
		return d.M("Not adopted: the gain of %s is not above the required %s, so the configuration adopted so far stays.", gain, minGain)
	case decide.ReasonMeetsSLO:
		return d.M("Adopted: %s: the configuration adopted so far breaks the service-level objective, and this variant meets it.", optionName(s, ss, *st.Adopted))
	case decide.ReasonSameAsIncumbent:
		return d.M("Not adopted: the variant runs the same command as the configuration adopted so far (its setting is the engine's default), so there is nothing to compare.")
	case decide.ReasonStoppedEarly:
		return d.M("Not adopted: the early-stopping rule stopped the variant part-way, once it could no longer beat the configuration adopted so far by %s; that configuration stays.", minGain)
	case decide.ReasonViolatesSLO:
		return d.M("Not adopted: no variant meets the service-level objective, so the configuration adopted so far stays.")
	}
	return d.M("Not adopted: no variant is better than the configuration adopted so far, which stays.")
}

func (b *builder) stepChart(ss *schema.Step, st decide.Step) d.Chart {
	m := b.s.Objective.Metric
	c := d.Chart{ID: "step_" + sanitize(st.ID), Kind: "bar", Unit: chartUnit(m), Title: d.M("%s: %s", d.Prose(ss.Title), MetricName(m))}
	ser := d.Series{Name: d.Cap{Text: MetricName(m)}}
	if st.Incumbent != nil {
		c.Categories = append(c.Categories, d.M("adopted so far"))
		ser.Values = append(ser.Values, mean(st.Incumbent.Value, m))
	}
	for _, o := range st.Options {
		c.Categories = append(c.Categories, optionName(b.s, ss, o.Variant))
		ser.Values = append(ser.Values, mean(o.Value, m))
	}
	c.Series = []d.Series{ser}
	return c
}

// sanitize keeps [A-Za-z0-9_]: chart ids become JavaScript identifiers.
func sanitize(s string) string {
	out := []byte(s)
	for i, c := range out {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
			out[i] = '_'
		}
	}
	return string(out)
}
