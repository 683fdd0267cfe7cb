package schema

import (
	"fmt"
	"strings"
	"testing"
)

// limitStudy is a study with one field set by the test.
const limitStudy = `import "servelab.dev/schema"

"lim": schema.#Study & {
	title: en: "Limits"
	i18n: fallback: "en"
	model: {id: "Qwen/Qwen3-8B", params: 8.2e9, dtype: "bf16"}
	hardware: gpu: "NVIDIA H100 80GB HBM3"
	engines: {vllm: version: "v0.11.0", sglang: version: "v0.5.3"}
	benchmark: {client: name: "builtin", dataset: {name: "random", inputLen: %s, outputLen: 8}, warmup: %s, timeout: %s}
	profiles: {
		p: {kind: "poisson", rate: %s, burstiness: %s, requests: %s}
		c: {kind: "concurrency", concurrency: %s, requests: 10}
	}
	objective: {metric: "latency.mean", profile: "p"}
	baseline: engine: "vllm"
	steps: [{id: "engine", title: en: "Engine", select: engines: ["vllm", "sglang"]}]
}
`

// Each bound of study.cue is the one limits.go states: the limit loads,
// one step past it is refused, naming the field.
func TestLimitsMatchSchema(t *testing.T) {
	fields := []string{"inputLen", "warmup", "timeout", "rate", "burstiness", "requests", "concurrency"}
	ok := []string{fmt.Sprint(MaxTokens), fmt.Sprint(MaxWarmup), fmt.Sprint(MaxTimeout), fmt.Sprint(MaxRate), fmt.Sprint(MaxBurstiness), fmt.Sprint(MaxRequests), fmt.Sprint(MaxConcurrency)}
	past := []string{fmt.Sprint(MaxTokens + 1), fmt.Sprint(MaxWarmup + 1), fmt.Sprint(MaxTimeout + 1), fmt.Sprint(MaxRate + 1), fmt.Sprint(MaxBurstiness + 1), fmt.Sprint(MaxRequests + 1), fmt.Sprint(MaxConcurrency + 1)}
	l := loader(t)
	load := func(vals []string) error {
		args := make([]any, len(vals))
		for i, v := range vals {
			args[i] = v
		}
		_, err := loadSource(t, l, fmt.Sprintf(limitStudy, args...))
		return err
	}
	if err := load(ok); err != nil {
		t.Fatalf("at the limits: %v", err)
	}
	for i, f := range fields {
		vals := append([]string(nil), ok...)
		vals[i] = past[i]
		if err := load(vals); err == nil || !strings.Contains(err.Error(), f) {
			t.Errorf("%s = %s: %v", f, past[i], err)
		}
	}
	low := append([]string(nil), ok...)
	low[4] = fmt.Sprint(MinBurstiness / 2)
	if err := load(low); err == nil || !strings.Contains(err.Error(), "burstiness") {
		t.Errorf("burstiness %v: %v", MinBurstiness/2, err)
	}
}

// A profile whose requests times its longest output exceeds what one run
// keeps in memory is refused, naming the profile's requests.
func TestRunTokensBounded(t *testing.T) {
	src := fmt.Sprintf(strings.Replace(limitStudy, "outputLen: 8", "outputLen: 1000", 1), "8", "0", "60", "2", "1", "200000", "4")
	_, err := loadSource(t, loader(t), src)
	if err == nil || !strings.Contains(err.Error(), "profiles.p.requests") || !strings.Contains(err.Error(), "more than one run keeps in memory") {
		t.Errorf("err = %v", err)
	}
}
