package importer

import (
	"bytes"
	"encoding/json"
	"flag"
	"math"
	"os"
	"path/filepath"
	"testing"

	"servelab.dev/execute/record"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// goldenFiles are real files, in testdata/real (testdata/real/SOURCE
// says where each comes from), and the realistic files written for these
// tests, one or more per format: a multi-block text log, a guidellm run
// with warm-up and cool-down, SGLang JSONL with several entries, sources
// missing the failed count.
var goldenFiles = []struct{ format, file string }{
	{"inference-perf", "real/inference-perf-stage3-streaming.json"},
	{"inference-perf", "real/inference-perf-stage0-nostream.json"},
	{"aiperf-json", "real/aiperf-0.10-concurrency2.json"},
	{"aiperf-json", "real/aiperf-records-run1.json"},
	{"guidellm", "real/guidellm-0.3-sync.yaml"},
	{"vllm-text", "real/vllm-sweep-comments.sh"},
	{"sglang-jsonl", "real/sglang-online-rates.jsonl"},
	{"vllm-json", "real/vllm-bench-serve-0.25.1.json"},
	{"vllm-json", "real/vllm-bench-serve-all-failed-0.25.1.json"},
	{"vllm-sweep", "real/vllm-sweep-0.25.1-summary.json"},
	{"vllm-sweep", "real/vllm-sweep-0.25.1-run0.json"},
	{"sglang-text", "real/sglang-lora-rates.md"},
	{"vllm-text", "vllm-sweep.log"},
	{"vllm-text", "vllm-new.txt"},
	{"vllm-text", "vllm-old.txt"},
	{"vllm-json", "vllm-result.json"},
	{"vllm-json", "vllm-append.jsonl"},
	{"sglang-text", "sglang-bench.log"},
	{"sglang-text", "sglang-printed.txt"},
	{"sglang-jsonl", "sglang-sweep.jsonl"},
	{"sglang-jsonl", "sglang.jsonl"},
	{"guidellm", "guidellm-warmup.json"},
	{"guidellm", "guidellm-v0.3.json"},
	{"guidellm", "guidellm-v0.7.json"},
	{"aiperf-json", "aiperf-export.json"},
	{"aiperf-json", "aiperf-rate.json"},
}

// goldenEntry is what the golden files show of a Result.
type goldenEntry struct {
	Label     string         `json:"label"`
	Model     string         `json:"model,omitempty"`
	Backend   string         `json:"backend,omitempty"`
	Engine    string         `json:"engine,omitempty"`
	Client    string         `json:"client"`
	Dataset   string         `json:"dataset,omitempty"`
	Requests  int            `json:"requests,omitempty"`
	Rate      string         `json:"rate,omitempty"`
	NoCap     bool           `json:"noCap,omitempty"`
	Kind      string         `json:"kind,omitempty"`
	Precision float64        `json:"precision,omitempty"`
	Metrics   record.Metrics `json:"metrics"`
	Notes     []string       `json:"notes,omitempty"`
}

// TestGolden: every entry of every file, all figures and notes, as
// reviewed JSON (go test -update rewrites; review every diff).
func TestGolden(t *testing.T) {
	for _, g := range goldenFiles {
		rs, err := parseFile(t, g.format, g.file)
		if err != nil {
			t.Errorf("%s: %v", g.file, err)
			continue
		}
		var out []goldenEntry
		for _, r := range rs {
			e := goldenEntry{Label: r.Label(), Model: r.Model, Backend: r.Backend, Engine: r.Engine, Client: r.Client,
				Dataset: r.Dataset, Requests: r.Requests, NoCap: r.NoCap, Kind: r.Kind, Precision: r.Precision, Metrics: r.Metrics}
			switch {
			case math.IsInf(r.Rate, 1):
				e.Rate = "inf"
			case r.Rate > 0:
				e.Rate = num(r.Rate)
			}
			for _, n := range r.Notes {
				e.Notes = append(e.Notes, n.String())
			}
			out = append(out, e)
		}
		got, err := json.MarshalIndent(out, "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, '\n')
		path := filepath.Join("testdata", "golden", g.file+"."+g.format+".json")
		if *update {
			if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, got, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want, err := os.ReadFile(path)
		if err != nil {
			t.Fatalf("%v (run go test -update once, and review the file)", err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s as %s differs from %s:\n%s", g.file, g.format, path, got)
		}
	}
}
