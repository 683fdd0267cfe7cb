package bench

import (
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
