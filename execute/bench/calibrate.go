package bench

import (
	"context"
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
// (GOMAXPROCS, restored after; with one core on a host of two or more,
// the client is pinned to CPU 0 and the simulator to CPU 1), and stops
// the simulator.
func Calibrate(ctx context.Context, sim string, maxRate float64, procs int) (load.Calibration, error) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
	url, pid, stop, err := startZeroSim(ctx, sim)
	if err != nil {
		return load.Calibration{}, err
	}
	defer stop()
	if procs == 1 && runtime.NumCPU() >= 2 {
		// The goals are per core: the client alone on CPU 0, the
		// simulator on CPU 1, so neither takes the other's time.
		if restore, err := host.Pin(os.Getpid(), 0); err == nil {
			defer restore()
			host.Pin(pid, 1)
		}
	}
	return load.Calibrate(ctx, url, "calibrate", maxRate)
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
