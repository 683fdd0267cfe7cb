package schema

import (
	"fmt"
	"strings"
	"testing"
)

// A probe by duration sends rate × seconds requests, never fewer than
// the profile asks, and stays a Poisson profile at that rate.
func TestProbeBySeconds(t *testing.T) {
	p := Profile{Kind: "search", Requests: 50, Search: &Search{Low: 1, High: 12, Precision: 1, Seconds: 30}}
	for _, c := range []struct {
		rate float64
		want int
	}{{1, 50}, {2.5, 75}, {9.25, 278}, {12, 360}} {
		q := p.Probe(c.rate)
		if q.Requests != c.want || q.Kind != "poisson" || q.Rate != c.rate || q.Search != nil {
			t.Errorf("Probe(%v) = %d requests, %s at %v; want %d, poisson", c.rate, q.Requests, q.Kind, q.Rate, c.want)
		}
	}
	p.Search.Seconds = 0
	if q := p.Probe(12); q.Requests != 50 {
		t.Errorf("without seconds Probe(12) sends %d requests, want the profile's 50", q.Requests)
	}
}

// searchStudy's capacity search probes by duration; the test sets high
// and seconds.
const searchStudy = `import "servelab.dev/schema"

"s": schema.#Study & {
	title: en: "Search"
	i18n: fallback: "en"
	model: {id: "Qwen/Qwen3-8B", params: 8.2e9, dtype: "bf16"}
	hardware: gpu: "NVIDIA H100 80GB HBM3"
	engines: vllm: version: "v0.11.0"
	benchmark: {client: name: "builtin", dataset: {name: "random", inputLen: 64, outputLen: %s}, warmup: 0, timeout: 60}
	profiles: {
		c: {kind: "concurrency", concurrency: 8, requests: 50}
		cap: {kind: "search", requests: 50, search: {low: 1, high: %s, precision: 1, seconds: %s}}
	}
	objective: {metric: "output_throughput", goal: "max", profile: "c", constraints: [{metric: "ttft.p90", max: 1000}]}
	baseline: engine: "vllm"
	steps: [{id: "mns", title: en: "Seqs", variants: [{name: "a", knobs: maxSeqs: 8}]}]
}
`

// A probe by duration is bounded at the search's high end: too many
// requests names seconds, too many tokens names the profile's requests.
func TestSearchSecondsBounded(t *testing.T) {
	l := loader(t)
	load := func(out, high, secs string) error {
		_, err := loadSource(t, l, fmt.Sprintf(searchStudy, out, high, secs))
		return err
	}
	if err := load("8", "10", "30"); err != nil {
		t.Fatalf("300 requests at the high end: %v", err)
	}
	if err := load("8", "1000", "86400"); err == nil || !strings.Contains(err.Error(), "profiles.cap.search.seconds") {
		t.Errorf("86.4M requests at the high end: %v", err)
	}
	if err := load("4000", "100", "3000"); err == nil || !strings.Contains(err.Error(), "more than one run keeps in memory") {
		t.Errorf("300,000 requests of 4,000 tokens: %v", err)
	}
}
