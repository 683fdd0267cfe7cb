package engine

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

var simBin string

func TestMain(m *testing.M) {
	dir, _ := os.MkdirTemp("", "servelab-sim-")
	simBin = filepath.Join(dir, "servelab-sim")
	if out, err := exec.Command("go", "build", "-o", simBin, "servelab.dev/cmd/servelab-sim").CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "building servelab-sim: %v\n%s", err, out)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

func spec(t *testing.T) Spec {
	return Spec{Argv: []string{simBin, "vllm", "serve", "m/m"}, FlagStyle: "equals", HostFlag: "host", PortFlag: "port",
		Health: "/health", GPUs: "3", Log: filepath.Join(t.TempDir(), "engine.log")}
}

func TestStartStop(t *testing.T) {
	s := spec(t)
	p, err := Start(context.Background(), s, 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	p.Stop()
	if dead, _ := p.Exited(); !dead {
		t.Error("still running after Stop")
	}
	log, _ := os.ReadFile(s.Log)
	if !strings.Contains(string(log), `CUDA_VISIBLE_DEVICES="3"`) {
		t.Errorf("the engine did not get its GPUs: %s", log)
	}
}

// A port taken by another process: the engine cannot bind, and Start
// launches it again on a free port.
func TestPortInUse(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	s := spec(t)
	s.Port = l.Addr().(*net.TCPAddr).Port
	p, err := Start(context.Background(), s, 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Stop()
	if strings.HasSuffix(p.URL, fmt.Sprint(":", s.Port)) {
		t.Errorf("engine claims the taken port %d", s.Port)
	}
}

func TestCrashGivesLogTail(t *testing.T) {
	s := spec(t)
	os.Setenv("SERVELAB_SIM_FAULT", "crash")
	defer os.Unsetenv("SERVELAB_SIM_FAULT")
	_, err := Start(context.Background(), s, 10*time.Second)
	if !errors.Is(err, ErrExited) || !strings.Contains(err.Error(), "CUDA out of memory") {
		t.Errorf("err = %v", err)
	}
}
