package main

import (
	"servelab.dev/execute/decide"
	"servelab.dev/execute/store"
	"servelab.dev/render/text"
)

func runAnalyze(e *env, args []string) error {
	fs := newFlags(e, "analyze", "STUDY.cue [--json]")
	asJSON := fs.Bool("json", false, "print the analysis as JSON")
	results := fs.String("results", "results", "results folder")
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
	a, err := decide.Analyze(s, rs, decide.Auto)
	if err != nil {
		return err
	}
	unused, err := store.Open(*results).Unused()
	if err != nil {
		return err
	}
	a.Exclude(store.Columns(unused))
	if *asJSON {
		return printJSON(e, a, false)
	}
	text.Analysis(e.stdout, a)
	return nil
}
