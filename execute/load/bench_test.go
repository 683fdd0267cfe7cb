package load

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"servelab.dev/execute/host"
)

// BenchmarkStreamParse reads a stream of 10,000 chat chunks as vLLM
// formats them; it reports chunks parsed per second and allocations per
// chunk (run with -cpu 1 for one core).
func BenchmarkStreamParse(b *testing.B) {
	const chunks = 10000
	var body bytes.Buffer
	for i := 0; i < chunks; i++ {
		fmt.Fprintf(&body, "data: {\"id\":\"chatcmpl-%d\",\"object\":\"chat.completion.chunk\",\"created\":1760000000,\"model\":\"Qwen/Qwen3-8B\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\" token\"},\"logprobs\":null,\"finish_reason\":null}]}\n\n", i)
	}
	body.WriteString("data: {\"choices\":[],\"usage\":{\"prompt_tokens\":10,\"completion_tokens\":10000}}\n\ndata: [DONE]\n\n")
	data := body.Bytes()
	b.SetBytes(int64(len(data)))
	var ms0, ms1 runtime.MemStats
	runtime.ReadMemStats(&ms0)
	b.ResetTimer()
	for b.Loop() {
		st := NewStream(bytes.NewReader(data))
		n := 0
		for {
			c, err := st.Next()
			if err != nil || c.Done {
				break
			}
			n++
		}
		if n != chunks+1 {
			b.Fatalf("%d chunks", n)
		}
	}
	b.StopTimer()
	runtime.ReadMemStats(&ms1)
	per := float64(b.N) * chunks
	b.ReportMetric(per/b.Elapsed().Seconds(), "chunks/s")
	b.ReportMetric(float64(ms1.Mallocs-ms0.Mallocs)/per, "allocs/chunk")
}

// BenchmarkScheduleLag500 sends 1,000 requests at 500 req/s to a
// loopback server that answers at once, and reports the schedule lag
// (actual write − intended time) at p50 and p99.
func BenchmarkScheduleLag500(b *testing.B) {
	resp := "data: {\"choices\":[{\"delta\":{\"content\":\"x\"}}]}\n\ndata: {\"choices\":[],\"usage\":{\"prompt_tokens\":1,\"completion_tokens\":1}}\n\ndata: [DONE]\n\n"
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		w.Write([]byte(resp))
	}))
	defer srv.Close()
	p := []Prompt{{Text: strings.Repeat("w ", 8), MaxTokens: 1}}
	var p50, p99, rate float64
	for b.Loop() {
		samples, err := Run(context.Background(), Target{URL: srv.URL, Model: "m", API: "chat"},
			Load{Kind: "constant", Rate: 500, Requests: 1000, Timeout: 10 * time.Second}, p)
		if err != nil {
			b.Fatal(err)
		}
		m := Summarize(samples)
		if m.Completed != 1000 {
			b.Fatalf("%d completed: %v", m.Completed, m.FailReasons)
		}
		p50, p99 = *m.ScheduleLag.P50, *m.ScheduleLag.P99
		rate = 999 / (samples[999].Sent - samples[0].Sent)
	}
	b.ReportMetric(p50, "lag-p50-ms")
	b.ReportMetric(p99, "lag-p99-ms")
	b.ReportMetric(rate, "sends/s")
}

// BenchmarkClient is the client's figure of merit, as `make bench`
// reports it: client CPU µs per streamed chunk (getrusage of this
// process) at CalibrationRate requests/s of CalibrationTokens tokens
// from a servelab-sim stepping every millisecond (50,000 chunks/s when
// it keeps up), and the highest constant rate whose schedule lag p99
// stays under 1 ms. The simulator is its own process; with two or more
// CPUs this process and the simulator are pinned apart, to the first two
// CPUs it may use, as calibrate pins them (run with -cpu 1 for
// GOMAXPROCS=1). "before" is the net/http reader (a
// goroutine per stream, the fallback for HTTPS and other systems),
// "after" the epoll reader, the default: three rounds of both,
// interleaved so that a shared host's load falls on both alike, and the
// medians reported. BENCH_ROUNDS changes the number of rounds.
func BenchmarkClient(b *testing.B) {
	url := startSim(b, []string{"SERVELAB_SIM_TIMING=" + CalibrationTiming}, "vllm", "serve", "m/m", "--max-num-seqs", "4096")
	if _, _, err := host.PinApart(os.Getpid(), simPID(b, url)); err != nil {
		b.Logf("not pinned: %v", err)
	}
	rounds := 3
	if n, err := strconv.Atoi(os.Getenv("BENCH_ROUNDS")); err == nil && n > 0 {
		rounds = n
	}
	var runs [2][]Calibration // before, after
	for b.Loop() {
		for range rounds {
			for i, reader := range []string{ReaderHTTP, ReaderEpoll} {
				c, err := calibrate(context.Background(), url, "m/m", 6000, reader)
				if err != nil {
					b.Fatal(err)
				}
				runs[i] = append(runs[i], c)
			}
		}
	}
	for i, name := range []string{"before", "after"} {
		med := func(f func(Calibration) float64) float64 {
			xs := make([]float64, len(runs[i]))
			for k, c := range runs[i] {
				xs[k] = f(c)
			}
			sort.Float64s(xs)
			return xs[len(xs)/2]
		}
		b.ReportMetric(med(func(c Calibration) float64 { return c.CPUPerChunk }), "cpu-µs/chunk-"+name)
		b.ReportMetric(med(func(c Calibration) float64 { return c.ChunksPerSecond }), "chunks/s-"+name)
		b.ReportMetric(med(func(c Calibration) float64 { return c.MaxRate }), "max-req/s@lag-p99<1ms-"+name)
		b.Logf("%s: %+v", name, runs[i])
	}
	// The floor does not depend on the reader: one figure, the median of
	// every round's.
	var floors []float64
	for _, rs := range runs {
		for _, c := range rs {
			floors = append(floors, c.FloorCPUPerChunk)
		}
	}
	sort.Float64s(floors)
	b.ReportMetric(floors[len(floors)/2], "floor-cpu-µs/chunk")
}
