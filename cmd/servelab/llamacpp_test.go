package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"servelab.dev/execute/engine"
	"servelab.dev/execute/gguf"
)

// A real engine end to end: a CPU build of llama.cpp's llama-server (make
// llamacpp-cpu, cached outside the clone) serves a tiny random-weight
// Qwen3 with the real tokenizer, written by the GGUF writer; servelab
// runs a two-step study on it (launch, health, streaming, records with
// the quality guard, teardown), decides it, and the final command it
// prints starts a server with the same settings. Under make test
// (SERVELAB_REQUIRE_LLAMACPP=1) a missing server fails the test.
func TestLlamaCppEndToEnd(t *testing.T) {
	server, vocab := os.Getenv("SERVELAB_LLAMA_SERVER"), os.Getenv("SERVELAB_LLAMACPP_VOCAB")
	if _, err := os.Stat(server); server == "" || err != nil {
		if os.Getenv("SERVELAB_REQUIRE_LLAMACPP") == "1" {
			t.Fatalf("SERVELAB_LLAMA_SERVER=%q: no llama-server to run (make llamacpp-cpu builds it)", server)
		}
		t.Skip("no llama-server (SERVELAB_LLAMA_SERVER); make test builds one")
	}
	v, err := gguf.ReadFile(vocab)
	if err != nil {
		t.Fatalf("SERVELAB_LLAMACPP_VOCAB: %v", err)
	}
	dir := t.TempDir()
	model := filepath.Join(dir, "qwen3-tiny-random.gguf")
	r := gguf.Random{Shape: gguf.Shapes["tiny"], Name: "qwen3-tiny-random", Vocab: v, Type: gguf.F16, Seed: 1, Std: 0.02, UTF8Guard: true}
	if err := gguf.WriteRandom(model, r); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", filepath.Dir(server)+string(os.PathListSeparator)+os.Getenv("PATH"))
	study := filepath.Join(dir, "tiny.cue")
	if err := os.WriteFile(study, []byte(fmt.Sprintf(tinyLlamaStudy, model)), 0o644); err != nil {
		t.Fatal(err)
	}
	results := filepath.Join(dir, "results")
	out := servelab(t, "run", study, "--results", results, "--health-timeout", "3m")
	if !strings.Contains(out, " 0 failed;") || !strings.Contains(out, "study decided") {
		t.Fatalf("run: %s", out)
	}
	checkLlamaRecords(t, results)
	an := servelab(t, "analyze", study, "--results", results)
	m := regexp.MustCompile(`(?m)^final \(llamacpp [^)]*\):\n  (.+)$`).FindStringSubmatch(an)
	if m == nil {
		t.Fatalf("analyze printed no final command:\n%s", an)
	}
	if !regexp.MustCompile(`(?m)^quality guard, step kv-cache .*\n  kv-q8_0: \d of 3 prompts \(\d+ %\) over 8 tokens$`).MatchString(an) {
		t.Errorf("analyze shows no quality guard for the KV-cache step:\n%s", an)
	}
	if !strings.Contains(m[1], "--parallel 2") {
		t.Errorf("final command %q: want the adopted --parallel 2", m[1])
	}
	plan := servelab(t, "plan", study, "--results", results)
	key := regexp.MustCompile(`(?m)^(?:validate +final .*?|.*?)\b([0-9a-f]{12})\b.*validate/final|^validate +final .*?\b([0-9a-f]{12})\b`).FindStringSubmatch(plan)
	if key != nil && key[1] == "" {
		key[1] = key[2]
	}
	if key == nil {
		t.Fatalf("plan shows no cached final validation run:\n%s", plan)
	}
	logs, _ := filepath.Glob(filepath.Join(results, key[1]+"*", "engine.log"))
	if len(logs) != 1 {
		t.Fatalf("engine logs of %s: %v", key[1], logs)
	}
	runSettings := llamaSettings(t, logs[0])
	finalSettings := startPrinted(t, m[1], dir)
	if runSettings != finalSettings {
		t.Fatalf("the printed command starts another server:\nrun:\n%s\nprinted:\n%s", runSettings, finalSettings)
	}
}

const tinyLlamaStudy = `package tiny

import "servelab.dev/schema"

"llamacpp-tiny": schema.#Study & {
	title: en: "llama-server on a tiny random Qwen3"
	i18n: fallback: "en"
	model: {id: %q, params: 4.05e7, dtype: "fp16"}
	hardware: {gpu: "cpu", memoryGiB: 8, bandwidthTBs: 0.02}
	engines: llamacpp: {version: "0.4.0-80fb11ac73e6", args: {threads: 2, "flash-attn": "on"}}
	base: knobs: contextLength: 256
	benchmark: {
		client: name: "builtin"
		dataset: {name: "random", inputLen: 24, outputLen: 12}
		api:     "completions"
		warmup:  1
		output: ignoreEos: true
		timeout: 60
		quality: {prompts: 3, tokens: 8}
	}
	profiles: {
		c2: {kind: "concurrency", concurrency: 2, requests: 6}
		// Two prefixes that later requests share: llama-server reuses them
		// and says so in usage.prompt_tokens_details.cached_tokens.
		"shared-prefix": {
			kind:        "concurrency"
			concurrency: 2
			requests:    6
			dataset: {name: "prefix-repetition", prefixLen: 96, suffixLen: 8, prefixes: 2, outputLen: 4}
		}
	}
	objective: {metric: "output_throughput", goal: "max", profile: "c2"}
	baseline: engine: "llamacpp"
	steps: [{
		id: "slots"
		title: en: "Slots"
		select: variants: [{name: "parallel-2", knobs: maxSeqs: 2}]
	}, {
		id: "kv-cache"
		title: en: "KV-cache type"
		quality: {}
		variants: [{name: "kv-q8_0", knobs: kvCacheDtype: "q8_0"}]
	}]
	validate: profiles: ["c2", "shared-prefix"]
}
`

func servelab(t *testing.T, args ...string) string {
	t.Helper()
	var out, errb bytes.Buffer
	if code := Main(args, &out, &errb); code != 0 {
		t.Fatalf("servelab %s: exit %d\n%s%s", strings.Join(args, " "), code, out.String(), errb.String())
	}
	return out.String()
}

// checkLlamaRecords: every record is measured, complete, names the
// llama.cpp build, and holds the quality guard's greedy outputs; the
// shared-prefix runs hold the cached tokens llama-server reported.
func checkLlamaRecords(t *testing.T, results string) {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(results, "*", "*.json"))
	if len(files) == 0 {
		t.Fatal("no records")
	}
	for _, f := range files {
		var rec struct {
			Status     string
			Provenance struct{ Kind, EngineBuild string }
			Trial      struct {
				Benchmark struct{ Dataset struct{ Name string } }
			}
			Metrics struct {
				Completed, Failed int
				FailReasons       []string
				CachedTokens      *int
				CacheHitRate      *float64
			}
			Quality *struct{ Outputs []string }
		}
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(b, &rec); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		if rec.Status != "ok" || rec.Metrics.Failed != 0 || rec.Metrics.Completed == 0 {
			t.Errorf("%s: status %s, %d completed, %d failed %v", f, rec.Status, rec.Metrics.Completed, rec.Metrics.Failed, rec.Metrics.FailReasons)
		}
		if rec.Provenance.Kind != "measured" || !strings.Contains(rec.Provenance.EngineBuild, "80fb11ac73e6") {
			t.Errorf("%s: provenance %+v", f, rec.Provenance)
		}
		if rec.Quality == nil || len(rec.Quality.Outputs) != 3 {
			t.Errorf("%s: quality guard outputs %+v", f, rec.Quality)
		}
		m, shared := rec.Metrics, rec.Trial.Benchmark.Dataset.Name == "prefix-repetition"
		if shared && (m.CachedTokens == nil || *m.CachedTokens == 0 || m.CacheHitRate == nil || *m.CacheHitRate <= 0) {
			t.Errorf("%s: shared prefixes, but cached tokens %v, hit rate %v", f, m.CachedTokens, m.CacheHitRate)
		}
		if !shared && (m.CachedTokens == nil || *m.CachedTokens != 0) {
			t.Errorf("%s: random prompts share nothing; cached tokens %v", f, m.CachedTokens)
		}
	}
}

// startPrinted runs the printed command through bash, as a user would
// paste it (servelab adds only host and port), waits for health, and
// returns what llama.cpp logged of its effective settings. engine.Start
// launches it, so that a port another package's test took meanwhile is
// seen and left, as a run would.
func startPrinted(t *testing.T, command, dir string) string {
	t.Helper()
	logPath := filepath.Join(dir, "printed.log")
	p, err := engine.Start(context.Background(), engine.Spec{
		Argv:      []string{"bash", "-c", "exec " + command + ` "$@"`, "bash"},
		FlagStyle: "space", HostFlag: "host", PortFlag: "port", Health: "/health", Log: logPath,
	}, 3*time.Minute)
	if err != nil {
		t.Fatalf("the printed command never became healthy: %v", err)
	}
	defer p.Stop()
	return llamaSettings(t, logPath)
}

// settingsRe picks what llama-server logs at its default verbosity of
// the server it made: model file, KV pool sizing, per-slot context cap,
// slots, context per slot, unified KV, threads.
var settingsRe = regexp.MustCompile(`(?m)^\S+ I (srv +llama_server: --kv-unified.*|srv +load_model: (loading model|capping|initializing).*|cmn +init: llama threadpool.*)$`)

// llamaSettings is what llama-server logged of the server it made.
func llamaSettings(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	for _, m := range settingsRe.FindAllStringSubmatch(string(b), -1) {
		lines = append(lines, strings.TrimSpace(m[1]))
	}
	if len(lines) < 3 {
		t.Fatalf("%s logs too few settings (%d):\n%s", path, len(lines), engine.Tail(path, 30))
	}
	return strings.Join(lines, "\n")
}
