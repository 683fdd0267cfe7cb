package load

import (
	"context"
	"net"
	"net/http"
	"net/http/httptrace"
	"sync/atomic"
	"time"
)

// epoch is the base of the nanosecond stamps a connection writes into
// its request's wire record (a time.Time cannot be stored atomically).
var epoch = time.Now()

func stamp() int64 { return int64(time.Since(epoch)) }

// wire is what one request's transport did: when its first byte went to
// the socket (written by the connection's writer, hence atomic), and how
// long it waited for a connection that had to be opened for it (0 when
// it got a kept-alive one).
type wire struct {
	first   atomic.Int64
	connect time.Duration
	asked   time.Time
}

// timedConn stamps the first write after each arm: the moment a request
// reaches the wire, which is what schedule lag is measured to.
type timedConn struct {
	net.Conn
	armed atomic.Pointer[wire]
}

func (c *timedConn) Write(b []byte) (int, error) {
	if w := c.armed.Swap(nil); w != nil {
		w.first.Store(stamp())
	}
	return c.Conn.Write(b)
}

func newHTTPTransport(slots int, dial func(ctx context.Context, network, addr string) (net.Conn, error)) *http.Transport {
	if dial == nil {
		dial = (&net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second}).DialContext
	}
	return &http.Transport{
		Proxy: nil,
		DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
			c, err := dial(ctx, network, addr)
			if err != nil {
				return nil, err
			}
			return &timedConn{Conn: c}, nil
		},
		MaxIdleConns:        slots * 2,
		MaxIdleConnsPerHost: slots * 2, // the default 2 would churn connections under load
		IdleConnTimeout:     90 * time.Second,
		DisableCompression:  true,
		ReadBufferSize:      16 << 10,
		WriteBufferSize:     16 << 10,
	}
}

// trace arms the connection a request gets and times the set-up of a
// fresh one. Both hooks run on the caller's goroutine. A request retried
// on a second connection arms that one afresh.
func (w *wire) trace(ctx context.Context) context.Context {
	return httptrace.WithClientTrace(ctx, &httptrace.ClientTrace{
		GetConn: func(string) { w.asked = time.Now() },
		GotConn: func(info httptrace.GotConnInfo) {
			if !info.Reused {
				w.connect += time.Since(w.asked)
			}
			if tc, ok := info.Conn.(*timedConn); ok {
				tc.armed.Store(w)
			}
		},
	})
}

// sent is when the first byte went out, or zero if none did.
func (w *wire) sent() time.Time {
	if n := w.first.Load(); n != 0 {
		return epoch.Add(time.Duration(n))
	}
	return time.Time{}
}
