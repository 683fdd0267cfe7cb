package main

import (
	"fmt"

	"servelab.dev/schema"
)

func runVet(e *env, args []string) error {
	fs := newFlags(e, "vet", "PATH...")
	paths, err := parse(fs, args)
	if err != nil {
		return err
	}
	if len(paths) == 0 {
		return usagef("no paths (give study files or folders)")
	}
	l, err := schema.NewLoader()
	if err != nil {
		return err
	}
	studies, errs := l.LoadPaths(paths)
	if len(errs) > 0 {
		return errs
	}
	for _, s := range studies {
		fmt.Fprintf(e.stdout, "ok  %s  %s\n", s.ID, s.File)
		for _, w := range s.Warnings {
			fmt.Fprintln(e.stderr, w)
		}
	}
	return nil
}
