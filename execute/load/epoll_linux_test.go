package load

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"servelab.dev/execute/record"
)

// On Linux plain-http targets get the epoll reader; HTTPS targets, URLs
// with credentials, and a Load asking for it get net/http.
func TestTransportChoice(t *testing.T) {
	for url, want := range map[string]string{
		"http://127.0.0.1:8000/v1/completions":     "*load.epollTransport",
		"http://localhost/v1/chat/completions":     "*load.epollTransport",
		"https://127.0.0.1:8000/v1/completions":    "*load.httpTransport",
		"http://u:p@127.0.0.1:8000/v1/completions": "*load.httpTransport",
	} {
		tr := newTransport(url, 4, "")
		if got := fmt.Sprintf("%T", tr); got != want {
			t.Errorf("%s: %s, want %s", url, got, want)
		}
		tr.close()
	}
	tr := newTransport("http://127.0.0.1:8000/v1/completions", 4, ReaderHTTP)
	if _, ok := tr.(*httpTransport); !ok {
		t.Errorf("asked for net/http, got %T", tr)
	}
	tr.close()
}

// A request larger than the socket takes at once (a long prompt) is
// finished by the loop, and the server gets it whole.
func TestEpollLongRequest(t *testing.T) {
	var got atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		time.Sleep(50 * time.Millisecond) // the client's socket fills meanwhile
		n, _ := io.Copy(io.Discard, r.Body)
		got.Store(n)
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprint(w, "data: {\"choices\":[{\"text\":\"x\"}]}\n\ndata: {\"choices\":[],\"usage\":{\"prompt_tokens\":1,\"completion_tokens\":1}}\n\ndata: [DONE]\n\n")
	}))
	defer srv.Close()
	p := []Prompt{{Text: strings.Repeat("w ", 4<<20), MaxTokens: 1}}
	s, err := Run(context.Background(), Target{URL: srv.URL, Model: "m", API: "completions"},
		Load{Kind: "concurrency", Concurrency: 1, Requests: 2, Timeout: 20 * time.Second, reader: ReaderEpoll}, p)
	if err != nil {
		t.Fatal(err)
	}
	m := Summarize(s)
	if m.Completed != 2 || got.Load() < 8<<20 {
		t.Errorf("%d completed (%v); the server read %d bytes of the last body", m.Completed, m.FailReasons, got.Load())
	}
}

// The epoll reader and net/http read the same streams from servelab-sim
// alike: every request completes with its tokens and one gap per chunk
// after the first. (Their timings are compared in make bench, not here.)
func TestReadersAgree(t *testing.T) {
	url := startSim(t, []string{"SERVELAB_SIM_TIMING=step=1ms,per-seq=0s,prefill=0s"}, "vllm", "serve", "m/m")
	for _, api := range []string{"chat", "completions"} {
		for _, reader := range readers {
			s, err := Run(context.Background(), Target{URL: url, Model: "m/m", API: api},
				Load{Kind: "concurrency", Concurrency: 4, Requests: 12, Warmup: 4, IgnoreEOS: true, reader: reader}, prompts(3, 8, 30))
			if err != nil {
				t.Fatal(err)
			}
			for i, x := range s {
				if x.Error != "" || x.OutputTokens != 30 || len(x.Gaps) != 29 || x.TTFT <= 0 || x.Latency < x.TTFT || x.InputTokens != 8 {
					t.Errorf("%s, %s, request %d: error %q, %d/%d tokens, %d gaps, TTFT %.3f, latency %.3f",
						api, reader, i, x.Error, x.InputTokens, x.OutputTokens, len(x.Gaps), x.TTFT, x.Latency)
				}
			}
			if m := Summarize(s); m.Connections != 0 {
				t.Errorf("%s, %s: measured requests opened %d connections after a warm-up of 4", api, reader, m.Connections)
			}
		}
	}
}

// A server that closes every connection as it accepts it fails each
// request once, at once: a new connection lost is not retried (only a
// kept-alive one is), even with no timeout set.
func TestEpollServerClosesAtOnce(t *testing.T) {
	var accepted atomic.Int32
	url := rawServer(t, func(c net.Conn, _ int32) { accepted.Add(1); c.Close() })
	done := make(chan []record.Sample)
	go func() {
		s, _ := Run(context.Background(), Target{URL: url, Model: "m", API: "completions"},
			Load{Kind: "concurrency", Concurrency: 1, Requests: 3, reader: ReaderEpoll}, prompts(1, 1, 1))
		done <- s
	}()
	select {
	case s := <-done:
		m := Summarize(s)
		if *m.Failed != 3 || accepted.Load() > 6 {
			t.Errorf("%d failed, reasons %v, %d connections", *m.Failed, m.FailReasons, accepted.Load())
		}
		for _, r := range m.FailReasons {
			if !strings.Contains(r, "before a response") {
				t.Errorf("reason %q", r)
			}
		}
	case <-time.After(20 * time.Second):
		t.Fatalf("still running after 20 s, %d connections accepted", accepted.Load())
	}
}

// A response without length that ends with the connection, sent whole
// with its FIN, is read to its end by both readers: the FIN raises no
// event of its own after the data it came with.
func TestResponseToClose(t *testing.T) {
	url := rawServer(t, func(c net.Conn, _ int32) {
		defer c.Close()
		if readRequest(c) {
			io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nConnection: close\r\n\r\n"+
				"data: {\"choices\":[{\"text\":\"a\"}]}\n\ndata: {\"choices\":[],\"usage\":{\"prompt_tokens\":1,\"completion_tokens\":1}}\n\n")
		}
	})
	for _, reader := range readers {
		s, err := Run(context.Background(), Target{URL: url, Model: "m", API: "completions"},
			Load{Kind: "concurrency", Concurrency: 2, Requests: 6, Timeout: 5 * time.Second, reader: reader}, prompts(1, 1, 1))
		if err != nil {
			t.Fatal(err)
		}
		if m := Summarize(s); m.Completed != 6 {
			t.Errorf("%s: %d of 6 completed (%v)", reader, m.Completed, m.FailReasons)
		}
	}
}

// A server that ends each keep-alive response by shutting its side of
// the connection (its FIN in the same segment as the last chunk) and
// then never reads it again: the client must see the FIN and not send
// the next request there, where it would wait for ever.
func TestFinWithLastChunk(t *testing.T) {
	stop := make(chan struct{})
	defer close(stop)
	url := rawServer(t, func(c net.Conn, _ int32) {
		defer c.Close()
		if !readRequest(c) {
			return
		}
		body := "data: {\"choices\":[{\"text\":\"a\"}]}\n\ndata: {\"choices\":[],\"usage\":{\"prompt_tokens\":1,\"completion_tokens\":1}}\n\ndata: [DONE]\n\n"
		fmt.Fprintf(c, "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n%x\r\n%s\r\n0\r\n\r\n", len(body), body)
		c.(*net.TCPConn).CloseWrite()
		<-stop // holds the connection, reads nothing more
	})
	for _, reader := range readers {
		s, err := Run(context.Background(), Target{URL: url, Model: "m", API: "completions"},
			Load{Kind: "concurrency", Concurrency: 1, Requests: 8, Timeout: 3 * time.Second, reader: reader}, prompts(1, 1, 1))
		if err != nil {
			t.Fatal(err)
		}
		if m := Summarize(s); m.Completed != 8 {
			t.Errorf("%s: %d of 8 completed (%v)", reader, m.Completed, m.FailReasons)
		}
	}
}
