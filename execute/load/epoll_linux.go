package load

import (
	"context"
	"errors"
	"net"
	"net/url"
	"os"
	"strconv"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// epollTransport speaks HTTP/1.1 on non-blocking sockets that one
// goroutine reads: it waits on an epoll set of all the connections
// (edge-triggered), reads each ready one into a shared buffer and
// decodes the events in place, so that a busy client serves many
// chunks a read and no chunk costs an empty read. net/http, by
// contrast, reads each stream on its own goroutine until the socket is
// empty: two read calls a chunk, the second one finding nothing.
//
// The epoll set's own descriptor is waited on through Go's netpoller,
// so the loop parks like any goroutine (no thread is held, and with
// GOMAXPROCS=1 the pacer and the senders still run). Requests are
// written by their own goroutines; a write the socket cannot take whole
// is finished by the loop. Connections are dialled with net.Dialer (its
// resolver, timeouts and error messages) and then taken over.
type epollTransport struct {
	addr, host, uri string
	dialer          net.Dialer
	epfd            int
	ep              *os.File
	buf             []byte // the loop's read buffer
	events          []unix.EpollEvent
	loopDone        chan struct{}

	mu    sync.Mutex
	conns []*hconn // by slot, the events' key
	free  []int32
	idle  []*hconn // kept-alive connections, the last returned on top
	// waiting are the requests that found no idle connection: each
	// dials one, but takes whichever comes first, its own or one
	// another request returns (as net/http does). A server that gives
	// each connection a thread, llama-server among them, may leave a new
	// connection unserved while its threads hold the kept-alive ones.
	waiting []*connWait
	gen     int32
	shut    bool
}

// connWait is a request waiting for a connection.
type connWait struct {
	done   chan struct{} // closed when c or err is set
	c      *hconn
	err    error
	reused bool
}

// hconn is one connection; mu orders the loop and the request's
// goroutine (its write, its cancellation).
type hconn struct {
	fd        int
	slot, gen int32
	mu        sync.Mutex
	p         h1
	x         *exch  // the exchange in flight; nil when idle
	out       []byte // the request's bytes the socket has not taken yet
	dead      bool
}

// exch is one request on one connection, as its goroutine sees it
// after done is closed.
type exch struct {
	t    *tally
	done chan struct{}
	why  string // the failure, "" when none
	lost bool   // the connection ended before any response byte
}

func (c *hconn) event(ch Chunk) bool { return c.x.t.event(ch) }

func newEpollTransport(raw string) (transport, error) {
	u, err := url.Parse(raw)
	if err != nil || u.Scheme != "http" || u.User != nil || u.Host == "" {
		return nil, errors.New("not a plain http URL")
	}
	addr := u.Host
	if u.Port() == "" {
		addr = net.JoinHostPort(u.Hostname(), "80")
	}
	epfd, err := unix.EpollCreate1(unix.EPOLL_CLOEXEC)
	if err != nil {
		return nil, err
	}
	if err := unix.SetNonblock(epfd, true); err != nil {
		unix.Close(epfd)
		return nil, err
	}
	e := &epollTransport{addr: addr, host: u.Host, uri: u.RequestURI(),
		dialer: net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second},
		epfd:   epfd, ep: os.NewFile(uintptr(epfd), "epoll"),
		buf: make([]byte, 64<<10), events: make([]unix.EpollEvent, 256), loopDone: make(chan struct{})}
	go e.loop()
	return e, nil
}

// loop waits for ready connections and reads them. The epoll set is
// polled without blocking; when it has nothing the goroutine parks on
// the set's descriptor, which the netpoller reports readable as soon as
// any connection in it has news.
func (e *epollTransport) loop() {
	defer close(e.loopDone)
	rc, err := e.ep.SyscallConn()
	if err != nil {
		return
	}
	rc.Read(func(uintptr) bool {
		for {
			n, err := unix.EpollWait(e.epfd, e.events, 0)
			if err == unix.EINTR {
				continue
			}
			if n <= 0 {
				return false
			}
			for _, ev := range e.events[:n] {
				e.ready(ev)
			}
			if n < len(e.events) {
				return false // later news wakes the set's descriptor again
			}
		}
	})
}

func (e *epollTransport) ready(ev unix.EpollEvent) {
	e.mu.Lock()
	var c *hconn
	if int(ev.Fd) < len(e.conns) {
		c = e.conns[ev.Fd]
	}
	e.mu.Unlock()
	if c == nil || c.gen != ev.Pad {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.out) > 0 && !c.dead {
		e.flush(c)
	}
	if ev.Events&(unix.EPOLLIN|unix.EPOLLRDHUP|unix.EPOLLHUP|unix.EPOLLERR) != 0 {
		e.read(c, ev.Events&(unix.EPOLLRDHUP|unix.EPOLLHUP|unix.EPOLLERR) != 0)
	}
}

// read reads c until the socket is empty. A read that fills less than
// the buffer has emptied it: with edge-triggered readiness, data that
// arrives later raises a new event, so no read is spent to find
// nothing (mio and Tokio read the same way). Not so the connection's
// end, which raises no event after the data it came with: when the
// event says the peer closed (hup), c is read to its end.
func (e *epollTransport) read(c *hconn, hup bool) {
	for !c.dead {
		n, err := unix.Read(c.fd, e.buf)
		switch {
		case err == unix.EINTR:
			continue
		case err == unix.EAGAIN:
			return
		case n > 0 && c.x == nil:
			e.kill(c) // bytes no request asked for
			return
		case n > 0:
			c.x.t.now = time.Now()
			err := c.p.feed(e.buf[:n])
			var refused *HTTPError
			switch {
			case err == errTrailing:
				e.finish(c, "", false)
			case err != nil:
				// A refusal read whole leaves the connection usable.
				e.finish(c, failure(err), c.p.ended && errors.As(err, &refused))
			case c.p.ended:
				e.finish(c, "", true)
			}
			if n < len(e.buf) && !hup {
				return
			}
		case c.x == nil:
			e.kill(c) // the server closed a kept-alive connection
			return
		default:
			e.closed(c, err)
			return
		}
	}
}

// closed is the end of c's connection (err nil for the server's close)
// with a request on it.
func (e *epollTransport) closed(c *hconn, err error) {
	if !c.p.started() {
		c.x.lost = true
		why := "connection closed before a response"
		switch {
		case err == unix.ECONNRESET:
			why = "connection reset before a response"
		case err != nil:
			why = "read: " + err.Error() + " before a response"
		}
		e.finish(c, why, false)
		return
	}
	if err == nil {
		err = c.p.eof()
	} else if c.p.state >= hChunkSize {
		err = errCut
	}
	e.finish(c, failure(err), false)
}

// failure is the reason recorded for a response the parser gave up on.
func failure(err error) string {
	var h *HTTPError
	switch {
	case err == nil:
		return ""
	case errors.As(err, &h):
		return h.Msg
	case err == errCut:
		return streamError(errCut)
	case errors.Is(err, ErrMalformed), errors.Is(err, ErrLineTooLong):
		return streamError(err)
	}
	return "stream: " + err.Error()
}

// finish ends c's exchange; the connection goes back to the pool when
// the response ended cleanly and the server keeps it open.
func (e *epollTransport) finish(c *hconn, why string, reuse bool) {
	x := c.x
	c.x, c.out = nil, nil
	x.why = why
	if !reuse || c.p.close || !e.put(c, true) {
		e.kill(c)
	}
	close(x.done)
}

// flush writes what the socket did not take of c's request.
func (e *epollTransport) flush(c *hconn) {
	n, err := write(c.fd, c.out)
	c.out = c.out[n:]
	if err != nil && c.x != nil {
		c.x.lost = !c.p.started()
		e.finish(c, "write: "+err.Error(), false)
	}
}

func write(fd int, b []byte) (int, error) {
	done := 0
	for done < len(b) {
		n, err := unix.Write(fd, b[done:])
		switch {
		case err == unix.EINTR:
			continue
		case err == unix.EAGAIN:
			return done, nil
		case err != nil:
			return done, err
		}
		done += n
	}
	return done, nil
}

// kill closes c, which takes it out of the epoll set.
func (e *epollTransport) kill(c *hconn) {
	if c.dead {
		return
	}
	c.dead = true
	unix.Close(c.fd)
	e.mu.Lock()
	defer e.mu.Unlock()
	for i, ic := range e.idle {
		if ic == c {
			e.idle = append(e.idle[:i], e.idle[i+1:]...)
			break
		}
	}
	e.conns[c.slot] = nil
	e.free = append(e.free, c.slot)
}

func (e *epollTransport) roundTrip(ctx context.Context, body []byte, key int64, t *tally) {
	req := e.request(body, key)
	for {
		c, reused, err := e.get(ctx, t)
		if err != nil {
			t.s.Error = requestError(err)
			return
		}
		x := &exch{t: t, done: make(chan struct{})}
		if !e.start(c, x, req) {
			if reused {
				continue // the server had closed it: take another
			}
			t.s.Error = "connection closed before a response"
			return
		}
		select {
		case <-x.done:
		case <-ctx.Done():
			e.abort(c, x, ctx.Err())
			<-x.done
		}
		if x.lost && reused {
			continue // lost as it went out: resend on another connection
		}
		if x.why != "" {
			t.fail(x.why)
		}
		return
	}
}

// request is the request's bytes: a head net/http would also send
// (less its User-Agent and compression), the key, and the body.
func (e *epollTransport) request(body []byte, key int64) []byte {
	b := make([]byte, 0, 200+len(e.uri)+len(e.host)+len(body))
	b = append(b, "POST "...)
	b = append(b, e.uri...)
	b = append(b, " HTTP/1.1\r\nHost: "...)
	b = append(b, e.host...)
	b = append(b, "\r\nUser-Agent: servelab\r\nContent-Type: application/json\r\nAccept: text/event-stream\r\nIdempotency-Key: "...)
	b = strconv.AppendInt(b, key, 10)
	b = append(b, "\r\nContent-Length: "...)
	b = strconv.AppendInt(b, int64(len(body)), 10)
	b = append(b, "\r\n\r\n"...)
	return append(b, body...)
}

// put hands c to the first waiting request, or keeps it idle; false
// when the transport is closed.
func (e *epollTransport) put(c *hconn, reused bool) bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.shut {
		return false
	}
	if len(e.waiting) > 0 {
		w := e.waiting[0]
		e.waiting = e.waiting[1:]
		w.c, w.reused = c, reused
		close(w.done)
		return true
	}
	e.idle = append(e.idle, c)
	return true
}

// unwait takes w off the queue; false when it was served meanwhile.
func (e *epollTransport) unwait(w *connWait) bool {
	for i, x := range e.waiting {
		if x == w {
			e.waiting = append(e.waiting[:i], e.waiting[i+1:]...)
			return true
		}
	}
	return false
}

// get takes a kept-alive connection, or waits for one: the one it dials
// or one that comes back first. Opening one counts as its set-up.
func (e *epollTransport) get(ctx context.Context, t *tally) (*hconn, bool, error) {
	e.mu.Lock()
	if n := len(e.idle); n > 0 {
		c := e.idle[n-1]
		e.idle = e.idle[:n-1]
		e.mu.Unlock()
		return c, true, nil
	}
	w := &connWait{done: make(chan struct{})}
	e.waiting = append(e.waiting, w)
	e.mu.Unlock()
	began := time.Now()
	go e.dial(w)
	select {
	case <-w.done:
	case <-ctx.Done():
		e.mu.Lock()
		waiting := e.unwait(w)
		e.mu.Unlock()
		if waiting {
			return nil, false, ctx.Err()
		}
		<-w.done
		if w.c != nil {
			e.release(w.c)
		}
		return nil, false, ctx.Err()
	}
	if !w.reused {
		t.s.Connect += ms(time.Since(began))
	}
	return w.c, w.reused, w.err
}

// release gives back a connection a request got but did not use.
func (e *epollTransport) release(c *hconn) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.dead && !e.put(c, true) {
		e.kill(c)
	}
}

// dial opens a connection for w, or for whoever waits when w was served
// by a returned one; a failure is w's alone.
func (e *epollTransport) dial(w *connWait) {
	nc, err := e.dialer.Dial("tcp", e.addr)
	var c *hconn
	if err == nil {
		c, err = e.adopt(nc)
	}
	e.mu.Lock()
	if e.unwait(w) {
		w.c, w.err = c, err
		close(w.done)
		e.mu.Unlock()
		return
	}
	e.mu.Unlock()
	if c != nil {
		if !e.put(c, false) {
			c.mu.Lock()
			e.kill(c)
			c.mu.Unlock()
		}
	}
}

// adopt takes the socket of a dialled connection into the epoll set.
func (e *epollTransport) adopt(nc net.Conn) (*hconn, error) {
	defer nc.Close() // the duplicate keeps the socket open
	sc, ok := nc.(syscall.Conn)
	if !ok {
		return nil, errors.New("dialled connection has no descriptor")
	}
	rc, err := sc.SyscallConn()
	if err != nil {
		return nil, err
	}
	fd := -1
	var derr error
	if err := rc.Control(func(s uintptr) { fd, derr = unix.FcntlInt(s, unix.F_DUPFD_CLOEXEC, 0) }); err != nil {
		return nil, err
	}
	if derr != nil {
		return nil, derr
	}
	if err := unix.SetNonblock(fd, true); err != nil {
		unix.Close(fd)
		return nil, err
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.shut {
		unix.Close(fd)
		return nil, errors.New("transport closed")
	}
	e.gen++
	c := &hconn{fd: fd, gen: e.gen}
	if n := len(e.free); n > 0 {
		c.slot, e.free = e.free[n-1], e.free[:n-1]
		e.conns[c.slot] = c
	} else {
		c.slot = int32(len(e.conns))
		e.conns = append(e.conns, c)
	}
	// Registered under e.mu, so that close cannot close the set first.
	ev := unix.EpollEvent{Events: unix.EPOLLIN | unix.EPOLLOUT | unix.EPOLLRDHUP | unix.EPOLLET, Fd: c.slot, Pad: c.gen}
	if err := unix.EpollCtl(e.epfd, unix.EPOLL_CTL_ADD, fd, &ev); err != nil {
		c.dead = true
		unix.Close(fd)
		e.conns[c.slot] = nil
		e.free = append(e.free, c.slot)
		return nil, err
	}
	return c, nil
}

// start writes x's request on c, as much as the socket takes (the loop
// writes the rest); false when c turned out closed.
func (e *epollTransport) start(c *hconn, x *exch, req []byte) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.dead {
		return false
	}
	c.x = x
	c.p.reset(c)
	x.t.sent(time.Now())
	n, err := write(c.fd, req)
	c.out = req[n:]
	if err != nil {
		// A kept-alive connection the server closed: lost, resent if it
		// was reused, a failure if it was new.
		x.lost = true
		e.finish(c, "write: "+err.Error(), false)
	}
	return true
}

// abort ends x when its context does: a timeout or the run's end.
func (e *epollTransport) abort(c *hconn, x *exch, err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.x != x {
		return // it ended meanwhile
	}
	why := "context canceled"
	switch {
	case err != context.DeadlineExceeded:
	case c.p.state >= hChunkSize:
		why = streamError(err)
	default:
		why = "timed out before a response"
	}
	e.finish(c, why, false)
}

func (e *epollTransport) close() {
	e.mu.Lock()
	e.shut = true
	conns := append([]*hconn(nil), e.conns...)
	e.mu.Unlock()
	for _, c := range conns {
		if c == nil {
			continue
		}
		c.mu.Lock()
		if c.x != nil {
			e.finish(c, "transport closed", false)
		}
		e.kill(c)
		c.mu.Unlock()
	}
	e.ep.Close()
	<-e.loopDone
}
