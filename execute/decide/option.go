package decide

import (
	"fmt"
	"strings"

	"servelab.dev/execute/record"
	"servelab.dev/schema"
	"servelab.dev/schema/plan"
)

// option gathers the objective over every run of every repeat of the
// option's trials on the objective's profile (or the step's first),
// counting the runs still missing and the first run that cannot count.
func (d *decider) option(variant string, trials []*plan.Trial) Option {
	if d.s.Objective.Metric == schema.Capacity {
		return d.capacityOption(variant, trials)
	}
	o := Option{Variant: variant}
	profile := d.s.Objective.Profile
	if !hasProfile(trials, profile) && len(trials) > 0 {
		profile = trials[0].Profile
	}
	metric := d.s.Objective.Metric
	var ttft, tpot, lat []float64
	latDerived := false
	var used []*record.Record
	var names []string
	derived := false
	seen := map[string]bool{}
	for _, t := range trials {
		d.planned(t, variant)
	}
	for _, t := range trials {
		if t.Profile != profile {
			continue
		}
		if o.Key == "" {
			o.Key = t.Key
		}
		o.Planned++
		if len(d.runs[t.Key]) == 0 {
			o.missing = append(o.missing, fmt.Sprintf("%s/%s/%s#%d (%s)", t.Step, variant, t.Profile, t.Repeat, short(t.Key)))
			continue
		}
		o.Recorded++
		if seen[loadKey(t)] {
			continue
		}
		seen[loadKey(t)] = true
		for _, pr := range d.pooled(t) {
			r, rt := pr.rec, pr.as(t)
			if iv := d.validity(r, rt, variant); iv != nil {
				if o.Invalid == nil {
					o.Invalid = iv
				}
				continue
			}
			if r.EarlyStop != nil && o.Stopped == "" {
				o.Stopped = r.EarlyStop.Reason
			}
			if _, known, _ := r.Failed(); !known {
				o.UnknownFailed = append(o.UnknownFailed, runName(rt, variant))
			}
			v, _ := d.runValue(r, metric)
			_, der, _ := metricOf(r, metric)
			o.values = append(o.values, v)
			used = append(used, r)
			names = append(names, d.runLabel(t, variant, pr))
			derived = derived || der
			ttft = appendMetric(ttft, r, "ttft.mean")
			tpot = appendMetric(tpot, r, "tpot.mean")
			if v, der, ok := metricOf(r, "latency.mean"); ok {
				lat, latDerived = append(lat, v), latDerived || der
			}
		}
	}
	conf := d.s.Objective.Confidence
	if len(o.values) > 0 && o.Invalid == nil {
		v := summarize(o.values, derived, conf)
		o.Value = &v
		o.requests, _ = requestValues(metric, used, d.samples)
		d.checkSLO(&o, used, names)
	}
	o.TTFT, o.TPOT = maybe(ttft, conf), maybe(tpot, conf)
	if len(trials) > 0 {
		o.TokensPerChunk = d.tokensPerChunk(trials[0].Config, used)
	}
	if len(lat) > 0 && !strings.HasPrefix(metric, "latency.") {
		v := summarize(lat, latDerived, conf)
		o.Latency = &v
	}
	return o
}

// planned notes the step and variant that first planned t's key.
func (d *decider) planned(t *plan.Trial, variant string) {
	if d.origin == nil {
		d.origin = map[string]string{}
	}
	if _, ok := d.origin[t.Key]; !ok {
		d.origin[t.Key] = t.Step + "/" + variant
	}
}

// runLabel names a run of t's configuration by the step and variant
// that first planned its trial, so that a step reusing the run calls it
// as the step that measured it did; a run of a trial the study no
// longer plans takes the name of the trial it is pooled with, and its
// own key.
func (d *decider) runLabel(t *plan.Trial, variant string, pr pooledRun) string {
	if o, ok := d.origin[pr.key]; ok {
		return fmt.Sprintf("%s/%s#%d", o, t.Profile, pr.repeat)
	}
	o, ok := d.origin[t.Key]
	if !ok {
		o = t.Step + "/" + variant
	}
	return fmt.Sprintf("%s/%s#%d (%s)", o, t.Profile, pr.repeat, short(pr.key))
}

func runName(t *plan.Trial, variant string) string {
	return fmt.Sprintf("%s/%s/%s#%d (%s)", t.Step, variant, t.Profile, t.Repeat, short(t.Key))
}

// validity is nil for a run that can count, else why it cannot: it
// lacks the objective's metric, or it failed more requests than the
// study allows (a run that lost requests measured a lighter load). A
// run whose source did not report failures cannot be checked: it
// counts, and the option lists it in UnknownFailed.
func (d *decider) validity(r *record.Record, t *plan.Trial, variant string) *InvalidRun {
	run := runName(t, variant)
	if _, ok := d.runValue(r, d.s.Objective.Metric); !ok {
		fix := "re-import it from a source that reports it, or remove it"
		if d.s.Objective.Metric == schema.Goodput {
			fix = "goodput needs per-request samples, which only runs servelab drove have"
		}
		return &InvalidRun{Reason: ReasonNoMetric, Run: run,
			Message: fmt.Sprintf("record %s has no %s, the objective's metric: %s", run, d.s.Objective.Metric, fix)}
	}
	m := r.Metrics
	failed, known, _ := r.Failed()
	total := m.Completed + failed
	if !known || total == 0 || float64(failed)/float64(total) <= d.s.Objective.MaxFailed {
		return nil
	}
	reasons := m.FailReasons
	if len(reasons) > 3 {
		reasons = reasons[:3]
	}
	msg := fmt.Sprintf("run %s failed %d of %d requests (%.1f %%, the study allows %.1f %%)",
		run, failed, total, 100*float64(failed)/float64(total), 100*d.s.Objective.MaxFailed)
	if len(reasons) > 0 {
		msg += ": " + strings.Join(reasons, "; ")
	}
	return &InvalidRun{Reason: ReasonFailed, Run: run, Failed: failed, Total: total, Reasons: reasons, Message: msg}
}

func appendMetric(xs []float64, r *record.Record, metric string) []float64 {
	if v, _, ok := metricOf(r, metric); ok {
		return append(xs, v)
	}
	return xs
}

func maybe(xs []float64, conf float64) *Value {
	if len(xs) == 0 {
		return nil
	}
	v := summarize(xs, false, conf)
	return &v
}

func hasProfile(trials []*plan.Trial, p string) bool {
	for _, t := range trials {
		if t.Profile == p {
			return true
		}
	}
	return false
}

// tokensPerChunk is the mean over runs of mean ITL ÷ mean TPOT where
// config drafts speculative tokens: ITL is the gap between streamed
// chunks and TPOT the time per token, so their ratio is the tokens a
// chunk carries. nil where it says nothing: no speculative decoding, a
// run without either figure, an ITL below the TPOT (a source whose ITL
// is per token), or a TPOT below the weights' read time.
func (d *decider) tokensPerChunk(config plan.Config, runs []*record.Record) *float64 {
	if _, ok := config.Knobs["speculative"]; !ok || len(runs) == 0 {
		return nil
	}
	floor := minStepMs(d.s, config)
	var xs []float64
	for _, r := range runs {
		itl, ok1 := r.Metrics.ITL.Stat("mean")
		tpot, ok2 := r.Metrics.TPOT.Stat("mean")
		if !ok1 || !ok2 || tpot <= 0 || tpot < floor || itl < tpot {
			return nil
		}
		xs = append(xs, itl/tpot)
	}
	v := mean(xs)
	return &v
}
