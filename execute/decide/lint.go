package decide

import (
	"fmt"

	"servelab.dev/execute/record"
	"servelab.dev/schema"
	"servelab.dev/schema/plan"
)

// Warning is something wrong with a trial's figures.
type Warning struct {
	Key     string `json:"key"`
	Step    string `json:"step"`
	Variant string `json:"variant"`
	Profile string `json:"profile"`
	Code    string `json:"code"`
	Message string `json:"message"`
}

// Warning codes.
const (
	CodeBursts      = "chunk-bursts"     // median ITL ≈ 0 while the mean is not
	CodePeakRate    = "peak-rate"        // peak token rate beyond what the run or GPU allows
	CodeDecodeBound = "decode-bound"     // TPOT below weights ÷ bandwidth
	CodeITLBound    = "itl-decode-bound" // mean ITL below weights ÷ bandwidth
	CodePeakConc    = "peak-concurrency" // peak concurrency above the configured cap
	CodePeakLow     = "peak-below-mean"  // peak token rate below the run's mean
	CodeOutlier     = "ttft-outlier"     // a few requests waited far longer than the rest
	CodeNote        = "note"             // what the writer of the record noticed
)

// lint checks every recorded run against what the hardware and the run
// itself allow.
func lint(s *schema.Study, p *plan.Plan, runs Runs) []Warning {
	var out []Warning
	for _, t := range p.Trials {
		for _, r := range runs[t.Key] {
			for _, w := range lintRecord(s, t, r) {
				w.Key, w.Step, w.Variant, w.Profile = t.Key, t.Step, t.Variant, t.Profile
				out = append(out, w)
			}
		}
	}
	return out
}

func lintRecord(s *schema.Study, t *plan.Trial, r *record.Record) []Warning {
	var out []Warning
	add := func(code, format string, args ...any) {
		out = append(out, Warning{Code: code, Message: fmt.Sprintf(format, args...)})
	}
	m := r.Metrics
	if med, ok := m.ITL.Stat("median"); ok && med < 0.005 {
		if mean, ok := m.ITL.Stat("mean"); ok && mean > 0.05 {
			add(CodeBursts, "median ITL %.2f ms with mean %.2f ms: tokens arrive in bursts of chunks, so ITL and TPOT medians describe buffering on the way, not decoding", med, mean)
		}
	}
	step := minStepMs(s, t.Config)
	if step > 0 {
		for _, stat := range []string{"median", "mean"} {
			if v, ok := m.TPOT.Stat(stat); ok && v < step {
				add(CodeDecodeBound, "%s TPOT %.2f ms is below %.2f ms, the least a decode step can take for this model on this GPU (weights ÷ memory bandwidth, per token a step can produce): not physically possible", stat, v, step)
				break
			}
		}
		// A gap between streamed chunks spans at least one decode step.
		if v, ok := m.ITL.Stat("mean"); ok && v > 0 && v < step {
			add(CodeITLBound, "mean ITL %.2f ms is below %.2f ms, the least a decode step can take for this model on this GPU: not physically possible", v, step)
		}
	}
	if p := m.PeakOutputThroughput; p != nil {
		switch {
		case m.OutputTokens != nil && *m.OutputTokens > 0 && *p > float64(*m.OutputTokens):
			add(CodePeakRate, "peak output throughput %.2f tok/s exceeds the %d tokens the whole run generated: an artefact of a window too short, as when buffered chunks arrive together", *p, *m.OutputTokens)
		case step > 0 && m.PeakConcurrency != nil && *p > *m.PeakConcurrency*1000/step:
			add(CodePeakRate, "peak output throughput %.2f tok/s is above %.0f tok/s, what %.0f concurrent requests can decode at the memory-bandwidth limit", *p, *m.PeakConcurrency*1000/step, *m.PeakConcurrency)
		case m.OutputThroughput != nil && *p < *m.OutputThroughput:
			add(CodePeakLow, "peak output throughput %.2f tok/s is below the run's mean of %.2f tok/s: the source counts chunks, which carry several tokens each under speculative decoding", *p, *m.OutputThroughput)
		}
	}
	if c := t.Spec.Profile.Concurrency; c > 0 && m.PeakConcurrency != nil && *m.PeakConcurrency > float64(c) {
		add(CodePeakConc, "peak concurrent requests %.0f exceeds the cap of %d: the source tool counts one-second buckets, not requests in flight", *m.PeakConcurrency, c)
	}
	if p99, ok := m.TTFT.Stat("p99"); ok {
		if med, ok := m.TTFT.Stat("median"); ok && med > 0 && p99 > 20*med {
			add(CodeOutlier, "P99 TTFT %.2f ms is %.0f× the median %.2f ms: a few requests waited far longer than the rest (a cold start without warm-up, or a stall), and they move the mean", p99, p99/med, med)
		}
	}
	for _, n := range r.Notes {
		add(CodeNote, "%s", n)
	}
	for _, n := range r.ImportNotesKnown() {
		add(CodeNote, "%s", n.String())
	}
	return out
}

// minStepMs is the least time, in ms per token, one decode step of the
// configuration can take: every step reads all weights (split across
// tensor-parallel GPUs) and yields at most 1 + speculative tokens per
// sequence. 0 when the study lacks the facts.
func minStepMs(s *schema.Study, c plan.Config) float64 {
	mv, ok := s.Model.Variant(c.ModelVariant())
	bw := s.Hardware.BandwidthTBs * 1e12
	if !ok || bw == 0 || mv.Params == 0 {
		return 0
	}
	bytes := mv.Params * schema.BytesPerParam(mv.DType)
	tp := 1.0
	if v, ok := schema.Number(c.Knobs["tensorParallel"]); ok && v > 1 {
		tp = v
	}
	return bytes / (bw * tp) * 1000 / tokensPerStep(c)
}

// tokensPerStep is the most tokens a sequence can gain per step: one,
// plus the speculative tokens the configuration drafts (16 when the
// study leaves the engine's default).
func tokensPerStep(c plan.Config) float64 {
	spec, ok := c.Knobs["speculative"].(map[string]any)
	if !ok {
		return 1
	}
	most := 0.0
	for _, k := range []string{"tokens", "steps", "draftTokens"} {
		if v, ok := schema.Number(spec[k]); ok && v > most {
			most = v
		}
	}
	if most == 0 {
		most = 16
	}
	return 1 + most
}
