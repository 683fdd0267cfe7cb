package report

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"servelab.dev/execute/decide"
	"servelab.dev/execute/record"
	d "servelab.dev/render/document"
	"servelab.dev/render/export"
	"servelab.dev/schema"
	"servelab.dev/schema/plan"
)

func (b *builder) conclusion() {
	a, s := b.a, b.s
	b.h(2, "conclusion", d.M("Conclusion"))
	if a.Final == nil {
		b.doc.Add(d.Para{Text: d.M("The study is not decided yet: some steps have no records. The steps below show what is known.")})
		return
	}
	// An SLO no configuration meets is the answer, so it comes first; one
	// that is met is a property of the command, stated with its gain.
	slo := SLOAnswer(s, a)
	if slo != nil && !a.SLO.Met {
		b.doc.Add(d.Para{Text: slo})
	}
	var model d.Text = d.Code(a.Final.Model)
	if s.Model.Title != nil && a.Final.Model == s.Model.ID {
		model = d.Prose(*s.Model.Title)
	}
	b.doc.Add(d.Para{Text: d.M("Recommended configuration of %s on %s, for the %s:", model, d.Lit(s.Hardware.GPU), b.goal())})
	if a.SLO != nil && !a.SLO.Met {
		b.h(3, "serving-command", d.M("Serving command (best-effort: it does not meet the service-level objective)"))
	} else {
		b.h(3, "serving-command", d.M("Serving command"))
	}
	if a.Final.Unmeasured {
		b.doc.Add(d.Note{Text: d.M("Every run of this configuration failed: the steps chose it, but no measurement shows that it serves. %s lists why each run failed; fix that and run the study again before using this command.", d.Code("servelab analyze"))})
	}
	if b.leanOK {
		b.doc.Add(d.CodeBlock{Lang: "bash", Body: heredocs(b.lean.Files) + MultiLine(b.lean.Env, b.lean.Argv)})
	} else {
		b.doc.Add(d.CodeBlock{Lang: "bash", Body: heredocs(a.Final.Files) + MultiLine(a.Final.Env, a.Final.Argv)})
	}
	b.deployLinks()
	b.noiseAdoptions()
	if localModel(a.Final.Model) {
		b.doc.Add(d.Note{Text: d.M("The command loads the model file the study measured, %s: put the path of your own %s file of this model in its place. The other settings are what the study measured on its own loads: re-test them where your traffic differs (prompt lengths, concurrency). A file of another precision needs its own test, apart from any the steps above measured.", d.Code(a.Final.Model), d.Lit(strings.ToUpper(b.dtypeOf(a.Final.Model))))})
	}
	// The answer before the caveats: what the command gains and whether
	// it meets the SLO, then the notes that qualify it.
	b.gain()
	if slo != nil && a.SLO.Met {
		b.doc.Add(d.Para{Text: d.Sentences(append([]d.Text{slo}, b.breaches()...)...)})
	}
	for _, n := range s.CommandNotes {
		b.doc.Add(d.Note{Text: d.Prose(n)})
	}
	b.startupWarnings()
	b.sources()
	b.capacities()
	b.tradeoffs()
	b.comparison()
	// What the engine made of the command, after the figures it earned.
	b.finalSettings()
}

// comparison is the seeds' before-and-after tables and chart.
func (b *builder) comparison() {
	s, a := b.s, b.a
	if len(a.Validation) == 0 {
		return
	}
	b.doc.Add(d.Para{Text: d.M("Comparison of benchmark results before and after optimization:")})
	objective := func(r decide.ValidationRow) *decide.ValidationRow { return &r }
	latency := func(r decide.ValidationRow) *decide.ValidationRow { return r.Latency }
	switch {
	case s.Objective.Metric == "latency.mean":
		b.validationTable(objective)
	case s.Objective.Lead == "latency.mean":
		b.validationTable(latency)
		b.validationTable(objective)
	default:
		b.validationTable(objective)
		b.validationTable(latency)
	}
	b.validationNotes()
	if n, same, ok := b.meanOutput(); ok && same > 0 && !s.Benchmark.Output.IgnoreEOS {
		b.doc.Add(d.Note{Text: d.M("Every run generated the same %d output tokens, %s per request on average: the client fixed each request's output length, so answers, reasoning included, stopped at those lengths. Latencies here are for answers of that length; full answers take longer.", same, d.Num{V: n, Prec: 0})})
	}
	b.doc.Add(b.validationChart())
	b.perToken()
}

// goal is what the study optimises, in words.
func (b *builder) goal() d.Text {
	o := b.s.Objective
	at := ProfileTitle(b.s, o.Profile)
	switch {
	case o.Lead == "latency.mean":
		return d.M("lowest mean latency per request at %s (decided on %s: at a fixed concurrency a higher throughput means a lower true mean latency)", at, MetricName(o.Metric))
	case o.Metric == schema.Capacity:
		return d.M("highest request rate that meets the service-level objective (%s)", at)
	case o.Goal == "max":
		return d.M("highest %s at %s", MetricName(o.Metric), at)
	}
	return d.M("lowest %s at %s", MetricName(o.Metric), at)
}

// gain states the recommendation's gain on the objective against the
// baseline, with the interval of the ratio where the records give one.
func (b *builder) gain() {
	m := b.s.Objective.Metric
	for _, row := range b.measured() {
		if row.Profile != b.s.Objective.Profile || row.Ratio == nil || row.Baseline == nil || row.Final == nil {
			continue
		}
		t := d.M("Gain on the objective at %s: %s %s against %s for the baseline, %s.", ProfileTitle(b.s, row.Profile), MetricName(m), value(m, row.Final.Mean), value(m, row.Baseline.Mean), RatioText(m, *row.Ratio))
		why := d.M("each side is a single run")
		switch {
		case row.Baseline.Runs > 1 && row.Final.Runs > 1:
			why = d.M("one of the two has fewer than three runs")
		case row.Baseline.Runs < 2 && row.Final.Runs > 1:
			why = d.M("the baseline has a single run")
		case row.Final.Runs < 2 && row.Baseline.Runs > 1:
			why = d.M("the recommended configuration has a single run")
		}
		var more d.Text = d.M("No interval (%s) and no per-request samples, so there is no noise estimate.", why)
		if r, ok := b.readGain(*row.Ratio); ok {
			more = b.gainVerdict(why, r)
		}
		if row.Interval != nil {
			more = d.M("The %s interval of the ratio (%s) is %s to %s.", pct(b.s.Objective.Confidence), methodText(row.Method), times(row.Interval[0]), times(row.Interval[1]))
		}
		parts := []d.Text{t, more}
		if l := row.Latency; l != nil && l.Ratio != nil && l.Baseline != nil && l.Final != nil && !strings.HasPrefix(m, "latency.") {
			// A reader who asked about latency reads it here, not in the
			// second table; first, where the study leads with it.
			derived := l.Final.Derived || l.Baseline.Derived
			fin, base, ratio := value(l.Metric, l.Final.Mean), value(l.Metric, l.Baseline.Mean), RatioText(l.Metric, *l.Ratio)
			if derived {
				mark := d.Lit(b.derivedMark(row.Profile))
				fin, base = d.Join{Parts: []d.Text{mark, fin}}, d.Join{Parts: []d.Text{mark, base}}
			}
			switch {
			case b.s.Objective.Lead == l.Metric && derived:
				parts = []d.Text{d.M("Gain at %s: mean latency per request (derived where the runs' benchmark output has none) %s against %s for the baseline, %s.", ProfileTitle(b.s, row.Profile), fin, base, ratio), b.objectiveAfter(row), more}
			case b.s.Objective.Lead == l.Metric:
				parts = []d.Text{d.M("Gain at %s: mean latency per request %s against %s for the baseline, %s.", ProfileTitle(b.s, row.Profile), fin, base, ratio), b.objectiveAfter(row), more}
			case derived:
				parts = append(parts, d.M("Mean latency per request at the same load (derived where the runs' benchmark output has none): %s against %s for the baseline, %s.", fin, base, ratio))
			default:
				parts = append(parts, d.M("Mean latency per request at the same load: %s against %s for the baseline, %s.", fin, base, ratio))
			}
		}
		b.doc.Add(d.Para{Text: d.Sentences(parts...)})
		return
	}
}

// runsNote is the run count and 95 % interval of a mean over runs, for
// the bracket after it; mark is the derived mark (≤, ≈) the mean
// carries, which its runs' figures carry too. nil for a single run.
func runsNote(metric string, v *decide.Value, mark string) d.Text {
	if v.Runs < 2 || v.Low == nil {
		return nil
	}
	lo, hi := value(metric, *v.Low), value(metric, *v.High)
	if v.Derived {
		lo, hi = d.Join{Parts: []d.Text{d.Lit(mark), lo}}, d.Join{Parts: []d.Text{d.Lit(mark), hi}}
	}
	if v.Interval == decide.IntervalRange {
		return d.M("%d runs: %s and %s", v.Runs, lo, hi)
	}
	return d.M("%d runs, 95%% interval %s to %s", v.Runs, lo, hi)
}

func (b *builder) baselineName() d.Text {
	if t := b.s.Baseline.Title; t != nil {
		return d.Prose(*t)
	}
	return d.Lit(EngineName(b.s.Engines[b.s.Baseline.Engine].Kind))
}

// baselineHead is the comparison tables' baseline column head. A long
// baseline title would squeeze the table into a narrow first column: it
// goes in a sentence before the first table instead.
func (b *builder) baselineHead() d.Text {
	if t := b.s.Baseline.Title; t != nil && utf8.RuneCountInString(t.In("en")) > 48 {
		if !b.baselineSaid {
			b.doc.Add(d.Para{Text: d.M("Baseline: %s.", b.baselineName())})
			b.baselineSaid = true
		}
		return d.M("Baseline")
	}
	return d.M("Baseline: %s", b.baselineName())
}

func (b *builder) validationTable(pick func(decide.ValidationRow) *decide.ValidationRow) {
	t := d.Table{Head: []d.Text{d.M("Benchmark case"), b.baselineHead(), b.optimizedName()}}
	for _, row := range b.measured() {
		r := pick(row)
		if r == nil || r.Baseline == nil || r.Final == nil {
			continue
		}
		// Each side is marked on its own: a reader compares the cells.
		shown := func(v *decide.Value) d.Text {
			if v.Derived {
				return d.Join{Parts: []d.Text{d.Lit(b.derivedMark(row.Profile)), value(r.Metric, v.Mean)}}
			}
			return value(r.Metric, v.Mean)
		}
		mark, name := b.derivedMark(row.Profile), d.Cap{Text: MetricName(r.Metric)}
		var base d.Text = d.M("%s: %s", name, shown(r.Baseline))
		if n := runsNote(r.Metric, r.Baseline, mark); n != nil {
			base = d.M("%s: %s (%s)", name, shown(r.Baseline), n)
		}
		var fin d.Text = d.M("%s: %s (%s)", name, shown(r.Final), RatioText(r.Metric, *r.Ratio))
		if n := runsNote(r.Metric, r.Final, mark); n != nil {
			fin = d.M("%s: %s (%s; %s)", name, shown(r.Final), RatioText(r.Metric, *r.Ratio), n)
		}
		t.Rows = append(t.Rows, []d.Text{ProfileTitle(b.s, row.Profile), base, fin})
	}
	if len(t.Rows) > 0 {
		b.doc.Add(t)
	}
}

// validationNotes say what the table's figures can and cannot show:
// rounding in the sources, derived latency, the noise estimate.
// optimizedName names the configuration the validation measured: the
// study's final command, which is not the recommended one where the page
// recommends it without its noise adoptions.
func (b *builder) optimizedName() d.Text {
	if b.leanOK {
		return d.M("Final command")
	}
	return d.M("Optimized")
}

// crossCards names the validation loads at which the baseline's and the
// final configuration's runs were not on the same GPUs; nil where they
// were, or the records do not name them.
func (b *builder) crossCards() d.Text {
	var loads []d.Text
	for _, row := range b.measured() {
		var sides [2]map[string]int
		ok := true
		for i, role := range []string{"validate/baseline", "validate/final"} {
			var runs []*record.Record
			for _, k := range b.roleKeys(role, row.Profile) {
				runs = append(runs, b.loadRuns(k)...)
			}
			var known bool
			sides[i], known = cardsOf(runs)
			ok = ok && known
		}
		na, _ := runsAlone(sides[0], sides[1])
		nb, _ := runsAlone(sides[1], sides[0])
		if ok && na+nb > 0 {
			loads = append(loads, d.M("“%s”", ProfileTitle(b.s, row.Profile)))
		}
	}
	if len(loads) == 0 {
		return nil
	}
	if len(loads) == 1 {
		return d.M("At %s the baseline's and the optimized configuration's runs were not all on the same GPUs: the cards' own differences are part of that comparison.", loads[0])
	}
	return d.M("At %s the baseline's and the optimized configuration's runs were not all on the same GPUs: the cards' own differences are part of those comparisons.", andList(loads))
}

func (b *builder) validationNotes() {
	if t := b.crossCards(); t != nil {
		b.doc.Add(d.Note{Text: t})
	}
	var ranges []d.Text
	for _, row := range b.measured() {
		// A range within 1% is less than any run-to-run variation: saying
		// it would be a caveat larger than its subject.
		if rr := row.RatioRange; rr != nil && d.Fixed(rr[0]) != d.Fixed(rr[1]) && rr[1] > 1.01*rr[0] {
			ranges = append(ranges, d.M("%sx to %sx at %s", d.Num{V: rr[0], Prec: 2}, d.Num{V: rr[1], Prec: 2}, ProfileTitle(b.s, row.Profile)))
		}
	}
	if len(ranges) > 0 {
		b.doc.Add(d.Note{Text: d.M("The sources printed their figures rounded to two decimals, so a ratio is only known within a range: %s.", d.Join{Sep: "; ", Parts: ranges})})
	}
	for _, n := range b.a.Notes {
		switch n {
		case decide.DerivedLatencyNote:
			key := "A mean latency marked ≤ or ≈ is derived because the runs' benchmark output has none. At a fixed concurrency N it is N × the run's duration ÷ its completed requests (Little's law): an upper bound, marked ≤, as fewer requests are in flight while a run starts and drains, and exact at concurrency 1, marked ≈. A ratio of two such bounds may be off from the true speed-up by a few percent. Elsewhere ≈ marks TTFT + TPOT × (mean output tokens − 1)."
			if b.allFixedConcurrency() {
				key = "A mean latency marked ≤ or ≈ is derived because the runs' benchmark output has none: N × the run's duration ÷ its completed requests at concurrency N (Little's law). Above concurrency 1 it is an upper bound, marked ≤, as fewer requests are in flight while a run starts and drains; at concurrency 1 it is exact, marked ≈. A ratio of two such bounds may be off from the true speed-up by a few percent."
			}
			t := []d.Text{d.M(key)}
			if c := b.formulaCheck(); c != nil {
				t = append(t, c)
			}
			b.doc.Add(d.Note{Text: d.Sentences(t...)})
		case decide.NoNoiseNote:
			if _, _, ok := b.repeatSpread(); ok {
				continue // the gain and each step are read against the near-repeat runs
			}
			if b.allSingle() {
				b.doc.Add(d.Note{Text: d.M("Every trial ran once, so no comparison has a noise estimate: a difference smaller than the run-to-run variation cannot be told from none. Repeat the trials to get one.")})
				continue
			}
			b.doc.Add(d.Note{Text: d.M("Most trials ran once, so most comparisons have no noise estimate: a difference smaller than the run-to-run variation cannot be told from none. Repeat the trials to get one.")})
		}
	}
}

// validationChart is the objective of the baseline and the optimized
// configuration at every validation profile; the tables above give its
// numbers.
func (b *builder) validationChart() d.Chart {
	m := b.s.Objective.Metric
	pick := func(r decide.ValidationRow) *decide.ValidationRow { return &r }
	if b.s.Objective.Lead == "latency.mean" {
		m, pick = "latency.mean", func(r decide.ValidationRow) *decide.ValidationRow { return r.Latency }
	}
	title := d.M("%s, baseline and optimized", d.Cap{Text: MetricName(m)})
	if m == "latency.mean" && b.latencyBounds() {
		title = d.M("%s, baseline and optimized (upper bounds above concurrency 1)", d.Cap{Text: MetricName(m)})
	}
	c := b.loadChart("validation", title, chartUnit(m), pick)
	c.YName = d.Cap{Text: MetricName(m)}
	c.YName = d.Cap{Text: MetricName(m)}
	c.Tabled = true
	return c
}

// latencyBounds reports whether a validation row's mean latency is
// derived by Little's law above concurrency 1, so that a chart of it
// draws upper bounds.
func (b *builder) latencyBounds() bool {
	for _, row := range b.measured() {
		l := &row
		if row.Metric != "latency.mean" {
			l = row.Latency
		}
		if l != nil && (l.Final != nil && l.Final.Derived || l.Baseline != nil && l.Baseline.Derived) && b.derivedMark(row.Profile) == "≤" {
			return true
		}
	}
	return false
}

func mean(v *decide.Value, metric string) float64 {
	if v == nil {
		return math.NaN()
	}
	return chartValue(metric, v.Mean)
}

// MultiLine writes a command for a fenced bash block: the launch words on
// the first line, then one flag (with its value) per line, joined by
// backslash-newline. Each word is quoted for bash (plan.ShellWords), so
// the block pastes back to exactly env + argv. A line breaks before each
// "--flag", and before a "-x" flag once the long flags have begun (so
// "python3 -m module" stays whole).
func MultiLine(env map[string]string, argv []string) string {
	words, err := plan.ShellWords(env, argv)
	if err != nil {
		return "# " + err.Error()
	}
	nenv := len(words) - len(argv)
	lines := [][]string{{}}
	long := false
	for i, w := range words {
		if i >= nenv {
			a := argv[i-nenv]
			long = long || strings.HasPrefix(a, "--")
			if strings.HasPrefix(a, "-") && long && len(lines[len(lines)-1]) > 0 {
				lines = append(lines, nil)
			}
		}
		lines[len(lines)-1] = append(lines[len(lines)-1], w)
	}
	out := make([]string, len(lines))
	for i, l := range lines {
		out[i] = strings.Join(l, " ")
	}
	return strings.Join(out, " \\\n    ")
}

// heredocs writes the files a serving command names (TensorRT-LLM's
// options YAML) before it, each as a quoted here-document so that the
// shell expands nothing in it.
func heredocs(files map[string]string) string {
	var b strings.Builder
	for _, name := range slices.Sorted(maps.Keys(files)) {
		fmt.Fprintf(&b, "cat > %s <<'EOF'\n%sEOF\n", name, files[name])
	}
	return b.String()
}

// deployLinks points to the exports that servelab render and the site
// write beside the report (the files of servelab export), when the
// engine has an image to deploy.
func (b *builder) deployLinks() {
	e := b.s.Engines[b.a.Final.Engine]
	if e == nil {
		return
	}
	if e.ImageRef() == "" {
		// A reader looks here for the container files the other pages
		// link; say why there are none rather than leave a gap.
		b.doc.Add(d.Para{Text: d.M("No deployment files: the engine ran outside any container image, so no image holds the measured build.")})
		return
	}
	var links []d.Text
	for _, f := range export.Formats() {
		links = append(links, d.Link{Text: d.Lit(export.Label(f)), Href: export.Dir(b.s.ID) + "/" + export.FileName(f)})
	}
	// The exports serve on one port whatever the engine; the appendix's
	// load commands target the engine's own default.
	b.doc.Add(d.Para{Text: d.M("The same configuration for deployment, serving on port %s: %s.", d.Lit(strconv.Itoa(export.Port)), d.Join{Sep: " · ", Parts: links})})
}

// localModel says whether a model is a file of the measuring host (a
// GGUF path) rather than a hub id every reader can pull.
func localModel(id string) bool {
	return strings.HasSuffix(strings.ToLower(id), ".gguf") || strings.HasPrefix(id, "/") || strings.HasPrefix(id, "./")
}

// noiseAdoptions names the settings the study adopted on single-run
// gains under decide.SmallGain. Where the page recommends the command
// without them (b.leanOK), it says what that command measured in the
// step that ran it and prints the final one, which every later figure
// measured; otherwise it says the printed final command carries them.
func (b *builder) noiseAdoptions() {
	_, last, ok := decide.Lean(b.s, b.a)
	if !ok {
		return
	}
	var parts []d.Text
	for _, st := range b.a.NoiseSteps() {
		parts = append(parts, d.Sentences(b.optionName(studyStep(b.s, st.ID), *st.Adopted), d.Paren{Text: pct(st.Comparison.Gain)}))
	}
	if b.leanOK {
		// The command above leaves them out; the study's final command,
		// which every figure below measured, is printed for a reader
		// who wants them.
		key := "%s: the study's rule (minimum gain %s) also adopted these, each on a single run, for gains under 3%%, which one run cannot tell from run-to-run variation. The command above leaves them out; every figure below, at every load, was measured with them, in this command:"
		b.doc.Add(d.Note{Text: d.Sentences(b.alone(last), d.M(key, andList(parts), pct(b.s.Objective.MinGain)))})
		b.doc.Add(d.CodeBlock{Lang: "bash", Body: heredocs(b.a.Final.Files) + MultiLine(b.a.Final.Env, b.a.Final.Argv)})
		return
	}
	key := "%s were adopted on single runs, by the study's rule (minimum gain %s), for gains under 3%%, which one run cannot tell from run-to-run variation; every figure below was measured with them."
	if len(parts) == 1 {
		key = "%s was adopted on a single run, by the study's rule (minimum gain %s), for a gain under 3%%, which one run cannot tell from run-to-run variation; every figure below was measured with it."
	}
	b.doc.Add(d.Note{Text: d.M(key, andList(parts), pct(b.s.Objective.MinGain))})
}

// leanLaunch is the command the page recommends in place of the final
// one (decide.MeasuredLean), ok false where it recommends the final.
func leanLaunch(s *schema.Study, a *decide.Analysis) (plan.Launch, bool) {
	c, _, ok := decide.MeasuredLean(s, a)
	if !ok {
		return plan.Launch{}, false
	}
	l, err := plan.Command(s, c)
	return l, err == nil
}

// alone is the objective of the lean command (decide.MeasuredLean) in
// the runs of last, the step whose adopted option ran it, against the
// baseline's; nil where those figures are missing.
func (b *builder) alone(last string) d.Text {
	m, at := b.s.Objective.Metric, b.s.Objective.Profile
	for _, st := range b.a.Steps {
		c := st.Comparison
		if st.ID != last || c == nil || st.Adopted == nil || c.A != *st.Adopted {
			continue
		}
		for _, row := range b.measured() {
			if row.Profile != at || row.Baseline == nil {
				continue
			}
			ratio := c.ValueA / row.Baseline.Mean
			if decide.Lower(m) {
				ratio = row.Baseline.Mean / c.ValueA
			}
			return d.M("This is the command the %[2]s step measured, at %[1]s only: %[3]s %[4]s against %[5]s for the baseline, %[6]s.", ProfileTitle(b.s, at), d.Prose(studyStep(b.s, last).Title), MetricName(m), value(m, c.ValueA), value(m, row.Baseline.Mean), RatioText(m, ratio))
		}
	}
	return nil
}

// andList joins items as a sentence lists them: "a, b and c".
func andList(items []d.Text) d.Text {
	if n := len(items); n > 1 {
		return d.M("%s and %s", d.Join{Sep: ", ", Parts: items[:n-1]}, items[n-1])
	}
	return items[0]
}

// sources says where the gain comes from: each adopted change against
// the configuration before it, with how sure the step was, so that a
// reader can tell the change that carries the gain from the ones that
// ride along on a single run.
func (b *builder) sources() {
	var parts []d.Text
	for _, st := range b.a.Steps {
		c := st.Comparison
		if st.Outcome != decide.Adopted || st.Adopted == nil || c == nil || c.A != *st.Adopted || !b.changes(st) {
			continue
		}
		// A ratio, not a share: the steps multiply (1.55x and 1.43x make 2.22x).
		how := []d.Text{RatioText(b.s.Objective.Metric, c.Ratio)}
		widest, inSpread := b.inSpread(c)
		noise := b.noiseSource(st)
		switch {
		case c.Interval != nil:
		case noise != nil:
			how = append(how, noise)
		case inSpread != nil:
			how = append(how, d.M("less than the %s by which the runs of one configuration (%s) differ in this study, so not settled", pct(round3(widest)), inSpread))
		case c.Gain < smallGain:
			how = append(how, d.M("single runs, below typical run-to-run variation"))
		case bigEffect(c.Ratio):
			how = append(how, d.M("no noise estimate, but far beyond the few percent by which runs of one configuration usually vary"))
		default:
			how = append(how, d.M("no noise estimate"))
		}
		parts = append(parts, d.Sentences(b.optionName(studyStep(b.s, st.ID), c.A), d.Paren{Text: d.Join{Sep: ", ", Parts: how}}))
	}
	if len(parts) < 2 {
		return
	}
	b.doc.Add(d.Para{Text: d.M("Where the gain in %s comes from, each adopted change against the configuration before it at %s: %s.", MetricName(b.s.Objective.Metric), ProfileTitle(b.s, b.s.Objective.Profile), d.Join{Sep: "; ", Parts: parts})})
}

// changes reports whether a step's comparison sets its adopted option
// against the configuration before the step: the incumbent, or for an
// engine choice the baseline's engine.
func (b *builder) changes(st decide.Step) bool {
	c := st.Comparison
	if st.Incumbent != nil {
		return c.B == st.Incumbent.Variant
	}
	return st.Kind == "select" && c.B == b.s.Baseline.Engine && c.A != c.B
}

// breaches say where the final's runs break a bound at another
// validation load than the SLO's.
func (b *builder) breaches() []d.Text {
	var out []d.Text
	for _, br := range b.a.SLO.Elsewhere {
		bound := boundText(b.boundOf(br.Metric))
		out = append(out, d.M("At %s, though, it breaks %s in %d of its %d runs of %d requests (up to %s).", ProfileTitle(b.s, br.Profile), bound, br.Broke, br.Runs, b.s.Profiles[br.Profile].Requests, value(br.Metric, br.Worst)))
	}
	return out
}

func (b *builder) boundOf(metric string) schema.Bound {
	for _, x := range b.s.Objective.Constraints {
		if x.Metric == metric {
			return x
		}
	}
	return schema.Bound{Metric: metric}
}

// allFixedConcurrency reports whether every profile the page shows is
// a fixed concurrency, where a derived latency is Little's law's.
func (b *builder) allFixedConcurrency() bool {
	for _, name := range b.profilesUsed() {
		if p := b.s.Profiles[name]; !decide.LittlesLaw(p.Kind, p.Concurrency, b.s.DatasetOf(p).Name) {
			return false
		}
	}
	return true
}

// derivedMark marks a derived mean latency at profile: ≤ for Little's
// law above concurrency 1 (an upper bound), ≈ at concurrency 1 (exact
// up to the client's gaps) and for the formula.
func (b *builder) derivedMark(profile string) string {
	p := b.s.Profiles[profile]
	if decide.LittlesLaw(p.Kind, p.Concurrency, b.s.DatasetOf(p).Name) && p.Concurrency > 1 {
		return "≤"
	}
	return "≈"
}

// allSingle reports whether every trial with a record has one run.
func (b *builder) allSingle() bool {
	for _, t := range b.a.Plan.Trials {
		if len(b.runs[t.Key]) > 1 {
			return false
		}
	}
	return true
}

// formulaCheck sets, at concurrency 1, the recommended configuration's
// latency from the formula many reports print, TTFT + TPOT × (mean
// output tokens − 1), beside the one its runs took, where the two
// differ by more than 3 % (as when speculative decoding makes TPOT
// depend on length): a reader comparing with such a report sees why its
// figures differ (nil otherwise).
func (b *builder) formulaCheck() d.Text {
	for _, row := range b.measured() {
		p, ok := b.s.Profiles[row.Profile]
		l := row.Latency
		if !ok || p.Kind != "concurrency" || p.Concurrency != 1 || l == nil || l.Final == nil || !l.Final.Derived {
			continue
		}
		formula, ok := b.runMean(b.roleKeys("validate/final", row.Profile), func(r *record.Record) (float64, bool) {
			v, ok := decide.FormulaLatency(r.Metrics)
			return v / 1000, ok
		})
		if !ok {
			continue
		}
		took := l.Final.Mean / 1000
		if math.Abs(took-formula)/took <= 0.03 {
			return nil
		}
		return d.M("At %s, TTFT + TPOT × (mean output tokens − 1), the estimate such reports often print, gives the recommended configuration %s against the %s its runs took, %s off.", ProfileTitle(b.s, row.Profile), d.N(formula, "s"), d.N(took, "s"), pct(math.Abs(took-formula)/took))
	}
	return nil
}

// dtypeOf is the precision of the study's checkpoint id (the model's or
// one of its variants').
func (b *builder) dtypeOf(id string) string {
	m := b.s.Model
	for _, name := range slices.Sorted(maps.Keys(m.Variants)) {
		if v, _ := m.Variant(name); v.ID == id {
			return v.DType
		}
	}
	return m.DType
}

// objectiveAfter states the objective's own figures after a gain the
// study leads with another metric.
func (b *builder) objectiveAfter(row decide.ValidationRow) d.Text {
	m := b.s.Objective.Metric
	return d.M("The objective, %s: %s against %s for the baseline, %s.", MetricName(m), value(m, row.Final.Mean), value(m, row.Baseline.Mean), RatioText(m, *row.Ratio))
}

// perToken derives, where the printed TPOT cannot be a per-token time
// (below the weights' read time), the decode time a token from figures
// that can: (mean latency − mean TTFT) ÷ (mean output tokens − 1), per
// validation load, baseline against final. A reader tuning latency
// needs a decode figure, and the page has one it trusts.
func (b *builder) perToken() {
	flagged := false
	for _, ws := range b.warn {
		for _, w := range ws {
			flagged = flagged || w.Code == decide.CodeDecodeBound
		}
	}
	if !flagged {
		return
	}
	fig := func(r *record.Record) (float64, bool) {
		m := r.Metrics
		lat, ok1 := m.Latency.Stat("mean")
		ttft, ok2 := m.TTFT.Stat("mean")
		out, ok3 := record.Count(m.OutputTokens)
		if !ok1 || !ok2 || !ok3 || m.Completed == 0 || float64(out)/float64(m.Completed) <= 1 {
			return 0, false
		}
		return (lat - ttft) / (float64(out)/float64(m.Completed) - 1), true
	}
	t := d.Table{Head: []d.Text{d.M("Benchmark case"), d.M("Baseline"), d.M("Optimized")}, Right: []bool{false, true, true}}
	for _, row := range b.measured() {
		base, ok1 := b.runMean(b.roleKeys("validate/baseline", row.Profile), fig)
		fin, ok2 := b.runMean(b.roleKeys("validate/final", row.Profile), fig)
		if !ok1 || !ok2 || fin <= 0 {
			continue
		}
		t.Rows = append(t.Rows, []d.Text{ProfileTitle(b.s, row.Profile), d.M("≈%s", value("tpot.mean", base)),
			d.M("≈%s (%s)", value("tpot.mean", fin), RatioText("tpot.mean", base/fin))})
	}
	if len(t.Rows) == 0 {
		return
	}
	b.doc.Add(d.Para{Text: d.M("The printed TPOT cannot be a time per token here (see the warnings about the data), so this table derives one from figures that can: (mean latency − mean TTFT) ÷ (mean output tokens − 1).")}, t)
}
