package plan

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"mvdan.cc/sh/v3/syntax"

	"servelab.dev/schema"
)

// Argv is the command that serves configuration c: the engine's launch
// template, then the knobs in the schema's order, then raw args sorted by
// name, so that the order of fields in a study file never changes a
// command (or a key). Host and port are not included: they are chosen at
// launch.
func Argv(s *schema.Study, c Config) ([]string, error) {
	l, err := Command(s, c)
	return l.Argv, err
}

// Launch is everything that serves a configuration: the argv, the
// environment (the configuration's own, with environment-variable knobs
// such as vLLM's VLLM_ATTENTION_BACKEND added), and files the argv names
// (TensorRT-LLM's options YAML), by name. A file's name holds a hash of
// its content, so the argv, and with it the trial's key, fixes it.
type Launch struct {
	Argv  []string
	Env   map[string]string
	Files map[string]string
}

// Command is the launch of configuration c; see Argv for the order.
func Command(s *schema.Study, c Config) (Launch, error) {
	e, ok := s.Engines[c.Engine]
	if !ok {
		return Launch{}, fmt.Errorf("unknown engine %q", c.Engine)
	}
	m, ok := s.Model.Variant(c.ModelVariant())
	if !ok {
		return Launch{}, fmt.Errorf("unknown model variant %q", c.ModelVariant())
	}
	var argv []string
	for _, w := range e.Def.Command {
		argv = append(argv, strings.ReplaceAll(w, "{model}", m.ID))
	}
	w := flagWriter{style: e.Def.FlagStyle, env: maps.Clone(c.Env), options: map[string]any{}}
	if w.env == nil {
		w.env = map[string]string{}
	}
	if m.Revision != "" && e.Def.RevisionFlag != "" {
		w.flag(e.Def.RevisionFlag, m.Revision)
	}
	for _, k := range s.KnobOrder {
		v, set := c.Knobs[k]
		if !set || k == "modelVariant" {
			continue
		}
		kf, ok := e.Def.Knobs[k]
		if !ok {
			return Launch{}, fmt.Errorf("knob %s is not supported by engine %s", k, c.Engine)
		}
		if err := w.knob(k, kf, v); err != nil {
			return Launch{}, err
		}
	}
	l := Launch{Env: w.env}
	if len(w.options) > 0 {
		if e.Def.OptionsFlag == "" {
			return Launch{}, fmt.Errorf("engine %s has no options file", c.Engine)
		}
		name, body := optionsFile(w.options)
		w.flag(e.Def.OptionsFlag, name)
		l.Files = map[string]string{name: body}
	}
	for _, name := range slices.Sorted(maps.Keys(c.Args)) {
		w.arg(name, c.Args[name])
	}
	l.Argv = append(argv, w.out...)
	return l, nil
}

type flagWriter struct {
	style   string
	out     []string
	env     map[string]string
	options map[string]any // dotted key → value
}

func (w *flagWriter) flag(name string, v any) {
	if w.style == "space" {
		w.out = append(w.out, "--"+name, format(v))
		return
	}
	w.out = append(w.out, "--"+name+"="+format(v))
}

func (w *flagWriter) arg(name string, v any) {
	switch v := v.(type) {
	case bool:
		if v {
			w.out = append(w.out, "--"+name)
		}
	default:
		w.flag(name, v)
	}
}

func (w *flagWriter) knob(name string, kf schema.KnobFlag, v any) error {
	switch {
	case kf.Refuse != "":
		return fmt.Errorf("knob %s: %s", name, kf.Refuse)
	case kf.Flag != "":
		w.flag(kf.Flag, rename(kf.Values, v))
	case len(kf.Flags) > 0:
		for _, f := range kf.Flags {
			w.flag(f, rename(kf.Values, v))
		}
	case kf.Env != "":
		w.env[kf.Env] = format(rename(kf.Values, v))
	case kf.Option != "":
		w.options[kf.Option] = rename(kf.Values, v)
	case kf.On != nil || kf.Off != nil:
		b, _ := v.(bool)
		if b {
			w.out = append(w.out, kf.On...)
		} else {
			w.out = append(w.out, kf.Off...)
		}
	case kf.JSON != "":
		obj, err := jsonObject(kf.Fields, v)
		if err != nil {
			return fmt.Errorf("knob %s: %w", name, err)
		}
		w.flag(kf.JSON, obj)
	case len(kf.Fields) > 0:
		m, _ := v.(map[string]any)
		for _, f := range kf.Fields {
			if fv, ok := m[f.Knob]; ok {
				w.flag(f.Flag, rename(f.Values, fv))
			}
		}
	default:
		return fmt.Errorf("knob %s has no mapping", name)
	}
	return nil
}

// jsonObject writes a struct knob as JSON with keys in the order of the
// mapping's fields (encoding/json would sort a map's keys).
func jsonObject(fields []schema.KnobField, v any) (string, error) {
	m, _ := v.(map[string]any)
	var b bytes.Buffer
	b.WriteByte('{')
	for _, f := range fields {
		fv, ok := m[f.Knob]
		if !ok {
			continue
		}
		if b.Len() > 1 {
			b.WriteByte(',')
		}
		k, _ := json.Marshal(f.Key)
		val, err := json.Marshal(rename(f.Values, fv))
		if err != nil {
			return "", err
		}
		b.Write(k)
		b.WriteByte(':')
		b.Write(val)
	}
	b.WriteByte('}')
	return b.String(), nil
}

func rename(values map[string]string, v any) any {
	if s, ok := v.(string); ok {
		if r, ok := values[s]; ok {
			return r
		}
	}
	return v
}

func format(v any) string {
	switch v := v.(type) {
	case string:
		return v
	case bool:
		return strconv.FormatBool(v)
	}
	if f, ok := schema.Number(v); ok {
		return strconv.FormatFloat(f, 'f', -1, 64)
	}
	return fmt.Sprint(v)
}

// Shell is argv (with env assignments first) as one bash command line
// that bash parses back to exactly env and argv.
func Shell(env map[string]string, argv []string) (string, error) {
	words, err := ShellWords(env, argv)
	if err != nil {
		return "", err
	}
	return strings.Join(words, " "), nil
}

// ShellLaunch is l as one bash command line: the files it needs written
// first (printf … > name &&), then Shell's form of its env and argv.
func ShellLaunch(l Launch) (string, error) {
	cmd, err := Shell(l.Env, l.Argv)
	if err != nil {
		return "", err
	}
	var pre []string
	for _, name := range slices.Sorted(maps.Keys(l.Files)) {
		q, err := syntax.Quote(l.Files[name], syntax.LangBash)
		if err != nil {
			return "", fmt.Errorf("file %s: %w", name, err)
		}
		pre = append(pre, "printf '%s' "+q+" > "+name+" &&")
	}
	return strings.Join(append(pre, cmd), " "), nil
}

// ShellWords quotes each word for bash; env assignments come first, in
// name order, with only their values quoted.
func ShellWords(env map[string]string, argv []string) ([]string, error) {
	var words []string
	for _, k := range slices.Sorted(maps.Keys(env)) {
		q, err := syntax.Quote(env[k], syntax.LangBash)
		if err != nil {
			return nil, fmt.Errorf("env %s: %w", k, err)
		}
		words = append(words, k+"="+q)
	}
	for i, a := range argv {
		q, err := quoteWord(a, i == 0)
		if err != nil {
			return nil, err
		}
		words = append(words, q)
	}
	return words, nil
}

// quoteWord leaves plain flags such as --max-model-len=32768 readable:
// syntax.Quote quotes every word holding '=', which bash does not need
// after the command word; the command word itself is quoted when it holds
// '=' so bash does not take it for an assignment.
func quoteWord(a string, first bool) (string, error) {
	if a != "" && strings.Trim(a, safeChars) == "" && !(first && strings.Contains(a, "=")) {
		return a, nil
	}
	return syntax.Quote(a, syntax.LangBash)
}

const safeChars = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./=:@%+,"
