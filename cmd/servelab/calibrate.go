package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"time"

	"servelab.dev/execute/dataset"
	"servelab.dev/execute/engine"
	"servelab.dev/execute/load"
	"servelab.dev/schema"
)

// Calibration is the client's headroom on this host.
type Calibration struct {
	ChunksPerSecond float64 `json:"chunksPerSecond"`
	// MaxRate is the highest request rate tried whose schedule lag p99
	// stayed under 1 ms; LagP99 is that p99 in ms.
	MaxRate float64 `json:"maxRate"`
	LagP99  float64 `json:"lagP99Ms"`
}

func runCalibrate(e *env, args []string) error {
	fs := newFlags(e, "calibrate", "[--sim PATH] [--max-rate R] [--json]")
	simPath := fs.String("sim", "", "servelab-sim binary (default: beside servelab, then PATH)")
	maxRate := fs.Float64("max-rate", 1600, "highest request rate to try")
	asJSON := fs.Bool("json", false, "print JSON")
	if _, err := parse(fs, args); err != nil {
		return err
	}
	if err := inRange("--max-rate", *maxRate, 1, schema.MaxRate, "requests per second"); err != nil {
		return err
	}
	url, stop, err := startZeroSim(*simPath)
	if err != nil {
		return err
	}
	defer stop()
	c, err := calibrate(url, *maxRate)
	if err != nil {
		return err
	}
	if *asJSON {
		return json.NewEncoder(e.stdout).Encode(c)
	}
	fmt.Fprintf(e.stdout, "streamed chunks parsed: %.0f/s\nschedule lag p99 under 1 ms up to %.0f req/s (p99 %.3f ms there)\n", c.ChunksPerSecond, c.MaxRate, c.LagP99)
	return nil
}

// startZeroSim runs servelab-sim with no delays, so the client is the
// only bottleneck.
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
		Env:       map[string]string{"SERVELAB_SIM_TIMING": "step=0s,per-seq=0s,prefill=0s"},
		FlagStyle: "space", HostFlag: "host", PortFlag: "port", Health: "/health", Log: logf.Name()}
	p, err := engine.Start(context.Background(), spec, 10*time.Second)
	if err != nil {
		os.Remove(logf.Name())
		return "", nil, err
	}
	return p.URL, func() { p.Stop(); os.Remove(logf.Name()) }, nil
}

func fileExists(p string) bool { _, err := os.Stat(p); return err == nil }

func calibrate(url string, maxRate float64) (Calibration, error) {
	var c Calibration
	t := load.Target{URL: url, Model: "calibrate", API: "completions"}
	long := dataset.Random(8, 2000, 0, 0, 8, 1).Prompts
	began := time.Now()
	s, err := load.Run(context.Background(), t, load.Load{Kind: "concurrency", Concurrency: 8, Requests: 8, IgnoreEOS: true}, long)
	if err != nil {
		return c, err
	}
	chunks := 0
	for _, x := range s {
		chunks += 1 + len(x.Gaps)
	}
	c.ChunksPerSecond = float64(chunks) / time.Since(began).Seconds()
	short := dataset.Random(8, 2, 0, 0, 64, 1).Prompts
	for rate := 100.0; rate <= maxRate; rate *= 2 {
		s, err := load.Run(context.Background(), t, load.Load{Kind: "constant", Rate: rate, Requests: int(rate), IgnoreEOS: true}, short)
		if err != nil {
			return c, err
		}
		m := load.Summarize(s)
		if *m.Failed > 0 || m.ScheduleLag == nil || *m.ScheduleLag.P99 >= 1 {
			break
		}
		c.MaxRate, c.LagP99 = rate, *m.ScheduleLag.P99
	}
	return c, nil
}
