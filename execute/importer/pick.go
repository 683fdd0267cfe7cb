package importer

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"servelab.dev/schema/plan"
)

// Pick chooses the entry of a file to import into a trial. sel is what
// --entry says: "" (the only entry, or the only one whose load matches
// the trial's profile), a 1-based index, or conditions on the entry's
// load, "rate=4", "rate=inf", "concurrency=8", joined by commas. An
// empty or ambiguous choice is refused with the entries listed.
func Pick(rs []Result, sel, format string, spec plan.Spec) (int, error) {
	if sel == "" {
		return pickByTrial(rs, format, spec)
	}
	if n, err := strconv.Atoi(sel); err == nil {
		if n < 1 || n > len(rs) {
			return 0, fmt.Errorf("--entry %d is out of range: the file holds %d entries%s", n, len(rs), listing(rs, nil))
		}
		return n - 1, nil
	}
	conds, err := parseConds(sel)
	if err != nil {
		return 0, err
	}
	var hits []int
	for i := range rs {
		if conds.match(&rs[i]) {
			hits = append(hits, i)
		}
	}
	switch len(hits) {
	case 1:
		return hits[0], nil
	case 0:
		return 0, fmt.Errorf("--entry %s matches none of the file's %d entries%s", sel, len(rs), listing(rs, nil))
	}
	return 0, fmt.Errorf("--entry %s is ambiguous: %d entries match; choose one by index%s", sel, len(hits), listing(rs, hits))
}

// pickByTrial takes the only entry, or the only one the trial's checks
// accept; several candidates are ambiguous.
func pickByTrial(rs []Result, format string, spec plan.Spec) (int, error) {
	if len(rs) == 1 {
		return 0, nil
	}
	var hits []int
	for i := range rs {
		c := rs[i]
		c.Notes = nil
		if len(Check(&c, format, spec)) == 0 {
			hits = append(hits, i)
		}
	}
	if len(hits) == 1 {
		return hits[0], nil
	}
	why := "none matches the trial's profile"
	if len(hits) > 1 {
		why = fmt.Sprintf("%d match the trial's profile", len(hits))
	}
	return 0, fmt.Errorf("the file holds %d entries and %s: choose one with --entry N, --entry rate=R or --entry concurrency=C%s", len(rs), why, listing(rs, hits))
}

// EntryName is how provenance names entry i of n ("" for a lone entry).
func EntryName(rs []Result, i int) string {
	if len(rs) == 1 {
		return ""
	}
	return fmt.Sprintf("entry %d of %d (%s)", i+1, len(rs), rs[i].Label())
}

func listing(rs []Result, mark []int) string {
	var b strings.Builder
	for i := range rs {
		star := " "
		for _, m := range mark {
			if m == i {
				star = "*"
			}
		}
		fmt.Fprintf(&b, "\n %s %d: %s", star, i+1, rs[i].Label())
	}
	return b.String()
}

type conds struct {
	rate        *float64
	concurrency *int
}

func parseConds(sel string) (conds, error) {
	var c conds
	for _, part := range strings.Split(sel, ",") {
		k, v, ok := strings.Cut(strings.TrimSpace(part), "=")
		switch {
		case ok && k == "rate":
			r := math.Inf(1)
			if v != "inf" {
				f, err := strconv.ParseFloat(v, 64)
				if err != nil || f <= 0 {
					return c, fmt.Errorf("--entry %s: rate %q is not a positive number or inf", sel, v)
				}
				r = f
			}
			c.rate = &r
		case ok && k == "concurrency":
			n, err := strconv.Atoi(v)
			if err != nil || n < 1 {
				return c, fmt.Errorf("--entry %s: concurrency %q is not a positive whole number", sel, v)
			}
			c.concurrency = &n
		default:
			return c, fmt.Errorf("--entry %s: want an index (1, 2, ...) or rate=R, concurrency=C joined by commas", sel)
		}
	}
	return c, nil
}

func (c conds) match(r *Result) bool {
	if c.rate != nil && r.Rate != *c.rate {
		return false
	}
	mc := r.Metrics.MaxConcurrency
	return c.concurrency == nil || mc != nil && *mc == *c.concurrency
}
