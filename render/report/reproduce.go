package report

import (
	"cmp"
	"encoding/json"
	"fmt"
	"strconv"

	"servelab.dev/schema"
	"servelab.dev/schema/plan"
)

// Reproduce is the peer client's command that repeats trial t's load
// without servelab, against the engine started with t's serving
// command on its default port: the endpoint the study drives, the
// prompts, the arrivals (rate and burstiness, or the concurrency cap),
// the warm-ups, ignore-EOS, the output cap and the seed. Notes say what
// the peer cannot express; they print as comments above the command.
func Reproduce(s *schema.Study, t *plan.Trial) (argv []string, notes []string) {
	peer := peerOf(s.Benchmark.Client.Name, s.Benchmark.Client.Version)
	sp := t.Spec
	if sp == nil {
		return nil, []string{"no trial spec"}
	}
	switch ds := sp.Benchmark.Dataset.Name; ds {
	case "prefix-repetition", "mooncake", "conversations":
		// The peers' own versions of these workloads draw other prompts
		// and arrivals, so their command would not repeat this run.
		return nil, []string{fmt.Sprintf("%s has no equivalent of servelab's %s workload: servelab bench repeats it", peer.Name, ds)}
	}
	target := "http://127.0.0.1:" + strconv.Itoa(defaultPort(t.Kind))
	switch peer.Name {
	case "guidellm benchmark":
		return guidellm(s, sp, target)
	case "python -m sglang.bench_serving":
		return sglangBench(s, sp, target)
	}
	return vllmBench(s, sp, target, peer.Version)
}

// ReproducePinned is the vllm bench serve command for a ShareGPT run
// whose client set each response's length: with --ignore-eos it sends
// each ShareGPT reply's length as its request's, which a client that
// reads only prompts from the file (guidellm) cannot.
func ReproducePinned(s *schema.Study, t *plan.Trial) (argv []string, notes []string) {
	if t.Spec == nil {
		return nil, []string{"no trial spec"}
	}
	sp := *t.Spec
	sp.Benchmark.IgnoreEOS = true
	return vllmBench(s, &sp, "http://127.0.0.1:"+strconv.Itoa(defaultPort(t.Kind)), vllmTable.Version)
}

// defaultPort is where an engine serves when its command names no port.
func defaultPort(kind string) int {
	switch kind {
	case "sglang":
		return 30000
	case "llamacpp":
		return 8080
	}
	return 8000
}

func vllmBench(s *schema.Study, sp *plan.Spec, target, version string) ([]string, []string) {
	b, p, ds := sp.Benchmark, sp.Profile, s.Benchmark.Dataset
	backend, endpoint := "openai-chat", "/v1/chat/completions"
	if b.API == "completions" {
		backend, endpoint = "openai", "/v1/completions"
	}
	a := []string{"vllm", "bench", "serve", "--base-url", target, "--backend", backend, "--endpoint", endpoint, "--model", sp.Model.ID}
	if t := s.Model.Tokenizer; t != "" {
		a = append(a, "--tokenizer", t)
	}
	a = append(a, vllmDataset(ds, b.MaxTokens)...)
	a = append(a, "--num-prompts", strconv.Itoa(p.Requests), "--seed", strconv.Itoa(b.Seed))
	var notes []string
	switch p.Kind {
	case "concurrency":
		a = append(a, "--request-rate", "inf")
	case "constant":
		a = append(a, "--request-rate", trim(p.Rate), "--burstiness", "inf")
	default:
		a = append(a, "--request-rate", trim(p.Rate), "--burstiness", trim(burstiness(p)))
	}
	if p.Concurrency > 0 {
		a = append(a, "--max-concurrency", strconv.Itoa(p.Concurrency))
	}
	if b.Warmup > 0 {
		if vllmTable.Has("--num-warmups", version) {
			a = append(a, "--num-warmups", strconv.Itoa(b.Warmup))
		} else {
			notes = append(notes, fmt.Sprintf("vllm bench serve %s has no --num-warmups (first in %s): send %d requests before this command", version, vllmTable.Flags["--num-warmups"].Since, b.Warmup))
		}
	}
	if b.IgnoreEOS {
		a = append(a, "--ignore-eos")
	}
	a = append(a, "--percentile-metrics", "ttft,tpot,itl,e2el", "--metric-percentiles", "50,90,95,99")
	return a, notes
}

func vllmDataset(ds schema.Dataset, maxTokens int) []string {
	if ds.Name == "random" {
		a := []string{"--dataset-name", "random", "--random-input-len", strconv.Itoa(ds.InputLen), "--random-output-len", strconv.Itoa(ds.OutputLen)}
		if ds.RangeRatio > 0 {
			a = append(a, "--random-range-ratio", trim(ds.RangeRatio))
		}
		if ds.PrefixLen > 0 {
			a = append(a, "--random-prefix-len", strconv.Itoa(ds.PrefixLen))
		}
		return a
	}
	a := []string{"--dataset-name", "sharegpt", "--dataset-path", ds.Path}
	if maxTokens > 0 {
		a = append(a, "--sharegpt-output-len", strconv.Itoa(maxTokens))
	}
	return a
}

// burstiness is the gamma shape of a Poisson-like profile: 1 (Poisson)
// unless the study sets another.
func burstiness(p plan.ProfileSpec) float64 {
	if p.Burstiness > 0 {
		return p.Burstiness
	}
	return 1
}

func guidellm(s *schema.Study, sp *plan.Spec, target string) ([]string, []string) {
	b, p, ds := sp.Benchmark, sp.Profile, s.Benchmark.Dataset
	kind := "chat_completions"
	if b.API == "completions" {
		kind = "text_completions"
	}
	a := []string{"guidellm", "benchmark", "--target", target, "--model", sp.Model.ID, "--processor", cmp.Or(s.Model.Tokenizer, sp.Model.ID), "--request-type", kind}
	var notes []string
	switch p.Kind {
	case "concurrency":
		a = append(a, "--profile", "concurrent", "--rate", strconv.Itoa(p.Concurrency))
	case "constant":
		a = append(a, "--profile", "constant", "--rate", trim(p.Rate))
	default:
		a = append(a, "--profile", "poisson", "--rate", trim(p.Rate))
		if bu := burstiness(p); bu != 1 {
			notes = append(notes, fmt.Sprintf("guidellm draws Poisson arrivals only: the study's burstiness %s (gamma arrivals) cannot be set", trim(bu)))
		}
	}
	if p.Concurrency > 0 && p.Kind != "concurrency" {
		notes = append(notes, fmt.Sprintf("guidellm %s has no concurrency cap for rate profiles: the study capped this load at %d requests in flight", guidellmTable.Version, p.Concurrency))
	}
	a = append(a, "--max-requests", strconv.Itoa(p.Requests), "--random-seed", strconv.Itoa(b.Seed))
	if ds.Name == "random" {
		a = append(a, "--data", fmt.Sprintf("prompt_tokens=%d,output_tokens=%d", ds.InputLen, ds.OutputLen))
	} else {
		a = append(a, "--data", ds.Path)
	}
	if b.Warmup > 0 {
		a = append(a, "--warmup", strconv.Itoa(b.Warmup))
	}
	// guidellm sets ignore_eos itself only for synthetic data with output
	// token counts; elsewhere it goes into the request body.
	kw := map[string]any{}
	if b.IgnoreEOS && ds.Name != "random" {
		kw["extras"] = map[string]any{"body": map[string]any{"ignore_eos": true}}
	}
	if b.MaxTokens > 0 {
		kw["max_tokens"] = b.MaxTokens
	}
	if len(kw) > 0 {
		j, _ := json.Marshal(kw)
		a = append(a, "--request-formatter-kwargs", string(j))
	}
	return a, notes
}

func sglangBench(s *schema.Study, sp *plan.Spec, target string) ([]string, []string) {
	b, p, ds := sp.Benchmark, sp.Profile, s.Benchmark.Dataset
	backend := "sglang-oai-chat"
	if b.API == "completions" {
		backend = "sglang-oai"
	}
	a := []string{"python", "-m", "sglang.bench_serving", "--backend", backend, "--base-url", target, "--model", sp.Model.ID}
	if t := s.Model.Tokenizer; t != "" {
		a = append(a, "--tokenizer", t)
	}
	var notes []string
	if ds.Name == "random" {
		// Its range ratio r draws lengths in [L·r, L]: 1 is fixed lengths.
		a = append(a, "--dataset-name", "random", "--random-input-len", strconv.Itoa(ds.InputLen), "--random-output-len", strconv.Itoa(ds.OutputLen))
		if ds.RangeRatio == 0 {
			a = append(a, "--random-range-ratio", "1")
		} else {
			notes = append(notes, fmt.Sprintf("sglang.bench_serving draws random lengths in [L·r, L], not [L·(1−r), L·(1+r)]: the study's range ratio %s has no exact equivalent", trim(ds.RangeRatio)))
		}
	} else {
		a = append(a, "--dataset-name", "sharegpt", "--dataset-path", ds.Path)
		if b.MaxTokens > 0 {
			a = append(a, "--sharegpt-output-len", strconv.Itoa(b.MaxTokens))
		}
	}
	a = append(a, "--num-prompts", strconv.Itoa(p.Requests), "--seed", strconv.Itoa(b.Seed))
	switch p.Kind {
	case "concurrency":
		a = append(a, "--request-rate", "inf")
	default:
		a = append(a, "--request-rate", trim(p.Rate))
		if p.Kind == "constant" || burstiness(p) != 1 {
			notes = append(notes, "sglang.bench_serving draws Poisson arrivals only: the study's "+p.Kind+" arrivals cannot be set")
		}
	}
	if p.Concurrency > 0 {
		a = append(a, "--max-concurrency", strconv.Itoa(p.Concurrency))
	}
	// Its default is one warm-up request: say the study's count, 0 included.
	a = append(a, "--warmup-requests", strconv.Itoa(b.Warmup))
	// The completions backend ignores EOS unless told not to; the chat
	// backend never sends the field, so it goes in the request body.
	switch {
	case backend == "sglang-oai" && !b.IgnoreEOS:
		a = append(a, "--disable-ignore-eos")
	case backend == "sglang-oai-chat" && b.IgnoreEOS:
		a = append(a, "--extra-request-body", `{"ignore_eos":true}`)
	}
	return a, notes
}
