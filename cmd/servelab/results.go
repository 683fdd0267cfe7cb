package main

import (
	"errors"
	"fmt"
	"strings"

	"servelab.dev/execute/decide"
	"servelab.dev/execute/store"
	"servelab.dev/schema"
	"servelab.dev/schema/plan"
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

// selectTrial finds the trial a selector names: a key (or a prefix of at
// least 8 hex digits), or step/variant/profile[/repeat], where the pair
// may be any role of the trial (validate/final, baseline/baseline).
func selectTrial(p *plan.Plan, sel string) (*plan.Trial, error) {
	var hits []*plan.Trial
	parts := strings.Split(sel, "/")
	for _, t := range p.Trials {
		if matches(t, sel, parts) {
			hits = append(hits, t)
		}
	}
	switch {
	case len(hits) == 1 && hits[0].Status == plan.Pending:
		return nil, fmt.Errorf("trial %s is pending: an earlier step is not decided yet (import its records first)", sel)
	case len(hits) == 1:
		return hits[0], nil
	case len(hits) == 0:
		return nil, fmt.Errorf("no trial matches %q (use a key, or step/variant/profile as `servelab plan` lists them)", sel)
	}
	var names []string
	for _, t := range hits {
		names = append(names, fmt.Sprintf("%s/%s/%s/%d", t.Step, t.Variant, t.Profile, t.Repeat))
	}
	return nil, fmt.Errorf("%q matches %d trials (%s): add the profile or repeat", sel, len(hits), strings.Join(names, ", "))
}

func matches(t *plan.Trial, sel string, parts []string) bool {
	if len(sel) >= 8 && t.Key != "" && strings.HasPrefix(t.Key, sel) {
		return true
	}
	if len(parts) < 2 || len(parts) > 4 {
		return false
	}
	if len(parts) >= 3 && parts[2] != t.Profile {
		return false
	}
	if len(parts) == 4 && parts[3] != fmt.Sprint(t.Repeat) {
		return false
	}
	return t.HasRole(parts[0] + "/" + parts[1])
}
