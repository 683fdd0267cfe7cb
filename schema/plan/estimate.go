package plan

import (
	"fmt"
	"math"
	"strings"

	"servelab.dev/schema"
)

// Estimate is the GPU time the trials not yet recorded will take.
// Pending trials count as planned (one launch per variant and repeat), so
// the figure is what the whole study costs if nothing is pruned.
type Estimate struct {
	Trials           int     `json:"trials"`
	Pending          int     `json:"pending"`
	Cached           int     `json:"cached"`
	Launches         int     `json:"launches"`
	LaunchSeconds    float64 `json:"launchSeconds"`
	BenchmarkSeconds float64 `json:"benchmarkSeconds"`
	TotalSeconds     float64 `json:"totalSeconds"`
	// MaxSeconds is TotalSeconds if every open comparison of an adaptive
	// step ran to its max repeats; 0 without adaptive steps.
	MaxSeconds float64 `json:"maxSeconds,omitempty"`
}

func estimate(s *schema.Study, trials []*Trial) Estimate {
	var e Estimate
	launches := map[string]bool{}
	for _, t := range trials {
		e.Trials++
		switch t.Status {
		case Cached:
			e.Cached++
			continue
		case Pending:
			e.Pending++
			launches[fmt.Sprintf("pending %s/%s\x00repeat %d", t.Step, t.Variant, t.Repeat)] = true
		default:
			launches[LaunchKey(t)] = true
		}
		e.BenchmarkSeconds += t.Seconds
	}
	e.Launches = len(launches)
	e.LaunchSeconds = float64(e.Launches) * s.Estimate.Launch
	e.TotalSeconds = e.LaunchSeconds + e.BenchmarkSeconds
	if extra := adaptiveExtra(s, trials); extra > 0 {
		e.MaxSeconds = e.TotalSeconds + extra
	}
	return e
}

// adaptiveExtra is the GPU time the repeats an adaptive step may still
// add would take: every option of a step not yet decided run to max,
// each added repeat its own launch.
func adaptiveExtra(s *schema.Study, trials []*Trial) float64 {
	open := map[string]bool{}
	count := map[string]int{}
	seconds := map[string]float64{}
	for _, t := range trials {
		g := t.Step + "\x00" + t.Variant + "\x00" + t.Profile
		count[g]++
		seconds[g] = max(seconds[g], t.Seconds)
		open[g] = open[g] || t.Status != Cached
	}
	extra := 0.0
	for _, st := range s.Steps {
		rep := StepRepeats(s, st)
		if !rep.Adaptive() {
			continue
		}
		for g, n := range count {
			if open[g] && strings.HasPrefix(g, st.ID+"\x00") && n < rep.Max {
				extra += float64(rep.Max-n) * (seconds[g] + s.Estimate.Launch)
			}
		}
	}
	return extra
}

// LaunchKey names one engine launch: a configuration (engine, version,
// command line, environment) and a repeat. The runner launches once per
// key and runs every profile of the configuration against it; each
// repeat gets its own launch, so that launch-to-launch spread is part
// of what the repeats measure. The estimate counts launches by it.
func LaunchKey(t *Trial) string {
	return fmt.Sprintf("%s\x00%s\x00%s\x00%v\x00repeat %d", t.Kind, t.Version, strings.Join(t.Argv, "\x00"), t.Env, t.Repeat)
}

// profileSeconds is the expected length of one run of profile p: warm-up
// and measured requests at the profile's rate, or, closed-loop, waves of
// the study's expected request latency.
func profileSeconds(s *schema.Study, name string) float64 {
	p := s.Profiles[name]
	if p.Search != nil {
		// A search runs up to MaxProbes probes; count them at mid-bracket.
		mid := p.Probe((p.Search.Low + p.Search.High) / 2)
		return float64(MaxProbes(*p.Search)) * loadSeconds(s, mid)
	}
	return loadSeconds(s, p)
}

// loadSeconds estimates one run of profile p.
func loadSeconds(s *schema.Study, p schema.Profile) float64 {
	n := float64(p.Requests + s.Benchmark.Warmup)
	lat := s.Estimate.Latency
	closed := func(c int) float64 { return math.Ceil(n/float64(c)) * lat }
	switch p.Kind {
	case "concurrency":
		// A conversation's user also thinks between turns.
		think := math.Ceil(n/float64(p.Concurrency)) * s.DatasetOf(p).ThinkTime
		return closed(p.Concurrency) + think
	case "trace":
		// The planner reads no trace: its span is taken as every request
		// in turn, which a trace that keeps the engine busy approaches.
		return n * lat
	default:
		open := n/p.Rate + lat
		if p.Concurrency > 0 {
			return math.Max(open, closed(p.Concurrency))
		}
		return open
	}
}
