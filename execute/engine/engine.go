// Package engine starts and stops inference engines: the trial's argv
// run directly (never through a shell) in its own process group, on a
// free loopback port, with its output in a log file; it waits for the
// health endpoint while watching for an early exit, and tears the whole
// group down with SIGTERM, then SIGKILL.
package engine

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
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
	// StopGrace is how long Stop waits between SIGTERM and SIGKILL
	// (0: 10 s, time for an engine to free its GPU memory).
	StopGrace time.Duration
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
	logged chan struct{} // closed when every writer of the log has closed it
	err    error
	log    string
	mark   string // the launch's markVar value, which its descendants inherit
	grace  time.Duration
	pid    string // the pid file, removed by Stop
	held   int    // the port FreePort held for it, released by Stop; 0 if none
	// Launch, Health and Teardown are how long each phase took.
	Launch, Health, Teardown time.Duration
	// left are the processes of the launch that Stop could not end.
	left []string
}

// Survivors are the processes of the launch (pid and name) that Stop
// could not end; the pid file is then kept for the next run to reap.
func (p *Process) Survivors() []string { return p.left }

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
	logf, err := newCapped(s.Log)
	if err != nil {
		releasePort(held)
		return nil, err
	}
	// The engine writes to a pipe that servelab drains into the capped
	// log: its own file would grow as fast as the engine prints.
	pr, pw, err := os.Pipe()
	if err != nil {
		logf.Close()
		releasePort(held)
		return nil, err
	}
	mark := launchMark(s.Name)
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Stdout, cmd.Stderr = pw, pw
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGTERM}
	cmd.Env = append(os.Environ(), markVar+"="+mark)
	for k, v := range s.Env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	if s.GPUs != "" {
		cmd.Env = append(cmd.Env, "CUDA_VISIBLE_DEVICES="+s.GPUs)
	}
	err = cmd.Start()
	pw.Close() // the engine and its children hold the write end now
	if err != nil {
		pr.Close()
		logf.Close()
		releasePort(held)
		return nil, fmt.Errorf("starting %s: %w (install the engine on this host, or try the study with --simulate)", argv[0], err)
	}
	p := &Process{URL: fmt.Sprintf("http://127.0.0.1:%d", port), cmd: cmd, exited: make(chan struct{}), logged: make(chan struct{}),
		log: s.Log, pid: s.PidFile, held: held, mark: mark, grace: cmp.Or(s.StopGrace, stopGrace)}
	go func() { io.Copy(logf, pr); pr.Close(); logf.Close(); close(p.logged) }()
	go func() { p.err = cmd.Wait(); close(p.exited) }()
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
			p.drained()
			return fmt.Errorf("%w before it became healthy (%s); log tail:\n%s", ErrExited, exitReason(p.err), Tail(p.log, 12))
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

// exitReason says how a process that should have kept running ended.
func exitReason(err error) string {
	if err == nil {
		return "exit status 0: the command returned; a wrapper that starts the server in the background must wait for it (exec it, or wait)"
	}
	return err.Error()
}

// Stop ends the launch: SIGTERM to the engine's process group, SIGKILL
// after a grace period, and then the same to every process that carries
// the launch's mark or stays in its group, whether or not the engine's
// first process still lives (a wrapper that returned, a worker that
// moved to a session of its own). It returns once they are gone, or
// names the survivors in p.Survivors.
func (p *Process) Stop() {
	began := time.Now()
	defer func() { p.Teardown = time.Since(began) }()
	defer releasePort(p.held) // after the engine has exited
	pgid := p.cmd.Process.Pid
	select {
	case <-p.exited:
	default:
		syscall.Kill(-pgid, syscall.SIGTERM)
		select {
		case <-p.exited:
		case <-time.After(p.grace):
			syscall.Kill(-pgid, syscall.SIGKILL)
			<-p.exited
		}
	}
	p.left = stopLaunch(pgid, p.mark, p.grace)
	if len(p.left) == 0 && p.pid != "" {
		os.Remove(p.pid)
	}
	p.drained()
}

// drained waits until the engine's last output is in its log: the
// process's exit does not mean the copy from its pipe has finished. A
// descendant that keeps the pipe open is waited for 2 s at most.
func (p *Process) drained() {
	select {
	case <-p.logged:
	case <-time.After(2 * time.Second):
	}
}
