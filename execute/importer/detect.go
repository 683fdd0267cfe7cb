package importer

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
)

// Auto is the format name that asks Detect to recognise the file.
const Auto = "auto"

// sample is what the sniffers look at: the file, and the top-level keys
// of its first JSON object when it begins like JSON: the file's own, or
// its first item's when it is a list (vllm bench sweep's summary.json).
type sample struct {
	data []byte
	json bool // an object
	list bool // a list
	keys map[string]bool
}

func newSample(data []byte) *sample {
	s := &sample{data: data}
	trimmed := bytes.TrimLeft(data, " \t\r\n\ufeff")
	s.json = len(trimmed) > 0 && trimmed[0] == '{'
	s.list = len(trimmed) > 0 && trimmed[0] == '['
	if !s.json && !s.list {
		return s
	}
	dec := json.NewDecoder(bytes.NewReader(quoteNonFinite(trimmed)))
	if s.list {
		if _, err := dec.Token(); err != nil {
			return s
		}
	}
	var first map[string]json.RawMessage
	if dec.Decode(&first) == nil {
		s.keys = map[string]bool{}
		for k := range first {
			s.keys[k] = true
		}
	}
	return s
}

// has reports a top-level key; in a file that does not decode (truncated,
// damaged) any occurrence counts, so that the format's own parser, not
// detection, says what is wrong with it.
func (s *sample) has(key string) bool {
	if s.keys != nil {
		return s.keys[key]
	}
	return bytes.Contains(s.data, []byte(`"`+key+`"`))
}

var (
	resultBlock = []byte("Serving Benchmark Result")
	// SGLang's block states its backend and cap inside it; vLLM's names
	// its cap "Maximum request concurrency" and its backend nowhere.
	sglangLines = regexp.MustCompile(`(?m)^[|#\s]*(Backend|Max requ?e?u?est concurrency|Mean E2E Latency \(ms\))\s*:`)
	yamlReport  = regexp.MustCompile(`(?m)^benchmarks:\s*$`)
)

func sniffVLLMText(s *sample) bool {
	return !s.json && bytes.Contains(s.data, resultBlock) && !sglangLines.Match(s.data)
}

func sniffSGLangText(s *sample) bool {
	return !s.json && bytes.Contains(s.data, resultBlock) && sglangLines.Match(s.data)
}

func sglangJSON(s *sample) bool {
	return s.has("server_info") || s.has("mean_e2e_latency_ms") || s.has("total_output_tokens_retokenized")
}

func vllmObject(s *sample) bool {
	return s.has("completed") && !sglangJSON(s) && (s.has("num_prompts") || s.has("model_id") || s.has("mean_ttft_ms"))
}

// A sweep's run is a vllm-json object with run_number added; its
// summary.json is a list of them.
func sniffVLLMJSON(s *sample) bool { return s.json && vllmObject(s) && !s.has("run_number") }

func sniffVLLMSweep(s *sample) bool {
	return (s.json || s.list) && vllmObject(s) && s.has("run_number")
}

func sniffSGLangJSON(s *sample) bool { return s.json && s.has("completed") && sglangJSON(s) }

func sniffGuideLLM(s *sample) bool {
	return s.json && s.has("benchmarks") || !s.json && yamlReport.Match(s.data)
}

func sniffAIPerf(s *sample) bool {
	return s.json && (s.has("request_count") || s.has("records") && s.has("input_config"))
}

func sniffInferencePerf(s *sample) bool { return s.json && s.has("load_summary") && s.has("successes") }

// Detect names the format of data from its content. A file that no
// format recognises, or more than one does, is refused with the
// candidates named, so --format can settle it.
func Detect(data []byte) (string, error) {
	s := newSample(data)
	var hits []string
	for _, name := range Formats() {
		if formats[name].Sniff(s) {
			hits = append(hits, name)
		}
	}
	switch len(hits) {
	case 1:
		return hits[0], nil
	case 0:
		return "", fmt.Errorf("--format auto: the file is none of the formats servelab reads (%s): it has no result block or result object of theirs; give --format FORMAT to see why that format refuses it",
			strings.Join(Formats(), ", "))
	}
	return "", fmt.Errorf("--format auto: the file reads as any of %s; choose one with --format", strings.Join(hits, ", "))
}
