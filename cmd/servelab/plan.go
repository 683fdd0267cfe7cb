package main

import (
	"encoding/json"

	"servelab.dev/schema"
	"servelab.dev/schema/plan"
)

func runPlan(e *env, args []string) error {
	fs := newFlags(e, "plan", "STUDY.cue [--json]")
	asJSON := fs.Bool("json", false, "print the plan as JSON")
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usagef("want one study file, got %d arguments", len(pos))
	}
	l, err := schema.NewLoader()
	if err != nil {
		return err
	}
	s, err := l.LoadFile(pos[0])
	if err != nil {
		return err
	}
	p, err := plan.New(s, plan.Options{})
	if err != nil {
		return err
	}
	if *asJSON {
		enc := json.NewEncoder(e.stdout)
		enc.SetIndent("", "  ")
		enc.SetEscapeHTML(false)
		return enc.Encode(p)
	}
	return plan.WriteTable(e.stdout, p, s.Benchmark.Repeats > 1)
}
