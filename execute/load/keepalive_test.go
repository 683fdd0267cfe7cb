package load

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// A server that closes a kept-alive connection when the next request
// arrives on it, before any response byte (the race with an idle
// timeout), must not cost the request: the client sends it again on a
// new connection.
func TestIdleConnectionClosedBeforeResponse(t *testing.T) {
	for _, reader := range readers {
		t.Run(strings.ReplaceAll(reader, "/", "-"), func(t *testing.T) { idleClosedBeforeResponse(t, reader) })
	}
}

func idleClosedBeforeResponse(t *testing.T, reader string) {
	var dropped atomic.Int32
	url := rawServer(t, func(c net.Conn, n int32) { serveThenDrop(c, n == 1, &dropped) })
	prompts := []Prompt{{TokenIDs: []int{1, 2, 3}, MaxTokens: 2, InputTokens: 3}}
	lo := Load{Kind: "concurrency", Concurrency: 1, Requests: 3, Timeout: 10 * time.Second, reader: reader}
	samples, err := Run(context.Background(), Target{URL: url, Model: "m", API: "completions"}, lo, prompts)
	if err != nil {
		t.Fatal(err)
	}
	for i, s := range samples {
		if s.Error != "" {
			t.Errorf("request %d failed: %s", i, s.Error)
		}
	}
	if dropped.Load() != 1 {
		t.Fatalf("the server dropped %d requests, want 1 (the test did not exercise the race)", dropped.Load())
	}
}

// rawServer accepts connections on loopback until the test ends and
// hands each to serve on its own goroutine, with its ordinal (1 for the
// first); it returns the server's URL.
func rawServer(t *testing.T, serve func(c net.Conn, n int32)) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	var conns atomic.Int32
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			go serve(c, conns.Add(1))
		}
	}()
	return "http://" + l.Addr().String()
}

// readRequest reads one request from c and its body; false when there
// is none.
func readRequest(c net.Conn) bool {
	req, err := http.ReadRequest(bufio.NewReader(c))
	if err != nil {
		return false
	}
	io.Copy(io.Discard, req.Body)
	return true
}

// serveThenDrop answers requests on c; on the first connection it
// answers one and then closes the connection when the second arrives.
func serveThenDrop(c net.Conn, drop bool, dropped *atomic.Int32) {
	defer c.Close()
	r := bufio.NewReader(c)
	for served := 0; ; served++ {
		req, err := http.ReadRequest(r)
		if err != nil {
			return
		}
		var body strings.Builder
		bufio.NewReader(req.Body).WriteTo(&body)
		if drop && served == 1 {
			dropped.Add(1)
			return // closed with no response byte
		}
		stream := `data: {"choices":[{"text":"a"}]}` + "\n\n" +
			`data: {"choices":[{"text":"b"}]}` + "\n\n" +
			`data: {"choices":[],"usage":{"prompt_tokens":3,"completion_tokens":2}}` + "\n\n" +
			"data: [DONE]\n\n"
		fmt.Fprintf(c, "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nContent-Length: %d\r\n\r\n%s", len(stream), stream)
	}
}
