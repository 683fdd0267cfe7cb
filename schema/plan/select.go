package plan

import (
	"fmt"
	"strings"
)

// Select finds the trial a selector names: a key (or a prefix of at
// least 8 hex digits), or step/variant/profile[/repeat], where the pair
// may be any role of the trial (validate/final, baseline/baseline).
func Select(p *Plan, sel string) (*Trial, error) {
	var hits []*Trial
	parts := strings.Split(sel, "/")
	for _, t := range p.Trials {
		if matches(t, sel, parts) {
			hits = append(hits, t)
		}
	}
	switch {
	case len(hits) == 1 && hits[0].Status == Pending:
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

// matches reports whether t is the trial sel (split into parts at /)
// names.
func matches(t *Trial, sel string, parts []string) bool {
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

// Unrecorded names every trial of p that has no record, as
// step/variant/profile/repeat: with its key prefix when it can run now,
// marked (pending) when it waits behind an undecided step. `servelab
// plan --check` fails on any (results not committed with a study change).
func Unrecorded(p *Plan) []string {
	var missing []string
	for _, t := range p.Trials {
		switch t.Status {
		case Runnable:
			missing = append(missing, fmt.Sprintf("%s/%s/%s/%d %s", t.Step, t.Variant, t.Profile, t.Repeat, t.Key[:KeyPrefix]))
		case Pending:
			missing = append(missing, fmt.Sprintf("%s/%s/%s/%d (pending)", t.Step, t.Variant, t.Profile, t.Repeat))
		}
	}
	return missing
}
