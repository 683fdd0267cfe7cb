package bench

import (
	"context"
	"os"
	"runtime"
	"time"

	"servelab.dev/execute/engine"
	"servelab.dev/execute/load"
)

// Calibrate measures the client's headroom on this host: it starts the
// servelab-sim binary at sim with one-millisecond steps and no other
// delay (so the client is the only bottleneck), runs load.Calibrate up
// to maxRate requests a second with the client on procs cores
// (GOMAXPROCS, restored after), and stops the simulator.
func Calibrate(ctx context.Context, sim string, maxRate float64, procs int) (load.Calibration, error) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
	url, stop, err := startZeroSim(ctx, sim)
	if err != nil {
		return load.Calibration{}, err
	}
	defer stop()
	return load.Calibrate(ctx, url, "calibrate", maxRate)
}

func startZeroSim(ctx context.Context, path string) (string, func(), error) {
	logf, err := os.CreateTemp("", "servelab-calibrate-*.log")
	if err != nil {
		return "", nil, err
	}
	logf.Close()
	spec := engine.Spec{Argv: []string{path, "vllm", "serve", "calibrate", "--max-num-seqs", "4096"},
		Env:       map[string]string{"SERVELAB_SIM_TIMING": load.CalibrationTiming},
		FlagStyle: "space", HostFlag: "host", PortFlag: "port", Health: "/health", Log: logf.Name()}
	p, err := engine.Start(ctx, spec, 10*time.Second)
	if err != nil {
		os.Remove(logf.Name())
		return "", nil, err
	}
	return p.URL, func() { p.Stop(); os.Remove(logf.Name()) }, nil
}
