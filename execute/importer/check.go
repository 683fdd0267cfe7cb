package importer

import (
	"fmt"
	"path"

	"servelab.dev/schema/plan"
)

// Check compares what the file says about its run with the trial it is
// imported into, and returns one message per field that disagrees. A
// printed vllm block on a profile without a concurrency cap may carry a
// "Maximum request concurrency" that is really the observed peak (seed
// 000's blocks do): that figure is dropped with a note instead.
func Check(r *Result, format string, spec plan.Spec) []string {
	var bad []string
	p := spec.Profile
	if n := r.Metrics.Completed + r.Metrics.Failed; n != p.Requests {
		bad = append(bad, fmt.Sprintf("requests: the file has %d (%d completed, %d failed), the trial's profile sends %d",
			n, r.Metrics.Completed, r.Metrics.Failed, p.Requests))
	}
	bad = append(bad, checkLoad(r, format, p)...)
	if r.Model != "" && r.Model != spec.Model.ID && path.Base(r.Model) != path.Base(spec.Model.ID) {
		bad = append(bad, fmt.Sprintf("model: the file ran %s, the trial serves %s", r.Model, spec.Model.ID))
	}
	if r.Engine != "" && r.Engine != spec.Engine.Kind {
		bad = append(bad, fmt.Sprintf("engine: the file comes from %s, the trial runs %s", r.Engine, spec.Engine.Kind))
	}
	if format != "vllm-text" && r.Client != spec.Benchmark.Client {
		bad = append(bad, fmt.Sprintf("client: the file was written by %s, the study's benchmark client is %s", r.Client, spec.Benchmark.Client))
	}
	return bad
}

func checkLoad(r *Result, format string, p plan.ProfileSpec) []string {
	var bad []string
	mc := r.Metrics.MaxConcurrency
	switch {
	case mc == nil:
	case p.Concurrency == 0 && format == "vllm-text":
		r.Notes = append(r.Notes, fmt.Sprintf("the block's \"Maximum request concurrency: %d\" is not a cap (the profile has none); it is the observed peak, kept as peak concurrency", *mc))
		r.Metrics.MaxConcurrency = nil
	case *mc != p.Concurrency:
		bad = append(bad, fmt.Sprintf("concurrency: the file ran with a cap of %d, the trial's profile %s", *mc, capText(p.Concurrency)))
	}
	if p.Kind == "concurrency" && mc == nil && format != "vllm-text" && format != "guidellm" {
		bad = append(bad, fmt.Sprintf("concurrency: the file ran without a cap, the trial's profile keeps %d requests in flight", p.Concurrency))
	}
	switch {
	case r.Rate > 0 && p.Kind == "concurrency":
		bad = append(bad, fmt.Sprintf("rate: the file ran at %g req/s, the trial's profile is closed-loop", r.Rate))
	case r.Rate > 0 && r.Rate != p.Rate:
		bad = append(bad, fmt.Sprintf("rate: the file ran at %g req/s, the trial's profile at %g", r.Rate, p.Rate))
	}
	if r.Kind != "" && r.Kind != p.Kind {
		bad = append(bad, fmt.Sprintf("profile kind: the file ran %s, the trial's profile is %s", r.Kind, p.Kind))
	}
	return bad
}

func capText(c int) string {
	if c == 0 {
		return "has no cap"
	}
	return fmt.Sprintf("caps at %d", c)
}
