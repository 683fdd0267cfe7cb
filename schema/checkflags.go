package schema

import (
	"fmt"
	"maps"
	"slices"
	"strings"
)

// argsOn checks raw flags against the flag table of the engine's kind at
// the study's version: unknown flags (with the nearest known name),
// flags of other versions, values of the wrong type or outside the
// choices. It also refuses raw flags that a portable knob already covers
// (one way to say each thing).
func (c *checker) argsOn(parts []any, args Args, engine string) {
	e := c.s.Engines[engine]
	t := c.l.tables[e.Kind]
	for _, flag := range slices.Sorted(maps.Keys(args)) {
		p := at(parts, flag)
		if knob := knobForFlag(e.Def, flag); knob != "" {
			c.errorf(p, "--%s is the portable knob %s: set knobs.%s instead", flag, knob, knob)
			continue
		}
		if t == nil {
			continue // a custom engine: its parser is not known
		}
		f, negated, ok, other := t.Lookup(flag, e.Version)
		switch {
		case !ok && other != nil:
			c.errorf(p, "%s is not a flag of %s %s: it exists %s%s", t.Spelled(flag), e.Kind, e.Version, other.Range(), c.didYouMean(t, flag, e.Version))
		case !ok && sameSpelling(t, flag, e.Version) != "":
			c.errorf(p, "write %s as %s: servelab takes one spelling per flag, so that one setting has one key", t.Spelled(flag), t.Spelled(sameSpelling(t, flag, e.Version)))
		case !ok:
			c.errorf(p, "unknown flag %s for %s %s%s%s", t.Spelled(flag), e.Kind, e.Version, c.didYouMean(t, flag, e.Version), incomplete(t))
		case knobForFlag(e.Def, f.Name) != "":
			knob := knobForFlag(e.Def, f.Name)
			c.errorf(p, "%s is the portable knob %s: set knobs.%s instead", t.Spelled(flag), knob, knob)
		default:
			if msg := f.CheckValue(args[flag], negated); msg != "" {
				c.errorf(p, "%s for %s %s: %s", t.Spelled(flag), engineName(engine, e.Kind), e.Version, msg)
			}
		}
	}
}

func (c *checker) didYouMean(t *FlagTable, flag, version string) string {
	if s := t.Suggest(flag, version); s != "" {
		return "; did you mean " + t.Spelled(s) + "?"
	}
	return ""
}

// sameSpelling is the flag name differs from only by '_' for '-' (or
// the reverse), which some parsers take as the same flag.
func sameSpelling(t *FlagTable, flag, version string) string {
	if s := t.Suggest(flag, version); s != "" && editDistance(s, flag) == 0 {
		return s
	}
	return ""
}

func incomplete(t *FlagTable) string {
	if t.Complete {
		return ""
	}
	return fmt.Sprintf(" (if it is a real flag of %s, add it to schema/flags/%s.json with its source)", t.Engine, t.Engine)
}

// knobForFlag names the knob whose mapping writes flag, "" for none.
func knobForFlag(def EngineKind, flag string) string {
	for _, k := range slices.Sorted(maps.Keys(def.Knobs)) {
		m := def.Knobs[k]
		if m.Refuse != "" {
			continue
		}
		if m.Flag == flag || m.JSON == flag || slices.Contains(m.Flags, flag) {
			return k
		}
		for _, f := range m.Fields {
			if f.Flag == flag {
				return k
			}
		}
	}
	return ""
}

// knobValue checks the value a knob writes against what the flag, the
// environment variable or the options key it maps to accepts in the
// engine's version.
func (c *checker) knobValue(parts []any, knob string, m KnobFlag, v any, engine string) {
	e := c.s.Engines[engine]
	t := c.l.tables[e.Kind]
	if t == nil {
		return
	}
	check := func(list []FlagSpec, what, name string, val any) {
		for _, f := range list {
			if f.Name == name || slices.Contains(f.Aliases, name) {
				if !f.In(e.Version) {
					continue
				}
				if msg := f.CheckValue(val, false); msg != "" {
					c.errorf(parts, "knob %s writes %s %s for %s %s: %s", knob, what, name, engineName(engine, e.Kind), e.Version, msg)
				}
				return
			}
		}
		c.errorf(parts, "knob %s writes %s %s, which %s %s does not have (schema/flags/%s.json)", knob, what, name, e.Kind, e.Version, e.Kind)
	}
	switch {
	case m.Flag != "":
		check(t.Flags, "flag", m.Flag, rename(m.Values, v))
	case len(m.Flags) > 0:
		for _, f := range m.Flags {
			check(t.Flags, "flag", f, rename(m.Values, v))
		}
	case m.Env != "":
		check(t.Env, "environment variable", m.Env, rename(m.Values, v))
	case m.Option != "":
		check(t.Options, "option", m.Option, rename(m.Values, v))
	case len(m.Fields) > 0 && m.JSON == "":
		sub, _ := v.(map[string]any)
		for _, f := range m.Fields {
			if fv, ok := sub[f.Knob]; ok && f.Flag != "" {
				check(t.Flags, "flag", f.Flag, rename(f.Values, fv))
			}
		}
	case m.On != nil || m.Off != nil:
		b, _ := v.(bool)
		args := m.Off
		if b {
			args = m.On
		}
		for _, a := range args {
			name := strings.TrimPrefix(a, t.FlagPrefix)
			if _, _, ok, _ := t.Lookup(name, e.Version); !ok {
				c.errorf(parts, "knob %s writes %s, which %s %s does not have (schema/flags/%s.json)", knob, a, e.Kind, e.Version, e.Kind)
			}
		}
	}
}

// rename maps a portable value to the engine's name for it.
func rename(values map[string]string, v any) any {
	if s, ok := v.(string); ok {
		if r, ok := values[s]; ok {
			return r
		}
	}
	return v
}

// noops refuses a variant setting a switch knob to the engine's default
// when nothing earlier in the study set it otherwise: the knob writes no
// flag, so the variant would be its incumbent measured again (SGLang's
// prefixCaching: true, its radix cache being on by default).
func (c *checker) noops(parts []any, knobs Knobs, engine string) {
	e := c.s.Engines[engine]
	step, _ := parts[1].(int)
	for _, k := range slices.Sorted(maps.Keys(knobs)) {
		m, ok := e.Def.Knobs[k]
		b, isBool := knobs[k].(bool)
		if !ok || !isBool || m.Refuse != "" || (m.On == nil && m.Off == nil) {
			continue
		}
		args, other := m.Off, m.On
		if b {
			args, other = m.On, m.Off
		}
		if len(args) > 0 || c.setBefore(k, engine, step) {
			continue
		}
		why := ""
		if m.Note != "" {
			why = " (" + m.Note + ")"
		}
		alt := ""
		if len(other) > 0 {
			alt = fmt.Sprintf(", or set %v to try %s", !b, strings.Join(other, " "))
		}
		c.errorf(at(parts, k), "%s: %v writes no flag for %s%s, so the variant would equal its incumbent: drop it%s", k, b, engineName(engine, e.Kind), why, alt)
	}
}

// setBefore reports whether the study sets knob before step: in its base
// settings, the engine's, or a variant of an earlier step.
func (c *checker) setBefore(knob, engine string, step int) bool {
	if _, ok := c.s.Base.Knobs[knob]; ok {
		return true
	}
	if _, ok := c.s.Engines[engine].Knobs[knob]; ok {
		return true
	}
	for _, st := range c.s.Steps[:min(step, len(c.s.Steps))] {
		vs := st.Variants
		if st.Select != nil {
			vs = append(vs, st.Select.Variants...)
		}
		for _, v := range vs {
			if _, ok := v.Knobs[knob]; ok {
				return true
			}
		}
	}
	return false
}
