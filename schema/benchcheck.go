package schema

import (
	"maps"
	"slices"
)

// randomChat refuses random prompts on the chat API for an engine that
// cannot count tokens: a chat message carries text, not token ids, so
// the client fits text to the engine's /tokenize count, and
// TensorRT-LLM's server has no such endpoint. (A custom engine may; the
// run refuses the trial if it has none.)
func (c *checker) randomChat() {
	b := c.s.Benchmark
	if b.Dataset.Name != "random" || b.API == "completions" {
		return
	}
	for _, name := range slices.Sorted(maps.Keys(c.s.Engines)) {
		if c.s.Engines[name].Kind == "trtllm" {
			c.errorf([]any{"benchmark", "api"}, "random prompts on the chat API are text fitted to the engine's /tokenize count, and %s (trtllm-serve) has none: set api: \"completions\" to send token ids", name)
		}
	}
}
