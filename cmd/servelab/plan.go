package main

import (
	"encoding/json"

	"servelab.dev/execute/store"
	"servelab.dev/schema/plan"
)

func runPlan(e *env, args []string) error {
	fs := newFlags(e, "plan", "STUDY.cue [--json]")
	asJSON := fs.Bool("json", false, "print the plan as JSON")
	results := fs.String("results", "results", "results folder: its records mark trials cached and decide steps")
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usagef("want one study file, got %d arguments", len(pos))
	}
	s, err := loadStudy(pos[0])
	if err != nil {
		return err
	}
	runs, err := loadRuns(store.Open(*results))
	if err != nil {
		return err
	}
	p, err := decidedPlan(s, runs)
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
