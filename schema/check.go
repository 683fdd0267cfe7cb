package schema

import (
	"maps"
	"reflect"
	"slices"
	"sort"
	"strings"
)

// builtinKinds are the kinds an engine's name implies.
var builtinKinds = []string{"vllm", "sglang", "trtllm", "llamacpp"}

// engines resolves each engine's kind and definition, then checks its
// base settings against it.
func (c *checker) engines() {
	names := slices.Sorted(maps.Keys(c.s.Engines))
	ok := map[string]bool{}
	for _, name := range names {
		ok[name] = c.resolveEngine(name)
	}
	for _, name := range names {
		if !ok[name] {
			continue
		}
		e := c.s.Engines[name]
		c.knobsOn([]any{"base", "knobs"}, c.s.Base.Knobs, name)
		c.knobsOn([]any{"engines", name, "knobs"}, e.Knobs, name)
		c.argsOn([]any{"engines", name, "args"}, e.Args, name)
	}
}

func (c *checker) resolveEngine(name string) bool {
	e := c.s.Engines[name]
	parts := []any{"engines", name}
	kind := e.Kind
	if kind == "" {
		if !contains(builtinKinds, name) {
			c.errorf(parts, "engine %q needs a kind (vllm, sglang, trtllm, llamacpp or custom)", name)
			return false
		}
		kind = name
	}
	def, known := c.l.kinds[kind]
	if !known {
		c.errorf(at(parts, "kind"), "unknown engine kind %q (want vllm, sglang, trtllm, llamacpp or custom)", kind)
		return false
	}
	switch {
	case kind == "custom" && len(e.Command) == 0:
		c.errorf(parts, "a custom engine needs a command (e.g. [\"my-server\", \"--model\", \"{model}\"])")
		return false
	case kind == "custom":
		def.Knobs = e.KnobMap
	case len(e.KnobMap) > 0:
		c.errorf(at(parts, "knobMap"), "knobMap is only for custom engines; %s maps knobs itself", kind)
		fallthrough
	default:
		def.Knobs = def.KnobsAt(e.Version)
	}
	if len(e.Command) > 0 {
		def.Command = e.Command
	}
	if e.FlagStyle != "" {
		def.FlagStyle = e.FlagStyle
	}
	if e.Health != "" {
		def.Health = e.Health
	}
	e.Kind, e.Def = kind, def
	return true
}

// knobsOn checks that engine supports every knob (and every field of a
// struct knob) in knobs.
func (c *checker) knobsOn(parts []any, knobs Knobs, engine string) {
	e := c.s.Engines[engine]
	for _, k := range slices.Sorted(maps.Keys(knobs)) {
		if k == "modelVariant" {
			c.modelVariant(at(parts, k), knobs[k])
			continue
		}
		m, ok := e.Def.Knobs[k]
		if !ok {
			c.errorf(at(parts, k), "knob %s is not supported by engine %s", k, engineName(engine, e.Kind))
			continue
		}
		if m.Refuse != "" {
			c.errorf(at(parts, k), "knob %s is not supported by engine %s %s: %s", k, engineName(engine, e.Kind), e.Version, m.Refuse)
			continue
		}
		c.knobValue(at(parts, k), k, m, knobs[k], engine)
		sub, _ := knobs[k].(map[string]any)
		for _, f := range slices.Sorted(maps.Keys(sub)) {
			if !hasField(m, f) {
				c.errorf(at(parts, k, f), "%s.%s is not supported by engine %s", k, f, engineName(engine, e.Kind))
			}
		}
	}
}

func engineName(name, kind string) string {
	if name == kind {
		return name
	}
	return name + " (" + kind + ")"
}

func hasField(m KnobFlag, name string) bool {
	for _, f := range m.Fields {
		if f.Knob == name {
			return true
		}
	}
	return false
}

func (c *checker) modelVariant(parts []any, v any) {
	name, _ := v.(string)
	if _, ok := c.s.Model.Variants[name]; ok {
		return
	}
	if len(c.s.Model.Variants) == 0 {
		c.errorf(parts, "unknown model variant %q (model.variants declares none)", name)
		return
	}
	c.errorf(parts, "unknown model variant %q (variants: %s)", name, strings.Join(slices.Sorted(maps.Keys(c.s.Model.Variants)), ", "))
}

// steps checks step ids, candidates and variants. An unpinned step may
// run on any engine the adopted configuration can have at that point, so
// its knobs must suit all of them, and it cannot carry raw args.
func (c *checker) steps() {
	possible := map[string]bool{c.s.Baseline.Engine: true}
	first := map[string]int{}
	for i, st := range c.s.Steps {
		parts := []any{"steps", i}
		if j, dup := first[st.ID]; dup {
			c.errorf(at(parts, "id"), "duplicate step id %q (first at steps[%d])", st.ID, j)
		} else {
			first[st.ID] = i
		}
		engines := c.stepEngines(parts, st, possible)
		switch {
		case (st.Select != nil) == (len(st.Variants) > 0):
			c.errorf(parts, "step %q needs exactly one of select or variants", st.ID)
		case st.Select != nil:
			if next := c.selectStep(parts, st, engines); next != nil {
				possible = next
			}
		default:
			c.variants(at(parts, "variants"), st, st.Variants, engines)
		}
	}
}

func (c *checker) stepEngines(parts []any, st Step, possible map[string]bool) []string {
	if st.Engine == "" {
		return slices.Sorted(maps.Keys(possible))
	}
	if !c.engineRef(at(parts, "engine"), st.Engine) {
		return nil
	}
	if !possible[st.Engine] {
		c.errorf(at(parts, "engine"), "step is pinned to engine %q, which the adopted configuration cannot have here (it can be: %s)",
			st.Engine, strings.Join(slices.Sorted(maps.Keys(possible)), ", "))
	}
	return []string{st.Engine}
}

// selectStep checks a select step and returns the engines the adopted
// configuration can have after it (nil when unchanged).
func (c *checker) selectStep(parts []any, st Step, engines []string) map[string]bool {
	sel := st.Select
	parts = at(parts, "select")
	if (len(sel.Engines) > 0) == (len(sel.Variants) > 0) {
		c.errorf(parts, "select needs exactly one of engines or variants")
		return nil
	}
	if len(sel.Variants) > 0 {
		c.variants(at(parts, "variants"), st, sel.Variants, engines)
		return nil
	}
	next := map[string]bool{}
	for j, name := range sel.Engines {
		if next[name] {
			c.errorf(at(parts, "engines", j), "engine %q listed twice", name)
		}
		if c.engineRef(at(parts, "engines", j), name) {
			next[name] = true
		}
	}
	return next
}

func (c *checker) variants(parts []any, st Step, vs []Variant, engines []string) {
	first := map[string]int{}
	for j, v := range vs {
		vp := at(parts, j)
		if k, dup := first[v.Name]; dup {
			c.errorf(at(vp, "name"), "duplicate variant name %q in step %q (first at %s)", v.Name, st.ID, pathString(at(parts, k)))
			continue
		}
		first[v.Name] = j
		for _, e := range engines {
			c.knobsOn(at(vp, "knobs"), v.Knobs, e)
		}
		if len(engines) == 1 {
			c.noops(at(vp, "knobs"), v.Knobs, engines[0])
			c.defaultEquals(vp, st.ID, v, engines[0])
		}
		switch {
		case len(v.Args) == 0:
		case len(engines) > 1:
			c.errorf(at(vp, "args"), "raw args are in one engine's dialect, but step %q can run on %s: pin it with engine: \"...\"",
				st.ID, strings.Join(engines, ", "))
		case len(engines) == 1:
			c.argsOn(at(vp, "args"), v.Args, engines[0])
		}
	}
}

var textType = reflect.TypeOf(Text{})

// translations requires every text in zh and ru unless the study opted
// into English fallback.
func (c *checker) translations() {
	if c.s.I18n.Fallback == "en" {
		return
	}
	walkTexts(reflect.ValueOf(c.s).Elem(), nil, func(parts []any, t Text) {
		var missing []string
		if t.ZH == "" {
			missing = append(missing, "zh")
		}
		if t.RU == "" {
			missing = append(missing, "ru")
		}
		if len(missing) > 0 {
			c.errorf(parts, "missing translation: %s (or set i18n: fallback: \"en\")", strings.Join(missing, ", "))
		}
	})
}

func walkTexts(v reflect.Value, parts []any, f func([]any, Text)) {
	switch v.Kind() {
	case reflect.Pointer:
		if !v.IsNil() {
			walkTexts(v.Elem(), parts, f)
		}
	case reflect.Struct:
		if v.Type() == textType {
			f(parts, v.Interface().(Text))
			return
		}
		for i := 0; i < v.NumField(); i++ {
			name, _, _ := strings.Cut(v.Type().Field(i).Tag.Get("json"), ",")
			if name != "" && name != "-" {
				walkTexts(v.Field(i), at(parts, name), f)
			}
		}
	case reflect.Slice:
		for i := 0; i < v.Len(); i++ {
			walkTexts(v.Index(i), at(parts, i), f)
		}
	case reflect.Map:
		keys := v.MapKeys()
		sort.Slice(keys, func(i, j int) bool { return keys[i].String() < keys[j].String() })
		for _, k := range keys {
			walkTexts(v.MapIndex(k), at(parts, k.String()), f)
		}
	}
}
