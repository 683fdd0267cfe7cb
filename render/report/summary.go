package report

import (
	"math"

	"servelab.dev/execute/decide"
	d "servelab.dev/render/document"
	"servelab.dev/schema/plan"
)

// summary is the seeds' "Summary of optimization options": each step's
// best option against the baseline, all from the same records.
func (b *builder) summary() {
	if len(b.a.Summary) == 0 {
		return
	}
	m := b.s.Objective.Metric
	b.h(2, "summary", d.M("Summary of optimization options"))
	t := d.Table{Head: []d.Text{d.M("Benchmark case"), d.M("Step"), d.M("Best option"), d.M("Optimized"), d.M("Baseline"), d.M("Comparison"), d.M("Adopted")},
		Right: []bool{false, false, false, true, true, false, false}}
	c := d.Chart{ID: "summary", Kind: "bar", Unit: chartUnit(m), Title: d.M("%s after each step", d.Cap{Text: MetricName(m)})}
	best, base := d.Series{Name: d.M("Best option of the step")}, d.Series{Name: d.M("Baseline")}
	for _, row := range b.a.Summary {
		ss := studyStep(b.s, row.Step)
		adopted := d.M("no")
		if row.Adopted {
			adopted = d.M("yes")
		}
		t.Rows = append(t.Rows, []d.Text{ProfileTitle(b.s, b.s.Objective.Profile), d.Prose(ss.Title), optionName(b.s, ss, row.Best),
			value(m, row.Value), value(m, row.Base), RatioText(m, row.Ratio), adopted})
		c.Categories = append(c.Categories, d.Prose(ss.Title))
		best.Values = append(best.Values, chartValue(m, row.Value))
		base.Values = append(base.Values, chartValue(m, row.Base))
	}
	c.Series = []d.Series{best, base}
	b.doc.Add(t, c)
}

// others is the seeds' "Other benchmark cases": baseline and final on
// every validation profile, with their blocks.
func (b *builder) others() {
	if len(b.a.Validation) == 0 {
		return
	}
	b.h(2, "validation", d.M("Other benchmark cases"))
	b.doc.Add(d.Para{Text: d.M("The baseline and the optimized configuration on every validation profile.")})
	for _, row := range b.a.Validation {
		b.h(3, "validation-"+row.Profile, ProfileTitle(b.s, row.Profile))
		for _, role := range []struct {
			role  string
			label d.Text
		}{{"validate/baseline", d.M("Baseline")}, {"validate/final", d.M("Optimized")}} {
			t := b.roleTrial(role.role, row.Profile)
			if t == nil {
				continue
			}
			b.h(4, "", role.label)
			b.doc.Add(d.CodeBlock{Lang: "bash", Body: MultiLine(t.Env, t.Argv)})
			b.blocks(t)
		}
	}
	b.doc.Add(b.latencyChart())
}

func (b *builder) roleTrial(role, profile string) *plan.Trial {
	for _, t := range b.a.Plan.Trials {
		if t.Profile != profile || t.Key == "" {
			continue
		}
		if t.HasRole(role) {
			return t
		}
	}
	return nil
}

// latencyChart shows TTFT and TPOT of baseline and final per profile.
func (b *builder) latencyChart() d.Chart {
	c := d.Chart{ID: "ttft_tpot", Kind: "bar", Unit: "ms", Title: d.M("TTFT and TPOT, baseline and optimized")}
	series := []d.Series{
		{Name: d.M("TTFT, baseline")}, {Name: d.M("TTFT, optimized")},
		{Name: d.M("TPOT, baseline")}, {Name: d.M("TPOT, optimized")},
	}
	for _, row := range b.a.Validation {
		c.Categories = append(c.Categories, ProfileTitle(b.s, row.Profile))
		for i, v := range []*decide.Value{valOf(row.TTFT, true), valOf(row.TTFT, false), valOf(row.TPOT, true), valOf(row.TPOT, false)} {
			x := math.NaN()
			if v != nil {
				x = v.Mean
			}
			series[i].Values = append(series[i].Values, x)
		}
	}
	c.Series = series
	return c
}

func valOf(r *decide.ValidationRow, base bool) *decide.Value {
	if r == nil {
		return nil
	}
	if base {
		return r.Baseline
	}
	return r.Final
}
