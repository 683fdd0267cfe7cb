package startup

import (
	"regexp"
	"strings"
)

// vllmMsgRE finds the message of a vLLM log line after its level, date
// and source ("INFO 04-19 10:18:36 [utils.py:233] "); a Docker or
// process prefix before it is skipped. vLLM 0.6 printed no "[".
var vllmMsgRE = regexp.MustCompile(`(DEBUG|INFO|WARNING|ERROR) [0-9]{2}-[0-9]{2} [0-9:]{8}(?:\.[0-9]+)? \[?[A-Za-z0-9_.]+:[0-9]+\] (.*)$`)

var (
	vllmEngineRE = regexp.MustCompile(`^Initializing an? (?:V[0-9] )?LLM engine \(v([^)]*)\) with config: (.*)$`)
	vllmNoticeRE = regexp.MustCompile(`(?i)not supported|disabling|falling back|overriding|overridden|is ignored|ignoring|casting `)
	// vLLM's own lines once it serves.
	vllmBusy = []string{"Application startup complete", "Received request", "Added request", `"POST /`}
)

// vllmConfig are the fields of the engine's config line kept as
// settings, with the flag that sets each; the line has about forty.
var vllmConfig = map[string]string{
	"model":                     "--model",
	"dtype":                     "--dtype",
	"max_seq_len":               "--max-model-len",
	"tensor_parallel_size":      "--tensor-parallel-size",
	"pipeline_parallel_size":    "--pipeline-parallel-size",
	"data_parallel_size":        "--data-parallel-size",
	"quantization":              "--quantization",
	"enforce_eager":             "--enforce-eager",
	"kv_cache_dtype":            "--kv-cache-dtype",
	"enable_prefix_caching":     "--enable-prefix-caching",
	"enable_chunked_prefill":    "--enable-chunked-prefill",
	"chunked_prefill_enabled":   "--enable-chunked-prefill",
	"speculative_config":        "--speculative-config",
	"disable_custom_all_reduce": "--disable-custom-all-reduce",
	"seed":                      "--seed",
}

// VLLM reads vLLM's start-up lines: the API server's "non-default args"
// (what the command set, vLLM 0.10 and later), the engine's "with config"
// line (what it runs with), and its notices that it changed or ignored a
// setting (a dtype the GPU lacks, a feature the platform does not have).
func VLLM(lines []string) *Settings {
	s := &Settings{Engine: "vllm"}
	for _, l := range lines {
		if busy(l, vllmBusy) {
			break
		}
		m := vllmMsgRE.FindStringSubmatch(l)
		if m == nil {
			continue
		}
		msg, line := m[2], l[strings.Index(l, m[0]):]
		switch {
		case strings.HasPrefix(msg, "non-default args: {"):
			for _, p := range pairs(items(msg[len("non-default args: {"):], false), true) {
				flag := dashed(p.name)
				if p.name == "model_tag" {
					flag = "" // the positional model of vllm serve
				}
				s.add(Setting{Name: p.name, Value: unquote(p.value), Flag: flag, Key: true, Line: line})
			}
		case vllmEngineRE.MatchString(msg):
			e := vllmEngineRE.FindStringSubmatch(msg)
			s.add(Setting{Name: "version", Value: e[1], Line: line})
			for _, p := range pairs(items(e[2], true), false) {
				if flag, ok := vllmConfig[p.name]; ok {
					s.add(Setting{Name: p.name, Value: unquote(p.value), Flag: flag, Key: true, Line: line})
				}
			}
		case m[1] != "DEBUG" && vllmNoticeRE.MatchString(msg):
			s.notice(Notice{Text: msg, Flags: flagsIn(msg), Line: line})
		}
	}
	return s
}

func busy(l string, marks []string) bool {
	for _, m := range marks {
		if strings.Contains(l, m) {
			return true
		}
	}
	return false
}
