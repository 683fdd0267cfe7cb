package schema

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"
)

// The checks here refuse studies that would spend GPU hours on a
// question that has no answer: more GPUs than the host has, weights
// that cannot fit, flags no table can check, SLO bounds that cannot
// hold or cannot be measured.

// stepVariants are every variant of the steps, with their paths.
func (c *checker) stepVariants() (paths [][]any, vs []Variant) {
	for i, st := range c.s.Steps {
		for j, v := range st.Variants {
			paths, vs = append(paths, []any{"steps", i, "variants", j}), append(vs, v)
		}
		if st.Select != nil {
			for j, v := range st.Select.Variants {
				paths, vs = append(paths, []any{"steps", i, "select", "variants", j}), append(vs, v)
			}
		}
	}
	return paths, vs
}

// knobSets are every set of knobs the study writes, with their paths.
func (c *checker) knobSets() (paths [][]any, sets []Knobs) {
	add := func(p []any, k Knobs) {
		if len(k) > 0 {
			paths, sets = append(paths, p), append(sets, k)
		}
	}
	add([]any{"base", "knobs"}, c.s.Base.Knobs)
	for _, name := range slices.Sorted(maps.Keys(c.s.Engines)) {
		add([]any{"engines", name, "knobs"}, c.s.Engines[name].Knobs)
	}
	vpaths, vs := c.stepVariants()
	for i, v := range vs {
		add(at(vpaths[i], "knobs"), v.Knobs)
	}
	return paths, sets
}

// parallelism refuses a tensor parallelism the host cannot give, and
// weights that do not fit on the GPUs even at the largest parallelism
// the study tries.
func (c *checker) parallelism() {
	h := c.s.Hardware
	most := 1
	paths, sets := c.knobSets()
	for i, k := range sets {
		tp, ok := Number(k["tensorParallel"])
		if !ok {
			continue
		}
		if tp > float64(h.Count) {
			c.errorf(at(paths[i], "tensorParallel"), "tensor parallelism %v needs %v GPUs, but hardware.count is %d: lower it, or raise hardware.count", tp, tp, h.Count)
			continue
		}
		most = max(most, int(tp))
	}
	if h.MemoryGiB <= 0 {
		return
	}
	c.weightsFit(nil, "", most)
	for _, name := range slices.Sorted(maps.Keys(c.s.Model.Variants)) {
		c.weightsFit([]any{"variants", name}, name, most)
	}
}

// weightsFit refuses a checkpoint whose weights alone exceed the memory
// of tp GPUs.
func (c *checker) weightsFit(path []any, variant string, tp int) {
	m, ok := c.s.Model.Variant(variant)
	per := BytesPerParam(m.DType)
	if !ok || per == 0 || m.Params <= 0 {
		return
	}
	need := m.Params * per / float64(tp) / (1 << 30)
	if h := c.s.Hardware; need > h.MemoryGiB {
		c.errorf(append([]any{"model"}, path...), "%s in %s is %.1f GiB of weights per GPU at tensor parallelism %d, more than the %.0f GiB of one %s: raise tensorParallel (and hardware.count), or use a smaller dtype",
			m.ID, m.DType, need, tp, h.MemoryGiB, h.GPU)
	}
}

// BytesPerParam is the storage of one weight in dtype; 0 when unknown.
func BytesPerParam(dtype string) float64 {
	switch dtype {
	case "fp32":
		return 4
	case "bf16", "fp16":
		return 2
	case "fp8", "int8":
		return 1
	case "int4", "nvfp4", "mxfp4":
		return 0.5
	}
	return 0
}

// flagVersions refuses an engine version outside its kind's flag table,
// where flags cannot be checked, unless the engine accepts that.
func (c *checker) flagVersions() {
	for _, name := range slices.Sorted(maps.Keys(c.s.Engines)) {
		e := c.s.Engines[name]
		kind := e.Kind
		if kind == "" {
			kind = name
		}
		t := c.l.tables[kind]
		if t == nil || e.UncheckedFlags {
			continue
		}
		v := release(e.Version)
		if CompareVersions(v, t.Versions.From) < 0 || CompareVersions(v, t.Versions.To) > 0 {
			c.errorf([]any{"engines", name, "version"}, "%s %s is outside the flag table (%s to %s), so its flags cannot be checked: use a version in the table, or set engines.%s.uncheckedFlags: true to run with unchecked flags",
				kind, e.Version, t.Versions.From, t.Versions.To, name)
		}
	}
}

// release is a version without its build suffix ("0.4.0-80fb11ac" is
// release 0.4.0).
func release(v string) string {
	if i := strings.IndexAny(v, "-+"); i > 0 {
		return v[:i]
	}
	return v
}

// boundsAgree refuses a min bound on a latency (so two bounds on one
// latency never contradict: any lower value meets both) and a metric
// bounded from below above its bound from above, and warns of a latency bound that is implausibly
// short for its unit (milliseconds).
func (c *checker) boundsAgree() {
	bs := c.s.Objective.Constraints
	for i, b := range bs {
		parts := []any{"objective", "constraints", i}
		fam, stat, _ := strings.Cut(b.Metric, ".")
		if !contains(latencyFamilies, fam) || stat == "" {
			continue
		}
		if b.Min != nil {
			c.errorf(at(parts, "min"), "%s is a latency, bounded from above: write max (in ms, e.g. {metric: %q, max: 500})", b.Metric, b.Metric)
			continue
		}
		c.implausible(parts, b, fam)
	}
	for i, b := range bs {
		for j, o := range bs {
			if i < j && b.Metric == o.Metric && b.Min != nil && o.Max != nil && *b.Min > *o.Max ||
				i < j && b.Metric == o.Metric && b.Max != nil && o.Min != nil && *o.Min > *b.Max {
				c.errorf([]any{"objective", "constraints", j}, "contradicts objective.constraints[%d]: %s cannot be both at least %v and at most %v; loosen one of them",
					i, b.Metric, minOf(b, o), maxOf(b, o))
			}
		}
	}
}

func minOf(a, b Bound) float64 {
	if a.Min != nil {
		return *a.Min
	}
	return *b.Min
}

func maxOf(a, b Bound) float64 {
	if a.Max != nil {
		return *a.Max
	}
	return *b.Max
}

// implausible warns of a bound that reads as if written in seconds: a
// TTFT or request latency under 5 ms, a TPOT or ITL under 0.5 ms.
func (c *checker) implausible(parts []any, b Bound, fam string) {
	lim := *b.Max
	floor := 5.0
	if fam == "tpot" || fam == "itl" {
		floor = 0.5
	}
	if lim < floor && !math.IsNaN(lim) {
		c.warnf(at(parts, "max"), "%s ≤ %v ms is implausibly short (bounds are in milliseconds): did you mean %v s, max: %v?", b.Metric, lim, lim, lim*1000)
	}
}

// clientStats are the latency statistics each client's output carries
// by default; a bound on one it lacks could never be checked.
var clientStats = map[string]map[string][]string{
	"vllm-bench": {"ttft": {"mean", "median", "std", "p99"}, "tpot": {"mean", "median", "std", "p99"},
		"itl": {"mean", "median", "std", "p99"}, "latency": {"mean"}},
	"sglang-bench": {"ttft": {"mean", "median", "std", "p95", "p99"}, "tpot": {"mean", "median", "std", "p95", "p99"},
		"itl": {"mean", "median", "std", "p95", "p99"}, "latency": {"mean", "median", "std", "p90", "p99"}},
}

// boundsMeasured refuses a bound on a statistic the study's client does
// not report.
func (c *checker) boundsMeasured() {
	client := c.s.Benchmark.Client.Name
	stats, ok := clientStats[client]
	if !ok {
		return
	}
	for i, b := range c.s.Objective.Constraints {
		fam, stat, _ := strings.Cut(b.Metric, ".")
		have, known := stats[fam]
		if !known || contains(have, stat) {
			continue
		}
		c.errorf([]any{"objective", "constraints", i, "metric"}, "%s does not report %s, so its records could never be checked against this bound (it reports %s with .%s): bound one of those, or use the builtin client",
			client, b.Metric, fam, strings.Join(have, ", ."))
	}
}

func (c *checker) warnf(parts []any, format string, args ...any) {
	e := Error{File: c.file, Path: pathString(parts), Msg: "warning: " + fmt.Sprintf(format, args...)}
	if p := c.pos(parts); p.IsValid() && p.Position().Filename == c.file {
		e.Column(p.Position())
	}
	c.s.Warnings = append(c.s.Warnings, e)
}

// noLeadingDash refuses a value that reaches an engine's argv and starts
// with "-": a model id of "--trust-remote-code" would be read as that
// flag, around the flag tables, and in every export. Model ids and
// revisions are positional or follow a flag; knob and raw-arg values
// follow their flag, as its own word where the engine wants a space.
func (c *checker) noLeadingDash() {
	dash := func(parts []any, v string) {
		if strings.HasPrefix(v, "-") {
			c.errorf(parts, "%q starts with \"-\", so the engine would read it as a flag: a model id, revision or setting cannot begin with a dash", v)
		}
	}
	m := c.s.Model
	dash([]any{"model", "id"}, m.ID)
	dash([]any{"model", "revision"}, m.Revision)
	for _, name := range slices.Sorted(maps.Keys(m.Variants)) {
		dash([]any{"model", "variants", name, "id"}, m.Variants[name].ID)
		dash([]any{"model", "variants", name, "revision"}, m.Variants[name].Revision)
	}
	paths, sets := c.knobSets()
	for i, k := range sets {
		for _, name := range slices.Sorted(maps.Keys(k)) {
			if v, ok := k[name].(string); ok {
				dash(at(paths[i], name), v)
			}
		}
	}
	args := func(parts []any, a Args) {
		for _, name := range slices.Sorted(maps.Keys(a)) {
			if v, ok := a[name].(string); ok {
				dash(at(parts, name), v)
			}
		}
	}
	for _, name := range slices.Sorted(maps.Keys(c.s.Engines)) {
		args([]any{"engines", name, "args"}, c.s.Engines[name].Args)
	}
	vpaths, vs := c.stepVariants()
	for i, v := range vs {
		args(at(vpaths[i], "args"), v.Args)
	}
}
