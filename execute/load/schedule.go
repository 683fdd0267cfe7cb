package load

import (
	"math"
	"math/rand/v2"
	"time"
)

// Schedule returns when each of n requests is due, as offsets from the
// start: evenly spaced for "constant", gamma-distributed gaps for
// "poisson" (burstiness 1 is Poisson; lower is burstier), from a seeded
// generator so a run can be repeated exactly. The gaps are scaled so the
// last request is due at (n−1)/rate, as vLLM does: an unscaled random
// sum drifts from the rate the profile promises.
func Schedule(kind string, rate, burstiness float64, n int, seed uint64) []time.Duration {
	out := make([]time.Duration, n)
	if n == 0 || rate <= 0 {
		return out
	}
	if kind != "poisson" {
		for i := range out {
			out[i] = time.Duration(float64(i) / rate * float64(time.Second))
		}
		return out
	}
	if burstiness <= 0 {
		burstiness = 1
	}
	rng := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	gaps := make([]float64, n)
	total := 0.0
	for i := 1; i < n; i++ {
		gaps[i] = gamma(rng, burstiness) / (rate * burstiness)
		total += gaps[i]
	}
	scale := 1.0
	if total > 0 {
		scale = float64(n-1) / rate / total
	}
	t := 0.0
	for i := range out {
		t += gaps[i] * scale
		out[i] = time.Duration(t * float64(time.Second))
	}
	return out
}

// gamma draws from Gamma(shape, 1) by Marsaglia and Tsang's method
// (with the shape < 1 boost).
func gamma(rng *rand.Rand, shape float64) float64 {
	if shape < 1 {
		return gamma(rng, shape+1) * math.Pow(rng.Float64(), 1/shape)
	}
	d := shape - 1.0/3
	c := 1 / math.Sqrt(9*d)
	for {
		x := rng.NormFloat64()
		v := 1 + c*x
		if v <= 0 {
			continue
		}
		v = v * v * v
		u := rng.Float64()
		if u < 1-0.0331*x*x*x*x || math.Log(u) < 0.5*x*x+d*(1-v+math.Log(v)) {
			return d * v
		}
	}
}
