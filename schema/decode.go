package schema

import (
	"fmt"
	"maps"
	"math"
	"regexp"
	"slices"
	"strings"

	"cuelang.org/go/cue"
	"cuelang.org/go/cue/token"
)

var nameRE = regexp.MustCompile(`^[a-z0-9][a-z0-9._-]*$`)

// checker collects the errors of the checks CUE cannot express well:
// references between parts of a study, and what an engine supports.
type checker struct {
	l    *Loader
	file string
	v    cue.Value // the study, unified with #Study
	orig cue.Value // the study as written: its positions are the user's
	s    *Study
	errs List
}

// errorf records an error located at the value found by walking parts
// (strings are fields, ints are list indexes) from the study's root.
func (c *checker) errorf(parts []any, format string, args ...any) {
	e := Error{File: c.file, Path: pathString(parts), Msg: fmt.Sprintf(format, args...)}
	if p := c.pos(parts); p.IsValid() && p.Position().Filename == c.file {
		e.Column(p.Position())
	}
	c.errs = append(c.errs, e)
}

// pos is the position of the value at parts, or of its nearest ancestor
// that has one in the user's file.
func (c *checker) pos(parts []any) token.Pos {
	for n := len(parts); n >= 0; n-- {
		if w := c.orig.LookupPath(selPath(parts[:n])); w.Exists() {
			if p := posIn(w, c.file, 3); p.IsValid() {
				return p
			}
		}
	}
	return token.NoPos
}

// posIn finds a position of v in file. A value unified with the schema
// reports the schema's position first, so the conjuncts of v are searched
// for the one the user wrote.
func posIn(v cue.Value, file string, depth int) token.Pos {
	if p := v.Pos(); p.IsValid() && p.Position().Filename == file {
		return p
	}
	if depth == 0 {
		return token.NoPos
	}
	_, args := v.Expr()
	for _, a := range args {
		if p := posIn(a, file, depth-1); p.IsValid() {
			return p
		}
	}
	return token.NoPos
}

func (c *checker) value(parts []any) cue.Value { return c.v.LookupPath(selPath(parts)) }

func selPath(parts []any) cue.Path {
	sels := make([]cue.Selector, 0, len(parts))
	for _, p := range parts {
		switch p := p.(type) {
		case string:
			sels = append(sels, cue.Str(p))
		case int:
			sels = append(sels, cue.Index(p))
		}
	}
	return cue.MakePath(sels...)
}

func pathString(parts []any) string {
	var b strings.Builder
	for _, p := range parts {
		switch p := p.(type) {
		case int:
			fmt.Fprintf(&b, "[%d]", p)
		case string:
			if b.Len() > 0 {
				b.WriteByte('.')
			}
			if identRE.MatchString(p) {
				b.WriteString(p)
			} else {
				b.WriteString(fmt.Sprintf("%q", p))
			}
		}
	}
	return b.String()
}

var identRE = regexp.MustCompile(`^[A-Za-z_$][A-Za-z0-9_$]*$`)

func at(parts []any, more ...any) []any {
	out := make([]any, 0, len(parts)+len(more))
	return append(append(out, parts...), more...)
}

// decode turns the validated value into a Study and runs the checks that
// need the whole study.
func (l *Loader) decode(file, id string, v, orig cue.Value) (*Study, error) {
	s := &Study{ID: id, File: file, KnobOrder: l.knobs}
	if err := v.Decode(s); err != nil {
		return nil, fromCUE(err, file, orig, map[string]bool{id: true}).Sort()
	}
	c := &checker{l: l, file: file, v: v, orig: orig, s: s}
	c.defaults()
	c.engines()
	c.hardware()
	c.translations()
	c.profiles()
	c.runTokens()
	c.objective()
	c.repeats([]any{"benchmark", "repeats"}, c.s.Benchmark.Repeats)
	for i, st := range c.s.Steps {
		c.repeats([]any{"steps", i, "repeats"}, st.Repeats)
	}
	c.boundsAgree()
	c.boundsMeasured()
	c.parallelism()
	c.flagVersions()
	c.noLeadingDash()
	c.baseline()
	c.steps()
	c.randomChat()
	c.datasets()
	if len(c.errs) > 0 {
		return nil, c.errs.Sort()
	}
	return s, nil
}

func (c *checker) defaults() {
	s := c.s
	if s.Hardware.Count == 0 {
		s.Hardware.Count = 1
	}
	if s.Benchmark.Repeats == (Repeats{}) {
		s.Benchmark.Repeats = Fixed(1)
	}
	if s.Benchmark.API == "" {
		s.Benchmark.API = "chat"
	}
	if s.Estimate.Launch == 0 {
		s.Estimate.Launch = 180
	}
	if s.Estimate.Latency == 0 {
		s.Estimate.Latency = 2
	}
	if s.Objective.Goal == "" {
		s.Objective.Goal = DefaultGoal(s.Objective.Metric)
	}
	// 0 is a valid minGain and maxFailed, so presence, not value, decides.
	if !c.v.LookupPath(cue.ParsePath("objective.minGain")).Exists() {
		s.Objective.MinGain = DefaultMinGain
	}
	if !c.v.LookupPath(cue.ParsePath("objective.maxFailed")).Exists() {
		s.Objective.MaxFailed = DefaultMaxFailed
	}
	if s.Objective.Confidence == 0 {
		s.Objective.Confidence = DefaultConfidence
	}
}

func (c *checker) hardware() {
	h := &c.s.Hardware
	if g, ok := c.l.gpus[h.GPU]; ok {
		if h.MemoryGiB == 0 {
			h.MemoryGiB = g.MemoryGiB
		}
		if h.BandwidthTBs == 0 {
			h.BandwidthTBs = g.BandwidthTBs
		}
		return
	}
	if h.MemoryGiB > 0 && h.BandwidthTBs > 0 {
		return
	}
	hint := ""
	if name := c.gpuByAlias(h.GPU); name != "" {
		hint = fmt.Sprintf(" (did you mean %q, as nvidia-smi prints it?)", name)
	}
	c.errorf([]any{"hardware", "gpu"}, "unknown GPU %q%s; give memoryGiB and bandwidthTBs for a GPU the schema does not list", h.GPU, hint)
}

func (c *checker) gpuByAlias(name string) string {
	for _, n := range slices.Sorted(maps.Keys(c.l.gpus)) {
		for _, a := range c.l.gpus[n].AKA {
			if strings.EqualFold(a, name) {
				return n
			}
		}
	}
	return ""
}

func (c *checker) profiles() {
	s := c.s
	c.profileRef([]any{"objective", "profile"}, s.Objective.Profile)
	for i, p := range s.Validate.Profiles {
		c.profileRef([]any{"validate", "profiles", i}, p)
	}
	for i, st := range s.Steps {
		for j, p := range st.Profiles {
			c.profileRef([]any{"steps", i, "profiles", j}, p)
		}
	}
}

// runTokens keeps each profile's run within memory: its requests times
// the longest output is what the client holds per request token.
func (c *checker) runTokens() {
	warm := c.s.Benchmark.Warmup
	for _, name := range slices.Sorted(maps.Keys(c.s.Profiles)) {
		p := c.s.Profiles[name]
		out := c.s.Benchmark.MaxOutputFor(c.s.DatasetOf(p))
		req := p.Requests
		if p.Search != nil {
			req = p.Search.Requests(req, p.Search.High)
		}
		if n := int64(req+warm) * int64(out); n > MaxRunTokens {
			c.errorf([]any{"profiles", name, "requests"}, "%d requests (and %d warm-up) of up to %d output tokens make %d tokens, more than one run keeps in memory (%d): send fewer requests or shorter outputs",
				req, warm, out, n, MaxRunTokens)
		}
	}
}

func (c *checker) profileRef(parts []any, name string) {
	if _, ok := c.s.Profiles[name]; ok {
		return
	}
	c.errorf(parts, "unknown profile %q (profiles: %s)", name, strings.Join(slices.Sorted(maps.Keys(c.s.Profiles)), ", "))
}

func (c *checker) objective() {
	o := c.s.Objective
	if !IsMetric(o.Metric) {
		c.errorf([]any{"objective", "metric"}, "unknown metric %q (want %s)", o.Metric, MetricHelp)
	}
	perRequest := false
	for i, b := range o.Constraints {
		parts := []any{"objective", "constraints", i}
		fam, _, _ := strings.Cut(b.Metric, ".")
		switch {
		case !IsBoundMetric(b.Metric) || b.Metric == Goodput || b.Metric == Capacity:
			c.errorf(at(parts, "metric"), "unknown bound metric %q (want latency|ttft|tpot|itl with .mean|.median|.std|.p50|.p90|.p95|.p99, %s, or failed)", b.Metric, strings.Join(rateMetrics, ", "))
		case (b.Max == nil) == (b.Min == nil):
			c.errorf(parts, "a bound needs exactly one of max and min (e.g. {metric: %q, max: 500})", b.Metric)
		case b.Metric == Failed && b.Max == nil:
			c.errorf(parts, "failed is bounded from above: write max (a share, e.g. 0.01)")
		}
		if lim, _ := b.Limit(); math.IsNaN(lim) || math.IsInf(lim, 0) || lim < 0 {
			c.errorf(parts, "bound %v is not a finite, non-negative number", lim)
		}
		perRequest = perRequest || fam == "ttft" || fam == "tpot" || fam == "latency"
	}
	c.search(o)
	c.lead(o)
	if o.Metric == Goodput && !perRequest {
		c.errorf([]any{"objective", "metric"}, "goodput counts requests that meet the latency bounds: add a constraint on ttft, tpot or latency (e.g. {metric: \"ttft.p99\", max: 500})")
	}
}

// lead checks that a conclusion led by mean latency ranks as the
// objective does: a throughput at a fixed concurrency.
func (c *checker) lead(o Objective) {
	if o.Lead == "" {
		return
	}
	p, ok := c.s.Profiles[o.Profile]
	if !ok || slices.Contains(rateMetrics, o.Metric) && p.Kind == "concurrency" && p.Search == nil {
		return
	}
	c.errorf([]any{"objective", "lead"}, "lead %q ranks as the objective only for a throughput at a concurrency profile (metric %s, profile %q is %s): drop lead, or make %s the metric", o.Lead, o.Metric, o.Profile, p.Kind, o.Lead)
}

// search checks capacity searches: a sound bracket, an SLO to search
// against, and capacity judged on a search profile.
func (c *checker) search(o Objective) {
	for _, name := range slices.Sorted(maps.Keys(c.s.Profiles)) {
		sr := c.s.Profiles[name].Search
		if sr == nil {
			continue
		}
		parts := []any{"profiles", name, "search"}
		switch {
		case sr.High <= sr.Low:
			c.errorf(parts, "high %v must be above low %v", sr.High, sr.Low)
		case sr.Precision >= sr.High-sr.Low:
			c.errorf(at(parts, "precision"), "precision %v must be finer than the bracket %v to %v", sr.Precision, sr.Low, sr.High)
		case sr.Requests(c.s.Profiles[name].Requests, sr.High) > MaxRequests:
			c.errorf(at(parts, "seconds"), "a probe of %v s at the high end (%v req/s) sends more than %d requests: shorten seconds or lower high", sr.Seconds, sr.High, MaxRequests)
		case len(o.Constraints) == 0:
			c.errorf(parts, "a search looks for the highest rate within the SLO: add objective.constraints (e.g. [{metric: \"ttft.p99\", max: 500}])")
		}
	}
	p, ok := c.s.Profiles[o.Profile]
	switch {
	case !ok:
	case o.Metric == Capacity && p.Search == nil:
		c.errorf([]any{"objective", "profile"}, "capacity is found by a search profile; %q is a %s profile", o.Profile, p.Kind)
	case o.Metric != Capacity && p.Search != nil:
		c.errorf([]any{"objective", "metric"}, "on the search profile %q the objective is capacity, not %s", o.Profile, o.Metric)
	}
}

func (c *checker) baseline() {
	c.engineRef([]any{"baseline", "engine"}, c.s.Baseline.Engine)
}

func (c *checker) engineRef(parts []any, name string) bool {
	if _, ok := c.s.Engines[name]; ok {
		return true
	}
	c.errorf(parts, "unknown engine %q (engines: %s)", name, strings.Join(slices.Sorted(maps.Keys(c.s.Engines)), ", "))
	return false
}

func sprintf(format string, args []any) string { return fmt.Sprintf(format, args...) }
