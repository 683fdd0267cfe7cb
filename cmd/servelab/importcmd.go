package main

import (
	"fmt"
	"strings"
	"time"

	"servelab.dev/execute/importer"
	"servelab.dev/execute/ingest"
	"servelab.dev/execute/store"
)

func runImport(e *env, args []string) error {
	fs := newFlags(e, "import", "STUDY.cue --trial SELECTOR --format FORMAT FILE")
	sel := fs.String("trial", "", "trial key (or 8+ hex prefix), or step/variant/profile[/repeat]")
	format := fs.String("format", "", "file format: "+strings.Join(importer.Formats(), ", ")+", or auto (recognised from the content)")
	entry := fs.String("entry", "", "which run of a file holding several: its index (1-based), or rate=R and/or concurrency=C (default: the only one matching the trial)")
	results := fs.String("results", "results", "results folder")
	wait := fs.Duration("lock-wait", 30*time.Second, "how long to wait for another servelab holding the results folder")
	replace := fs.Bool("replace", false, "replace the trial's existing runs with this one (a file imported before: only the run it gave); they move to RESULTS/.replaced/KEY/ (printed), never deleted")
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	if *wait < 0 {
		return usagef("--lock-wait %s: want a duration of 0 or more", *wait)
	}
	if len(pos) != 2 || *sel == "" || *format == "" {
		return usagef("want: servelab import STUDY.cue --trial SELECTOR --format FORMAT FILE")
	}
	s, err := loadStudy(pos[0])
	if err != nil {
		return err
	}
	src, err := ingest.Read(pos[1], *format)
	if err != nil {
		return err
	}
	st := store.Open(*results)
	unlock, err := st.Lock(*wait, "servelab import "+pos[1])
	if err != nil {
		return err
	}
	defer unlock()
	res, err := ingest.Into(st, s, src, ingest.Options{Trial: *sel, Entry: *entry, Replace: *replace, Version: version})
	if err := e.skipInvalid(res.Invalid); err != nil {
		return err
	}
	if err != nil {
		return err
	}
	fmt.Fprintln(e.stdout, res.Message)
	return nil
}
