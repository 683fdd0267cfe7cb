// Package report builds the document of a study's report from its
// analysis and records: the seeds' sections in the seeds' order, every
// number computed from the records, every fixed string from the i18n
// catalogs.
package report

import (
	"fmt"
	"strings"

	"servelab.dev/execute/decide"
	d "servelab.dev/render/document"
	"servelab.dev/schema"
)

// EngineName is how reports spell an engine kind.
func EngineName(kind string) string {
	switch kind {
	case "vllm":
		return "vLLM"
	case "sglang":
		return "SGLang"
	case "trtllm":
		return "TensorRT-LLM"
	}
	return kind
}

// MetricName names a metric in prose.
func MetricName(metric string) d.Text {
	switch metric {
	case "latency.mean", "latency.median", "latency.p99", "ttft.mean", "ttft.p99", "tpot.mean", "itl.mean",
		"output_throughput", "request_throughput", "total_throughput", "tpot.p99", "latency.p90", "ttft.p90",
		"tpot.p90", "goodput", "failed", "capacity":
		return d.M("metric " + metric)
	}
	return d.Code(metric)
}

// value formats a figure of metric with its unit: seconds for request
// latency (as the seeds print it), ms for the rest, tok/s or req/s.
func value(metric string, v float64) d.Lit {
	switch {
	case strings.HasPrefix(metric, "latency."):
		return d.Lit(fmt.Sprintf("%.2f s", v/1000))
	case decide.Unit(metric) == "ms":
		return d.Lit(fmt.Sprintf("%.2f ms", v))
	case metric == "failed":
		return d.Lit(fmt.Sprintf("%.2f %%", v*100))
	}
	return d.Lit(fmt.Sprintf("%.2f %s", v, decide.Unit(metric)))
}

// chartValue is v in the chart's unit (seconds for request latency).
func chartValue(metric string, v float64) float64 {
	if strings.HasPrefix(metric, "latency.") {
		return v / 1000
	}
	return v
}

func chartUnit(metric string) string {
	if strings.HasPrefix(metric, "latency.") {
		return "s"
	}
	return decide.Unit(metric)
}

// RatioText says how many times better or worse: "1.26x faster".
func RatioText(metric string, r float64) d.Text {
	lower := decide.Lower(metric)
	switch {
	case r >= 1 && lower:
		return d.M("%sx faster", d.Fixed(r))
	case r >= 1:
		return d.M("%sx higher", d.Fixed(r))
	case lower:
		return d.M("%sx slower", d.Fixed(1/r))
	}
	return d.M("%sx lower", d.Fixed(1/r))
}

func ProfileTitle(s *schema.Study, name string) d.Text {
	if p, ok := s.Profiles[name]; ok && p.Title != nil {
		return d.Prose(*p.Title)
	}
	return d.Code(name)
}

// optionName is how a step's option is called: the engine for engine
// candidates, else the variant's title or name.
func optionName(s *schema.Study, st *schema.Step, variant string) d.Text {
	if st != nil && st.Select != nil && len(st.Select.Engines) > 0 {
		if e, ok := s.Engines[variant]; ok {
			return d.Lit(EngineName(e.Kind))
		}
	}
	if st != nil {
		for _, v := range append(st.Variants, selectVariants(st)...) {
			if v.Name == variant && v.Title != nil {
				return d.Prose(*v.Title)
			}
		}
	}
	if variant == "baseline" {
		return d.M("baseline")
	}
	return d.Code(variant)
}

func selectVariants(st *schema.Step) []schema.Variant {
	if st.Select == nil {
		return nil
	}
	return st.Select.Variants
}

func studyStep(s *schema.Study, id string) *schema.Step {
	for i := range s.Steps {
		if s.Steps[i].ID == id {
			return &s.Steps[i]
		}
	}
	return nil
}
