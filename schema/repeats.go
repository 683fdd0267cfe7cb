package schema

import (
	"encoding/json"
	"fmt"
)

// MaxAdaptiveRepeats bounds repeats.max: past 20 runs a side, a
// comparison still open is inside the noise for any practical purpose,
// and the GPU hours are better spent elsewhere.
const MaxAdaptiveRepeats = 20

// Repeats is how often each trial runs: Min times, and up to Max when the
// comparison is still open (adaptive repeats). A fixed count has
// Min == Max; the zero value is unset.
type Repeats struct {
	Min int
	Max int
}

// Fixed is a fixed count of n runs.
func Fixed(n int) Repeats { return Repeats{Min: n, Max: n} }

// Adaptive reports whether runs are added while a comparison is open.
func (r Repeats) Adaptive() bool { return r.Max > r.Min }

// Looks is how many times an adaptive comparison may be judged: at Min
// runs a side and after each added one.
func (r Repeats) Looks() int { return r.Max - r.Min + 1 }

// String is "3" or "2–6".
func (r Repeats) String() string {
	if r.Adaptive() {
		return fmt.Sprintf("%d–%d", r.Min, r.Max)
	}
	return fmt.Sprint(r.Min)
}

// UnmarshalJSON reads a count or {min, max}.
func (r *Repeats) UnmarshalJSON(b []byte) error {
	var n int
	if err := json.Unmarshal(b, &n); err == nil {
		*r = Fixed(n)
		return nil
	}
	var m struct {
		Min *int `json:"min"`
		Max *int `json:"max"`
	}
	if err := json.Unmarshal(b, &m); err != nil || m.Min == nil || m.Max == nil {
		return fmt.Errorf("repeats is a count or {min, max}, not %s", b)
	}
	*r = Repeats{Min: *m.Min, Max: *m.Max}
	return nil
}

// MarshalJSON writes a count, or {min, max} when adaptive.
func (r Repeats) MarshalJSON() ([]byte, error) {
	if r.Adaptive() {
		return json.Marshal(map[string]int{"min": r.Min, "max": r.Max})
	}
	return json.Marshal(r.Min)
}

// repeats checks a repeats field: at least one run, a min no larger
// than the max, a max no larger than MaxAdaptiveRepeats (MaxRepeats for
// a fixed count).
func (c *checker) repeats(parts []any, r Repeats) {
	switch {
	case r == Repeats{}:
	case !r.Adaptive() && r.Min == r.Max && (r.Min < 1 || r.Min > MaxRepeats):
		c.errorf(parts, "repeats %d: want 1 to %d runs", r.Min, MaxRepeats)
	case r.Min < 1:
		c.errorf(at(parts, "min"), "repeats.min %d: every trial runs at least once; want 1 or more (2 or more gives a noise estimate sooner)", r.Min)
	case r.Min > r.Max:
		c.errorf(parts, "repeats.min %d is above repeats.max %d: swap them, or write one count for a fixed number of runs", r.Min, r.Max)
	case r.Max > MaxAdaptiveRepeats:
		c.errorf(at(parts, "max"), "repeats.max %d is above %d: a comparison still open after %d runs a side is inside the noise; lower max", r.Max, MaxAdaptiveRepeats, MaxAdaptiveRepeats)
	}
}
