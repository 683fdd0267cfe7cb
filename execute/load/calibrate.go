package load

import (
	"context"
	"fmt"
	"math"
	"syscall"
	"time"
)

// Calibration is the client's headroom on this host, measured against a
// servelab-sim that steps every millisecond (CalibrationTiming).
type Calibration struct {
	// ChunksPerSecond is the streamed chunks read per second with
	// CalibrationStreams streams of long outputs, and CPUPerChunk this
	// process's CPU time (user + system, getrusage) per chunk, in µs.
	ChunksPerSecond float64 `json:"chunksPerSecond"`
	CPUPerChunk     float64 `json:"cpuUsPerChunk"`
	// FloorCPUPerChunk is ReadFloor's figure for the same streams (its
	// rate is FloorChunksPerSecond): what this host's kernel makes any
	// client pay a chunk, so that CPUPerChunk minus it is about the
	// client's own cost.
	FloorCPUPerChunk     float64 `json:"floorCpuUsPerChunk"`
	FloorChunksPerSecond float64 `json:"floorChunksPerSecond"`
	// MaxRate is the highest request rate tried whose schedule lag p99
	// stayed under 1 ms with no failure (in one of three runs at most);
	// LagP99 is that p99 in ms. When even the lowest rate missed, MaxRate
	// is 0 and LagP99 that rate's best p99 (0 when its requests failed:
	// LowestFailed).
	MaxRate float64 `json:"maxRate"`
	LagP99  float64 `json:"lagP99Ms"`
	// LowestFailed says the lowest rate's requests failed in every run,
	// so it has no lag to give.
	LowestFailed bool `json:"lowestRateFailed,omitempty"`
	// Pinned says where the client and the simulator ran, when the
	// caller pinned them.
	Pinned string `json:"pinned,omitempty"`
}

// CalibrationTiming is the servelab-sim timing Calibrate expects: one
// token per stream a millisecond. CalibrationRate requests a second of
// CalibrationTokens tokens each keep CalibrationStreams streams in
// flight: 50,000 chunks/s when the client keeps up, on the pacer's
// schedule as in a real rate profile.
const (
	CalibrationTiming  = "step=1ms,per-seq=0s,prefill=0s"
	CalibrationRate    = 1000
	CalibrationTokens  = 50
	CalibrationStreams = CalibrationRate * CalibrationTokens / 1000
)

// calibrationPrompt is what each of Calibrate's long streams asks for.
var calibrationPrompt = Prompt{TokenIDs: []int{100, 200, 300, 400}, MaxTokens: CalibrationTokens}

// Calibrate measures the client against the simulator at url serving
// model: CPU per chunk over two seconds at CalibrationRate (after one
// such run to warm up), the host's floor for it (ReadFloor), then
// constant rates of 2-token requests from
// 250 req/s up to maxRate until the schedule lag p99 reaches 1 ms.
func Calibrate(ctx context.Context, url, model string, maxRate float64) (Calibration, error) {
	return calibrate(ctx, url, model, maxRate, "")
}

func calibrate(ctx context.Context, url, model string, maxRate float64, reader string) (Calibration, error) {
	var c Calibration
	t := Target{URL: url, Model: model, API: "completions"}
	long := []Prompt{calibrationPrompt}
	l := Load{Kind: "constant", Rate: CalibrationRate, Requests: 2 * CalibrationRate, Warmup: CalibrationStreams,
		IgnoreEOS: true, reader: reader}
	s, err := Run(ctx, t, l, long)
	if err != nil {
		return c, err
	}
	cpu0, began := cpuTime(), time.Now()
	s, err = Run(ctx, t, l, long)
	if err != nil {
		return c, err
	}
	chunks := 0
	for _, x := range s {
		if x.Error != "" {
			return c, fmt.Errorf("calibration request failed: %s", x.Error)
		}
		chunks += 1 + len(x.Gaps)
	}
	c.ChunksPerSecond = float64(chunks) / time.Since(began).Seconds()
	c.CPUPerChunk = float64(cpuTime()-cpu0) / float64(time.Microsecond) / float64(chunks)
	if c.FloorCPUPerChunk, c.FloorChunksPerSecond, err = ReadFloor(ctx, url, model, 2*time.Second); err != nil {
		return c, err
	}
	short := calibrationPrompt
	short.MaxTokens = 2
	for i, rate := range rates(maxRate) {
		p99, err := bestLag(ctx, t, Load{Kind: "constant", Rate: rate, Requests: int(rate * 1.5), Warmup: 64, IgnoreEOS: true, reader: reader}, []Prompt{short})
		if err != nil {
			return c, err
		}
		if p99 >= 1 {
			if i == 0 {
				c.LowestFailed = math.IsInf(p99, 0)
				if !c.LowestFailed {
					c.LagP99 = p99 // the lowest rate's, to say by how much it missed
				}
			}
			break
		}
		c.MaxRate, c.LagP99 = rate, p99
	}
	return c, nil
}

// bestLag is the lowest schedule lag p99 of up to three runs (ms), +Inf
// when none completed every request: a host shared with other work
// preempts the client now and then for milliseconds, which says nothing
// about the client, so a rate counts as held when one run holds it.
func bestLag(ctx context.Context, t Target, l Load, p []Prompt) (float64, error) {
	best := math.Inf(1)
	for range 3 {
		s, err := Run(ctx, t, l, p)
		if err != nil {
			return 0, err
		}
		m := Summarize(s)
		if *m.Failed == 0 && m.ScheduleLag != nil {
			best = math.Min(best, *m.ScheduleLag.P99)
		}
		if best < 1 {
			break
		}
	}
	return best, nil
}

// LowestRate is the first rate Calibrate tries.
const LowestRate = 250

// rates are the rates tried: 250, 375, 500, 750, 1000, 1500, ...
func rates(top float64) []float64 {
	var out []float64
	for r := float64(LowestRate); r <= top; r *= 2 {
		out = append(out, r)
		if r*1.5 <= top {
			out = append(out, r*1.5)
		}
	}
	return out
}

// cpuTime is this process's CPU time so far, user and system.
func cpuTime() time.Duration {
	var r syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &r) != nil {
		return 0
	}
	return time.Duration(r.Utime.Nano() + r.Stime.Nano())
}
