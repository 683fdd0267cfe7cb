package load

import (
	"context"
	"strings"
	"testing"
)

// servelab-sim's prefix cache: with vLLM's --enable-prompt-tokens-details
// a repeated prompt reports its cached blocks in usage, the run's hit
// rate follows, and /metrics counts the same hits; turned off by the
// engine's flag, nothing is cached; without the details flag usage says
// nothing, and the record says it did not know.
func TestSimPrefixCacheReported(t *testing.T) {
	prompt := []Prompt{{Text: strings.Repeat("w ", 64), MaxTokens: 2}} // 4 blocks
	run := func(args ...string) Result {
		url := startSim(t, []string{"SERVELAB_SIM_TIMING=step=1ms,per-seq=0s,prefill=0s"}, append([]string{"vllm", "serve", "m/m"}, args...)...)
		res, err := Measure(context.Background(), Target{URL: url, Model: "m/m", API: "completions"},
			Load{Kind: "concurrency", Concurrency: 1, Requests: 4}, List(prompt))
		if err != nil {
			t.Fatal(err)
		}
		if hits := simMetric(t, url, `vllm:prefix_cache_hits_total{engine="0",model_name="m/m"}`); args[0] == "--enable-prompt-tokens-details" && len(args) == 1 && hits != 3*48 {
			t.Errorf("engine counted %d hit tokens, want %d", hits, 3*48)
		}
		return res
	}
	res := run("--enable-prompt-tokens-details")
	for i, s := range res.Samples {
		want := 48 // a whole-block prompt recomputes its last block
		if i == 0 {
			want = 0
		}
		if s.Cached == nil || *s.Cached != want {
			t.Errorf("request %d: cached %v, want %d", i, s.Cached, want)
		}
	}
	if m := res.Metrics(); m.CacheHitRate == nil || *m.CacheHitRate != 0.5625 || *m.CachedTokens != 144 {
		t.Errorf("hit rate %v, cached %v; want 144 of 256 tokens", m.CacheHitRate, m.CachedTokens)
	}
	for _, s := range run("--enable-prompt-tokens-details", "--no-enable-prefix-caching").Samples {
		if s.Cached == nil || *s.Cached != 0 {
			t.Errorf("cache off: cached %v, want 0", s.Cached)
		}
	}
	if m := run("--max-num-seqs", "1").Metrics(); m.CachedTokens != nil || m.CacheHitRate != nil {
		t.Errorf("usage without details: cached %v, hit rate %v; want unknown", m.CachedTokens, m.CacheHitRate)
	}
}
