package report

import (
	"maps"
	"slices"
	"strings"

	"servelab.dev/execute/record"
	d "servelab.dev/render/document"
	"servelab.dev/schema/plan"
)

// appendix holds, for every trial in plan order, its serving command,
// the peer client's command that reproduces its load, and the benchmark
// block of each run (lines the lint doubts end in (!)).
func (b *builder) appendix() []d.Block {
	var k sink
	b.sharedNotes(&k)
	step := ""
	var unrun []*plan.Trial
	for _, t := range b.a.Plan.Trials {
		if t.Key == "" {
			continue
		}
		if len(b.trialRuns(t)) == 0 {
			unrun = append(unrun, t)
			continue
		}
		if t.Step != step {
			step = t.Step
			title := d.Text(d.M("Other benchmark cases"))
			if ss := studyStep(b.s, t.Step); ss != nil {
				title = d.Prose(ss.Title)
			}
			k.h(3, "raw-"+t.Step, title)
		}
		b.rawTrial(&k, t)
	}
	b.rawPooled(&k)
	b.rawUnrun(&k, unrun)
	return k
}

// rawUnrun lists the trials the study plans that have no run yet, once
// at the end: a reader of the runs does not meet them between runs.
func (b *builder) rawUnrun(k *sink, unrun []*plan.Trial) {
	if len(unrun) == 0 {
		return
	}
	k.h(3, "raw-unrun", d.M("Planned runs not made yet"))
	var items []d.Text
	for _, t := range unrun {
		items = append(items, d.M("%s (trial %s)", b.trialLabel(t), d.Code(t.Key[:12])))
	}
	k.add(d.Para{Text: d.M("The study still plans these runs; %s makes them.", d.Code("servelab run"))}, d.List{Items: items})
}

// rawPooled lists the runs of trials the plan no longer holds (a step
// or profile since dropped) that the figures pool with a planned
// trial's, being of the same configuration at the same load: without
// them a reader could not rebuild those figures from the appendix.
func (b *builder) rawPooled(k *sink) {
	first := true
	for _, p := range b.pooledOnly() {
		key, t, runs := p.key, p.trial, b.runs[p.key]
		if first {
			k.h(3, "raw-pooled", d.M("Earlier runs pooled into these figures"))
			k.add(d.Para{Text: d.M("Runs of trials that the study no longer plans, of the same configuration at the same load as a planned trial, whose figures include them.")})
			first = false
		}
		k.h(4, "", d.M("%s (trial %s)", b.trialLabel(t), d.Code(key[:12])))
		for _, r := range runs {
			k.add(d.Para{Text: d.M("Benchmark result:")}, d.CodeBlock{Lang: "text", Body: Block(r.Trial, r.Metrics, flaggedLines(b.warn[key]))})
			b.importNotes(k, r)
		}
	}
}

func (b *builder) rawTrial(k *sink, t *plan.Trial) {
	k.h(4, "", d.M("%s (trial %s)", b.trialLabel(t), d.Code(t.Key[:12])))
	k.add(d.Para{Text: d.M("Serving command:")})
	k.add(d.CodeBlock{Lang: "bash", Body: MultiLine(t.Env, t.Argv)})
	argv, notes := Reproduce(b.s, t)
	peer := peerOf(b.s.Benchmark.Client.Name, b.s.Benchmark.Client.Version)
	if b.unpinned() {
		argv, notes = ReproducePinned(b.s, t)
		peer = peerOf("vllm-bench", "")
	}
	if argv == nil && len(notes) > 0 && !b.peerGapSaid {
		// Said at the first such run: under each it would fill the appendix.
		k.add(d.Para{Text: d.M("%s cannot repeat the workload of the runs below exactly (where it has a workload of this kind, it draws other prompts or arrivals): %s repeats it.", d.Code(peer.Name), d.Code("servelab bench"))})
		b.peerGapSaid = true
	}
	if argv != nil {
		b.peerCommand(k, peer.Name, argv, notes)
	}
	runs := b.trialRuns(t)
	flagged := flaggedLines(b.warn[t.Key])
	for i, r := range runs {
		label := d.M("Benchmark result:")
		switch {
		case r.Provenance.Kind == record.Imported && len(runs) > 1:
			label = d.M("Benchmark result, run %d of %d (the imported figures, laid out as %s prints them):", i+1, len(runs), d.Code("vllm bench serve"))
		case r.Provenance.Kind == record.Imported:
			label = d.M("Benchmark result (the imported figures, laid out as %s prints them):", d.Code("vllm bench serve"))
		case len(runs) > 1:
			label = d.M("Benchmark result, run %d of %d:", i+1, len(runs))
		}
		k.add(d.Para{Text: label}, d.CodeBlock{Lang: "text", Body: Block(*t.Spec, r.Metrics, flagged)})
		b.importNotes(k, r)
	}
}

// peerCommand prints the peer client's command for a run: in full the
// first time, then as the options by which it differs from that one
// (a page of 16 runs would otherwise repeat one 15-line command 16
// times).
func (b *builder) peerCommand(k *sink, name string, argv, notes []string) {
	if b.peerFirst != nil && slices.Equal(notes, b.peerNotes) {
		if changed, ok := optionDiff(b.peerFirst, argv); ok {
			if len(changed) == 0 {
				k.add(d.Para{Text: d.M("The same load with %s: the first run's command above.", d.Code(name))})
				return
			}
			var parts []d.Text
			for _, c := range changed {
				parts = append(parts, d.Code(c))
			}
			k.add(d.Para{Text: d.M("The same load with %s: the first run's command above, with %s.", d.Code(name), andList(parts))})
			return
		}
	}
	label := d.M("Reproduce the load with %s:", d.Code(name))
	if b.s.Benchmark.Client.Name != "vllm-bench" || b.unpinned() {
		label = d.M("The same load with %s, which is not the client that measured these figures:", d.Code(name))
	}
	k.add(d.Para{Text: label})
	body := MultiLine(nil, argv)
	if len(notes) > 0 {
		body = "# " + strings.Join(notes, "\n# ") + "\n" + body
	}
	k.add(d.CodeBlock{Lang: "bash", Body: body})
	b.peerFirst, b.peerNotes = argv, notes
}

// optionDiff lists the options of command b that command a lacks or
// sets otherwise ("--request-rate 4"), in b's order. ok is false where
// b is another program or drops one of a's options: that needs the
// whole command.
func optionDiff(a, b []string) (changed []string, ok bool) {
	progA, optsA := options(a)
	progB, optsB := options(b)
	if !slices.Equal(progA, progB) {
		return nil, false
	}
	have := map[string]string{}
	for _, o := range optsA {
		have[o[0]] = o[1]
	}
	seen := map[string]bool{}
	for _, o := range optsB {
		seen[o[0]] = true
		if v, in := have[o[0]]; !in || v != o[1] {
			changed = append(changed, o[2])
		}
	}
	for flag := range have {
		if !seen[flag] {
			return nil, false
		}
	}
	return changed, true
}

// options splits argv into its program words and its options, each a
// flag, its value ("" for a bare flag) and the option as argv wrote it.
func options(argv []string) (prog []string, opts [][3]string) {
	i := 0
	for i < len(argv) && !strings.HasPrefix(argv[i], "-") {
		prog = append(prog, argv[i])
		i++
	}
	for ; i < len(argv); i++ {
		o := [3]string{argv[i], "", argv[i]}
		if f, v, eq := strings.Cut(argv[i], "="); eq && strings.HasPrefix(f, "--") {
			o = [3]string{f, v, argv[i]}
		} else if i+1 < len(argv) && !strings.HasPrefix(argv[i+1], "-") {
			o[1], o[2] = argv[i+1], argv[i]+" "+argv[i+1]
			i++
		}
		opts = append(opts, o)
	}
	return prog, opts
}

// importNotes say under a run what its importer estimated, recomputed
// or found missing, except the notes every run shares.
func (b *builder) importNotes(k *sink, r *record.Record) {
	for _, n := range r.ImportNotesKnown() {
		if !b.shared[noteKey(n)] && !b.shared[n.Msg] {
			k.add(d.Note{Text: noteText(n)})
		}
	}
}

// sharedNotes says once, before the runs, the import notes that every
// run of the page carries alike (a source that never prints failed
// requests), so that they are not repeated under each run.
func (b *builder) sharedNotes(k *sink) {
	count, byMsg, runs := map[string]int{}, map[string]int{}, 0
	var first []record.Note
	for _, t := range b.a.Plan.Trials {
		for _, r := range b.runs[t.Key] {
			if runs == 0 {
				first = r.ImportNotesKnown()
			}
			runs++
			seen := map[string]bool{}
			for _, n := range r.ImportNotesKnown() {
				count[noteKey(n)]++
				if !seen[n.Msg] {
					byMsg[n.Msg]++
					seen[n.Msg] = true
				}
			}
		}
	}
	b.shared = map[string]bool{}
	var texts []d.Text
	for _, n := range first {
		switch {
		case runs < 2:
		case count[noteKey(n)] == runs:
			b.shared[noteKey(n)] = true
			texts = append(texts, noteText(n))
		case byMsg[n.Msg] == runs && sharedForm[n.Msg] != "":
			// Every run says it with its own figure: once, without them.
			b.shared[n.Msg] = true
			texts = append(texts, d.M(sharedForm[n.Msg]))
		}
	}
	switch {
	case len(texts) > 1:
		k.add(d.Para{Text: d.M("Every run below was imported with these notes:")})
	case len(texts) == 1:
		k.add(d.Para{Text: d.M("Every run below was imported with this note:")})
	}
	for _, t := range texts {
		k.add(d.Note{Text: t})
	}
}

// sharedForm is an import note as the appendix says it once for every
// run, where each run's own note carries its own figure.
var sharedForm = map[string]string{
	"The source's maximum request concurrency of %s is not a cap (the profile has none): it is kept as the observed peak.": "The source's maximum request concurrency is not a cap (the profile has none): each run keeps it as its observed peak.",
}

func noteKey(n record.Note) string { return n.Msg + "\x00" + strings.Join(n.Args, "\x00") }

func noteText(n record.Note) d.Text {
	args := make([]any, len(n.Args))
	for i, a := range n.Args {
		args[i] = d.Lit(a)
	}
	return d.M(n.Msg, args...)
}

// unplanned is a trial key the plan no longer holds whose runs pool
// with the planned trial of the same configuration and load.
type unplanned struct {
	key   string
	trial *plan.Trial
}

// pooledOnly lists the keys of the runs the figures pool in from trials
// the plan no longer holds, in key order.
func (b *builder) pooledOnly() []unplanned {
	planned, byLoad := map[string]bool{}, map[string]*plan.Trial{}
	for _, t := range b.a.Plan.Trials {
		if t.Key == "" || t.Spec == nil {
			continue
		}
		planned[t.Key] = true
		if _, ok := byLoad[t.Spec.LoadKey()]; !ok {
			byLoad[t.Spec.LoadKey()] = t
		}
	}
	var out []unplanned
	for _, key := range slices.Sorted(maps.Keys(b.runs)) {
		runs := b.runs[key]
		if planned[key] || len(runs) == 0 {
			continue
		}
		if t, ok := byLoad[runs[0].Trial.LoadKey()]; ok {
			out = append(out, unplanned{key, t})
		}
	}
	return out
}
