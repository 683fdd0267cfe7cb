package engine

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
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
	startElsewhere(t, spec(t), l)
}

// startElsewhere starts s on the port of taken, which another process
// holds, and returns the engine once Start has it healthy on another
// port; it is stopped when t ends.
func startElsewhere(t *testing.T, s Spec, taken net.Listener) *Process {
	t.Helper()
	s.Port = taken.Addr().(*net.TCPAddr).Port
	p, err := Start(context.Background(), s, 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.Stop)
	if strings.HasSuffix(p.URL, fmt.Sprint(":", s.Port)) {
		t.Fatalf("engine claims the taken port %d", s.Port)
	}
	return p
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

// Another server on the engine's port answers the health check before
// the engine binds (here the engine waits a second, from a shell, so
// that its listener is a child's): Start sees that the listener is not
// the engine's and launches it again on a free port, where the engine,
// not the other server, answers.
func TestPortAnsweredByAnother(t *testing.T) {
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `{"data":[{"id":"another/model"}]}`)
	}))
	defer other.Close()
	s := spec(t)
	s.Argv = append([]string{"sh", "-c", `sleep 1; "$0" "$@"`}, s.Argv...)
	p := startElsewhere(t, s, other.Listener)
	r, err := http.Get(p.URL + "/v1/models")
	if err != nil {
		t.Fatal(err)
	}
	defer r.Body.Close()
	b, _ := io.ReadAll(r.Body)
	if !strings.Contains(string(b), `"m/m"`) {
		t.Errorf("%s/v1/models: %s", p.URL, b)
	}
}

// The listener check sees a process's own socket, and not another's.
func TestListenedBy(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	port := l.Addr().(*net.TCPAddr).Port
	if mine, known := listenedBy(os.Getpid(), port); !mine || !known {
		t.Errorf("own listener: mine %v, known %v", mine, known)
	}
	other := exec.Command("sleep", "10")
	if err := other.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { other.Process.Kill(); other.Wait() }()
	if mine, known := listenedBy(other.Process.Pid, port); mine || !known {
		t.Errorf("another process's view: mine %v, known %v", mine, known)
	}
}

// FreePort never hands out a port an engine of this process holds, even
// when the kernel offers it again before that engine binds.
func TestFreePortHolds(t *testing.T) {
	offers := []int{40001, 40001, 40002}
	defer func(k func() (int, error)) { kernelPort = k }(kernelPort)
	kernelPort = func() (int, error) { p := offers[0]; offers = offers[1:]; return p, nil }
	a, _ := FreePort()
	b, _ := FreePort()
	if a != 40001 || b != 40002 {
		t.Errorf("ports %d and %d, want 40001 and 40002", a, b)
	}
	releasePort(a)
	releasePort(b)
}

// A listener in a child that left the engine's tree (it daemonized and
// was handed to init) but not its process group is still the engine's.
func TestListenedByGroup(t *testing.T) {
	port, err := FreePort()
	if err != nil {
		t.Fatal(err)
	}
	defer releasePort(port)
	sh := exec.Command("sh", "-c", `("$0" "$@" &); exec sleep 30`, simBin, "vllm", "serve", "m/m", "--port", fmt.Sprint(port))
	sh.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := sh.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { syscall.Kill(-sh.Process.Pid, syscall.SIGKILL); sh.Wait() }()
	for i := 0; len(listeners(port)) == 0; i++ {
		if i == 500 {
			t.Fatal("the daemonized simulator never listened")
		}
		time.Sleep(10 * time.Millisecond)
	}
	if mine, known := listenedBy(sh.Process.Pid, port); !mine || !known {
		t.Errorf("a daemonized child's listener: mine %v, known %v", mine, known)
	}
}
