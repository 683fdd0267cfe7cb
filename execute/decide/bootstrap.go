package decide

import (
	"hash/fnv"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"

	"servelab.dev/execute/record"
)

// Samples are the per-request samples of measured runs, by record.
type Samples map[*record.Record][]record.Sample

// Resamples is how many bootstrap resamples a comparison draws.
const Resamples = 2000

// minRequests is the fewest requests a side needs for a bootstrap.
const minRequests = 30

// requestValues are the per-request values of metric's family in each
// run's samples (warm-up and failed requests excluded), one slice per
// run. ok is false when a run has no samples or the metric is not a
// per-request quantity (throughputs are properties of a whole run).
func requestValues(metric string, runs []*record.Record, samples Samples) ([][]float64, bool) {
	fam, stat, _ := strings.Cut(metric, ".")
	if _, ok := statistic(stat); !ok || len(runs) == 0 {
		return nil, false
	}
	out := make([][]float64, 0, len(runs))
	n := 0
	for _, r := range runs {
		ss, ok := samples[r]
		if !ok {
			return nil, false
		}
		if fam != "latency" && fam != "ttft" && fam != "tpot" {
			return nil, false
		}
		var xs []float64
		for _, s := range ss {
			if s.Warmup || s.Error != "" {
				continue
			}
			if v, ok := RequestValue(fam, s); ok {
				xs = append(xs, v)
			}
		}
		if len(xs) == 0 {
			return nil, false
		}
		n += len(xs)
		out = append(out, xs)
	}
	if n < minRequests {
		return nil, false
	}
	return out, true
}

// RequestValue is one request's value of a latency family: its
// end-to-end latency, TTFT, or TPOT (none for a single output token).
func RequestValue(fam string, s record.Sample) (float64, bool) {
	switch fam {
	case "latency":
		return s.Latency, true
	case "ttft":
		return s.TTFT, true
	case "tpot":
		if s.OutputTokens > 1 {
			return (s.Latency - s.TTFT) / float64(s.OutputTokens-1), true
		}
	}
	return 0, false
}

// statistic returns the function that computes stat of a sample.
func statistic(stat string) (func([]float64) float64, bool) {
	switch stat {
	case "mean":
		return mean, true
	case "median", "p50":
		return quantile(50), true
	case "p90":
		return quantile(90), true
	case "p95":
		return quantile(95), true
	case "p99":
		return quantile(99), true
	}
	return nil, false
}

// quantile is numpy's default (linear) percentile, on a sorted copy.
func quantile(q float64) func([]float64) float64 {
	return func(xs []float64) float64 {
		s := slices.Clone(xs)
		slices.Sort(s)
		pos := q / 100 * float64(len(s)-1)
		i := int(pos)
		if i+1 >= len(s) {
			return s[len(s)-1]
		}
		return s[i] + (pos-float64(i))*(s[i+1]-s[i])
	}
}

// bootstrapRatio is a percentile-bootstrap interval at level conf of the
// ratio of metric's statistic between a and b (≥ 1 when a is better).
// Each resample draws runs with replacement, then requests within each
// drawn run, so launch-to-launch spread counts where there are repeats.
// The generator is seeded from the sides' sizes and a label, so the same
// records always give the same interval.
func bootstrapRatio(metric string, a, b [][]float64, lower bool, conf float64, label string) (string, *[2]float64) {
	_, stat, _ := strings.Cut(metric, ".")
	f, ok := statistic(stat)
	if !ok {
		return NoNoise, nil
	}
	h := fnv.New64a()
	h.Write([]byte(label + "|" + strconv.Itoa(len(a)) + "|" + strconv.Itoa(len(b))))
	rng := rand.New(rand.NewPCG(h.Sum64(), 0x5e7e1ab))
	ratios := make([]float64, 0, Resamples)
	var bufA, bufB []float64
	for range Resamples {
		bufA, bufB = resample(rng, a, bufA[:0]), resample(rng, b, bufB[:0])
		sa, sb := f(bufA), f(bufB)
		if !(sa > 0) || !(sb > 0) {
			continue
		}
		if lower {
			ratios = append(ratios, sb/sa)
		} else {
			ratios = append(ratios, sa/sb)
		}
	}
	if len(ratios) < Resamples/2 {
		return NoNoise, nil
	}
	slices.Sort(ratios)
	alpha := (1 - conf) / 2
	iv := [2]float64{at(ratios, alpha), at(ratios, 1-alpha)}
	return fromInterval(iv), &iv
}

func resample(rng *rand.Rand, runs [][]float64, out []float64) []float64 {
	for range runs {
		run := runs[0]
		if len(runs) > 1 {
			run = runs[rng.IntN(len(runs))]
		}
		for range run {
			out = append(out, run[rng.IntN(len(run))])
		}
	}
	return out
}

func at(sorted []float64, q float64) float64 {
	i := int(math.Round(q * float64(len(sorted)-1)))
	return sorted[max(0, min(len(sorted)-1, i))]
}
