package plan

import (
	"math"

	"servelab.dev/schema"
)

// Oracle says whether the runs at rate meet the SLO; known is false
// while any repeat of that probe has no record.
type Oracle func(rate float64) (meets, known bool)

// Search is how far a capacity search has got.
type Search struct {
	// Probes are the rates probed so far, in order, with their results.
	Probes []Probe `json:"probes"`
	// Next is the rate to probe now; 0 when the search is over.
	Next float64 `json:"next,omitempty"`
	// Capacity is the highest rate that met the SLO (0 when even the low
	// end failed); Bracket is where the true capacity lies.
	Capacity float64    `json:"capacity"`
	Bracket  [2]float64 `json:"bracket"`
	// Below: the low end already breaks the SLO. Above: the high end
	// meets it, so the capacity is at least High (Bracket is then [High, High]).
	Below bool `json:"below,omitempty"`
	Above bool `json:"above,omitempty"`
}

// Probe is one rate a search ran and whether it met the SLO.
type Probe struct {
	Rate  float64 `json:"rate"`
	Meets bool    `json:"meets"`
}

// Bisect runs the search as far as the oracle knows: the low end, the
// high end, then halves the bracket until it is no wider than the
// precision. Probe rates are rounded to a quarter of the precision, so
// they read well and the same search always probes the same rates.
func Bisect(sr schema.Search, o Oracle) Search {
	var s Search
	probe := func(rate float64) (bool, bool) {
		meets, known := o(rate)
		if known {
			s.Probes = append(s.Probes, Probe{Rate: rate, Meets: meets})
		} else {
			s.Next = rate
		}
		return meets, known
	}
	lo, hi := sr.Low, sr.High
	s.Bracket = [2]float64{0, lo}
	meets, known := probe(lo)
	if !known {
		return s
	}
	if !meets {
		s.Below = true
		return s
	}
	s.Capacity, s.Bracket = lo, [2]float64{lo, hi}
	if meets, known = probe(hi); !known {
		return s
	}
	if meets {
		s.Above, s.Capacity, s.Bracket = true, hi, [2]float64{hi, hi} // no upper end: Above says so
		return s
	}
	step := sr.Precision / 4
	for hi-lo > sr.Precision {
		mid := math.Round((lo+hi)/2/step) * step
		if meets, known = probe(mid); !known {
			return s
		}
		if meets {
			lo = mid
		} else {
			hi = mid
		}
		s.Capacity, s.Bracket = lo, [2]float64{lo, hi}
	}
	return s
}

// MaxProbes is how many probes a bisection needs at most.
func MaxProbes(sr schema.Search) int {
	return 2 + int(math.Ceil(math.Log2((sr.High-sr.Low)/sr.Precision)))
}
