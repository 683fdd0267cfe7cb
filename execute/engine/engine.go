// Package engine starts and stops inference engines: the trial's argv
// run directly (never through a shell) in its own process group, on a
// free loopback port, with its output in a log file; it waits for the
// health endpoint while watching for an early exit, and tears the whole
// group down with SIGTERM, then SIGKILL.
package engine

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Spec is what to launch.
type Spec struct {
	// Name identifies the launch (the trial's key): a container's name.
	Name      string
	Argv      []string
	Env       map[string]string
	FlagStyle string // "equals" (--port=N) or "space" (--port N)
	HostFlag  string
	PortFlag  string
	Health    string // path, e.g. /health
	GPUs      string // CUDA_VISIBLE_DEVICES, "" to leave it as is
	Log       string // file the engine's output goes to
	Image     string // container image, for launchers that run one
	// PidFile, when set, receives the engine's Identity right after the
	// launch (before the health wait) and is removed once it has stopped,
	// so that a run that dies leaves the next one what it needs to reap.
	PidFile string
	// Port is the port to use; 0 picks a free one. When the port turns
	// out to be taken, Start tries again on a free one.
	Port int
	// elsewhere says that the engine listens outside the launched
	// process's tree (a container runtime's client starts it), so
	// whose listener answers cannot be checked.
	elsewhere bool
	// HealthWait, when set, is told that the engine's process is up and
	// the health wait begins, and how long launching took: a run's
	// progress shows the phase it is in (a first launch may download
	// weights for many minutes).
	HealthWait func(launch time.Duration)
}

// Process is a running engine.
type Process struct {
	URL    string
	cmd    *exec.Cmd
	exited chan struct{}
	err    error
	log    string
	pid    string // the pid file, removed by Stop
	held   int    // the port FreePort held for it, released by Stop; 0 if none
	// Launch, Health and Teardown are how long each phase took.
	Launch, Health, Teardown time.Duration
}

// ErrExited means the engine stopped before it became healthy.
var ErrExited = errors.New("engine exited")

// Start launches s and waits up to timeout for it to become healthy. An
// engine whose port was taken by another process between our choice and
// its bind (it died of it, or the other process answered the health
// check) is started again on another port, up to three times.
func Start(ctx context.Context, s Spec, timeout time.Duration) (*Process, error) {
	for try := 0; ; try++ {
		p, err := start(ctx, s, timeout)
		if err == nil || try == 2 || !portTaken(err, s.Log) {
			return p, err
		}
		s.Port = 0
	}
}

func portTaken(err error, log string) bool {
	return errors.Is(err, ErrPortTaken) ||
		errors.Is(err, ErrExited) && strings.Contains(Tail(log, 20), "address already in use")
}

func start(ctx context.Context, s Spec, timeout time.Duration) (*Process, error) {
	began := time.Now()
	port, held := s.Port, 0
	var err error
	if port == 0 {
		if port, err = FreePort(); err != nil {
			return nil, err
		}
		held = port
	}
	argv := append(append([]string(nil), s.Argv...), flag(s.FlagStyle, s.HostFlag, "127.0.0.1")...)
	argv = append(argv, flag(s.FlagStyle, s.PortFlag, strconv.Itoa(port))...)
	logf, err := os.Create(s.Log)
	if err != nil {
		releasePort(held)
		return nil, err
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGTERM}
	cmd.Env = os.Environ()
	for k, v := range s.Env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	if s.GPUs != "" {
		cmd.Env = append(cmd.Env, "CUDA_VISIBLE_DEVICES="+s.GPUs)
	}
	if err := cmd.Start(); err != nil {
		logf.Close()
		releasePort(held)
		return nil, fmt.Errorf("starting %s: %w (install the engine on this host, or try the study with --simulate)", argv[0], err)
	}
	p := &Process{URL: fmt.Sprintf("http://127.0.0.1:%d", port), cmd: cmd, exited: make(chan struct{}), log: s.Log, pid: s.PidFile, held: held}
	go func() { p.err = cmd.Wait(); logf.Close(); close(p.exited) }()
	if err := p.record(s.PidFile); err != nil {
		p.Stop()
		return p, err
	}
	p.Launch = time.Since(began)
	if s.HealthWait != nil {
		s.HealthWait(p.Launch)
	}
	hb := time.Now()
	err = p.waitHealthy(ctx, s.Health, timeout)
	if err == nil && !s.elsewhere {
		err = p.ownsPort(port)
	}
	p.Health = time.Since(hb)
	if err != nil {
		p.Stop()
		return p, err
	}
	return p, nil
}

// ownsPort checks that the health check was answered by the engine: a
// server another process started on the port answers it as well while
// the engine is still loading, and would then be benchmarked in its
// place.
func (p *Process) ownsPort(port int) error {
	if mine, known := listenedBy(p.cmd.Process.Pid, port); known && !mine {
		return fmt.Errorf("%w: port %d answers the health check, but its listener is not the engine's (pid %d, its children or its process group): another process took the port", ErrPortTaken, port, p.cmd.Process.Pid)
	}
	return nil
}

func flag(style, name, value string) []string {
	if style == "space" {
		return []string{"--" + name, value}
	}
	return []string{"--" + name + "=" + value}
}

func (p *Process) waitHealthy(ctx context.Context, path string, timeout time.Duration) error {
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	c := &http.Client{Timeout: 2 * time.Second}
	for {
		select {
		case <-p.exited:
			return fmt.Errorf("%w before it became healthy (%v); log tail:\n%s", ErrExited, p.err, Tail(p.log, 12))
		case <-deadline.C:
			return fmt.Errorf("engine not healthy after %s; log tail:\n%s", timeout, Tail(p.log, 12))
		case <-ctx.Done():
			return ctx.Err()
		case <-tick.C:
			if resp, err := c.Get(p.URL + path); err == nil {
				resp.Body.Close()
				if resp.StatusCode == http.StatusOK {
					return nil
				}
			}
		}
	}
}

// Exited reports whether the engine has stopped, and why.
func (p *Process) Exited() (bool, error) {
	select {
	case <-p.exited:
		return true, p.err
	default:
		return false, nil
	}
}

// Pgid is the engine's process group.
func (p *Process) Pgid() int { return p.cmd.Process.Pid }

// Stop sends SIGTERM to the engine's process group and SIGKILL after a
// grace period; it returns once the engine has exited.
func (p *Process) Stop() {
	began := time.Now()
	defer func() { p.Teardown = time.Since(began) }()
	defer releasePort(p.held) // after the engine has exited
	if p.pid != "" {
		defer os.Remove(p.pid)
	}
	select {
	case <-p.exited:
		return
	default:
	}
	pgid := p.cmd.Process.Pid
	syscall.Kill(-pgid, syscall.SIGTERM)
	select {
	case <-p.exited:
	case <-time.After(10 * time.Second):
		syscall.Kill(-pgid, syscall.SIGKILL)
		<-p.exited
	}
}

// Tail is the last n lines of a log file.
func Tail(path string, n int) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return "(no log: " + err.Error() + ")"
	}
	lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return "  " + strings.Join(lines, "\n  ")
}
