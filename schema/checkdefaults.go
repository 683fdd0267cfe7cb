package schema

import (
	"fmt"
	"maps"
	"slices"
	"strings"
)

// DefaultEqual is a variant that writes an engine's own default for a
// flag, where nothing earlier in the study set the flag otherwise: the
// variant measures its incumbent again. vet warns of it and the report
// says so beside its other warnings.
type DefaultEqual struct {
	Step, Variant string
	// Flag is the flag as written (--cache-ram), Value the default.
	Flag, Value string
	// Engine is the kind, Version the study's version of it.
	Engine, Version string
	Source          FlagSource
}

// flagWrite is one flag a set of knobs or raw args writes: the flag's
// entry, the value as the study wrote it (true for a switch written,
// false for its negation) and the knob or arg that wrote it.
type flagWrite struct {
	spec  FlagSpec
	value any
	via   string
}

// flagWrites lists the flags knobs and args write on engine, in the
// order of their names; knobs that write environment variables,
// options or JSON are left out (no table holds their defaults).
func (c *checker) flagWrites(knobs Knobs, args Args, engine string) []flagWrite {
	e := c.s.Engines[engine]
	t := c.l.tables[e.Kind]
	if t == nil {
		return nil
	}
	var out []flagWrite
	add := func(via, name string, v any) {
		if f, negated, ok, _ := t.Lookup(name, e.Version); ok && v != nil {
			if b, isBool := v.(bool); isBool && negated {
				v = !b
			}
			out = append(out, flagWrite{f, v, via})
		}
	}
	for _, k := range slices.Sorted(maps.Keys(knobs)) {
		knobWrites(t, e.Def.Knobs[k], k, knobs[k], add)
	}
	for _, name := range slices.Sorted(maps.Keys(args)) {
		if b, ok := args[name].(bool); !ok || b { // false writes nothing
			add("args."+name, name, args[name])
		}
	}
	return out
}

// knobWrites calls add for each flag knob k's mapping m writes for v.
func knobWrites(t *FlagTable, m KnobFlag, k string, v any, add func(via, name string, v any)) {
	switch {
	case m.Refuse != "":
	case m.Flag != "":
		add(k, m.Flag, rename(m.Values, v))
	case len(m.Flags) > 0:
		for _, f := range m.Flags {
			add(k, f, rename(m.Values, v))
		}
	case len(m.Fields) > 0 && m.JSON == "":
		sub, _ := v.(map[string]any)
		for _, f := range m.Fields {
			if fv, ok := sub[f.Knob]; ok && f.Flag != "" {
				add(k+"."+f.Knob, f.Flag, rename(f.Values, fv))
			}
		}
	case m.On != nil || m.Off != nil:
		list := m.Off
		if b, _ := v.(bool); b {
			list = m.On
		}
		for _, a := range list {
			name, val, hasVal := strings.Cut(strings.TrimPrefix(a, t.FlagPrefix), "=")
			if hasVal {
				add(k, name, val)
			} else {
				add(k, name, true)
			}
		}
	}
}

// defaultEquals warns of each flag variant v of step writes at the
// value that is the engine's default at the study's version, unless
// something earlier set that flag to another value (then the default
// may not be the incumbent's).
func (c *checker) defaultEquals(parts []any, stepID string, v Variant, engine string) {
	e := c.s.Engines[engine]
	t := c.l.tables[e.Kind]
	step, _ := parts[1].(int)
	for _, w := range c.flagWrites(v.Knobs, v.Args, engine) {
		if w.spec.Default == "" || !w.spec.SameValue(w.value, w.spec.Default) || c.flagSetBefore(w.spec, engine, step) {
			continue
		}
		src, err := t.DefaultSource(w.spec)
		if err != nil {
			continue // ParseFlagTable refused such a table
		}
		d := DefaultEqual{Step: stepID, Variant: v.Name, Flag: t.Spelled(w.spec.Name), Value: w.spec.Default,
			Engine: e.Kind, Version: e.Version, Source: src}
		c.s.DefaultEquals = append(c.s.DefaultEquals, d)
		p := at(parts, "knobs", strings.Split(w.via, ".")[0])
		if rest, ok := strings.CutPrefix(w.via, "args."); ok {
			p = at(parts, "args", rest)
		}
		c.warnf(p, "variant %q sets %s %s, which is %s's default at %s (read from %s): the variant measures its incumbent again; drop it or choose another value",
			v.Name, d.Flag, d.Value, d.Engine, d.Version, d.Source.Cite())
	}
}

// flagSetBefore reports whether the study writes flag f with a value
// other than its default before step: in its base settings, the
// engine's knobs or args, or a variant of an earlier step (which may
// have been adopted).
func (c *checker) flagSetBefore(f FlagSpec, engine string, step int) bool {
	e := c.s.Engines[engine]
	writes := c.flagWrites(c.s.Base.Knobs, nil, engine)
	writes = append(writes, c.flagWrites(e.Knobs, e.Args, engine)...)
	for _, st := range c.s.Steps[:min(step, len(c.s.Steps))] {
		vs := st.Variants
		if st.Select != nil {
			vs = append(vs, st.Select.Variants...)
		}
		for _, v := range vs {
			args := v.Args
			if st.Engine != engine {
				args = nil // in another engine's dialect
			}
			writes = append(writes, c.flagWrites(v.Knobs, args, engine)...)
		}
	}
	for _, w := range writes {
		if w.spec.Name == f.Name && !f.SameValue(w.value, f.Default) {
			return true
		}
	}
	return false
}

// Cite names the file a source was read in: repo@commit:path, with the
// commit shortened to 8 digits.
func (s FlagSource) Cite() string {
	return fmt.Sprintf("%s@%.8s:%s", s.Repo, s.Commit, s.Path)
}
