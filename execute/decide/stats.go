package decide

import "math"

// summarize is the mean of xs with a 95 % Student-t interval when there
// are at least two values.
func summarize(xs []float64, derived bool) Value {
	v := Value{Runs: len(xs), Derived: derived}
	if len(xs) == 0 {
		return v
	}
	v.Mean = mean(xs)
	if len(xs) >= 2 {
		h := tQuantile975(len(xs)-1) * stddev(xs) / math.Sqrt(float64(len(xs)))
		lo, hi := v.Mean-h, v.Mean+h
		v.Low, v.High = &lo, &hi
	}
	return v
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

// tQuantile975 is the 97.5 % quantile of Student's t with df degrees of
// freedom (two-sided 95 %), from the table for small df.
func tQuantile975(df int) float64 {
	table := []float64{0, 12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
		2.201, 2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086}
	if df < len(table) {
		return table[df]
	}
	if df < 30 {
		return 2.05
	}
	if df < 60 {
		return 2.01
	}
	return 1.96
}

// Verdicts of a comparison.
const (
	Better        = "better"
	Worse         = "worse"
	NoDifference  = "no significant difference"
	NoNoise       = "no noise estimate"
	NotApplicable = ""
)

// verdict compares a (the candidate) with b (the reference) by Welch's
// t interval of the difference of means. Without two runs on each side
// there is no noise estimate, and the report must say so.
func verdict(a, b []float64, lower bool) (string, *[2]float64) {
	if len(a) < 2 || len(b) < 2 {
		return NoNoise, nil
	}
	va, vb := variance(a)/float64(len(a)), variance(b)/float64(len(b))
	se := math.Sqrt(va + vb)
	df := welchDF(va, vb, len(a), len(b))
	d := mean(a) - mean(b)
	h := tQuantile975(int(df)) * se
	iv := [2]float64{d - h, d + h}
	switch {
	case iv[0] <= 0 && iv[1] >= 0:
		return NoDifference, &iv
	case (d < 0) == lower:
		return Better, &iv
	}
	return Worse, &iv
}

func variance(xs []float64) float64 { s := stddev(xs); return s * s }

func welchDF(va, vb float64, na, nb int) float64 {
	num := (va + vb) * (va + vb)
	den := va*va/float64(na-1) + vb*vb/float64(nb-1)
	if den == 0 {
		return float64(na + nb - 2)
	}
	return math.Max(1, math.Floor(num/den))
}

// Verdict compares a with b (a the newer) from their run values: better,
// worse, no significant difference, or no noise estimate.
func Verdict(a, b []float64, lower bool) string {
	v, _ := verdict(a, b, lower)
	return v
}
