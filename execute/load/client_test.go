package load

import (
	"bufio"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// The pacer returns at its time, never before, and gives up at once
// when the context ends.
func TestPacerWaits(t *testing.T) {
	p := newPacer()
	defer p.close()
	for _, d := range []time.Duration{0, 300 * time.Microsecond, 3 * time.Millisecond} {
		due := time.Now().Add(d)
		if !p.wait(context.Background(), due) {
			t.Fatal("wait failed")
		}
		if early := time.Until(due); early > 0 {
			t.Errorf("returned %v before its time", early)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(20*time.Millisecond, cancel)
	began := time.Now()
	if p.wait(ctx, time.Now().Add(time.Hour)) {
		t.Error("wait succeeded past its context")
	}
	if d := time.Since(began); d > 5*time.Second {
		t.Errorf("cancellation took %v", d)
	}
}

// The spin before a send is the sleep's expected overshoot, at most
// maxSpin and at most 2 % of the time since the previous send.
func TestPacerSpinBounded(t *testing.T) {
	p := &pacer{late: 50 * time.Microsecond, maxSpin: 60 * time.Microsecond}
	t0 := time.Unix(1000, 0)
	for _, c := range []struct {
		at   time.Duration
		want time.Duration
	}{
		{0, 55 * time.Microsecond},                        // first send: the estimate
		{time.Millisecond, 20 * time.Microsecond},         // 1,000 req/s: 2 % of 1 ms
		{11 * time.Millisecond, 55 * time.Microsecond},    // 100 req/s: the estimate
		{11100 * time.Microsecond, 2 * time.Microsecond},  // 10,000 req/s
		{11100 * time.Microsecond, 55 * time.Microsecond}, // same time as the previous: no gap to bound it
	} {
		if got := p.spinFor(t0.Add(c.at)); got != c.want {
			t.Errorf("send at %v: spin %v, want %v", c.at, got, c.want)
		}
	}
	p = &pacer{late: 2 * time.Millisecond, maxSpin: 60 * time.Microsecond}
	if got := p.spinFor(t0); got != 60*time.Microsecond {
		t.Errorf("spin %v past maxSpin", got)
	}
}

// After the warm-up, requests reuse its connections: none opens one,
// so no schedule lag includes a connection's set-up. (Two slots, so that
// a loaded machine cannot make more requests overlap than the warm-up
// opened connections for.)
func TestWarmupFillsKeepAlivePool(t *testing.T) {
	url := startSim(t, []string{"SERVELAB_SIM_TIMING=step=1ms,per-seq=0s,prefill=0s"}, "vllm", "serve", "m/m")
	s, err := Run(context.Background(), Target{URL: url, Model: "m/m", API: "chat"},
		Load{Kind: "concurrency", Concurrency: 2, Requests: 20, Warmup: 4}, prompts(2, 4, 4))
	if err != nil {
		t.Fatal(err)
	}
	m := Summarize(s)
	if m.Completed != 20 || m.Connections != 0 {
		t.Errorf("%d completed, %d connections opened by measured requests (%v)", m.Completed, m.Connections, m.FailReasons)
	}
	opened := 0
	for _, x := range s[:4] {
		if x.Connect > 0 {
			opened++
		}
	}
	if opened == 0 {
		t.Error("no warm-up request recorded opening a connection")
	}
}

// servelab-sim takes the output budget from max_completion_tokens, the
// current OpenAI name, over max_tokens.
func TestSimMaxCompletionTokens(t *testing.T) {
	url := startSim(t, []string{"SERVELAB_SIM_TIMING=step=1ms,per-seq=0s,prefill=0s"}, "vllm", "serve", "m/m")
	for _, c := range []struct {
		body string
		want int
	}{
		{`"max_completion_tokens":5,"max_tokens":9`, 5},
		{`"max_completion_tokens":7`, 7},
		{`"max_tokens":9`, 9},
	} {
		body := `{"model":"m/m","stream":true,"ignore_eos":true,"stream_options":{"include_usage":true},"prompt":"a b c",` + c.body + `}`
		resp, err := http.Post(url+"/v1/completions", "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		got := -1
		sc := bufio.NewScanner(resp.Body)
		for sc.Scan() {
			if ch, err := ParseChunk([]byte(strings.TrimPrefix(sc.Text(), "data: "))); err == nil && ch.HasUsage {
				got = ch.CompletionTokens
			}
		}
		resp.Body.Close()
		if got != c.want {
			t.Errorf("%s: %d tokens, want %d", c.body, got, c.want)
		}
	}
}

// A server that closes a kept-alive connection as the next request
// arrives (llama.cpp's idle timeout racing a send) costs no request: one
// that got no byte back is resent on a fresh connection.
func TestResendOnLostKeepAlive(t *testing.T) {
	for _, reader := range readers {
		t.Run(strings.ReplaceAll(reader, "/", "-"), func(t *testing.T) { resendOnLostKeepAlive(t, reader) })
	}
}

func resendOnLostKeepAlive(t *testing.T, reader string) {
	var mu sync.Mutex
	served := map[string]int{} // requests per connection
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		served[r.RemoteAddr]++
		n := served[r.RemoteAddr]
		mu.Unlock()
		if n == 2 {
			conn, _, _ := w.(http.Hijacker).Hijack()
			conn.Close() // no byte of a response
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprint(w, "data: {\"choices\":[{\"text\":\"x\"}]}\n\ndata: {\"choices\":[],\"usage\":{\"prompt_tokens\":1,\"completion_tokens\":1}}\n\ndata: [DONE]\n\n")
	}))
	defer srv.Close()
	s, _ := Run(context.Background(), Target{URL: srv.URL, Model: "m", API: "completions"},
		Load{Kind: "concurrency", Concurrency: 1, Requests: 6, Timeout: 5 * time.Second, reader: reader}, prompts(1, 1, 1))
	m := Summarize(s)
	if m.Completed != 6 {
		t.Errorf("%d of 6 completed: %v", m.Completed, m.FailReasons)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(served) < 2 {
		t.Errorf("the server saw %d connections: the fault never struck", len(served))
	}
}

// A request whose input the server counts differently from the
// dataset's claim is flagged, and the record says so in words.
func TestInputMismatchFlagged(t *testing.T) {
	url := startSim(t, []string{"SERVELAB_SIM_TIMING=step=1ms,per-seq=0s,prefill=0s"}, "vllm", "serve", "m/m")
	ps := prompts(4, 100, 2)
	for i := range ps {
		ps[i].InputTokens = 100 // what the sim counts
	}
	ps[1].InputTokens, ps[3].InputTokens = 103, 97 // 3 % off
	s, err := Run(context.Background(), Target{URL: url, Model: "m/m", API: "chat"},
		Load{Kind: "concurrency", Concurrency: 1, Requests: 8}, ps)
	if err != nil {
		t.Fatal(err)
	}
	m := Summarize(s)
	if m.Completed != 8 || m.InputMismatch != 4 || m.ClaimedInputTokens != 800 || *m.InputTokens != 800 {
		t.Errorf("%d completed, %d mismatched, claimed %d, counted %d", m.Completed, m.InputMismatch, m.ClaimedInputTokens, *m.InputTokens)
	}
	if n := Notes(m); len(n) != 1 || !strings.Contains(n[0], "4 of 8 requests differ by more than 2 %") {
		t.Errorf("notes %q", n)
	}
}

// The engine's metrics come back with the samples: servelab-sim with
// MTP of 2 tokens accepts one drafted token a step (the last step of a
// request may accept none), and its counters are vLLM's.
func TestEngineMetricsFromSim(t *testing.T) {
	url := startSim(t, []string{"SERVELAB_SIM_TIMING=step=2ms,per-seq=0s,prefill=0s"}, "vllm", "serve", "m/m",
		`--speculative-config={"method":"mtp","num_speculative_tokens":2}`)
	res, err := Measure(context.Background(), Target{URL: url, Model: "m/m", API: "chat", Metrics: "/metrics"},
		Load{Kind: "concurrency", Concurrency: 4, Requests: 24}, List(prompts(4, 40, 101)))
	if err != nil {
		t.Fatal(err)
	}
	m := res.Metrics()
	e := m.Engine
	if res.Engine == nil || e == nil || e.Source != "vllm" || e.Scrapes < 2 {
		t.Fatalf("engine metrics %+v", e)
	}
	// 101 tokens: 1 at prefill, then 50 steps of 2 (one accepted each).
	if e.AcceptanceRate == nil || *e.AcceptanceRate != 0.5 || *e.AcceptanceLength != 2 {
		t.Errorf("acceptance rate %v, length %v: want 0.5 and 2", e.AcceptanceRate, e.AcceptanceLength)
	}
	if e.MaxRunning == nil || *e.MaxRunning > 4 || e.MeanKVCache == nil {
		t.Errorf("running %v, kv %v", e.MaxRunning, e.MeanKVCache)
	}
}
