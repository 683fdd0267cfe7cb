package sim

import (
	"context"
	"errors"
	"net"
	"sync"
)

// Pipe is an in-memory network of one listener: Dial hands the listener
// one end of a net.Pipe. Served over it, the simulator needs no port and
// every wait is on channels, which testing/synctest's virtual clock sees
// as durably blocked (a goroutine reading a socket is not).
type Pipe struct {
	conns chan net.Conn
	done  chan struct{}
	once  sync.Once
}

// NewPipe makes an open Pipe.
func NewPipe() *Pipe {
	return &Pipe{conns: make(chan net.Conn), done: make(chan struct{})}
}

// ErrClosed is what Dial and Accept return once the Pipe is closed.
var ErrClosed = errors.New("sim: in-memory listener closed")

// Accept waits for the next Dial.
func (p *Pipe) Accept() (net.Conn, error) {
	select {
	case c := <-p.conns:
		return c, nil
	case <-p.done:
		return nil, ErrClosed
	}
}

// Close stops accepting; connections already made stay open.
func (p *Pipe) Close() error {
	p.once.Do(func() { close(p.done) })
	return nil
}

// Addr is the Pipe's made-up address.
func (p *Pipe) Addr() net.Addr { return pipeAddr{} }

// Dial connects to the listener, as net.Dialer.DialContext would.
func (p *Pipe) Dial(ctx context.Context, _, _ string) (net.Conn, error) {
	client, server := net.Pipe()
	select {
	case p.conns <- server:
		return client, nil
	case <-p.done:
		return nil, ErrClosed
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

type pipeAddr struct{}

func (pipeAddr) Network() string { return "pipe" }
func (pipeAddr) String() string  { return "sim.invalid:80" }
