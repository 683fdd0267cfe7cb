package diff

import (
	"slices"
	"sort"

	"servelab.dev/execute/decide"
	"servelab.dev/schema/plan"
)

// records lists head's trials whose runs differ from base's, with the
// objective before and after and, where both sides have two runs or
// more, whether the change is significant.
func records(a, b *decide.Analysis, base, head *Side) []Record {
	var out []Record
	trials := keyed(b.Plan)
	for k, t := range keyed(a.Plan) {
		if trials[k] == nil {
			trials[k] = t
		}
	}
	metric := b.Objective.Metric
	for k, t := range trials {
		fa, fb := base.Files[k], head.Files[k]
		if slices.Equal(fa, fb) {
			continue
		}
		r := Record{Trial: trialName(t), Key: k[:plan.KeyPrefix]}
		switch {
		case len(fa) == 0:
			r.Change = "added"
		case len(fb) == 0:
			r.Change = "removed"
		default:
			r.Change = "replaced"
		}
		va, vb := decide.Values(base.Runs[k], metric), decide.Values(head.Runs[k], metric)
		r.Old, r.New = meanOf(va), meanOf(vb)
		if r.Change == "replaced" {
			r.Verdict = decide.Verdict(vb, va, decide.Lower(metric))
		}
		out = append(out, r)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Trial < out[j].Trial })
	return out
}

func meanOf(xs []float64) *float64 {
	if len(xs) == 0 {
		return nil
	}
	s := 0.0
	for _, x := range xs {
		s += x
	}
	m := s / float64(len(xs))
	return &m
}

func decisions(a, b *decide.Analysis) []Decision {
	old := map[string]string{}
	for _, st := range a.Steps {
		old[st.ID] = adopted(st)
	}
	var out []Decision
	for _, st := range b.Steps {
		if o, ok := old[st.ID]; ok && o != adopted(st) {
			out = append(out, Decision{Step: st.ID, Old: o, New: adopted(st), Outcome: st.Outcome, Reason: st.Reason, Detail: st.Detail})
		}
	}
	return out
}

func adopted(st decide.Step) string {
	if st.Adopted != nil {
		return *st.Adopted
	}
	return "(" + st.Outcome + ")"
}

func final(a, b *decide.Analysis) *Final {
	cmd := func(x *decide.Analysis) string {
		if x.Final == nil {
			return ""
		}
		return x.Final.Command
	}
	f := &Final{Old: cmd(a), New: cmd(b), OldWhy: undecided(a), NewWhy: undecided(b)}
	f.Changed = f.Old != f.New
	return f
}

// undecided says why x has no recommendation, or why it is not
// measured; nil when it has a measured one.
func undecided(x *decide.Analysis) *Why {
	switch {
	case x.Final != nil && x.Final.Unmeasured:
		return &Why{Unmeasured: true}
	case x.Final != nil:
		return nil
	}
	w := &Why{Missing: len(x.Missing)}
	for _, t := range x.Plan.Trials {
		if t.Status == plan.Pending {
			w.Pending++
		}
	}
	return w
}

func validation(a, b *decide.Analysis) []Row {
	old := map[string]decide.ValidationRow{}
	for _, r := range a.Validation {
		old[r.Profile] = r
	}
	var out []Row
	for _, r := range b.Validation {
		o := old[r.Profile]
		out = append(out, Row{Profile: r.Profile, OldRatio: o.Ratio, NewRatio: r.Ratio, OldFinal: mean(o.Final), NewFinal: mean(r.Final)})
	}
	return out
}

func mean(v *decide.Value) *float64 {
	if v == nil {
		return nil
	}
	m := v.Mean
	return &m
}

func missing(a *decide.Analysis) []string {
	var out []string
	for _, m := range a.Missing {
		out = append(out, m.Step+"/"+m.Variant+"/"+m.Profile+" "+m.Key[:plan.KeyPrefix])
	}
	for _, t := range a.Plan.Trials {
		if t.Status == plan.Pending {
			out = append(out, t.Step+"/"+t.Variant+"/"+t.Profile+" (pending)")
		}
	}
	return out
}

// Regressions are replaced records significantly worse on the objective.
func (r Report) Regressions() []string {
	var out []string
	for _, s := range r.Studies {
		for _, x := range s.Records {
			if x.Verdict == decide.Worse {
				out = append(out, s.ID+": "+x.Trial)
			}
		}
	}
	return out
}

// Missing lists planned trials without records on the head side.
func (r Report) Missing() []string {
	var out []string
	for _, s := range r.Studies {
		for _, m := range s.Missing {
			out = append(out, s.ID+": "+m)
		}
	}
	return out
}
