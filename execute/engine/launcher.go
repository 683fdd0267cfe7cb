package engine

import (
	"context"
	"net"
	"time"
)

// Launcher starts one engine configuration on the GPUs a Spec names:
// the local process (Local), a container runtime (Container). The runner
// launches through it and never knows which one it has.
type Launcher interface {
	// Launch starts s and waits up to timeout for its health endpoint.
	// On error the Instance, when not nil, has been stopped and still
	// tells how long launching took.
	Launch(ctx context.Context, s Spec, timeout time.Duration) (Instance, error)
}

// Instance is an engine a Launcher started.
type Instance interface {
	// Endpoint is the engine's base URL, e.g. http://127.0.0.1:8000.
	Endpoint() string
	// Exited reports whether the engine has stopped, and why.
	Exited() (bool, error)
	// Stop tears the engine down and returns once it is gone.
	Stop()
	// Tail is the last n lines of the engine's log.
	Tail(n int) string
	// Timing is how long launching, health and teardown took so far.
	Timing() Timing
	// Pgid is the local process group to stop if servelab dies with the
	// engine up (the run's pid file names it).
	Pgid() int
}

// A Survivor is an Instance whose Stop can leave processes behind: it
// names them (pid and name) for the run's log.
type Survivor interface {
	Survivors() []string
}

// Dialer is an Instance reached without the network (an in-process
// engine): connections to it come from DialContext, whatever address
// Endpoint names.
type Dialer interface {
	DialContext(ctx context.Context, network, addr string) (net.Conn, error)
}

// Timing is how long each phase of an engine's life took.
type Timing struct {
	Launch, Health, Teardown time.Duration
}

// Local runs engines as child processes of servelab.
type Local struct{}

// Launch starts s as a local process group (see Start).
func (Local) Launch(ctx context.Context, s Spec, timeout time.Duration) (Instance, error) {
	p, err := Start(ctx, s, timeout)
	if p == nil {
		return nil, err // never a typed nil inside the interface
	}
	return p, err
}

// Endpoint is the engine's base URL.
func (p *Process) Endpoint() string { return p.URL }

// Tail is the last n lines of the engine's log; once the engine has
// exited, with everything it printed.
func (p *Process) Tail(n int) string {
	select {
	case <-p.exited:
		p.drained()
	default:
	}
	return Tail(p.log, n)
}

// Timing is how long each phase took.
func (p *Process) Timing() Timing { return Timing{p.Launch, p.Health, p.Teardown} }

var _ Instance = (*Process)(nil)
