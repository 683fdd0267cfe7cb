package engine

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// Container runs each engine in a container of a runtime, docker or
// podman, in the foreground: the runtime's client is the local process
// (so its log, health wait and teardown are Local's), and the container
// shares the host's network and IPC namespaces, so the engine binds the
// same loopback port it would bind as a process and the benchmark does
// not measure a NAT.
type Container struct {
	// Runtime is docker or podman (a name on PATH or a path).
	Runtime string
	// Cache is a host folder mounted as the Hugging Face cache, so that
	// weights are downloaded once, not once per launch; "" mounts none.
	Cache string
}

// CacheDir is where Container mounts Cache inside the container.
const CacheDir = "/root/.cache/huggingface"

// ErrNoImage means the Spec has no container image to run.
var ErrNoImage = errors.New("no container image")

// Argv is the runtime command that runs s's engine in container name, up
// to the engine's own arguments; Local appends host and port after them.
func (c Container) Argv(s Spec, name string) ([]string, error) {
	if s.Image == "" {
		return nil, fmt.Errorf("%w for %s: set the engine's image in the study", ErrNoImage, strings.Join(s.Argv, " "))
	}
	if len(s.Argv) == 0 {
		return nil, errors.New("empty engine command")
	}
	argv := []string{c.runtime(), "run", "--rm", "--name", name, "--network", "host", "--ipc", "host"}
	argv = append(argv, c.gpuArgs(s.GPUs)...)
	for _, k := range slices.Sorted(maps.Keys(s.Env)) {
		argv = append(argv, "--env", k+"="+s.Env[k])
	}
	// A token in the caller's environment reaches gated models; the
	// runtime copies its value, so it never appears in a command line.
	argv = append(argv, "--env", "HF_TOKEN")
	if c.Cache != "" {
		argv = append(argv, "--volume", c.Cache+":"+CacheDir)
	}
	argv = append(argv, "--entrypoint", s.Argv[0], s.Image)
	return append(argv, s.Argv[1:]...), nil
}

func (c Container) runtime() string {
	if c.Runtime == "" {
		return "docker"
	}
	return c.Runtime
}

func (c Container) podman() bool { return filepath.Base(c.runtime()) == "podman" }

// gpuArgs hands the GPUs to the container: docker's --gpus (the device
// list quoted, as docker's CSV parser needs for more than one), podman's
// CDI device names.
func (c Container) gpuArgs(gpus string) []string {
	ids := strings.Split(gpus, ",")
	if gpus == "" {
		ids = []string{"all"}
	}
	if c.podman() {
		var out []string
		for _, id := range ids {
			out = append(out, "--device", "nvidia.com/gpu="+id)
		}
		return out
	}
	if gpus == "" {
		return []string{"--gpus", "all"}
	}
	return []string{"--gpus", `"device=` + gpus + `"`}
}

// ContainerName is a container name from a key: runtimes allow
// [a-zA-Z0-9][a-zA-Z0-9_.-]*.
func ContainerName(key string) string {
	var b strings.Builder
	b.WriteString("servelab-")
	for _, r := range key {
		if r < 128 && (r == '-' || r == '_' || r == '.' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') {
			b.WriteRune(r)
		} else {
			b.WriteByte('-')
		}
	}
	return b.String()
}

// Launch runs s in a container named after s.Name.
func (c Container) Launch(ctx context.Context, s Spec, timeout time.Duration) (Instance, error) {
	name := ContainerName(s.Name)
	argv, err := c.Argv(s, name)
	if err != nil {
		return nil, err
	}
	ls := s
	ls.Argv, ls.Env, ls.GPUs = argv, nil, "" // the container gets them, not the client
	ls.elsewhere = true
	p, err := Start(ctx, ls, timeout)
	if p == nil {
		return nil, err
	}
	in := &containerInstance{Process: p, c: c, name: name}
	if err != nil {
		in.remove()
	}
	return in, err
}

type containerInstance struct {
	*Process
	c    Container
	name string
}

// Stop asks the runtime to stop the container (its engine gets SIGTERM
// and ten seconds), then ends the client's process group; the container
// was started with --rm, and remove makes sure of it.
func (in *containerInstance) Stop() {
	began := time.Now()
	in.remove()
	in.Process.Stop()
	in.Process.Teardown = time.Since(began)
}

func (in *containerInstance) remove() {
	exec.Command(in.c.runtime(), "stop", "--time", "10", in.name).Run()
	exec.Command(in.c.runtime(), "rm", "--force", in.name).Run()
}
