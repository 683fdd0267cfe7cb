// Package report builds the document of a study's report from its
// analysis and records: the seeds' sections in the seeds' order, every
// number computed from the records, every fixed string from the i18n
// catalogs.
package report

import (
	"fmt"
	"math"
	"strings"

	"servelab.dev/execute/decide"
	"servelab.dev/i18n"
	d "servelab.dev/render/document"
	"servelab.dev/schema"
	"servelab.dev/schema/plan"
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
	case "llamacpp":
		return "llama.cpp"
	}
	return kind
}

// MetricName names a metric in prose.
func MetricName(metric string) d.Text {
	switch metric {
	case "latency.mean", "latency.median", "latency.p99", "ttft.mean", "ttft.median", "ttft.p99", "tpot.mean", "itl.mean",
		"output_throughput", "request_throughput", "total_throughput", "tpot.p99", "latency.p90", "ttft.p90",
		"tpot.p90", "itl.p90", "itl.p99", "goodput", "failed", "capacity":
		return d.M("metric " + metric)
	}
	return d.Code(metric)
}

// value formats a figure of metric with its unit, in the language's
// number and unit spelling: seconds for request latency (as the seeds
// print it), ms for the rest, tok/s or req/s.
func value(metric string, v float64) d.Text {
	if metric == schema.Capacity && v == 0 {
		// A search's low end is above 0: a capacity of 0 is a search
		// whose low end already broke the SLO.
		return d.M("below the search's low end")
	}
	if strings.HasPrefix(metric, "latency.") {
		return d.N(v/1000, "s")
	}
	if metric == "failed" {
		return d.Num{V: v * 100, Prec: 2, Unit: "%"}
	}
	return d.N(v, decide.Unit(metric))
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

// RatioText says how many times better or worse: "1.26x faster"; a
// ratio that rounds to 1.00 either way is "the same", never "1.00x
// faster".
func RatioText(metric string, r float64) d.Text {
	lower := decide.Lower(metric)
	share := d.Num{V: gapShare(metric, r) * 100, Prec: 1, Unit: "%"}
	switch {
	case fmt.Sprintf("%.1f", math.Abs(r-1)*100) == "0.0" || fmt.Sprintf("%.1f", math.Abs(1/r-1)*100) == "0.0":
		return d.M("ratio %sx", d.Num{V: 1, Prec: 2})
	// Within 10 % a percentage reads better than a ratio ("3.4% lower",
	// not "1.04x lower"), in every language; so does a time that grew by
	// under half ("12.0% slower", not "1.12x slower").
	case r > 1 && r < 1.1 && lower:
		return d.M("%s faster", share)
	case r > 1 && r < 1.1:
		return d.M("%s higher", share)
	case r < 1 && r > 1/1.5 && lower:
		return d.M("%s slower", share)
	case r < 1 && !lower:
		// A lower figure is a share of the other at any size.
		return d.M("%s lower", share)
	case r >= 1 && lower:
		return d.M("%sx faster", d.Num{V: r, Prec: 2})
	case r >= 1:
		return d.M("%sx higher", d.Num{V: r, Prec: 2})
	case lower:
		return d.M("%sx slower", d.Num{V: 1 / r, Prec: 2})
	}
	return d.M("%sx lower", d.Num{V: 1 / r, Prec: 2})
}

// times writes a ratio as "1.26x" in the language's numbers.
func times(r float64) d.Text { return timesText(r) }

// gapShare is the relative difference RatioText writes for ratio r of
// metric as a percentage, so that other sentences quote the same one.
func gapShare(metric string, r float64) float64 {
	switch {
	case r >= 1 && decide.Lower(metric):
		return 1 - 1/r
	case r >= 1:
		return r - 1
	case decide.Lower(metric):
		return 1/r - 1
	}
	return 1 - r
}

// timesText is a ratio as the language writes one: "1.26x", "1.26 倍",
// a bare "1,26" in Russian.
type timesText float64

func (t timesText) In(p *i18n.Printer, f d.Format) string {
	n := d.Num{V: float64(t), Prec: 2}.In(p, f)
	switch p.Lang() {
	case "zh":
		return n + f.Esc(" 倍")
	case "ru":
		// Russian puts «раза» after the range («от 1,42 до 1,69 раза»):
		// the catalog's sentences carry it.
		return n
	}
	return n + f.Esc("x")
}

// pct writes a share (0.03) as a percentage ("3 %"), with one decimal
// only where the share needs it.
func pct(f float64) d.Text {
	v := f * 100
	prec := 0
	if math.Abs(v-math.Round(v)) > 1e-9 {
		prec = 1
	}
	return d.Num{V: v, Prec: prec, Unit: "%"}
}

func ProfileTitle(s *schema.Study, name string) d.Text {
	if p, ok := s.Profiles[name]; ok && p.Title != nil {
		return d.Prose(*p.Title)
	}
	return d.Code(name)
}

// optionName is how a step's option is called: the engine for engine
// candidates, else the variant's title or name.
func (b *builder) optionName(st *schema.Step, variant string) d.Text {
	s := b.s
	if t := b.ownName(st, variant); t != nil {
		return t
	}
	if variant == "baseline" {
		return d.M("baseline")
	}
	if st != nil && hasOption(s, st, variant) {
		return d.Code(variant)
	}
	if variant == "incumbent" {
		return d.M("current configuration")
	}
	// An incumbent carries the name it was adopted under in its own step.
	for i := range s.Steps {
		if o := &s.Steps[i]; o != st && hasOption(s, o, variant) {
			if t := b.ownName(o, variant); t != nil {
				return t
			}
		}
	}
	return d.Code(variant)
}

// ownName is the name step st gives its option variant, or nil.
func (b *builder) ownName(st *schema.Step, variant string) d.Text {
	s := b.s
	if st == nil {
		return nil
	}
	if st.Select != nil && len(st.Select.Engines) > 0 {
		if e, ok := s.Engines[variant]; ok {
			return d.Lit(EngineName(e.Kind))
		}
	}
	v, ok := st.VariantNamed(variant)
	switch {
	case !ok:
		return nil
	case v.Title != nil:
		return d.Prose(*v.Title)
	}
	return flagName(s, b.stepEngine(st), v)
}

// flagName names an untitled variant by the flags it sets
// (`--cuda-graph-max-bs 8`), which says more than its name ("8") and can
// stand as a sentence's subject; nil when they are too long for prose.
func flagName(s *schema.Study, engine string, v schema.Variant) d.Text {
	if _, ok := s.Engines[engine]; !ok {
		return nil
	}
	words := plan.VariantFlags(s, engine, v)
	if line := strings.Join(words, " "); len(words) > 0 && len(line) <= 48 {
		return d.Code(line)
	}
	return nil
}

func hasOption(s *schema.Study, st *schema.Step, variant string) bool {
	if st.Select != nil {
		for _, e := range st.Select.Engines {
			if e == variant {
				return true
			}
		}
	}
	_, ok := st.VariantNamed(variant)
	return ok
}

func studyStep(s *schema.Study, id string) *schema.Step {
	for i := range s.Steps {
		if s.Steps[i].ID == id {
			return &s.Steps[i]
		}
	}
	return nil
}

// stepEngine is the engine step st's variants apply to: its own, or the
// one adopted when it ran (the study's only engine, or the last engine
// selection's choice before it); "" when not known yet.
func (b *builder) stepEngine(st *schema.Step) string {
	if st.Engine != "" {
		return st.Engine
	}
	engine := ""
	if len(b.s.Engines) == 1 {
		for e := range b.s.Engines {
			engine = e
		}
	}
	for _, as := range b.a.Steps {
		if as.ID == st.ID {
			return engine
		}
		ss := studyStep(b.s, as.ID)
		if ss != nil && ss.Select != nil && len(ss.Select.Engines) > 0 {
			engine = ""
			if as.Adopted != nil {
				engine = *as.Adopted
			} else if as.Incumbent != nil {
				engine = as.Incumbent.Variant
			}
			if _, ok := b.s.Engines[engine]; !ok {
				engine = ""
			}
		}
	}
	return engine
}
