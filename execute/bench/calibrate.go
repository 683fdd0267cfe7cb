package bench

import (
	"cmp"
	"context"
	"fmt"
	"os"
	"runtime"
	"time"

	"servelab.dev/execute/engine"
	"servelab.dev/execute/host"
	"servelab.dev/execute/load"
)

// Calibrate measures the client's headroom on this host: it starts the
// servelab-sim binary at sim with one-millisecond steps and no other
// delay (so the client is the only bottleneck), runs load.Calibrate up
// to maxRate requests a second with the client on procs cores
// (GOMAXPROCS, restored after; with one core, the client and the
// simulator are pinned to the first two CPUs this process may use, and
// Calibration.Pinned says how), and stops the simulator.
func Calibrate(ctx context.Context, sim string, maxRate float64, procs int) (load.Calibration, error) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
	url, pid, stop, err := startZeroSim(ctx, sim)
	if err != nil {
		return load.Calibration{}, err
	}
	defer stop()
	pinned := ""
	if procs == 1 {
		// The goals are per core: the client alone on one CPU, the
		// simulator on another, so neither takes the other's time.
		cpus, restore, err := host.PinApart(os.Getpid(), pid)
		defer restore()
		pinned = fmt.Sprintf("client on CPU %d, simulator on CPU %d", cpus[0], cpus[1])
		if err != nil {
			pinned = "not pinned: " + err.Error()
		}
	}
	c, err := load.Calibrate(ctx, url, "calibrate", maxRate)
	c.Pinned = pinned
	return c, err
}

func startZeroSim(ctx context.Context, path string) (string, int, func(), error) {
	logf, err := os.CreateTemp("", "servelab-calibrate-*.log")
	if err != nil {
		return "", 0, nil, err
	}
	logf.Close()
	spec := engine.Spec{Argv: []string{path, "vllm", "serve", "calibrate", "--max-num-seqs", "4096"},
		Env:       map[string]string{"SERVELAB_SIM_TIMING": load.CalibrationTiming},
		FlagStyle: "space", HostFlag: "host", PortFlag: "port", Health: "/health", Log: logf.Name()}
	p, err := engine.Start(ctx, spec, 10*time.Second)
	if err != nil {
		os.Remove(logf.Name())
		return "", 0, nil, err
	}
	return p.URL, p.Pgid(), func() { p.Stop(); os.Remove(logf.Name()) }, nil
}

// CalibrationLines say what a calibration up to maxRate found, for a
// terminal.
func CalibrationLines(c load.Calibration, maxRate float64) []string {
	out := []string{
		fmt.Sprintf("client CPU per streamed chunk: %.2f µs (%.0f chunks/s, %d streams; %s)", c.CPUPerChunk, c.ChunksPerSecond, load.CalibrationStreams, cmp.Or(c.Pinned, "not pinned")),
		fmt.Sprintf("this host's floor: %.2f µs a chunk for a reader that only waits and reads (the kernel's share; %.0f chunks/s)", c.FloorCPUPerChunk, c.FloorChunksPerSecond),
	}
	switch {
	case maxRate < load.LowestRate:
		return append(out, fmt.Sprintf("schedule lag not measured: --max-rate %g is under the lowest rate tried, %d req/s", maxRate, load.LowestRate))
	case c.MaxRate > 0:
		return append(out, fmt.Sprintf("schedule lag p99 under 1 ms up to %.0f req/s (p99 %.3f ms there)", c.MaxRate, c.LagP99))
	case c.LowestFailed:
		return append(out, fmt.Sprintf("schedule lag not measured: requests failed at %d req/s in all 3 runs; see the simulator's log", load.LowestRate))
	}
	return append(out, fmt.Sprintf("schedule lag p99 not under 1 ms even at %d req/s (best of 3 runs: p99 %.3f ms): other work on this host preempted the client; calibrate on a quiet host", load.LowestRate, c.LagP99))
}
