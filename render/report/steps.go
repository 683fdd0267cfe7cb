package report

import (
	"cmp"
	"fmt"
	"math"
	"servelab.dev/i18n"
	"slices"
	"strconv"
	"strings"

	"servelab.dev/execute/decide"
	d "servelab.dev/render/document"
	"servelab.dev/schema"
	"servelab.dev/schema/plan"
)

// results writes one section per step: its chart and table of the
// objective, then the verdict in words. Commands and raw blocks are in
// the appendix.
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
		b.doc.Add(b.stepChart(ss, st))
		b.decision(ss, st)
		b.prefixRuns(ss, st)
		b.stepSettings(ss, st)
	}
}

// toolName is the benchmark client as its users call it, for the
// warnings that blame one of its counting habits on it.
func toolName(client string) d.Text {
	switch client {
	case "vllm-bench":
		return d.Code("vllm bench serve")
	case "sglang-bench":
		return d.Code("sglang.bench_serving")
	case "builtin":
		return d.M("servelab's client")
	}
	if name, ok := map[string]string{"guidellm": "GuideLLM", "aiperf": "AIPerf"}[client]; ok {
		return d.Lit(name)
	}
	return d.Lit(client)
}

func lintText(w decide.Warning, client string) d.Text {
	switch w.Code {
	case decide.CodeBursts:
		return d.M("The median ITL of about 0 ms beside a mean that is not means that tokens reached the client in bursts: the ITL and TPOT medians marked (!) do not measure decoding (whether buffering on the way or the client's timing made the bursts is not known).")
	case decide.CodeDecodeBound:
		return d.M("A TPOT marked (!) is below the least time a token can take (a decode step reads all of this model's weights at the GPU's memory bandwidth, and shares that time only among the tokens it produces): it cannot be a real per-token time.")
	case decide.CodeITLBound:
		return d.M("A mean ITL marked (!) is below the time of one decode step, which every gap between streamed chunks spans: it cannot be a real gap between tokens.")
	case decide.CodePeakRate:
		return d.M("The peak output throughput marked (!) is more than this run or this GPU can produce: %s, which measured it, took it over a window too short to mean anything, as when buffered chunks arrive together.", toolName(client))
	case decide.CodePeakLow:
		return d.M("The peak output throughput marked (!) is below the run's own mean, which a peak cannot be: %s, which measured it, counted chunk arrivals per second, and a chunk carries several tokens under speculative decoding.", toolName(client))
	case decide.CodePeakConc:
		return d.M("The peak concurrent requests marked (!) exceed the configured cap: %s, which measured them, counted one-second buckets, not requests in flight.", toolName(client))
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
		b.invalid(st)
		if st.Reason == decide.ReasonNoneMeetSLO {
			b.doc.Add(d.Note{Warn: true, Text: d.M("Not decided: no candidate meets the service-level objective. Loosen the bounds or lower the load.")})
			b.sloChecks(ss, st)
			return
		}
		if st.Reason == decide.ReasonBelowQuality || st.Reason == decide.ReasonNoGuard {
			b.doc.Add(d.Note{Warn: true, Text: d.M("Not decided: no candidate's greedy outputs meet the step's quality minimum, or the quality guard has no outputs to compare. Run the step's launches again, or lower the minimum if the change is expected.")})
			b.guard(ss, st)
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
	nameA, nameB := b.optionName(ss, c.A), b.optionName(ss, c.B)
	if st.Incumbent != nil && c.B == st.Incumbent.Variant {
		nameB = d.M("the current configuration")
	}
	b.invalid(st)
	summary := []d.Text{comparison(m, nameA, nameB, c, b.flaggedTPOT(st, c))}
	if l := b.latencies(ss, st); l != nil {
		summary = append(summary, l)
	}
	b.doc.Add(d.Para{Text: d.Sentences(summary...)})
	if t := b.chunkTokens(ss, st); t != nil {
		b.doc.Add(d.Para{Text: t})
	}
	if v := st.SLOComparison; v != nil {
		b.doc.Add(d.Para{Text: d.Sentences(d.M("Distance from the service-level objective (the worst bound's value divided by its limit; 1 or less meets it): %s for %s, %s for %s.", times(v.ValueA), nameA, times(v.ValueB), nameB), verdictText(b.s, v))})
	}
	verdict := []d.Text{verdictText(b.s, c)}
	if t := b.noiseVerdict(ss, st); t != nil {
		verdict[0] = t
	}
	if t := b.levelNote(c); t != nil {
		verdict = append(verdict, t)
	}
	if _, read := b.readNoise(st); !read {
		if t := b.spreadNote(c); t != nil {
			verdict = append(verdict, t)
		}
	}
	if t := b.cards(ss, st); t != nil {
		verdict = append(verdict, t)
	}
	b.doc.Add(d.Para{Text: d.Sentences(append(verdict, b.decisionText(ss, st))...)})
	if t := b.closeCall(ss, st); t != nil {
		b.doc.Add(d.Note{Text: t})
	}
	if t := b.outliers(ss, st); t != nil {
		b.doc.Add(d.Note{Text: t})
	}
	b.guard(ss, st)
	b.sloChecks(ss, st)
	b.searches(ss, st)
	b.pareto(ss, st)
}

// guard shows an output-changing step's quality guard beside its speed:
// how many of the guard's greedy answers each variant gives exactly as
// the current configuration does.
func (b *builder) guard(ss *schema.Step, st decide.Step) {
	var parts []d.Text
	tokens := 0
	for _, o := range st.Options {
		g := o.Guard
		if g == nil {
			continue
		}
		name := b.optionName(ss, o.Variant)
		switch {
		case !g.Known:
			parts = append(parts, d.M("%s: no guard outputs to compare", name))
		case g.Below:
			parts = append(parts, d.M("%s: %d of %d (%s), below the minimum of %s", name, g.Same, g.Prompts, pct(g.Share), pct(g.Min)))
		default:
			parts = append(parts, d.M("%s: %d of %d (%s)", name, g.Same, g.Prompts, pct(g.Share)))
		}
		tokens = max(tokens, g.Tokens)
	}
	if len(parts) == 0 {
		return
	}
	if tokens == 0 {
		size, _ := b.s.GuardSize()
		tokens = size.Tokens
	}
	head := d.M("Quality guard: greedy answers identical to those of the current configuration, over their first %d tokens (whether outputs changed, not a measure of accuracy):", tokens)
	b.doc.Add(d.Para{Text: d.Sentences(head, d.Join{Sep: "", Parts: []d.Text{d.Join{Sep: "; ", Parts: parts}, d.M(".")}})})
}

// invalid lists the step's runs that cannot count, in one callout.
func (b *builder) invalid(st decide.Step) {
	if len(st.Invalid) == 0 {
		return
	}
	var ts []d.Text
	for _, iv := range st.Invalid {
		ts = append(ts, invalidText(b.s, iv))
	}
	b.doc.Add(d.Note{Warn: true, Text: d.Sentences(ts...)})
}

// flaggedTPOT reports whether the lint found a compared run's mean TPOT
// impossible: such a figure is never used in a sentence.
func (b *builder) flaggedTPOT(st decide.Step, c *decide.Comparison) bool {
	opts := withIncumbent(st)
	for _, o := range opts {
		if o.Variant != c.A && o.Variant != c.B {
			continue
		}
		for _, t := range b.a.Plan.Trials {
			if t.Key != o.Key && !t.HasRole(st.ID+"/"+o.Variant) {
				continue
			}
			if b.warned(t.Key, decide.CodeDecodeBound) {
				return true
			}
		}
	}
	return false
}

func runCounts(st decide.Step) (planned, recorded int) {
	all := withIncumbent(st)
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
	var t d.Text = d.M("Invalid run: %s failed %d of %d requests; the study allows %s.", d.Code(iv.Run), iv.Failed, iv.Total, pct(s.Objective.MaxFailed))
	if len(iv.Reasons) > 0 {
		var rs []d.Text
		for _, r := range iv.Reasons {
			rs = append(rs, d.Code(r))
		}
		t = d.Sentences(t, d.M("First failures: %s.", d.Join{Sep: "; ", Parts: rs}))
	}
	return t
}

func comparison(m string, a, b d.Text, c *decide.Comparison, noTPOT bool) d.Text {
	// The difference of the figures as printed decides "the same", so
	// that the sentence holds for a reader who checks it.
	diff := shown(m, c.ValueA) - shown(m, c.ValueB)
	var head d.Text
	if fmt.Sprintf("%.2f", math.Abs(c.Delta)) == "0.00" || math.Abs(diff) < 1e-9 {
		head = d.M("%[1]s: %[2]s %[3]s, the same as %[4]s to the printed precision", a, MetricName(m), value(m, c.ValueA), b)
	} else {
		head = d.M("%[1]s: %[2]s %[3]s, against %[4]s for %[5]s (%[6]s)", a, MetricName(m), value(m, c.ValueA), value(m, c.ValueB), b, RatioText(m, c.Ratio))
	}
	parts := []d.Text{head}
	for _, x := range []struct {
		name string
		p    *decide.Pair
	}{{"TTFT", c.TTFT}, {"TPOT", c.TPOT}} {
		if x.p != nil && !(noTPOT && x.name == "TPOT") {
			parts = append(parts, pairText(x.name, x.p))
		}
	}
	return d.Join{Sep: "", Parts: []d.Text{d.Join{Sep: "; ", Parts: parts}, d.M(".")}}
}

// pairText compares two times of a secondary metric: shorter or longer,
// never faster or slower, which a time is not.
func pairText(name string, p *decide.Pair) d.Text {
	ms := func(v float64) d.Text { return d.N(v, "ms") }
	var change d.Text
	switch a, b := shown("ttft.mean", p.A), shown("ttft.mean", p.B); {
	case a == b:
		change = d.M("the same")
	case a < b:
		change = d.M("%s shorter", d.Num{V: (1 - a/b) * 100, Prec: 1, Unit: "%"})
	case a/b < 1.5:
		change = d.M("%s longer", d.Num{V: (a/b - 1) * 100, Prec: 1, Unit: "%"})
	default:
		change = d.M("%sx as long", d.Num{V: a / b, Prec: 2})
	}
	return d.M("%[1]s %[2]s against %[3]s (%[4]s)", d.Lit(name), ms(p.A), ms(p.B), change)
}

// enPrinter rounds figures as every page prints them.
var enPrinter = i18n.MustNew("en")

// shown is v as value prints it (two decimals in the metric's printed
// unit), back in the metric's unit.
func shown(metric string, v float64) float64 {
	// Rounded as the printer rounds (the float's exact value), so that a
	// difference of shown figures is the difference a reader computes.
	round := func(x float64) float64 {
		r, _ := strconv.ParseFloat(strings.ReplaceAll(enPrinter.Num(x, 2), ",", ""), 64)
		return r
	}
	if strings.HasPrefix(metric, "latency.") {
		return round(v/1000) * 1000 // seconds with two decimals
	}
	return round(v)
}

func verdictText(s *schema.Study, c *decide.Comparison) d.Text {
	if c.Interval == nil && c.Verdict == decide.NoDifference && max(c.RunsA, c.RunsB) > 1 {
		return d.M("No significant difference (~): with fewer than three runs per side there is no interval, and the runs of the two sides overlap.")
	}
	if c.Interval == nil && max(c.RunsA, c.RunsB) > 1 && bigEffect(c.Ratio) {
		return d.M("No noise estimate: one of the two has fewer than three runs and no per-request samples; a difference of %sx is far beyond the few percent by which runs of one configuration usually vary, so noise alone is unlikely to explain it.", d.Num{V: max(c.Ratio, 1/c.Ratio), Prec: 2})
	}
	if c.Interval == nil && max(c.RunsA, c.RunsB) > 1 {
		return d.M("No noise estimate: one of the two has fewer than three runs and no per-request samples, so this difference may be run-to-run variation.")
	}
	if c.Interval == nil && bigEffect(c.Ratio) {
		return d.M("No noise estimate: each side is a single run without per-request samples; a difference of %sx is far beyond the few percent by which runs of one configuration usually vary, so noise alone is unlikely to explain it.", d.Num{V: max(c.Ratio, 1/c.Ratio), Prec: 2})
	}
	if c.Interval == nil {
		return d.M("No noise estimate: each side is a single run without per-request samples, so this difference may be run-to-run variation.")
	}
	level := pct(s.Objective.Confidence)
	if c.Level > 0 {
		level = pct(c.Level) // an adaptive step's per-look level
	}
	lo, hi, how := times(c.Interval[0]), times(c.Interval[1]), methodText(c.Method)
	var t d.Text
	switch c.Verdict {
	case decide.NoDifference:
		t = d.M("No significant difference (~): the %s interval of the ratio (%s), %s to %s, includes 1.", level, how, lo, hi)
	case decide.Better:
		t = d.M("Significantly better: the %s interval of the ratio (%s) is %s to %s.", level, how, lo, hi)
	default:
		t = d.M("Significantly worse: the %s interval of the ratio (%s) is %s to %s.", level, how, lo, hi)
	}
	return t
}

// levelNote says, the first time a step's interval is not at the
// study's confidence, why: the adaptive repeats look at the runs more
// than once and split the error between the looks.
func (b *builder) levelNote(c *decide.Comparison) d.Text {
	conf := b.s.Objective.Confidence
	if b.levelSaid || c.Interval == nil || c.Level <= 0 || c.Level == conf || c.Level >= 1 {
		return nil
	}
	b.levelSaid = true
	looks := int(math.Round((1 - conf) / (1 - c.Level)))
	return d.M("The level is %s rather than %s because the step's adaptive repeats look at the runs %d times, each with an equal share of the %s chance of a false call.", pct(c.Level), pct(conf), looks, pct(1-conf))
}

// methodText names how a ratio's interval was found.
func methodText(method string) d.Text {
	if method == decide.MethodBootstrap {
		return d.M("a bootstrap of runs, then requests")
	}
	return d.M("a t interval over the runs")
}

func (b *builder) decisionText(ss *schema.Step, st decide.Step) d.Text {
	s := b.s
	minGain := pct(s.Objective.MinGain)
	gain := pct(0)
	if st.Comparison != nil {
		gain = pct(st.Comparison.Gain)
	}
	if st.Kind == "select" && st.Adopted != nil && st.Reason == decide.ReasonCloserToSLO {
		return d.M("Adopted: %s: no candidate meets the service-level objective, and this one comes closest to it.", b.optionName(ss, *st.Adopted))
	}
	if st.Kind == "select" && st.Adopted != nil {
		name := b.optionName(ss, *st.Adopted)
		if st.Comparison != nil && !st.Comparison.Adopt {
			return d.M("Adopted: %s, the current configuration: no other candidate beats it under the study's rule.", name)
		}
		return d.M("Adopted: %s, the best candidate.", name)
	}
	switch st.Reason {
	case decide.ReasonBetter:
		return d.M("Adopted: %s.", b.optionName(ss, *st.Adopted))
	case decide.ReasonSingleRun:
		if r, ok := b.readNoise(st); ok {
			// The verdict has read the gain against the study's noise.
			if r.tier != beyondNoise {
				return d.M("Adopted without an interval, by the rule alone: %s gains %s, above the required %s.", b.optionName(ss, *st.Adopted), gain, minGain)
			}
			return d.M("Adopted without an interval: %s gains %s, above the required %s.", b.optionName(ss, *st.Adopted), gain, minGain)
		}
		if st.Comparison != nil && max(st.Comparison.RunsA, st.Comparison.RunsB) > 1 {
			return d.M("Adopted: %s, without a noise estimate (fewer than three runs per side): its gain of %s is above the required %s.", b.optionName(ss, *st.Adopted), gain, minGain)
		}
		if st.Comparison != nil && st.Comparison.Gain < smallGain {
			return d.M("Adopted on single runs, by the rule alone: %s gains %s, above the required %s but within the few percent by which runs usually vary, so it may make no real difference.", b.optionName(ss, *st.Adopted), gain, minGain)
		}
		return d.M("Adopted: %s, on single runs: its gain of %s is above the required %s, but there is no noise estimate.", b.optionName(ss, *st.Adopted), gain, minGain)
	case decide.ReasonNoDifference:
		return d.M("Not adopted: the difference is inside the noise, so the current configuration stays.")
	case decide.ReasonBelowMinGain:
		return d.M("Not adopted: the gain of %s is not above the required %s, so the current configuration stays.", gain, minGain)
	case decide.ReasonMeetsSLO:
		return d.M("Adopted: %s: the current configuration breaks the service-level objective, and this variant meets it.", b.optionName(ss, *st.Adopted))
	case decide.ReasonSameAsIncumbent:
		return d.M("Not adopted: the variant runs the same command as the current configuration (its setting is the engine's default), so there is nothing to compare.")
	case decide.ReasonStoppedEarly:
		return d.M("Not adopted: the early-stopping rule stopped the variant part-way, once it could no longer beat the current configuration by %s; that configuration stays.", minGain)
	case decide.ReasonCloserToSLO:
		return d.M("Adopted: %s: no option meets the service-level objective, and this variant is closer to it than the current configuration, by the study's rule.", b.optionName(ss, *st.Adopted))
	case decide.ReasonViolatesSLO:
		if st.SLOComparison != nil {
			return d.M("Not adopted: no variant meets the service-level objective, and none is closer to it than the current configuration by the study's rule, so that configuration stays.")
		}
		return d.M("Not adopted: no variant meets the service-level objective, so the current configuration stays.")
	case decide.ReasonBelowQuality:
		return d.M("Not adopted: the variant changes the outputs more than the step's quality minimum allows, so the current configuration stays.")
	}
	return d.M("Not adopted: no variant is better than the current configuration, which stays.")
}

// stepChart shows the objective of every option of the step beside the
// configuration adopted so far (marked), with the interval of each mean
// where there are repeats.
func (b *builder) stepChart(ss *schema.Step, st decide.Step) d.Chart {
	m := b.s.Objective.Metric
	c := d.Chart{ID: "step_" + sanitize(st.ID), Kind: "bar", Unit: chartUnit(m),
		Title: d.M("%s: %s at %s", d.Prose(ss.Title), MetricName(m), ProfileTitle(b.s, b.s.Objective.Profile))}
	ser := d.Series{Name: d.Cap{Text: MetricName(m)}}
	opts := withIncumbent(st)
	if st.Incumbent != nil {
		c.MarkLabel = d.M("current configuration")
	}
	repeats, ranges := false, true
	seen := flags{}
	for _, o := range opts {
		c.Categories = append(c.Categories, b.optionName(ss, o.Variant))
		ser.Values = append(ser.Values, mean(o.Value, m))
		seen.add(&ser, b.lintCodes(m, o.Key))
		lo, hi := math.NaN(), math.NaN()
		if o.Value != nil && o.Value.Low != nil {
			lo, hi, repeats = chartValue(m, *o.Value.Low), chartValue(m, *o.Value.High), true
			ranges = ranges && o.Value.Interval == decide.IntervalRange
		}
		ser.Low, ser.High = append(ser.Low, lo), append(ser.High, hi)
	}
	if !repeats {
		ser.Low, ser.High = nil, nil
	}
	ser.Ranges, ser.Level = repeats && ranges, b.s.Objective.Confidence
	c.Series = []d.Series{ser}
	seen.apply(&c)
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

// outliers names the step's options whose runs hold a few requests that
// waited far longer than the rest: such a run's mean, and its place in
// the step, may say more about that run than about the option.
func (b *builder) outliers(ss *schema.Step, st decide.Step) d.Text {
	var names []d.Text
	runs := 0
	for _, o := range st.Options {
		if b.warned(o.Key, decide.CodeOutlier) {
			names = append(names, b.optionName(ss, o.Variant))
			runs += o.Recorded
		}
	}
	if len(names) == 0 {
		return nil
	}
	if runs == 1 {
		return d.M("The run of %s holds a few requests that waited far longer than the rest (see the warnings about the data): its mean moves with those few, so its place in this step may say more about that run than about the option.", names[0])
	}
	return d.M("The runs of %s hold a few requests that waited far longer than the rest (see the warnings about the data): their mean moves with those few, so their place in this step may say more about those runs than about the option.", d.Join{Sep: ", ", Parts: names})
}

// smallGain is a gain that run-to-run noise alone commonly gives.
const smallGain = decide.SmallGain

// bigEffect says whether a ratio is too far from 1 for run-to-run noise
// (a few percent on a quiet GPU host) to explain it, so a caveat about
// noise would understate the finding.
func bigEffect(ratio float64) bool {
	return ratio > 0 && max(ratio, 1/ratio) >= 1.2
}

// chunkTokens lists, under speculative decoding, each option's tokens
// per streamed chunk, most first: an engine streams a chunk per verify
// step, so the figure estimates the acceptance length the source did
// not print (nil where no option has it, or the step's variants do not
// change the drafting).
func (b *builder) chunkTokens(ss *schema.Step, st decide.Step) d.Text {
	if ss == nil || !slices.ContainsFunc(ss.Variants, func(v schema.Variant) bool { _, ok := v.Knobs["speculative"]; return ok }) {
		return nil // a step that does not change the drafting
	}
	opts := slices.DeleteFunc(slices.Clone(withIncumbent(st)), func(o decide.Option) bool { return o.TokensPerChunk == nil })
	if len(opts) == 0 {
		return nil
	}
	slices.SortStableFunc(opts, func(x, y decide.Option) int { return cmp.Compare(*y.TokensPerChunk, *x.TokensPerChunk) })
	var parts []d.Text
	for _, o := range opts {
		parts = append(parts, d.M("%s: %s", b.optionName(ss, o.Variant), d.Num{V: *o.TokensPerChunk, Prec: 2}))
	}
	return d.M("Tokens per streamed chunk, mean ITL ÷ mean TPOT: an engine streams one chunk per verify step, so this estimates the tokens each step accepts, which the runs' output does not print. %s.", d.Join{Sep: ", ", Parts: parts})
}

// latencies lists each option's mean request latency, fastest first,
// when the objective is a throughput: a reader who asked for latency
// finds it beside the figure that decided (nil otherwise).
func (b *builder) latencies(ss *schema.Step, st decide.Step) d.Text {
	if strings.HasPrefix(b.s.Objective.Metric, "latency.") || strings.HasPrefix(b.s.Objective.Metric, "ttft.") {
		return nil
	}
	opts := withIncumbent(st)
	opts = slices.DeleteFunc(slices.Clone(opts), func(o decide.Option) bool { return o.Latency == nil })
	if len(opts) < 2 {
		return nil
	}
	slices.SortStableFunc(opts, func(x, y decide.Option) int { return cmp.Compare(x.Latency.Mean, y.Latency.Mean) })
	var parts []d.Text
	for _, o := range opts {
		name := b.optionName(ss, o.Variant)
		if st.Incumbent != nil && o.Variant == st.Incumbent.Variant {
			name = d.Sentences(name, d.Paren{Text: d.M("current configuration")})
		}
		// ≤ or ≈ marks a derived latency, as in the conclusion's table,
		// whose note explains it once.
		v := value("latency.mean", o.Latency.Mean)
		if o.Latency.Derived {
			v = d.Join{Parts: []d.Text{d.Lit(b.derivedMark(b.s.Objective.Profile)), v}}
		}
		// Not the plain "%s: %s": inside this sentence's own colon a
		// language may need another join (Chinese "A 为 x").
		parts = append(parts, d.M("%[1]s: %[2]s", name, v))
	}
	return d.M("Mean latency per request at %s: %s.", ProfileTitle(b.s, b.s.Objective.Profile), d.Join{Sep: ", ", Parts: parts})
}

// withIncumbent is the step's options, after the configuration adopted
// so far where there is one.
func withIncumbent(st decide.Step) []decide.Option {
	if st.Incumbent == nil {
		return st.Options
	}
	return append([]decide.Option{*st.Incumbent}, st.Options...)
}

// closeCall warns when the adopted option leads the runner-up (another
// option than the one the comparison names) by less than the spread of
// its own runs: the ranking of the two is then not measured, whatever
// the rule adopted.
func (b *builder) closeCall(ss *schema.Step, st decide.Step) d.Text {
	c := st.Comparison
	if st.Outcome != decide.Adopted || st.Adopted == nil || c == nil || *st.Adopted != c.A {
		return nil
	}
	m := b.s.Objective.Metric
	var win, next *decide.Option
	for i := range st.Options {
		o := &st.Options[i]
		switch {
		case o.Value == nil || o.Invalid != nil:
		case o.Variant == c.A:
			win = o
		case o.Variant == c.B:
		case next == nil || b.better(o.Value.Mean, next.Value.Mean):
			next = o
		}
	}
	if win == nil || next == nil || win.Value.Runs < 2 || win.Value.Low == nil || win.Value.High == nil {
		return nil
	}
	w, r := win.Value, next.Value
	gap, spread := math.Abs(w.Mean-r.Mean), *w.High-*w.Low
	if gap >= spread {
		return nil
	}
	t := d.M("Close call: the runner-up, %s (%s), trails %s by %s (%s), less than the spread of the winner's own runs (%s to %s). The order of the two is not settled; run both again before preferring one.",
		b.optionName(ss, next.Variant), value(m, r.Mean), b.optionName(ss, win.Variant), value(m, gap), pct(gap/w.Mean), value(m, *w.Low), value(m, *w.High))
	if w.Runs == 2 && r.Runs == 1 {
		// Two runs against one: the winner's extra run may come from
		// another phase of the study, so set its weaker run alone
		// beside the runner-up's single one.
		weak := *w.Low
		if b.s.Objective.Goal == "min" {
			weak = *w.High
		}
		lead := math.Abs(weak - r.Mean)
		return d.Sentences(t, d.M("Run for run, the winner's weaker run (%s) leads by only %s (%s).", value(m, weak), value(m, lead), pct(lead/weak)))
	}
	return t
}

// better reports whether x beats y on the objective, by its goal as the
// analysis ranks options.
func (b *builder) better(x, y float64) bool {
	if b.s.Objective.Goal == "min" {
		return x < y
	}
	return x > y
}

// spreadNote sets a comparison without a noise estimate beside the
// widest spread the study measured between two runs of one
// configuration: where that spread exceeds the difference, the study's
// own runs say the difference may be noise (nil otherwise).
func (b *builder) spreadNote(c *decide.Comparison) d.Text {
	widest, name := b.inSpread(c)
	if name == nil {
		return nil
	}
	return d.M("In this study the runs of one configuration (%s) differ by %s of their mean, more than this difference of %s.", name, pct(round3(widest)), pct(round3(gapShare(b.s.Objective.Metric, c.Ratio))))
}

// inSpread is the study's widest run spread and the option it belongs
// to when comparison c, without a noise estimate and a single run on a
// side, differs by less than it (nil name otherwise): with runs on both
// sides the verdict weighs them itself.
func (b *builder) inSpread(c *decide.Comparison) (float64, d.Text) {
	if c.Interval != nil || c.Ratio <= 0 || min(c.RunsA, c.RunsB) > 1 {
		return 0, nil
	}
	widest, name := b.widestSpread()
	if widest <= gapShare(b.s.Objective.Metric, c.Ratio) {
		return 0, nil
	}
	return widest, name
}

// round3 keeps a share to three decimals, as pct prints one decimal of
// a percentage.
func round3(f float64) float64 { return math.Round(f*1000) / 1000 }

// widestSpread is the largest spread between the runs of one option in
// the study, as a share of its mean, and that option's name (nil when
// no option has two runs).
func (b *builder) widestSpread() (float64, d.Text) {
	var widest float64
	var name d.Text
	runs := 0
	for _, st := range b.a.Steps {
		for _, o := range st.Options {
			v := o.Value
			if v == nil || v.Runs < 2 || v.Low == nil || v.High == nil || v.Mean == 0 {
				continue
			}
			if w := (*v.High - *v.Low) / v.Mean; w > widest {
				widest, name, runs = w, b.optionName(studyStep(b.s, st.ID), o.Variant), v.Runs
			}
		}
	}
	if name != nil {
		name = d.M("%d runs of %s", runs, name)
	}
	return widest, name
}
