package main

import (
	"encoding/json"
	"errors"
	"fmt"

	"servelab.dev/execute/decide"
	"servelab.dev/execute/store"
	"servelab.dev/schema"
)

// loadStudy loads one study file.
func loadStudy(file string) (*schema.Study, error) {
	l, err := schema.NewLoader()
	if err != nil {
		return nil, err
	}
	return l.LoadFile(file)
}

// loadRecords reads the valid ok records of the store and the
// per-request sidecars of those that have them: every command decides
// from both, so plan, run and the reports agree. A file that is not a
// valid record is named on stderr, one line each, and left out of the
// decisions; the command then does its work and exits 1 (see Main).
func loadRecords(e *env, st *store.Store) (decide.Records, error) {
	runs, samples, err := st.OKWithSamples()
	return decide.Records{Runs: runs, Samples: samples}, e.skipInvalid(err)
}

// skipInvalid reports the invalid records an error lists and swallows
// it; any other error is returned.
func (e *env) skipInvalid(err error) error {
	var bad store.Invalid
	if !errors.As(err, &bad) {
		return err
	}
	for _, b := range bad {
		if !e.named[b.Path] {
			fmt.Fprintf(e.stderr, "invalid record skipped: %s\n", b.Reason)
			e.named[b.Path] = true
		}
	}
	return nil
}

// printJSON writes v indented; escapeHTML keeps <, > and & escaped as
// encoding/json does by default.
func printJSON(e *env, v any, escapeHTML bool) error {
	enc := json.NewEncoder(e.stdout)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(escapeHTML)
	return enc.Encode(v)
}
