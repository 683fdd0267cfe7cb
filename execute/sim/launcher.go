package sim

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"sync"
	"time"

	launch "servelab.dev/execute/engine"
)

// Launcher starts each engine as an in-process simulator served over a
// Pipe: no process, no port, and under testing/synctest every wait on a
// virtual clock. Timing and Faults are what SERVELAB_SIM_TIMING and
// SERVELAB_SIM_FAULT say to the servelab-sim binary ("" for none); Clock
// is the engines' clock (nil: Wall).
type Launcher struct {
	Timing, Faults string
	Clock          Clock
}

// Instance is a simulator the Launcher started.
type Instance struct {
	srv     *Server
	pipe    *Pipe
	hs      *http.Server
	log     string
	timing  launch.Timing
	mu      sync.Mutex
	closing sync.Once
	exited  error // set when the exit-after fault killed it, or by Stop
}

var _ launch.Launcher = Launcher{}
var _ launch.Instance = (*Instance)(nil)

// Launch parses s's command line as servelab-sim does and waits up to
// timeout for the simulator's health, as a real launch would.
func (l Launcher) Launch(ctx context.Context, s launch.Spec, timeout time.Duration) (launch.Instance, error) {
	t0 := time.Now()
	c, err := Parse(s.Argv, l.Timing, l.Faults)
	if err != nil {
		return nil, fmt.Errorf("%w before it became healthy: servelab-sim: %w", launch.ErrExited, err)
	}
	c.DevMode = s.Env["VLLM_SERVER_DEV_MODE"] == "1"
	c.Devices, c.Clock = s.GPUs, l.Clock
	if c.Faults.Crash {
		writeLog(s.Log, CrashMessage)
		return nil, fmt.Errorf("%w before it became healthy (exit status 3); log tail:\n%s", launch.ErrExited, CrashMessage)
	}
	in := &Instance{pipe: NewPipe(), log: s.Log}
	in.srv = New(c, in.die)
	in.hs = &http.Server{Handler: in.srv.Handler()}
	writeLog(s.Log, in.srv.Banner(in.pipe.Addr()))
	go in.hs.Serve(in.pipe)
	in.timing.Launch = time.Since(t0)
	if s.HealthWait != nil {
		s.HealthWait(in.timing.Launch)
	}
	if err := in.waitReady(ctx, timeout); err != nil {
		in.Stop()
		return in, err
	}
	in.timing.Health = time.Since(t0) - in.timing.Launch
	return in, nil
}

// waitReady polls the simulator's health as the real launcher polls
// the engine's endpoint.
func (in *Instance) waitReady(ctx context.Context, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for !in.srv.Ready() {
		if time.Now().After(deadline) {
			return fmt.Errorf("engine not healthy after %s; log tail:\n%s", timeout, in.Tail(12))
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}
	return nil
}

// die is the exit-after fault: the engine is gone, as a crashed process
// would be, and its connections with it.
func (in *Instance) die(msg string) {
	writeLog(in.log, msg)
	in.mu.Lock()
	if in.exited == nil {
		in.exited = fmt.Errorf("%w (exit status 4)", launch.ErrExited)
	}
	in.mu.Unlock()
	go in.close()
	panic(http.ErrAbortHandler)
}

// close ends the engine, then waits for its handlers and connections
// to end; a second call waits for the first.
func (in *Instance) close() {
	in.closing.Do(func() {
		in.srv.Close()
		in.pipe.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if in.hs.Shutdown(ctx) != nil {
			in.hs.Close()
		}
	})
}

// Endpoint is a made-up URL: only DialContext reaches the simulator.
func (in *Instance) Endpoint() string { return "http://" + in.pipe.Addr().String() }

// DialContext opens a connection to the simulator (engine.Dialer).
func (in *Instance) DialContext(ctx context.Context, network, addr string) (net.Conn, error) {
	return in.pipe.Dial(ctx, network, addr)
}

// Exited reports whether the exit-after fault or Stop ended it.
func (in *Instance) Exited() (bool, error) {
	in.mu.Lock()
	defer in.mu.Unlock()
	if in.exited == nil {
		return false, nil
	}
	if errors.Is(in.exited, errStopped) {
		return true, nil
	}
	return true, in.exited
}

var errStopped = errors.New("stopped")

// Stop ends the simulator and every connection to it.
func (in *Instance) Stop() {
	t0 := time.Now()
	in.mu.Lock()
	if in.exited == nil {
		in.exited = errStopped
	}
	in.mu.Unlock()
	in.close()
	in.timing.Teardown = time.Since(t0)
}

// Tail is the last n lines of the simulator's log.
func (in *Instance) Tail(n int) string { return launch.Tail(in.log, n) }

// Timing is how long launching, health and teardown took.
func (in *Instance) Timing() launch.Timing { return in.timing }

// Pgid is 0: there is no process to reap.
func (in *Instance) Pgid() int { return 0 }

// writeLog appends a line to the engine's log, as the process's stderr
// would; no log is kept when path is "".
func writeLog(path, line string) {
	if path == "" {
		return
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return
	}
	defer f.Close()
	fmt.Fprintln(f, line)
}
