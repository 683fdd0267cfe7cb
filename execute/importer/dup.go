package importer

import (
	"maps"
	"math"
	"slices"

	"servelab.dev/execute/record"
	"servelab.dev/execute/store"
)

// Duplicate is a stored run an import would repeat.
type Duplicate struct {
	Run store.Run
	// SameSource: the run was imported from the same bytes (and entry);
	// otherwise its figures equal the file's to the file's precision,
	// as when a report's block of that run is imported back.
	SameSource bool
}

// FindDuplicate looks for the run an import of r (source bytes hashing
// to sha, entry as EntryName says) would repeat: any run imported from
// the same source and entry, under any trial; or a run of trial key
// whose figures the file's rounded figures reproduce. A second record
// of one run would count as a second repeat and shrink the interval.
func FindDuplicate(r *Result, sha, entry, key string, all map[string][]store.Run) *Duplicate {
	for _, k := range slices.Sorted(maps.Keys(all)) {
		for _, run := range all[k] {
			p := run.Record.Provenance
			if p.Kind == record.Imported && p.SHA256 == sha && sameEntry(p.Entry, entry, r, &run.Record.Metrics) {
				return &Duplicate{Run: run, SameSource: true}
			}
		}
	}
	if r.Precision <= 0 {
		return nil // exact figures: the store itself refuses equal ones
	}
	for _, run := range all[key] {
		if reproduces(r, &run.Record.Metrics) {
			return &Duplicate{Run: run}
		}
	}
	return nil
}

// sameEntry: the entries match, or the record predates entry names
// (empty) and holds the entry's counts and duration.
func sameEntry(stored, entry string, r *Result, m *record.Metrics) bool {
	if stored == entry {
		return true
	}
	return stored == "" && m.Completed == r.Metrics.Completed && m.Duration == r.Metrics.Duration
}

// reproduces: every figure the file has is the stored one rounded to
// the file's step; counts are equal.
func reproduces(r *Result, m *record.Metrics) bool {
	f := &r.Metrics
	if f.Completed != m.Completed || !sameCount(f.OutputTokens, m.OutputTokens) || !sameCount(f.InputTokens, m.InputTokens) {
		return false
	}
	if a, ok := f.FailedCount(); ok {
		if b, ok := m.FailedCount(); !ok || a != b {
			return false
		}
	}
	step := func(family string) float64 {
		if s := f.Rounding[family]; s > 0 {
			return s
		}
		return r.Precision
	}
	if !near(f.Duration, m.Duration, r.Precision) {
		return false
	}
	for _, p := range [][2]*float64{{f.RequestThroughput, m.RequestThroughput}, {f.OutputThroughput, m.OutputThroughput},
		{f.TotalThroughput, m.TotalThroughput}, {f.PeakOutputThroughput, m.PeakOutputThroughput}} {
		if p[0] != nil && (p[1] == nil || !near(*p[0], *p[1], step("throughput"))) {
			return false
		}
	}
	for _, d := range []struct {
		family string
		a, b   *record.Dist
	}{{"latencyMs", f.Latency, m.Latency}, {"ttftMs", f.TTFT, m.TTFT}, {"tpotMs", f.TPOT, m.TPOT}, {"itlMs", f.ITL, m.ITL}} {
		if !distNear(d.a, d.b, step(d.family)) {
			return false
		}
	}
	return f.TTFT != nil
}

// sameCount: a count the file has must be the stored one.
func sameCount(file, stored *int) bool {
	return file == nil || stored != nil && *file == *stored
}

func distNear(a, b *record.Dist, step float64) bool {
	if a == nil {
		return true
	}
	for _, s := range []string{"mean", "median", "std", "p90", "p95", "p99"} {
		x, ok := a.Stat(s)
		if !ok {
			continue
		}
		y, ok := b.Stat(s)
		if !ok || !near(x, y, step) {
			return false
		}
	}
	return true
}

// near: x is y rounded to step (half a step either way, and a little
// for the binary representation of decimals).
func near(x, y, step float64) bool {
	return math.Abs(x-y) <= step/2+1e-9*math.Max(1, math.Abs(y))
}
