package main

import (
	"context"
	"encoding/json"
	"fmt"

	"servelab.dev/execute/bench"
	"servelab.dev/execute/runner"
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
	if !(*maxRate >= 1 && *maxRate <= schema.MaxRate) { // NaN too
		return usagef("--max-rate %v: want a finite number, 1 to %g (requests per second)", *maxRate, float64(schema.MaxRate))
	}
	if *procs < 1 {
		return usagef("--procs %d: want 1 or more", *procs)
	}
	sim, err := runner.SimBinary(*simPath)
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
	for _, l := range bench.CalibrationLines(c, *maxRate) {
		fmt.Fprintln(e.stdout, l)
	}
	return nil
}
