package export

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"sigs.k8s.io/yaml"
)

// The Compose file's shape, as much of the Compose specification as a
// GPU service needs.
type composeFile struct {
	Services map[string]composeService `json:"services"`
	Volumes  map[string]struct{}       `json:"volumes"`
}

type composeService struct {
	Image       string         `json:"image"`
	Entrypoint  []string       `json:"entrypoint"`
	Command     []string       `json:"command"`
	Ports       []string       `json:"ports"`
	IPC         string         `json:"ipc"`
	Environment []string       `json:"environment"`
	Volumes     []string       `json:"volumes"`
	Deploy      composeDeploy  `json:"deploy"`
	Restart     string         `json:"restart"`
	Healthcheck map[string]any `json:"healthcheck,omitempty"`
}

type composeDeploy struct {
	Resources struct {
		Reservations struct {
			Devices []composeDevice `json:"devices"`
		} `json:"reservations"`
	} `json:"resources"`
}

type composeDevice struct {
	Driver       string   `json:"driver"`
	Count        int      `json:"count"`
	Capabilities []string `json:"capabilities"`
}

var _ = register(Format{Name: "compose", File: "compose.yaml", Label: "Docker Compose", Rank: 2, Write: Compose})

// Compose is c as a Compose service. Compose interpolates '$' in every
// value, so each '$' of the argv and env is written as '$$', which
// Compose turns back into one.
func Compose(c Config) ([]byte, error) {
	esc := func(ws []string) []string {
		out := make([]string, len(ws))
		for i, w := range ws {
			out[i] = strings.ReplaceAll(w, "$", "$$")
		}
		return out
	}
	var env []string
	for _, k := range slices.Sorted(maps.Keys(c.Env)) {
		env = append(env, k+"="+c.Env[k])
	}
	env = append(env, "HF_TOKEN") // no value: taken from the caller's environment
	svc := composeService{Image: c.Image, Entrypoint: esc(c.Argv[:1]), Command: esc(c.ServeArgv()[1:]),
		Ports: []string{fmt.Sprintf("%d:%d", Port, Port)}, IPC: "host", Environment: esc(env),
		Volumes: []string{"hf-cache:" + CacheDir}, Restart: "unless-stopped"}
	svc.Deploy.Resources.Reservations.Devices = []composeDevice{{Driver: "nvidia", Count: c.GPUs, Capabilities: []string{"gpu"}}}
	f := composeFile{Services: map[string]composeService{DNSName(c.Name): svc}, Volumes: map[string]struct{}{"hf-cache": {}}}
	y, err := yaml.Marshal(f)
	if err != nil {
		return nil, err
	}
	return append([]byte(c.header()), y...), nil
}
