package main

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"os"

	"servelab.dev/execute/bench"
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
	sim, err := simBinary(*simPath)
	if err != nil {
		return err
	}
	c, err := bench.Calibrate(context.Background(), sim, *maxRate, *procs)
	if err != nil {
		return err
	}
	if *asJSON {
		return json.NewEncoder(e.stdout).Encode(c)
	}
	fmt.Fprintf(e.stdout, "client CPU per streamed chunk: %.2f µs (%.0f chunks/s, %d streams; %s)\n", c.CPUPerChunk, c.ChunksPerSecond, load.CalibrationStreams, cmp.Or(c.Pinned, "not pinned"))
	fmt.Fprintf(e.stdout, "this host's floor: %.2f µs a chunk for a reader that only waits and reads (the kernel's share; %.0f chunks/s)\n", c.FloorCPUPerChunk, c.FloorChunksPerSecond)
	switch {
	case *maxRate < load.LowestRate:
		fmt.Fprintf(e.stdout, "schedule lag not measured: --max-rate %g is under the lowest rate tried, %d req/s\n", *maxRate, load.LowestRate)
	case c.MaxRate > 0:
		fmt.Fprintf(e.stdout, "schedule lag p99 under 1 ms up to %.0f req/s (p99 %.3f ms there)\n", c.MaxRate, c.LagP99)
	case c.LowestFailed:
		fmt.Fprintf(e.stdout, "schedule lag not measured: requests failed at %d req/s in all 3 runs; see the simulator's log\n", load.LowestRate)
	default:
		fmt.Fprintf(e.stdout, "schedule lag p99 not under 1 ms even at %d req/s (best of 3 runs: p99 %.3f ms): other work on this host preempted the client; calibrate on a quiet host\n", load.LowestRate, c.LagP99)
	}
	return nil
}

// fileExists is for simBinary (run.go).
func fileExists(p string) bool { _, err := os.Stat(p); return err == nil }
