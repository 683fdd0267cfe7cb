package decide

import (
	"math/rand/v2"
	"sort"

	"servelab.dev/execute/record"
)

// Samples are the per-request samples of measured runs, by record.
type Samples map[*record.Record][]record.Sample

// sampleValues are the per-request values of a latency metric's family
// in the samples of runs (warm-up and failed requests excluded). Only
// means of per-request quantities can be bootstrapped this way.
func sampleValues(metric string, runs []*record.Record, samples Samples) []float64 {
	var out []float64
	for _, r := range runs {
		for _, s := range samples[r] {
			if s.Warmup || s.Error != "" {
				continue
			}
			switch metric {
			case "latency.mean":
				out = append(out, s.Latency)
			case "ttft.mean":
				out = append(out, s.TTFT)
			case "tpot.mean":
				if s.OutputTokens > 1 {
					out = append(out, (s.Latency-s.TTFT)/float64(s.OutputTokens-1))
				}
			}
		}
	}
	return out
}

// bootstrapVerdict compares the means of two samples of requests by a
// percentile bootstrap of the difference (2,000 resamples, fixed seed so
// reports are reproducible). It needs 30 requests a side.
func bootstrapVerdict(a, b []float64, lower bool) (string, *[2]float64) {
	const n = 2000
	if len(a) < 30 || len(b) < 30 {
		return NoNoise, nil
	}
	rng := rand.New(rand.NewPCG(1, 2))
	diffs := make([]float64, n)
	for i := range diffs {
		diffs[i] = resampleMean(rng, a) - resampleMean(rng, b)
	}
	sort.Float64s(diffs)
	iv := [2]float64{diffs[n*25/1000], diffs[n*975/1000]}
	d := mean(a) - mean(b)
	switch {
	case iv[0] <= 0 && iv[1] >= 0:
		return NoDifference, &iv
	case (d < 0) == lower:
		return Better, &iv
	}
	return Worse, &iv
}

func resampleMean(rng *rand.Rand, xs []float64) float64 {
	s := 0.0
	for range xs {
		s += xs[rng.IntN(len(xs))]
	}
	return s / float64(len(xs))
}
