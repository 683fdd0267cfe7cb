package main

import (
	"fmt"

	"servelab.dev/execute/decide"
	"servelab.dev/execute/store"
	"servelab.dev/schema/plan"
)

func runPlan(e *env, args []string) error {
	fs := newFlags(e, "plan", "STUDY.cue [--json]")
	asJSON := fs.Bool("json", false, "print the plan as JSON")
	results := fs.String("results", "results", "results folder: its records mark trials cached and decide steps")
	check := fs.Bool("check", false, "exit 1, naming them, when planned trials have no record (a CI guard)")
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
	rs, err := loadRecords(e, store.Open(*results))
	if err != nil {
		return err
	}
	p, err := decide.Plan(s, rs, decide.Auto)
	if err != nil {
		return err
	}
	if *check {
		return checkPlan(e, p)
	}
	if *asJSON {
		return printJSON(e, p, false)
	}
	return plan.WriteTable(e.stdout, p, s.Benchmark.Repeats.Max > 1)
}

// checkPlan prints the trials the plan can run (or will, once earlier
// steps are decided) that have no record, and fails on any.
func checkPlan(e *env, p *plan.Plan) error {
	missing := plan.Unrecorded(p)
	if len(missing) == 0 {
		fmt.Fprintf(e.stdout, "%s: every planned trial has a record\n", p.Study)
		return nil
	}
	for _, m := range missing {
		fmt.Fprintf(e.stderr, "%s: no record for %s\n", p.Study, m)
	}
	return fmt.Errorf("%d planned trials have no record", len(missing))
}
