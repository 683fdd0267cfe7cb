package importer

import (
	"os"
	"path/filepath"
	"testing"
)

// fuzzFormat: no input makes a parser panic, and whatever it accepts is
// a record the store would accept (finite, non-negative figures).
func fuzzFormat(f *testing.F, format string, seeds ...string) {
	for _, s := range seeds {
		b, err := os.ReadFile(filepath.Join("testdata", s))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		rs, err := Parse(format, data)
		if err != nil {
			return
		}
		for _, r := range rs {
			if err := r.Metrics.Check(); err != nil {
				t.Fatalf("accepted figures a record refuses: %v", err)
			}
		}
	})
}

func FuzzVLLMText(f *testing.F) {
	fuzzFormat(f, "vllm-text", "vllm-new.txt", "vllm-old.txt", "seed000-latency-section.txt", "seed001-table-pasted.txt", "sglang-printed.txt", "vllm-sweep.log",
		"real/vllm-sweep-comments.sh")
}

func FuzzVLLMJSON(f *testing.F) {
	fuzzFormat(f, "vllm-json", "vllm-result.json", "vllm-append.jsonl", "real/vllm-bench-serve-0.25.1.json", "real/vllm-bench-serve-all-failed-0.25.1.json")
}

func FuzzVLLMSweep(f *testing.F) {
	fuzzFormat(f, "vllm-sweep", "real/vllm-sweep-0.25.1-summary.json", "real/vllm-sweep-0.25.1-run0.json")
}

func FuzzGuideLLM(f *testing.F) {
	fuzzFormat(f, "guidellm", "guidellm-v0.3.json", "guidellm-v0.4.json", "guidellm-v0.5.json", "guidellm-v0.7.json", "guidellm-warmup.json",
		"real/guidellm-0.3-sync.yaml")
}

func FuzzSGLang(f *testing.F) {
	fuzzFormat(f, "sglang-jsonl", "sglang.jsonl", "sglang-sweep.jsonl", "real/sglang-online-rates.jsonl")
}

func FuzzSGLangText(f *testing.F) {
	fuzzFormat(f, "sglang-text", "sglang-bench.log", "sglang-printed.txt", "real/sglang-lora-rates.md")
}

func FuzzAIPerf(f *testing.F) {
	fuzzFormat(f, "aiperf-json", "aiperf-export.json", "aiperf-rate.json", "real/aiperf-0.10-concurrency2.json", "real/aiperf-records-run1.json")
}

func FuzzInferencePerf(f *testing.F) {
	fuzzFormat(f, "inference-perf", "real/inference-perf-stage3-streaming.json", "real/inference-perf-stage0-nostream.json",
		"real/inference-perf-summary.json")
}

// FuzzDetect: no input makes recognition panic, and what it names reads
// or is refused with an error, never a panic.
func FuzzDetect(f *testing.F) {
	for _, g := range goldenFiles {
		b, err := os.ReadFile(filepath.Join("testdata", g.file))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if name, err := Detect(data); err == nil {
			_, _ = Parse(name, data)
		}
	})
}
