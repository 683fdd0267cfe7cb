package export

import (
	"encoding/json"
	"strings"
)

// gpustackModel is the body of GPUStack's model deployment: the model
// from Hugging Face, the backend and its version, and the backend
// parameters, each flag one entry as GPUStack's form takes them.
type gpustackModel struct {
	Name              string            `json:"name"`
	Description       string            `json:"description,omitempty"`
	Source            string            `json:"source"`
	HuggingfaceRepoID string            `json:"huggingface_repo_id"`
	Backend           string            `json:"backend"`
	BackendVersion    string            `json:"backend_version"`
	BackendParameters []string          `json:"backend_parameters"`
	Env               map[string]string `json:"env"`
	Replicas          int               `json:"replicas"`
}

var gpustackBackends = map[string]string{"vllm": "vLLM", "sglang": "SGLang", "trtllm": "TensorRT-LLM"}

var _ = register(Format{Name: "gpustack", File: "gpustack-model.json", Label: "GPUStack", Rank: 4, Write: GPUStack})

// GPUStack is c as a GPUStack model deployment (JSON).
func GPUStack(c Config) ([]byte, error) {
	backend := gpustackBackends[c.Kind]
	if backend == "" {
		backend = c.Kind
	}
	env := c.Env
	if env == nil {
		env = map[string]string{}
	}
	m := gpustackModel{Name: DNSName(c.Name), Source: "huggingface", HuggingfaceRepoID: c.Model, Backend: backend,
		BackendVersion: strings.TrimPrefix(c.Version, "v"), BackendParameters: Parameters(c), Env: env, Replicas: 1}
	if c.Simulated {
		m.Description = "SIMULATED: chosen from servelab-sim's figures on a machine without a GPU; not a configuration measured to serve well."
	}
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}

// Parameters are the engine's flags one per entry, "--flag=value" for
// an engine whose flags take their value in the next word, so that each
// entry stands alone; argparse reads both forms alike.
func Parameters(c Config) []string {
	out := []string{}
	for i := 0; i < len(c.Params); i++ {
		p := c.Params[i]
		if c.FlagStyle == "space" && strings.HasPrefix(p, "--") && !strings.Contains(p, "=") &&
			i+1 < len(c.Params) && !strings.HasPrefix(c.Params[i+1], "--") {
			p += "=" + c.Params[i+1]
			i++
		}
		out = append(out, p)
	}
	return out
}
