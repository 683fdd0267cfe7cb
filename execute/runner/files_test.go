package runner

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"servelab.dev/schema/plan"
)

const trtOptions = `
import "servelab.dev/schema"

"trt": schema.#Study & {
	title: en: "T"
	i18n: fallback: "en"
	model: {id: "m/m", params: 1e9, dtype: "bf16"}
	hardware: gpu: "NVIDIA H200"
	engines: trtllm: {version: "v1.2.0rc1", knobs: {kvCacheDtype: "fp8", prefixCaching: false, maxSeqs: 8}}
	benchmark: {client: name: "builtin", dataset: {name: "random", inputLen: 8, outputLen: 4}, api: "completions", warmup: 0}
	profiles: c1: {kind: "concurrency", concurrency: 1, requests: 4}
	objective: {metric: "ttft.mean", profile: "c1"}
	baseline: engine: "trtllm"
	steps: [{id: "engine", title: en: "E", select: engines: ["trtllm"]}]
}
`

// TensorRT-LLM's option knobs reach the engine as the YAML file its
// --extra_llm_api_options names, written beside the trial's records; the
// argv the key hashes names the file by its content's hash.
func TestOptionsFileWritten(t *testing.T) {
	s := study(t, trtOptions)
	p, err := plan.New(s, plan.Options{})
	if err != nil {
		t.Fatal(err)
	}
	tr := p.Trials[0]
	i := slices.Index(tr.Argv, "--extra_llm_api_options")
	if i < 0 || !strings.HasPrefix(tr.Argv[i+1], "extra-llm-api-options-") {
		t.Fatalf("argv %q names no options file", tr.Argv)
	}
	dir := t.TempDir()
	argv, err := withFiles(s, tr, tr.Argv, dir)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, tr.Argv[i+1])
	if argv[i+1] != path {
		t.Errorf("launch argv names %q, want %q", argv[i+1], path)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	want := "kv_cache_config:\n  dtype: \"fp8\"\n  enable_block_reuse: false\n"
	if string(b) != want {
		t.Errorf("options file:\n%s\nwant:\n%s", b, want)
	}
	if !strings.Contains(tr.Command, "printf '%s' ") || !strings.Contains(tr.Command, "--max_batch_size 8") {
		t.Errorf("command %q does not write the file before trtllm-serve", tr.Command)
	}
}
