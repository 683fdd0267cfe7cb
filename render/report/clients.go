package report

import (
	"golang.org/x/mod/semver"
)

// FlagTable is what one peer client's command line accepts, read from
// its argument parser in the client's public source at a recorded
// commit. The reproduce commands use no flag outside it (a test checks).
type FlagTable struct {
	Command string // how the client is invoked
	Version string // the version the table was read at
	Source  string // repository and file of the argument parser
	Commit  string
	Flags   map[string]Flag
}

// Flag is one option: whether it takes a value, the values it accepts
// (nil: any) and the first release that has it ("" for all the table
// covers).
type Flag struct {
	Value  bool
	Values []string
	Since  string
}

// Has reports whether the client at version has flag; an empty version
// means the table's own.
func (t FlagTable) Has(flag, version string) bool {
	f, ok := t.Flags[flag]
	if !ok {
		return false
	}
	if f.Since == "" || version == "" || !semver.IsValid(version) {
		return true
	}
	return semver.Compare(version, f.Since) >= 0
}

func valueFlags(names ...string) map[string]Flag {
	m := map[string]Flag{}
	for _, n := range names {
		m[n] = Flag{Value: true}
	}
	return m
}

// vllmTable: vllm/benchmarks/serve.py add_cli_args and
// vllm/benchmarks/datasets add_dataset_parser, vllm-project/vllm at
// def9ce85 (December 2025). --num-warmups came with PR #26943, merged
// after v0.11.0 was tagged, so releases before v0.11.1 lack it.
var vllmTable = func() FlagTable {
	f := valueFlags("--base-url", "--host", "--port", "--model", "--tokenizer", "--dataset-name", "--dataset-path",
		"--num-prompts", "--seed", "--request-rate", "--burstiness", "--max-concurrency", "--random-input-len",
		"--random-output-len", "--random-range-ratio", "--random-prefix-len", "--sharegpt-output-len",
		"--percentile-metrics", "--metric-percentiles", "--temperature", "--result-filename")
	f["--backend"] = Flag{Value: true, Values: []string{"openai", "openai-chat", "vllm"}}
	f["--endpoint"] = Flag{Value: true, Values: []string{"/v1/completions", "/v1/chat/completions"}}
	f["--num-warmups"] = Flag{Value: true, Since: "v0.11.1"}
	f["--ignore-eos"] = Flag{}
	f["--save-result"] = Flag{}
	return FlagTable{Command: "vllm bench serve", Version: "v0.11.1", Source: "vllm-project/vllm vllm/benchmarks/serve.py",
		Commit: "def9ce85ba1079af970a58ed3d42dd861ae35d58", Flags: f}
}()

// guidellmTable: the `benchmark` command of src/guidellm/__main__.py,
// vllm-project/guidellm at tag v0.5.4 (fc31a9eb); the same options from
// v0.4.0 to v0.6.x (v0.7 replaced this command line with `guidellm run`).
var guidellmTable = func() FlagTable {
	f := valueFlags("--target", "--model", "--processor", "--rate", "--max-requests", "--max-seconds", "--random-seed",
		"--data", "--warmup", "--request-formatter-kwargs", "--backend-kwargs", "--output-path")
	f["--profile"] = Flag{Value: true, Values: []string{"synchronous", "concurrent", "throughput", "constant", "poisson", "sweep"}}
	f["--request-type"] = Flag{Value: true, Values: []string{"text_completions", "chat_completions"}}
	return FlagTable{Command: "guidellm benchmark", Version: "v0.5.4", Source: "vllm-project/guidellm src/guidellm/__main__.py",
		Commit: "fc31a9ebfaef291d141cb1fbfd64ad82dec9ecbf", Flags: f}
}()

// sglangTable: the argument parser of python/sglang/bench_serving.py,
// sgl-project/sglang at 0033168f (2025).
var sglangTable = func() FlagTable {
	f := valueFlags("--base-url", "--host", "--port", "--model", "--tokenizer", "--dataset-name", "--dataset-path",
		"--num-prompts", "--sharegpt-output-len", "--random-input-len", "--random-output-len", "--random-range-ratio",
		"--request-rate", "--max-concurrency", "--seed", "--extra-request-body", "--warmup-requests", "--output-file")
	f["--backend"] = Flag{Value: true, Values: []string{"sglang", "sglang-oai", "sglang-oai-chat", "vllm", "vllm-chat"}}
	f["--disable-ignore-eos"] = Flag{}
	f["--disable-stream"] = Flag{}
	return FlagTable{Command: "python -m sglang.bench_serving", Version: "0033168f", Source: "sgl-project/sglang python/sglang/bench_serving.py",
		Commit: "0033168f0f58b2bc05aa0273bd475d9c01bafb1c", Flags: f}
}()

// Peer is the client a study's runs are reproduced with, at a version.
type Peer struct {
	Name    string
	Version string
	Table   FlagTable
}

// peerTables are the clients whose own command a report names, by the
// study's id for them.
var peerTables = map[string]FlagTable{"vllm-bench": vllmTable, "guidellm": guidellmTable, "sglang-bench": sglangTable}

// peerOf maps the study's client to its peer command: servelab's own
// client, and any client without a table, measures as vllm bench serve
// does, so that is its peer.
func peerOf(client, version string) Peer {
	t, ok := peerTables[client]
	if !ok {
		t = vllmTable
	}
	if version == "" || client == "builtin" {
		version = t.Version
	}
	return Peer{Name: t.Command, Version: version, Table: t}
}

// PeerOf is the peer client of a study's client name and version.
func PeerOf(client, version string) Peer { return peerOf(client, version) }
