package importer

import (
	"fmt"
	"math"
	"path"
	"strconv"
	"strings"

	"servelab.dev/schema/plan"
)

// Check compares what the file says about its run with the trial it is
// imported into, and returns one message per field that disagrees. A
// printed vllm block on a profile without a concurrency cap may carry a
// "Maximum request concurrency" that is really the observed peak (seed
// 000's blocks do): that figure is dropped with a note instead.
func Check(r *Result, format string, spec plan.Spec) []string {
	f := formats[format]
	var bad []string
	bad = append(bad, checkRequests(r, spec.Profile)...)
	bad = append(bad, checkLoad(r, f, spec.Profile)...)
	bad = append(bad, checkDataset(r, spec.Benchmark.Dataset)...)
	if r.Model != "" && r.Model != spec.Model.ID && path.Base(r.Model) != path.Base(spec.Model.ID) {
		bad = append(bad, fmt.Sprintf("model: the file ran %s, the trial serves %s", r.Model, spec.Model.ID))
	}
	if r.Engine != "" && r.Engine != spec.Engine.Kind {
		bad = append(bad, fmt.Sprintf("engine: the file comes from %s, the trial runs %s", r.Engine, spec.Engine.Kind))
	}
	if !f.AnyClient && r.Client != spec.Benchmark.Client {
		bad = append(bad, fmt.Sprintf("client: the file was written by %s, the study's benchmark client is %s", r.Client, spec.Benchmark.Client))
	}
	return bad
}

// checkRequests: with a failed count the file's requests must be the
// profile's; without one, the completed ones cannot be more.
func checkRequests(r *Result, p plan.ProfileSpec) []string {
	m := r.Metrics
	if r.Requests > 0 && r.Requests != p.Requests {
		return []string{fmt.Sprintf("requests: the file was asked for %d, the trial's profile sends %d", r.Requests, p.Requests)}
	}
	failed, known := m.FailedCount()
	switch {
	case known && m.Completed+failed != p.Requests:
		return []string{fmt.Sprintf("requests: the file has %d (%d completed, %d failed), the trial's profile sends %d",
			m.Completed+failed, m.Completed, failed, p.Requests)}
	case !known && m.Completed > p.Requests:
		return []string{fmt.Sprintf("requests: the file completed %d, more than the %d the trial's profile sends", m.Completed, p.Requests)}
	}
	return nil
}

func checkLoad(r *Result, f Format, p plan.ProfileSpec) []string {
	var bad []string
	mc := r.Metrics.MaxConcurrency
	switch {
	case mc == nil && r.NoCap && allAtOnce(r, p):
		r.note(NoteAllAtOnce, strconv.Itoa(p.Requests), strconv.Itoa(p.Concurrency))
	case mc == nil && r.NoCap && p.Concurrency > 0:
		bad = append(bad, fmt.Sprintf("concurrency: the file ran without a cap, the trial's profile keeps %d requests in flight", p.Concurrency))
	case mc == nil:
	case p.Concurrency == 0 && f.PeakAsCap && !r.capStated:
		r.note(NotePeakNotCap, strconv.Itoa(*mc))
		r.Metrics.PeakConcurrency = peakOr(r.Metrics.PeakConcurrency, *mc)
		r.Metrics.MaxConcurrency = nil
	case *mc != p.Concurrency:
		bad = append(bad, fmt.Sprintf("concurrency: the file ran with a cap of %d, the trial's profile %s", *mc, capText(p.Concurrency)))
	}
	if p.Kind == "concurrency" && mc == nil && !r.NoCap && !f.CapUnsaid {
		bad = append(bad, fmt.Sprintf("concurrency: the file ran without a cap, the trial's profile keeps %d requests in flight", p.Concurrency))
	}
	bad = append(bad, checkRate(r.Rate, p)...)
	if r.Kind != "" && r.Kind != p.Kind {
		bad = append(bad, fmt.Sprintf("profile kind: the file ran %s, the trial's profile is %s", r.Kind, p.Kind))
	}
	return bad
}

// allAtOnce: the file sent every request at once with no cap (vLLM's and
// SGLang's defaults), and the profile is closed-loop with a cap no lower
// than its request count. Both keep every request in flight from the
// start, so they are one load.
func allAtOnce(r *Result, p plan.ProfileSpec) bool {
	return p.Kind == "concurrency" && p.Concurrency >= p.Requests && (r.Rate == 0 || math.IsInf(r.Rate, 1))
}

// checkRate: inf (all requests at once) suits only a closed-loop
// profile, a finite rate only the same open-loop rate.
func checkRate(rate float64, p plan.ProfileSpec) []string {
	switch {
	case rate == 0:
	case math.IsInf(rate, 1) && p.Kind != "concurrency":
		return []string{fmt.Sprintf("rate: the file sent every request at once (rate inf), the trial's profile at %g req/s", p.Rate)}
	case math.IsInf(rate, 1):
	case p.Kind == "concurrency":
		return []string{fmt.Sprintf("rate: the file ran at %g req/s, the trial's profile is closed-loop", rate)}
	case rate != p.Rate:
		return []string{fmt.Sprintf("rate: the file ran at %g req/s, the trial's profile at %g", rate, p.Rate)}
	}
	return nil
}

// checkDataset compares the dataset the file names with the study's:
// the name, and a random dataset's lengths.
func checkDataset(r *Result, ds plan.DatasetSpec) []string {
	if r.Dataset == "" || ds.Name == "" {
		return nil
	}
	if !strings.EqualFold(r.Dataset, ds.Name) {
		return []string{fmt.Sprintf("dataset: the file ran %s, the study's dataset is %s", r.Dataset, ds.Name)}
	}
	var bad []string
	if r.RandomIn > 0 && ds.InputLen > 0 && r.RandomIn != ds.InputLen {
		bad = append(bad, fmt.Sprintf("dataset: the file's random prompts are %d tokens, the study's %d", r.RandomIn, ds.InputLen))
	}
	if r.RandomOut > 0 && ds.OutputLen > 0 && r.RandomOut != ds.OutputLen {
		bad = append(bad, fmt.Sprintf("dataset: the file's random outputs are %d tokens, the study's %d", r.RandomOut, ds.OutputLen))
	}
	return bad
}

func peakOr(p *float64, n int) *float64 {
	if p != nil {
		return p
	}
	v := float64(n)
	return &v
}

func capText(c int) string {
	if c == 0 {
		return "has no cap"
	}
	return fmt.Sprintf("caps at %d", c)
}
