package engine

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestContainerArgv(t *testing.T) {
	s := Spec{Argv: []string{"vllm", "serve", "Qwen/Qwen3-8B", "--max-num-seqs=16"}, Image: "vllm/vllm-openai:v0.11.0",
		Env: map[string]string{"VLLM_USE_V1": "1", "A": "x y"}, GPUs: "0,1"}
	got, err := Container{Runtime: "docker", Cache: "/data/hf"}.Argv(s, "servelab-k")
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"docker", "run", "--rm", "--name", "servelab-k", "--network", "host", "--ipc", "host",
		"--gpus", `"device=0,1"`, "--env", "A=x y", "--env", "VLLM_USE_V1=1", "--env", "HF_TOKEN",
		"--volume", "/data/hf:/root/.cache/huggingface", "--entrypoint", "vllm", "vllm/vllm-openai:v0.11.0",
		"serve", "Qwen/Qwen3-8B", "--max-num-seqs=16"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("docker argv\n got %q\nwant %q", got, want)
	}
	s.GPUs = ""
	got, _ = Container{Runtime: "/usr/bin/podman"}.Argv(s, "n")
	if i := indexOf(got, "--device"); i < 0 || got[i+1] != "nvidia.com/gpu=all" || indexOf(got, "--gpus") >= 0 || indexOf(got, "--volume") >= 0 {
		t.Errorf("podman argv %q: want CDI device nvidia.com/gpu=all, no --gpus, no volume", got)
	}
	s.GPUs = "2,3"
	got, _ = Container{Runtime: "podman"}.Argv(s, "n")
	if strings.Count(strings.Join(got, " "), "--device nvidia.com/gpu=") != 2 {
		t.Errorf("podman argv %q: want one CDI device per GPU", got)
	}
	s.Image = ""
	if _, err := (Container{}).Argv(s, "n"); !errors.Is(err, ErrNoImage) {
		t.Errorf("no image: err = %v", err)
	}
}

func indexOf(s []string, w string) int {
	for i, v := range s {
		if v == w {
			return i
		}
	}
	return -1
}

func TestContainerName(t *testing.T) {
	if got := ContainerName("ab12/c d€"); got != "servelab-ab12-c-d-" {
		t.Errorf("ContainerName = %q", got)
	}
}

// The container launcher through a fake runtime that runs the entrypoint
// on the host: the engine comes up healthy on the port servelab chose,
// gets its GPUs and env through the runtime's flags, and Stop asks the
// runtime to stop and remove the container by name.
func TestContainerLaunch(t *testing.T) {
	dir := t.TempDir()
	logf := filepath.Join(dir, "runtime.log")
	t.Setenv("FAKE_RUNTIME_LOG", logf)
	rt, _ := filepath.Abs("testdata/fake-runtime")
	s := spec(t)
	s.Name, s.Image, s.Env = "trialkey", "example/engine:v1", map[string]string{"SIM_NOTE": "from --env"}
	in, err := Container{Runtime: rt}.Launch(context.Background(), s, 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(in.Endpoint(), "http://127.0.0.1:") {
		t.Errorf("endpoint %q", in.Endpoint())
	}
	in.Stop()
	if dead, _ := in.Exited(); !dead {
		t.Error("engine still running after Stop")
	}
	engineLog, _ := os.ReadFile(s.Log)
	if !strings.Contains(string(engineLog), `CUDA_VISIBLE_DEVICES="3"`) {
		t.Errorf("the engine did not get GPU 3 through --gpus: %s", engineLog)
	}
	calls, _ := os.ReadFile(logf)
	lines := strings.Split(strings.TrimSpace(string(calls)), "\n")
	for i := range lines {
		lines[i] = strings.TrimSpace(lines[i])
	}
	if len(lines) != 3 || !strings.HasPrefix(lines[0], "run --rm --name servelab-trialkey ") ||
		!strings.Contains(lines[0], "--env SIM_NOTE=from\\ --env") || !strings.Contains(lines[0], "--entrypoint "+simBin+" example/engine:v1 vllm serve m/m --host=127.0.0.1 --port=") ||
		lines[1] != "stop --time 10 servelab-trialkey" || lines[2] != "rm --force servelab-trialkey" {
		t.Errorf("runtime calls:\n%s", calls)
	}
	if in.Timing().Launch <= 0 || in.Timing().Teardown <= 0 {
		t.Errorf("timing %+v", in.Timing())
	}
}

// An engine that dies in its container: the error carries the log tail
// and the container is removed.
func TestContainerCrash(t *testing.T) {
	logf := filepath.Join(t.TempDir(), "runtime.log")
	t.Setenv("FAKE_RUNTIME_LOG", logf)
	t.Setenv("SERVELAB_SIM_FAULT", "crash")
	rt, _ := filepath.Abs("testdata/fake-runtime")
	s := spec(t)
	s.Name, s.Image = "k", "example/engine:v1"
	_, err := Container{Runtime: rt}.Launch(context.Background(), s, 10*time.Second)
	if !errors.Is(err, ErrExited) || !strings.Contains(err.Error(), "CUDA out of memory") {
		t.Errorf("err = %v", err)
	}
	calls, _ := os.ReadFile(logf)
	if !strings.Contains(string(calls), "rm --force servelab-k") {
		t.Errorf("crashed container not removed:\n%s", calls)
	}
}
