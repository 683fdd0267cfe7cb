package load

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// transport carries the client's requests: it sends one, records when
// its first byte went out and what opening a connection for it cost,
// and folds the stream's events into the tally, or says why it failed.
// The scheduling above it (pacer, profiles, prompts) does not see HTTP.
type transport interface {
	roundTrip(ctx context.Context, body []byte, key int64, t *tally)
	// close closes the transport's connections.
	close()
}

// The transports a Load can ask for.
const (
	// ReaderEpoll is raw HTTP/1.1 on non-blocking sockets read by one
	// epoll loop (Linux, plain http).
	ReaderEpoll = "epoll"
	// ReaderHTTP is net/http, a goroutine reading each stream.
	ReaderHTTP = "net/http"
)

// newTransport makes the transport for url: the epoll reader where the
// system has it and the URL is plain http, else net/http (HTTPS, other
// systems, or when asked for).
func newTransport(url string, slots int, reader string) transport {
	if reader != ReaderHTTP && strings.HasPrefix(url, "http://") {
		if t, err := newEpollTransport(url); err == nil {
			return t
		}
	}
	return &httpTransport{c: &http.Client{Transport: newHTTPTransport(slots, nil)}, url: url}
}

// httpTransport is net/http: portable, HTTPS, proxies' dialects; each
// chunk costs it about two read calls (the second one finds nothing and
// parks the goroutine).
type httpTransport struct {
	c   *http.Client
	url string
}

func (h *httpTransport) close() { h.c.CloseIdleConnections() }

func (h *httpTransport) roundTrip(ctx context.Context, body []byte, key int64, t *tally) {
	w := &wire{}
	req, err := http.NewRequestWithContext(w.trace(ctx), "POST", h.url, bytes.NewReader(body))
	if err != nil {
		t.s.Error = err.Error()
		return
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "text/event-stream")
	// With the key net/http resends a request that a kept-alive
	// connection lost before any response byte.
	req.Header.Set("Idempotency-Key", strconv.FormatInt(key, 10))
	resp, err := h.c.Do(req)
	if at := w.sent(); !at.IsZero() {
		t.sent(at)
	}
	t.s.Connect = ms(w.connect)
	if err != nil {
		t.s.Error = requestError(err)
		return
	}
	defer resp.Body.Close()
	if err := checkResponse(resp); err != nil {
		t.s.Error = err.Error()
		return
	}
	st := getStream(resp.Body)
	defer putStream(st)
	for {
		ch, err := st.Next()
		t.now = time.Now()
		if err == io.EOF {
			return
		}
		if err != nil {
			t.s.Error = streamError(err)
			return
		}
		if t.event(ch) {
			if ch.Done {
				st.drain()
			}
			return
		}
	}
}

func checkResponse(resp *http.Response) error {
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 200))
		return &HTTPError{"HTTP " + strconv.Itoa(resp.StatusCode) + ": " + strings.TrimSpace(string(b))}
	}
	if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/event-stream") {
		return &HTTPError{"response is " + strconv.Quote(ct) + ", not an event stream"}
	}
	return nil
}
