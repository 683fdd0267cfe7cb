package main

import (
	"fmt"

	"servelab.dev/i18n"
	"servelab.dev/render/diff"
	"servelab.dev/render/diff/gitrev"
)

func runDiff(e *env, args []string) error {
	fs := newFlags(e, "diff", "BASE [HEAD] [--study ID] [--lang en|zh|ru] [--json] [--format md|text] [--fail-on missing,regression]")
	lang := fs.String("lang", "en", "language of the Markdown")
	asJSON := fs.Bool("json", false, "print the comparison as JSON")
	format := fs.String("format", "", "md (default when not a terminal) or text")
	failOn := fs.String("fail-on", "", "exit 1 on: missing (planned trials without records), regression (significantly worse records)")
	studies := fs.String("studies", "studies", "studies folder, relative to the repository root")
	results := fs.String("results", "results", "results folder, relative to the repository root")
	only := fs.String("study", "", "review this study alone (its ID)")
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	if len(pos) < 1 || len(pos) > 2 {
		return usagef("want BASE [HEAD] git revisions")
	}
	p, err := i18n.New(*lang)
	if err != nil {
		return usageError{err.Error()}
	}
	root, err := gitrev.Toplevel(".")
	if err != nil {
		return err
	}
	base, err := diff.At(root, pos[0], *studies, *results)
	if err != nil {
		return err
	}
	head := ""
	if len(pos) == 2 {
		head = pos[1]
	}
	hd, err := diff.At(root, head, *studies, *results)
	if err != nil {
		return err
	}
	rep := diff.Compare(base, hd)
	if *only != "" {
		if rep, err = rep.Only(*only); err != nil {
			return err
		}
	}
	switch {
	case *asJSON:
		if err := printJSON(e, rep, true); err != nil {
			return err
		}
	default:
		plain := *format == "text" || *format == "" && isTerminal(e.stdout)
		fmt.Fprint(e.stdout, rep.Write(p, plain))
	}
	return failures(e, rep, *failOn)
}

func failures(e *env, rep diff.Report, failOn string) error {
	bad, err := rep.Failures(failOn)
	if err != nil {
		return usagef("--fail-on %v", err)
	}
	for _, b := range bad {
		fmt.Fprintln(e.stderr, "fail-on:", b)
	}
	if len(bad) > 0 {
		return fmt.Errorf("%d problems named by --fail-on %s", len(bad), failOn)
	}
	return nil
}
