package record

import (
	"fmt"
	"slices"
	"strconv"
	"time"
)

// SharedGPUs lists every pair of runs that overlapped in time on a GPU
// of the same host: each of them measured a GPU another trial was
// using, so neither figure is its configuration's alone. A run whose
// record names no GPU list (written before servelab recorded them)
// counts as holding every GPU of its host. Runs without a host or times
// (imported ones) cannot clash. Times are whole seconds, so runs that
// touch within one second are not counted as overlapping.
func SharedGPUs(rs []*Record) []string {
	type span struct {
		r          *Record
		start, end time.Time
		gpus       []string
	}
	var spans []span
	for _, r := range rs {
		p := r.Provenance
		if p.Host == "" {
			continue
		}
		start, err1 := time.Parse(time.RFC3339Nano, p.Start)
		end, err2 := time.Parse(time.RFC3339Nano, p.End)
		if err1 != nil || err2 != nil {
			continue
		}
		spans = append(spans, span{r, start, end, gpuIDs(p)})
	}
	var out []string
	for i, a := range spans {
		for _, b := range spans[i+1:] {
			if a.r.Provenance.Host != b.r.Provenance.Host || !a.start.Before(b.end) || !b.start.Before(a.end) {
				continue
			}
			if g, ok := common(a.gpus, b.gpus); ok {
				out = append(out, fmt.Sprintf("%s and %s ran at once on %s GPU %s (%s to %s, %s to %s)",
					short(a.r.Key), short(b.r.Key), a.r.Provenance.Host, g, a.r.Provenance.Start, a.r.Provenance.End, b.r.Provenance.Start, b.r.Provenance.End))
			}
		}
	}
	return out
}

// gpuIDs names a run's GPUs by UUID where known, else index; nil means
// every GPU of the host.
func gpuIDs(p Provenance) []string {
	var ids []string
	for _, g := range p.GPUs {
		switch {
		case g.UUID != "":
			ids = append(ids, g.UUID)
		default:
			ids = append(ids, strconv.Itoa(g.Index))
		}
	}
	return ids
}

func common(a, b []string) (string, bool) {
	switch {
	case a == nil && b == nil:
		return "(all)", true
	case a == nil:
		return b[0], true
	case b == nil:
		return a[0], true
	}
	for _, g := range a {
		if slices.Contains(b, g) {
			return g, true
		}
	}
	return "", false
}
