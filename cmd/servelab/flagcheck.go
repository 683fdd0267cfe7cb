package main

import (
	"math"
	"strconv"
	"strings"
	"time"

	"servelab.dev/schema"
)

// Every numeric flag is checked before any work starts: a NaN rate
// panicked after the run, a NaN burstiness hung the scheduler, a
// negative rate sent as fast as it could, and a billion requests ran
// out of memory. Each message names the flag, the value and the range.

// checkBench validates servelab bench's flags.
func checkBench(b benchFlags) error {
	switch {
	case b.kind != "constant" && b.kind != "poisson" && b.kind != "concurrency":
		return usagef("--kind %q: want constant, poisson or concurrency", b.kind)
	case b.api != "chat" && b.api != "completions":
		return usagef("--api %q: want chat or completions", b.api)
	}
	if err := inRange("--rate", b.rate, math.SmallestNonzeroFloat64, schema.MaxRate, "requests per second"); err != nil {
		return err
	}
	if err := inRange("--burstiness", b.burst, schema.MinBurstiness, schema.MaxBurstiness, "gamma shape (1 = Poisson)"); err != nil {
		return err
	}
	for _, c := range []struct {
		name  string
		v, lo int
		hi    int
		what  string
	}{
		{"--requests", b.requests, 1, schema.MaxRequests, "measured requests (each keeps a sample in memory and in the record; split a longer run)"},
		{"--warmup", b.warmup, 0, schema.MaxWarmup, "warm-up requests"},
		{"--concurrency", b.conc, 0, schema.MaxConcurrency, "slots"},
	} {
		if c.v < c.lo || c.v > c.hi {
			return usagef("%s %d: want %d to %d %s", c.name, c.v, c.lo, c.hi, c.what)
		}
	}
	out := schema.ShareGPTMaxOutput
	if b.random != "" {
		_, out, _ = parseRandom(b.random)
	}
	if n := int64(b.requests+b.warmup) * int64(out); n > schema.MaxRunTokens {
		return usagef("--requests %d: with up to %d output tokens each that makes %d tokens, more than one run keeps in memory (%d): send fewer requests or shorter outputs",
			b.requests, out, n, schema.MaxRunTokens)
	}
	if b.kind == "concurrency" && b.conc == 0 {
		return usagef("--kind concurrency needs --concurrency N (1 to %d)", schema.MaxConcurrency)
	}
	if b.timeout <= 0 {
		return usagef("--timeout %s: want a positive duration (a request without a limit can hang the run)", b.timeout)
	}
	for _, d := range []struct {
		name string
		v    time.Duration
	}{{"--max-duration", b.maxDur}, {"--wait", b.wait}} {
		if d.v < 0 {
			return usagef("%s %s: want a duration of 0 or more (0: none)", d.name, d.v)
		}
	}
	return nil
}

// inRange checks a float flag: finite and within [lo, hi].
func inRange(name string, v, lo, hi float64, what string) error {
	if math.IsNaN(v) || math.IsInf(v, 0) || v < lo || v > hi {
		low := strconv.FormatFloat(lo, 'g', -1, 64)
		if lo == math.SmallestNonzeroFloat64 {
			low = "above 0"
		}
		return usagef("%s %v: want a finite number, %s to %s (%s)", name, v, low, strconv.FormatFloat(hi, 'g', -1, 64), what)
	}
	return nil
}

// parseRandom reads --random IN,OUT: two token counts.
func parseRandom(s string) (in, out int, err error) {
	a, b, ok := strings.Cut(s, ",")
	in, err1 := strconv.Atoi(strings.TrimSpace(a))
	out, err2 := strconv.Atoi(strings.TrimSpace(b))
	if !ok || err1 != nil || err2 != nil || in < 1 || out < 1 || in > schema.MaxTokens || out > schema.MaxTokens {
		return 0, 0, usagef("--random %q: want INPUT,OUTPUT token counts, each 1 to %d (e.g. --random 1024,128)", s, schema.MaxTokens)
	}
	return in, out, nil
}

// parseGPUs reads --gpus: indexes (or GPU-/MIG- UUIDs), each once. present
// is how many GPUs nvidia-smi lists (0 when it cannot say): an index
// beyond them is refused.
func parseGPUs(list string, present int) ([]string, error) {
	if list == "" {
		return nil, nil
	}
	seen := map[string]bool{}
	var out []string
	for _, id := range strings.Split(list, ",") {
		id = strings.TrimSpace(id)
		if strings.HasPrefix(id, "GPU-") || strings.HasPrefix(id, "MIG-") {
			// a UUID: nvidia-smi -L lists them
		} else if n, err := strconv.Atoi(id); err != nil || n < 0 || strconv.Itoa(n) != id {
			return nil, usagef("--gpus %s: %q is not a GPU index (0, 1, ...) or UUID (GPU-..., MIG-...)", list, id)
		} else if present > 0 && n >= present {
			return nil, usagef("--gpus %s: GPU %d does not exist (nvidia-smi lists %d: 0 to %d)", list, n, present, present-1)
		}
		if seen[id] {
			return nil, usagef("--gpus %s: GPU %s is listed twice; give each GPU once (e.g. --gpus 0,1)", list, id)
		}
		seen[id] = true
		out = append(out, id)
	}
	return out, nil
}
