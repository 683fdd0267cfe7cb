package decide

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"

	"servelab.dev/execute/record"
	"servelab.dev/schema"
)

// Looks are the points, as shares of a trial's requests, at which the
// early-stopping rule looks at a variant's requests so far.
var Looks = []float64{1.0 / 3, 1.0 / 2, 2.0 / 3}

// Stop is the early-stopping rule's verdict on a partial run.
type Stop struct {
	After  int     `json:"after"`  // requests completed when it stopped
	Upper  float64 `json:"upper"`  // the one-sided upper bound of the gain ratio
	Needed float64 `json:"needed"` // 1 + minGain
	Reason string  `json:"reason"`
}

// EarlyStop is the group-sequential rule servelab stops a losing variant
// with: at each look (a third, a half, two thirds of its requests) it
// bootstraps the ratio of the variant's objective to the incumbent's and
// stops when even the upper confidence bound of that ratio is not above
// 1 + minGain: the variant cannot beat the incumbent by minGain. Each
// look spends an equal share of the error rate (Bonferroni: one-sided
// (1 − confidence) / looks), so the chance of stopping a variant that
// would have won stays under 1 − confidence. It stops only losers; a
// winner always runs to the end. It applies to per-request metrics
// (latency, TTFT, TPOT means and percentiles), not to throughputs.
type EarlyStop struct {
	Metric     string
	Lower      bool
	Confidence float64
	MinGain    float64
	Incumbent  [][]float64 // the incumbent's per-request values, per run
}

// NewEarlyStop is the study's rule against an incumbent's requests, or
// nil when the study does not ask for it or its metric cannot use it.
func NewEarlyStop(s *schema.Study, incumbent [][]float64) *EarlyStop {
	fam, stat, _ := strings.Cut(s.Objective.Metric, ".")
	if !s.Objective.EarlyStop || len(incumbent) == 0 || fam == "itl" {
		return nil
	}
	if _, ok := statistic(stat); !ok {
		return nil
	}
	return &EarlyStop{Metric: s.Objective.Metric, Lower: Lower(s.Objective.Metric), Confidence: s.Objective.Confidence,
		MinGain: s.Objective.MinGain, Incumbent: incumbent}
}

// Check looks at the first values of a run of planned requests (in the
// order they completed) and says whether to stop it now. It answers only
// at a look: when len(values) reaches one of the looks' counts.
func (e *EarlyStop) Check(values []float64, planned int) *Stop {
	n := len(values)
	if !e.atLook(n, planned) || n < minRequests {
		return nil
	}
	alpha := (1 - e.Confidence) / float64(len(Looks))
	_, iv := bootstrapRatio(e.Metric, [][]float64{values}, e.Incumbent, e.Lower, 1-2*alpha, fmt.Sprint("early", n))
	if iv == nil || iv[1] > 1+e.MinGain {
		return nil
	}
	return &Stop{After: n, Upper: iv[1], Needed: 1 + e.MinGain,
		Reason: fmt.Sprintf("after %d of %d requests the variant is at most %.3fx the incumbent (one-sided %.1f %% bound), not the %.3fx it needs",
			n, planned, iv[1], 100*(1-alpha), 1+e.MinGain)}
}

func (e *EarlyStop) atLook(n, planned int) bool {
	for _, f := range Looks {
		if n == int(math.Ceil(f*float64(planned))) {
			return true
		}
	}
	return false
}

// Replay runs the rule over a finished run's values in completion order,
// as if it had watched the run: the stop it would have made, or nil.
func (e *EarlyStop) Replay(values []float64) *Stop {
	for n := 1; n <= len(values); n++ {
		if st := e.Check(values[:n], len(values)); st != nil {
			return st
		}
	}
	return nil
}

// CompletionOrder is metric's per-request values in the order the
// requests completed (warm-up and failed requests left out): the order
// an early-stopping rule watching the run would have seen them in. It is
// nil where a bootstrap could not use them: a metric that is no
// per-request statistic, or fewer than minRequests values.
func CompletionOrder(metric string, samples []record.Sample) []float64 {
	fam, stat, _ := strings.Cut(metric, ".")
	if _, ok := statistic(stat); !ok {
		return nil
	}
	type done struct{ at, v float64 }
	var ds []done
	for _, s := range samples {
		if s.Warmup || s.Error != "" {
			continue
		}
		if v, ok := RequestValue(fam, s); ok {
			ds = append(ds, done{s.Intended + s.Latency/1000, v})
		}
	}
	if len(ds) < minRequests {
		return nil
	}
	slices.SortStableFunc(ds, func(a, b done) int { return cmp.Compare(a.at, b.at) })
	out := make([]float64, len(ds))
	for i, d := range ds {
		out[i] = d.v
	}
	return out
}
