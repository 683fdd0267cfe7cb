package bench

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"servelab.dev/execute/record"
)

// server answers every completion with one streamed token; its health
// endpoint answers 200 once ready is set.
func server(t *testing.T, ready *atomic.Bool) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/health" {
			if !ready.Load() {
				w.WriteHeader(http.StatusServiceUnavailable)
			}
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprint(w, "data: {\"choices\":[{\"text\":\"x\"}]}\n\ndata: {\"choices\":[],\"usage\":{\"prompt_tokens\":4,\"completion_tokens\":1}}\n\ndata: [DONE]\n\n")
	}))
	t.Cleanup(srv.Close)
	return srv
}

func options(url string) Options {
	return Options{Target: url, Model: "m/m", API: "completions", Kind: "concurrency", Rate: 3, Burstiness: 2,
		Concurrency: 2, Requests: 6, InputLen: 4, OutputLen: 1, Timeout: 5 * time.Second, Version: "test"}
}

// A run against a live endpoint makes a valid record of an external
// engine, written with its samples beside it; the store reads it back.
func TestMeasureAndWrite(t *testing.T) {
	var ready atomic.Bool
	ready.Store(true)
	o := options(server(t, &ready).URL)
	ps, err := MakePrompts(o)
	if err != nil {
		t.Fatal(err)
	}
	run, err := Measure(context.Background(), o, ps)
	if err != nil {
		t.Fatal(err)
	}
	r := run.Record
	switch {
	case r.Status != "ok" || r.Metrics.Completed != 6:
		t.Fatalf("status %s, %d completed: %v", r.Status, r.Metrics.Completed, r.Metrics.FailReasons)
	case r.Trial.Engine.Kind != "external" || r.Trial.Argv[0] != o.Target || r.Trial.Benchmark.ClientVersion != "test":
		t.Errorf("trial %+v", r.Trial)
	case r.Trial.Profile.Rate != 0 || r.Trial.Profile.Burstiness != 0:
		t.Errorf("a concurrency profile keeps rate %v and burstiness %v", r.Trial.Profile.Rate, r.Trial.Profile.Burstiness)
	case r.Trial.Benchmark.Dataset.Name != "random" || r.Trial.Benchmark.Dataset.InputLen != 4:
		t.Errorf("dataset %+v", r.Trial.Benchmark.Dataset)
	case r.Key != r.Trial.Key():
		t.Errorf("key %s is not the trial's", r.Key)
	}
	path := filepath.Join(t.TempDir(), "out", "rec.json")
	if err := run.Write(path); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	back, err := record.Decode(data)
	if err != nil {
		t.Fatal(err)
	}
	if back.Samples != "rec.samples.jsonl.gz" {
		t.Errorf("samples named %q", back.Samples)
	}
	if _, err := os.Stat(SamplesPath(path)); err != nil {
		t.Error(err)
	}
	if err := Fresh(path); err == nil || !strings.Contains(err.Error(), "exists; bench never writes over a file") {
		t.Errorf("an existing record is fresh: %v", err)
	}
}

// No completed request is a failed record with the reasons, not an error.
func TestFailedRun(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	url := srv.URL
	srv.Close()
	o := options(url)
	ps, _ := MakePrompts(o)
	run, err := Measure(context.Background(), o, ps)
	if err != nil {
		t.Fatal(err)
	}
	if run.Record.Status != "failed" || !strings.HasPrefix(run.Record.Reason, "no request completed: ") {
		t.Errorf("status %s, reason %q", run.Record.Status, run.Record.Reason)
	}
}

func TestKeyIgnoresUnusedFields(t *testing.T) {
	a, b := options("http://x"), options("http://x")
	b.Rate, b.Burstiness = 99, 0.5 // not used by a concurrency profile
	ka := Record(a, record.Provenance{}, record.Metrics{}).Key
	kb := Record(b, record.Provenance{}, record.Metrics{}).Key
	if ka != kb {
		t.Error("a concurrency run's key depends on its rate")
	}
	b.Kind = "poisson"
	if Record(b, record.Provenance{}, record.Metrics{}).Key == ka {
		t.Error("a poisson run has the key of a concurrency run")
	}
}

func TestWaitHealthy(t *testing.T) {
	var ready atomic.Bool
	srv := server(t, &ready)
	if err := WaitHealthy(srv.URL, 100*time.Millisecond); err == nil || !strings.Contains(err.Error(), "/health did not answer 200") {
		t.Errorf("not ready: %v", err)
	}
	go func() { time.Sleep(100 * time.Millisecond); ready.Store(true) }()
	if err := WaitHealthy(srv.URL, 10*time.Second); err != nil {
		t.Error(err)
	}
	if err := WaitHealthy("http://127.0.0.1:1", 0); err != nil {
		t.Errorf("no wait asked for: %v", err)
	}
}

// A simulator that cannot start is an error, and the client's cores are
// given back whatever happened.
func TestCalibrateWithoutSim(t *testing.T) {
	before := runtime.GOMAXPROCS(0)
	if _, err := Calibrate(context.Background(), filepath.Join(t.TempDir(), "no-sim"), 100, 1); err == nil {
		t.Error("calibrated without a simulator")
	}
	if after := runtime.GOMAXPROCS(0); after != before {
		t.Errorf("GOMAXPROCS %d after, %d before", after, before)
	}
}
