package main

import (
	"io"
	"math"
	"strings"
	"testing"

	"servelab.dev/i18n"
	"servelab.dev/render/publish"
	"servelab.dev/schema"
	"servelab.dev/site"
)

// The flag parsers never panic, and what they accept is within the
// bounds the commands rely on (schema/limits.go). Seed corpora are in
// testdata/fuzz; `make fuzz` runs each target for a short time.

func fuzzEnv() *env { return &env{stdout: io.Discard, stderr: io.Discard, named: map[string]bool{}} }

// args splits a fuzzed command line on NUL, so that arguments may hold
// spaces.
func args(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(s, "\x00")
}

func FuzzBenchFlags(f *testing.F) {
	for _, s := range []string{
		"--target\x00http://127.0.0.1:8000\x00--model\x00m\x00--random\x0016,8",
		"--target=http://x\x00--model=m\x00--dataset=d.json\x00--kind=poisson\x00--rate=NaN\x00--burstiness=0.5",
		"--target=http://x\x00--model=m\x00--random=4,4\x00--kind=concurrency\x00--concurrency=3\x00--requests=1000000000",
		"--target=http://x\x00--model=m\x00--random=4,4\x00--rate=-3\x00--timeout=-1s\x00--warmup=2",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		b, err := parseBench(fuzzEnv(), args(line))
		if err != nil {
			return
		}
		finite := func(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }
		switch {
		case !finite(b.rate) || b.rate <= 0 || b.rate > schema.MaxRate:
			t.Fatalf("rate %v accepted", b.rate)
		case !finite(b.burst) || b.burst < schema.MinBurstiness || b.burst > schema.MaxBurstiness:
			t.Fatalf("burstiness %v accepted", b.burst)
		case b.requests < 1 || b.requests > schema.MaxRequests || b.warmup < 0 || b.warmup > schema.MaxWarmup:
			t.Fatalf("requests %d, warmup %d accepted", b.requests, b.warmup)
		case b.conc < 0 || b.conc > schema.MaxConcurrency || (b.kind == "concurrency" && b.conc == 0):
			t.Fatalf("concurrency %d accepted", b.conc)
		case b.timeout <= 0 || b.maxDur < 0 || b.wait < 0:
			t.Fatalf("negative duration accepted")
		case b.target == "" || b.model == "" || (b.data == "") == (b.random == ""):
			t.Fatalf("incomplete flags accepted: %+v", b)
		}
		if b.random != "" {
			if in, out, err := parseRandom(b.random); err != nil || in < 1 || out < 1 || in > schema.MaxTokens || out > schema.MaxTokens {
				t.Fatalf("--random %q accepted as %d,%d (%v)", b.random, in, out, err)
			}
		}
	})
}

func FuzzRunFlags(f *testing.F) {
	for _, s := range []string{
		"study.cue\x00--simulate\x00--gpus\x000,1",
		"study.cue\x00--gpus=0,0",
		"--max-trials=-1\x00study.cue",
		"study.cue\x00--health-timeout=0s\x00--gpus=GPU-1234,3",
		"a.cue\x00b.cue",
	} {
		f.Add(s, 8)
	}
	f.Fuzz(func(t *testing.T, line string, present int) {
		present = min(max(present, 0), 64)
		o, file, _, err := parseRun(fuzzEnv(), args(line), present)
		if err != nil {
			return
		}
		seen := map[string]bool{}
		for _, g := range o.GPUs {
			if seen[g] || g == "" {
				t.Fatalf("--gpus accepted %q twice or empty: %v", g, o.GPUs)
			}
			seen[g] = true
		}
		if o.MaxTrials < 0 || o.HealthTimeout <= 0 {
			t.Fatalf("accepted %+v %q", o, file)
		}
	})
}

func FuzzOutputFlags(f *testing.F) {
	for _, s := range []string{"en,zh,ru", "fr", "md,html", "pdf", "https://example.org/lab/", "example.org", "http://[::1]:80/x?y"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if ls, err := i18n.NewList(s); err == nil && len(ls) == 0 {
			t.Fatalf("--lang %q: no language", s)
		}
		if fm, err := publish.ParseFormats(s); err == nil {
			for _, k := range fm {
				if k != "md" && k != "html" {
					t.Fatalf("--format %q accepted %q", s, k)
				}
			}
		}
		if l := strings.ToLower(s); site.CheckBaseURL(s) == nil && s != "" && !strings.HasPrefix(l, "http://") && !strings.HasPrefix(l, "https://") {
			t.Fatalf("--base-url %q accepted", s)
		}
		loopback(s)
	})
}
