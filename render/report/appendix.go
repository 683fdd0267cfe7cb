package report

import (
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
	step := ""
	for _, t := range b.a.Plan.Trials {
		if t.Key == "" {
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
	return k
}

func (b *builder) rawTrial(k *sink, t *plan.Trial) {
	k.h(4, "", b.trialLabel(t))
	k.add(d.Para{Text: d.M("Serving command:")})
	k.add(d.CodeBlock{Lang: "bash", Body: MultiLine(t.Env, t.Argv)})
	argv, notes := Reproduce(b.s, t)
	if argv != nil {
		k.add(d.Para{Text: d.M("Reproduce the load with %s:", d.Code(peerOf(b.s.Benchmark.Client.Name, b.s.Benchmark.Client.Version).Name))})
		body := MultiLine(nil, argv)
		if len(notes) > 0 {
			body = "# " + strings.Join(notes, "\n# ") + "\n" + body
		}
		k.add(d.CodeBlock{Lang: "bash", Body: body})
	}
	runs := b.trialRuns(t)
	if len(runs) == 0 {
		k.add(d.Para{Text: d.M("No record yet for this trial (%s).", d.Code(t.Key[:12]))})
		return
	}
	flagged := flaggedLines(b.warn[t.Key])
	for i, r := range runs {
		label := d.M("Benchmark result:")
		if len(runs) > 1 {
			label = d.M("Benchmark result, run %d of %d:", i+1, len(runs))
		}
		k.add(d.Para{Text: label}, d.CodeBlock{Lang: "text", Body: Block(*t.Spec, r.Metrics, flagged)})
		importNotes(k, r)
	}
}

// importNotes say under a run what its importer estimated, recomputed
// or found missing.
func importNotes(k *sink, r *record.Record) {
	for _, n := range r.ImportNotes {
		args := make([]any, len(n.Args))
		for i, a := range n.Args {
			args[i] = d.Lit(a)
		}
		k.add(d.Note{Text: d.M(n.Msg, args...)})
	}
}
