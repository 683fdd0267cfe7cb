// Command servelab-sim is an engine stand-in for tests and for machines
// without a GPU: a real OpenAI-compatible streaming server on loopback
// that takes the command lines servelab launches for vLLM, SGLang and
// TensorRT-LLM, and generates tokens on a deterministic timing model
// with continuous batching.
//
//	servelab-sim vllm serve MODEL [--port N] [engine flags...]
//	servelab-sim python3 -m sglang.launch_server --model-path MODEL [--port N] ...
//	servelab-sim trtllm-serve MODEL [--port N] ...
//
// The timing model: a step of the engine loop takes
// step + stepPerSeq × running sequences, plus prefill × new prompt
// tokens (not counting a prefix seen before when prefix caching is on);
// each running sequence gains one token per step, more with speculative
// decoding (accepted = 60 % of the drafted tokens); FP8 weights make a
// step 30 % shorter. SERVELAB_SIM_TIMING overrides the constants
// ("step=6ms,per-seq=50us,prefill=20us"). SERVELAB_SIM_FAULT injects
// faults: crash, unhealthy, slow-start=2s, http500=0.1, cut=0.1, stall=0.1,
// exit-after=N (dies after N requests), endless-line (every stream is one
// data line that never ends, until the client hangs up).
//
// The prefix cache is an LRU over blocks of 16 tokens with a size limit
// (vLLM's --num-gpu-blocks-override or SGLang's --max-total-tokens, else
// 128 Ki tokens scaled by --gpu-memory-utilization and doubled by an FP8
// KV cache), on by default for vLLM and SGLang and switched by their
// flags (--enable-prefix-caching, --no-enable-prefix-caching,
// --disable-radix-cache); the engines' reset endpoints empty it. With
// vLLM's --enable-prompt-tokens-details or SGLang's --enable-cache-report
// each request's usage carries prompt_tokens_details.cached_tokens.
//
// Its /metrics speaks vLLM V1's metric names (running and waiting
// requests, KV-cache usage, prefix-cache queries and hits, speculative
// drafts and accepted tokens) in the Prometheus text format, so the
// client's scraper is tested against the names it reads on a real engine.
package main

import (
	"fmt"
	"os"
)

func main() {
	cfg, err := parseArgs(os.Args[1:], os.Getenv)
	if err != nil {
		fmt.Fprintln(os.Stderr, "servelab-sim:", err)
		os.Exit(2)
	}
	if err := serve(cfg); err != nil {
		fmt.Fprintln(os.Stderr, "servelab-sim:", err)
		os.Exit(1)
	}
}
