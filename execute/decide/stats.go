package decide

import (
	"math"
	"slices"

	"gonum.org/v1/gonum/stat/distuv"
)

// MinRunsT is the fewest runs a side a t interval is computed from: with
// two, one degree of freedom stretches a 95 % interval over a factor of
// a hundred, which says nothing the two values do not.
const MinRunsT = 3

// summarize is the mean of run values xs. With three or more runs, all
// positive, Low and High bound the mean at level conf by a Student-t
// interval on the logarithms: latencies and throughputs are positive and
// their spread grows with their size, so the interval is symmetric in
// ratio, not in units, and never reaches zero. With two, Low and High
// are the two runs (Interval "range").
func summarize(xs []float64, derived bool, conf float64) Value {
	v := Value{Runs: len(xs), Derived: derived}
	if len(xs) == 0 {
		return v
	}
	v.Mean = mean(xs)
	if len(xs) < 2 || !positive(xs) {
		return v
	}
	if len(xs) < MinRunsT {
		lo, hi := slices.Min(xs), slices.Max(xs)
		v.Low, v.High, v.Interval = &lo, &hi, IntervalRange
		return v
	}
	ls := logs(xs)
	h := tQuantile(0.5+conf/2, float64(len(xs)-1)) * stddev(ls) / math.Sqrt(float64(len(xs)))
	lo, hi := math.Exp(mean(ls)-h), math.Exp(mean(ls)+h)
	// The interval is the geometric mean's; the arithmetic mean printed
	// beside it is never below that, so widen to keep it inside.
	lo, hi = math.Min(lo, v.Mean), math.Max(hi, v.Mean)
	v.Low, v.High, v.Interval = &lo, &hi, IntervalT
	return v
}

func positive(xs []float64) bool {
	for _, x := range xs {
		if !(x > 0) || math.IsInf(x, 0) {
			return false
		}
	}
	return len(xs) > 0
}

func logs(xs []float64) []float64 {
	out := make([]float64, len(xs))
	for i, x := range xs {
		out[i] = math.Log(x)
	}
	return out
}

func mean(xs []float64) float64 {
	s := 0.0
	for _, x := range xs {
		s += x
	}
	return s / float64(len(xs))
}

// stddev is the sample standard deviation (n − 1).
func stddev(xs []float64) float64 {
	m := mean(xs)
	s := 0.0
	for _, x := range xs {
		s += (x - m) * (x - m)
	}
	return math.Sqrt(s / float64(len(xs)-1))
}

func variance(xs []float64) float64 { s := stddev(xs); return s * s }

// tQuantile is the p quantile of Student's t with df degrees of freedom.
func tQuantile(p, df float64) float64 {
	return distuv.StudentsT{Mu: 0, Sigma: 1, Nu: df}.Quantile(p)
}

// welchDF is the Welch–Satterthwaite degrees of freedom of a difference
// of two means with squared standard errors va and vb.
func welchDF(va, vb float64, na, nb int) float64 {
	num := (va + vb) * (va + vb)
	den := va*va/float64(na-1) + vb*vb/float64(nb-1)
	if den == 0 {
		return float64(na + nb - 2)
	}
	return math.Max(1, num/den)
}

// Verdicts of a comparison, benchstat's in words.
const (
	Better       = "better"
	Worse        = "worse"
	NoDifference = "no significant difference"
	NoNoise      = "no noise estimate"
)

// runRatio compares run values a (the candidate) with b (the reference)
// by Welch's t interval on their logarithms, which is an interval of the
// ratio of their geometric means. ratio ≥ 1 means a is better. With
// fewer than MinRunsT runs on either side there is no interval: sides
// whose runs overlap are no significant difference, and otherwise there
// is no noise estimate.
func runRatio(a, b []float64, lower bool, conf float64) (string, *[2]float64) {
	if len(a) < MinRunsT || len(b) < MinRunsT || !positive(a) || !positive(b) {
		if len(a) > 0 && len(b) > 0 && len(a)+len(b) > 2 && overlap(a, b) {
			return NoDifference, nil
		}
		return NoNoise, nil
	}
	la, lb := logs(a), logs(b)
	va, vb := variance(la)/float64(len(la)), variance(lb)/float64(len(lb))
	d := mean(la) - mean(lb)
	if lower {
		d = -d
	}
	h := tQuantile(0.5+conf/2, welchDF(va, vb, len(la), len(lb))) * math.Sqrt(va+vb)
	iv := [2]float64{math.Exp(d - h), math.Exp(d + h)}
	return fromInterval(iv), &iv
}

// overlap reports whether the runs of a and b overlap: the range of one
// side meets the range of the other.
func overlap(a, b []float64) bool {
	return slices.Min(a) <= slices.Max(b) && slices.Min(b) <= slices.Max(a)
}

// fromInterval reads a verdict off an interval of the ratio (≥ 1 when
// the candidate is better).
func fromInterval(iv [2]float64) string {
	switch {
	case iv[0] > 1:
		return Better
	case iv[1] < 1:
		return Worse
	}
	return NoDifference
}

// Verdict compares run values a (the newer) with b at 95 %: better,
// worse, no significant difference, or no noise estimate.
func Verdict(a, b []float64, lower bool) string {
	v, _ := runRatio(a, b, lower, 0.95)
	return v
}
