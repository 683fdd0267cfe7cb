package bench

import (
	"fmt"
	"math"
	"strconv"

	"servelab.dev/schema"
)

// Check refuses a run the client cannot make within memory and time,
// against the limits a study's profiles have (schema/limits.go): a NaN
// rate panicked after the run, a NaN burstiness hung the scheduler, a
// negative rate sent as fast as it could, and a billion requests ran
// out of memory. Each message names servelab bench's flag, the value and
// the range.
func (o Options) Check() error {
	switch {
	case o.Kind != "constant" && o.Kind != "poisson" && o.Kind != "concurrency":
		return fmt.Errorf("--kind %q: want constant, poisson or concurrency", o.Kind)
	case o.API != "chat" && o.API != "completions":
		return fmt.Errorf("--api %q: want chat or completions", o.API)
	}
	if err := inRange("--rate", o.Rate, math.SmallestNonzeroFloat64, schema.MaxRate, "requests per second"); err != nil {
		return err
	}
	if err := inRange("--burstiness", o.Burstiness, schema.MinBurstiness, schema.MaxBurstiness, "gamma shape (1 = Poisson)"); err != nil {
		return err
	}
	for _, c := range []struct {
		name      string
		v, lo, hi int
		what      string
	}{
		{"--requests", o.Requests, 1, schema.MaxRequests, "measured requests (each keeps a sample in memory and in the record; split a longer run)"},
		{"--warmup", o.Warmup, 0, schema.MaxWarmup, "warm-up requests"},
		{"--concurrency", o.Concurrency, 0, schema.MaxConcurrency, "slots"},
	} {
		if c.v < c.lo || c.v > c.hi {
			return fmt.Errorf("%s %d: want %d to %d %s", c.name, c.v, c.lo, c.hi, c.what)
		}
	}
	out := schema.ShareGPTMaxOutput
	if o.OutputLen > 0 {
		out = o.OutputLen
	}
	if n := int64(o.Requests+o.Warmup) * int64(out); n > schema.MaxRunTokens {
		return fmt.Errorf("--requests %d: with up to %d output tokens each that makes %d tokens, more than one run keeps in memory (%d): send fewer requests or shorter outputs",
			o.Requests, out, n, schema.MaxRunTokens)
	}
	switch {
	case o.Kind == "concurrency" && o.Concurrency == 0:
		return fmt.Errorf("--kind concurrency needs --concurrency N (1 to %d)", schema.MaxConcurrency)
	case o.Timeout <= 0:
		return fmt.Errorf("--timeout %s: want a positive duration (a request without a limit can hang the run)", o.Timeout)
	case o.MaxDuration < 0:
		return fmt.Errorf("--max-duration %s: want a duration of 0 or more (0: none)", o.MaxDuration)
	}
	return nil
}

// inRange checks a float: finite and within [lo, hi].
func inRange(name string, v, lo, hi float64, what string) error {
	if math.IsNaN(v) || math.IsInf(v, 0) || v < lo || v > hi {
		low := strconv.FormatFloat(lo, 'g', -1, 64)
		if lo == math.SmallestNonzeroFloat64 {
			low = "above 0"
		}
		return fmt.Errorf("%s %v: want a finite number, %s to %s (%s)", name, v, low, strconv.FormatFloat(hi, 'g', -1, 64), what)
	}
	return nil
}
