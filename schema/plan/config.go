// Package plan expands a study into its trial matrix: one engine
// configuration × one profile × one repeat per trial, each with a stable
// key, its command as an argv, and a status (runnable, pending on an
// earlier step's decision, or cached).
//
// Steps are cumulative: a step's variants apply on top of the
// configuration the earlier steps adopted. A step whose incumbent is not
// decided yet is listed as pending rather than guessed; a Decider (the
// analysis, fed with result records) lets the plan go further.
//
// The plan's JSON form (servelab plan --json) is:
//
//	{
//	  "study":    study id,
//	  "file":     the study file,
//	  "steps":    [{"id", "kind": "select"|"try", "status":
//	               "decided"|"undecided"|"pending"|"skipped",
//	               "adopted": variant name or "" (incumbent kept)}],
//	  "trials":   [{"key": sha256 hex ("" when pending), "step", "variant",
//	               "also": other step/variant pairs sharing the key,
//	               "engine", "kind", "version", "model", "profile",
//	               "repeat", "argv", "env", "command" (bash form of argv),
//	               "status": "runnable"|"pending"|"cached",
//	               "changes": the variant's own flags (pending trials),
//	               "seconds": estimated benchmark seconds,
//	               "spec": the canonical description the key hashes}],
//	  "estimate": {"launches", "launchSeconds", "benchmarkSeconds",
//	               "totalSeconds", "trials", "pending", "cached"}
//	}
package plan

import (
	"maps"

	"servelab.dev/schema"
)

// Config is one engine configuration: what is launched, before a profile
// is driven against it.
type Config struct {
	Engine string // the study's engine name
	Knobs  schema.Knobs
	Args   schema.Args
	Env    map[string]string
}

// BaseConfig is engine at the study's base settings and its own.
func BaseConfig(s *schema.Study, engine string) Config {
	e := s.Engines[engine]
	c := Config{Engine: engine, Knobs: schema.Knobs{}, Args: schema.Args{}, Env: map[string]string{}}
	maps.Copy(c.Knobs, s.Base.Knobs)
	maps.Copy(c.Knobs, e.Knobs)
	maps.Copy(c.Args, e.Args)
	maps.Copy(c.Env, s.Base.Env)
	maps.Copy(c.Env, e.Env)
	return c
}

// Apply returns c with v's settings on top. A struct knob such as
// speculative is replaced whole, not merged field by field: a variant
// states the complete speculative configuration it means.
func (c Config) Apply(v schema.Variant) Config {
	out := Config{Engine: c.Engine, Knobs: maps.Clone(c.Knobs), Args: maps.Clone(c.Args), Env: maps.Clone(c.Env)}
	maps.Copy(out.Knobs, v.Knobs)
	maps.Copy(out.Args, v.Args)
	maps.Copy(out.Env, v.Env)
	return out
}

// ModelVariant is the model variant the configuration serves ("" for the
// study's model itself).
func (c Config) ModelVariant() string {
	v, _ := c.Knobs["modelVariant"].(string)
	return v
}
