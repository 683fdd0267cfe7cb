package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"runtime"
	"time"

	"servelab.dev/execute/engine"
	"servelab.dev/execute/load"
	"servelab.dev/schema"
)

func runCalibrate(e *env, args []string) error {
	fs := newFlags(e, "calibrate", "[--sim PATH] [--max-rate R] [--procs N] [--json]")
	simPath := fs.String("sim", "", "servelab-sim binary (default: beside servelab, then PATH)")
	maxRate := fs.Float64("max-rate", 4000, "highest request rate to try")
	procs := fs.Int("procs", 1, "cores the client may use (GOMAXPROCS); the client's goals are stated for one")
	asJSON := fs.Bool("json", false, "print JSON")
	if _, err := parse(fs, args); err != nil {
		return err
	}
	if err := inRange("--max-rate", *maxRate, 1, schema.MaxRate, "requests per second"); err != nil {
		return err
	}
	if *procs < 1 {
		return usagef("--procs %d: want 1 or more", *procs)
	}
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(*procs))
	url, stop, err := startZeroSim(*simPath)
	if err != nil {
		return err
	}
	defer stop()
	c, err := load.Calibrate(context.Background(), url, "calibrate", *maxRate)
	if err != nil {
		return err
	}
	if *asJSON {
		return json.NewEncoder(e.stdout).Encode(c)
	}
	fmt.Fprintf(e.stdout, "client CPU per streamed chunk: %.2f µs (%.0f chunks/s, %d streams)\n", c.CPUPerChunk, c.ChunksPerSecond, load.CalibrationStreams)
	fmt.Fprintf(e.stdout, "schedule lag p99 under 1 ms up to %.0f req/s (p99 %.3f ms there)\n", c.MaxRate, c.LagP99)
	return nil
}

// startZeroSim runs servelab-sim with one-millisecond steps and no other
// delay, so the client is the only bottleneck.
func startZeroSim(path string) (string, func(), error) {
	path, err := simBinary(path)
	if err != nil {
		return "", nil, err
	}
	logf, err := os.CreateTemp("", "servelab-calibrate-*.log")
	if err != nil {
		return "", nil, err
	}
	logf.Close()
	spec := engine.Spec{Argv: []string{path, "vllm", "serve", "calibrate", "--max-num-seqs", "4096"},
		Env:       map[string]string{"SERVELAB_SIM_TIMING": load.CalibrationTiming},
		FlagStyle: "space", HostFlag: "host", PortFlag: "port", Health: "/health", Log: logf.Name()}
	p, err := engine.Start(context.Background(), spec, 10*time.Second)
	if err != nil {
		os.Remove(logf.Name())
		return "", nil, err
	}
	return p.URL, func() { p.Stop(); os.Remove(logf.Name()) }, nil
}

func fileExists(p string) bool { _, err := os.Stat(p); return err == nil }
