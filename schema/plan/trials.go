package plan

import (
	"fmt"
	"sort"

	"servelab.dev/schema"
)

// trials builds the trials of configuration c on profiles, repeats times.
// With record false they are returned for the decider but not listed.
func (b *builder) trials(step, variant string, c Config, profiles []string, repeats int, record bool) ([]*Trial, error) {
	s := b.s
	l, err := Command(s, c)
	if err != nil {
		return nil, fmt.Errorf("step %s, variant %s: %w", step, variant, err)
	}
	argv := l.Argv
	keyed := c
	keyed.Env = l.Env // env-var knobs are part of the key
	cmd, err := ShellLaunch(l)
	if err != nil {
		return nil, fmt.Errorf("step %s, variant %s: %w", step, variant, err)
	}
	e := s.Engines[c.Engine]
	m, _ := s.Model.Variant(c.ModelVariant())
	// at makes the trials of one load, n repeats.
	at := func(p string, prof schema.Profile, rate float64, n int) []*Trial {
		var ts []*Trial
		for r := range n {
			spec := specFor(s, keyed, argv, prof, r)
			t := &Trial{
				Key: spec.Key(), Step: step, Variant: variant,
				Engine: c.Engine, Kind: e.Kind, Version: e.Version, Model: m.ID,
				Profile: p, Rate: rate, Repeat: r, Argv: argv, Env: spec.Env, Command: cmd,
				Status: Runnable, Seconds: loadSeconds(s, prof), Spec: &spec, Config: c,
			}
			if b.opt.Cached != nil && b.opt.Cached(t.Key) {
				t.Status = Cached
			}
			ts = append(ts, t)
		}
		return ts
	}
	var out []*Trial
	for _, p := range profiles {
		prof := s.Profiles[p]
		if prof.Search == nil {
			out = append(out, at(p, prof, 0, repeats)...)
			continue
		}
		// A search lists the probes it ran and the one it needs next; a
		// probe whose failure may be one stall gets one more repeat.
		runs := map[float64]int{}
		oracle := func(rate float64) (bool, bool) {
			if b.opt.Probe == nil {
				return false, false
			}
			for n := repeats; ; n++ {
				var keys []string
				for _, t := range at(p, prof.Probe(rate), rate, n) {
					keys = append(keys, t.Key)
				}
				runs[rate] = n
				meets, known := b.opt.Probe(keys)
				if !known || meets || n > repeats || b.opt.Confirm == nil || !b.opt.Confirm(keys) {
					return meets, known
				}
			}
		}
		sr := Bisect(*prof.Search, oracle)
		for _, pr := range sr.Probes {
			out = append(out, at(p, prof.Probe(pr.Rate), pr.Rate, runs[pr.Rate])...)
		}
		if sr.Next > 0 {
			out = append(out, at(p, prof.Probe(sr.Next), sr.Next, runs[sr.Next])...)
		}
	}
	if record {
		b.occ = append(b.occ, out...)
	}
	return out, nil
}

// pendingStep lists a step whose incumbent is not known yet: its variants
// and profiles, without keys or commands.
func (b *builder) pendingStep(st schema.Step) {
	profiles := b.stepProfiles(st)
	if st.Select != nil && len(st.Select.Engines) > 0 {
		for _, e := range st.Select.Engines {
			b.pending(st.ID, e, e, nil, profiles, b.stepRepeats(st).Min)
		}
		return
	}
	for _, v := range variantsOf(st) {
		b.pending(st.ID, v.Name, st.Engine, &v, profiles, b.stepRepeats(st).Min)
	}
}

func (b *builder) pending(step, variant, engine string, v *schema.Variant, profiles []string, repeats int) {
	s := b.s
	var model string
	var changes []string
	if v != nil {
		if mv, ok := v.Knobs["modelVariant"].(string); ok {
			m, _ := s.Model.Variant(mv)
			model = m.ID
		}
		changes = b.changes(engine, *v)
	}
	kind, version := "", ""
	if e, ok := s.Engines[engine]; ok {
		kind, version = e.Kind, e.Version
	}
	for _, p := range profiles {
		for r := range repeats {
			b.occ = append(b.occ, &Trial{
				Step: step, Variant: variant, Engine: engine, Kind: kind, Version: version,
				Model: model, Profile: p, Repeat: r, Status: Pending,
				Changes: changes, Seconds: profileSeconds(s, p),
			})
		}
	}
}

// changes describes what a pending variant adds: flags when the engine
// is known, portable knob settings otherwise.
func (b *builder) changes(engine string, v schema.Variant) []string {
	return VariantFlags(b.s, engine, v)
}

// VariantFlags is what variant v adds to engine's command: its
// environment and flags, as shell words; knob=value pairs when the engine
// is unknown (a step for whichever engine an earlier step selects).
func VariantFlags(s *schema.Study, engine string, v schema.Variant) []string {
	if e, ok := s.Engines[engine]; ok {
		l, err := Command(s, Config{Engine: engine, Knobs: v.Knobs, Args: v.Args, Env: v.Env})
		if err == nil {
			words, _ := ShellWords(l.Env, nil) // env-var knobs change the launch too
			return append(words, l.Argv[len(e.Def.Command):]...)
		}
	}
	var out []string
	for _, k := range s.KnobOrder {
		if val, ok := v.Knobs[k]; ok {
			out = append(out, fmt.Sprintf("%s=%v", k, val))
		}
	}
	return out
}

// merge lists each key once. When a key occurs several times (the
// baseline is often also a step's candidate, and a validation profile
// often the objective's), the trial is listed under its first occurrence
// in a step proper, with the others named in Also.
func (b *builder) merge() []*Trial {
	groups := map[string][]*Trial{}
	for _, t := range b.occ {
		if t.Key != "" {
			groups[t.Key] = append(groups[t.Key], t)
		}
	}
	var out []*Trial
	for _, t := range b.occ {
		if t.Key == "" {
			out = append(out, t)
			continue
		}
		g := groups[t.Key]
		if primary(g) != t {
			continue
		}
		for _, o := range g {
			if o != t {
				t.Also = append(t.Also, o.Step+"/"+o.Variant)
			}
		}
		sort.Strings(t.Also)
		t.Also = dedupe(t.Also)
		out = append(out, t)
	}
	return out
}

func primary(g []*Trial) *Trial {
	for _, t := range g {
		if !auxiliary(t) {
			return t
		}
	}
	return g[0]
}

// auxiliary occurrences only re-use a configuration another role defines.
func auxiliary(t *Trial) bool {
	return t.Step == "baseline" || t.Step == "validate" || t.Variant == "incumbent"
}

func dedupe(s []string) []string {
	out := s[:0]
	for i, x := range s {
		if i == 0 || x != s[i-1] {
			out = append(out, x)
		}
	}
	return out
}
