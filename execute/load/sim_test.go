package load

import (
	"bufio"
	"context"
	"fmt"
	"math"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"servelab.dev/cmd/servelab-sim/simtest"
	"servelab.dev/execute/host/timingcheck"
)

var (
	simDir   string
	simBin   string
	simBuild sync.Once
	simErr   error
	simPIDs  = map[string]int{} // by URL
)

func TestMain(m *testing.M) {
	timingcheck.Main()
	var err error
	if simDir, err = os.MkdirTemp("", "servelab-sim-"); err != nil {
		panic(err)
	}
	code := m.Run()
	os.RemoveAll(simDir)
	os.Exit(code)
}

// buildSim builds servelab-sim once, for the first test that needs it:
// the parser tests and the fuzzing workers (each a process of its own)
// need none.
func buildSim(t testing.TB) string {
	simBuild.Do(func() {
		// A test binary carried to a host without Go (make bench on the
		// GPU host) is given a built simulator.
		if simBin = os.Getenv("SERVELAB_SIM_BIN"); simBin != "" {
			return
		}
		simBin = filepath.Join(simDir, "servelab-sim")
		if out, err := exec.Command("go", "build", "-o", simBin, "servelab.dev/cmd/servelab-sim").CombinedOutput(); err != nil {
			simErr = fmt.Errorf("building servelab-sim: %v\n%s", err, out)
		}
	})
	if simErr != nil {
		t.Fatal(simErr)
	}
	return simBin
}

// freePort is a port nothing listens on, for a target that refuses.
func freePort(t testing.TB) int {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

func simPID(t testing.TB, url string) int {
	pid, ok := simPIDs[url]
	if !ok {
		t.Fatalf("no simulator at %s", url)
	}
	return pid
}

// startSim runs servelab-sim as a real process, healthy.
func startSim(t testing.TB, env []string, args ...string) string {
	t.Helper()
	url, p := simtest.Start(t, buildSim(t), env, args...)
	simPIDs[url] = p.Pid
	return url
}

func prompts(n, in, out int) []Prompt {
	ps := make([]Prompt, n)
	for i := range ps {
		ps[i] = Prompt{Text: strings.Repeat("w ", in), MaxTokens: out}
	}
	return ps
}

func simMetric(t *testing.T, url, name string) int {
	r, err := http.Get(url + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer r.Body.Close()
	sc := bufio.NewScanner(r.Body)
	for sc.Scan() {
		var v int
		if _, err := fmt.Sscanf(sc.Text(), name+" %d", &v); err == nil {
			return v
		}
	}
	t.Fatalf("no %s", name)
	return 0
}

// checker collects the misses of one attempt of a timing test.
type checker struct{ errs []string }

func (c *checker) Errorf(format string, args ...any) {
	c.errs = append(c.errs, fmt.Sprintf(format, args...))
}

// timing runs a wall-clock check alone, after the other packages, and
// judges its attempts by the host's own wake-ups (timingcheck.Judge): a
// sleep of the simulator's step or of the pacer is only as punctual as
// the host, and a CI run beside other packages made mean TPOT 10 % long.
func timing(t *testing.T, check func(c *checker)) {
	t.Helper()
	timingcheck.Alone(t)
	timingcheck.Judge(t, func() []string {
		c := &checker{}
		check(c)
		return c.errs
	})
}

type errorfer interface{ Errorf(string, ...any) }

func within(t errorfer, name string, got, want, rel float64) {
	if math.Abs(got-want) > rel*want {
		t.Errorf("%s = %.3f, want %.3f ± %.0f %%", name, got, want, rel*100)
	}
}

// A concurrency profile never has more requests in flight than slots,
// as the client measures it and as the engine saw it.
func TestConcurrencyNeverExceedsSlots(t *testing.T) {
	url := startSim(t, nil, "python3", "-m", "sglang.launch_server", "--model-path", "m/m")
	samples, _ := Run(context.Background(), Target{URL: url, Model: "m/m", API: "chat"},
		Load{Kind: "concurrency", Concurrency: 3, Requests: 30}, prompts(5, 20, 30))
	m := Summarize(samples)
	if m.Completed != 30 || *m.PeakConcurrency != 3 {
		t.Errorf("%d completed, client peak %v (want 3)", m.Completed, *m.PeakConcurrency)
	}
	if p := simMetric(t, url, "servelab_sim_peak_running"); p > 3 {
		t.Errorf("engine saw %d running", p)
	}
}

// A constant profile at 200 req/s sends on schedule: the achieved rate
// of sends is within 0.5 % of 200.
func TestConstantRateHoldsSchedule(t *testing.T) {
	url := startSim(t, []string{"SERVELAB_SIM_TIMING=step=2ms,per-seq=0s,prefill=0s"}, "vllm", "serve", "m/m")
	timing(t, func(c *checker) {
		samples, _ := Run(context.Background(), Target{URL: url, Model: "m/m", API: "chat"},
			Load{Kind: "constant", Rate: 200, Requests: 400}, prompts(8, 8, 4))
		m := Summarize(samples)
		first, last := math.Inf(1), math.Inf(-1)
		for _, s := range samples {
			first, last = math.Min(first, s.Sent), math.Max(last, s.Sent)
		}
		rate := float64(len(samples)-1) / (last - first)
		within(c, "achieved send rate", rate, 200, 0.005)
		if m.Completed != 400 {
			c.Errorf("%d completed: %v", m.Completed, m.FailReasons)
		}
		t.Logf("achieved %.2f req/s, lag p50 %.3f ms p99 %.3f ms, %d late", rate, *m.ScheduleLag.P50, *m.ScheduleLag.P99, m.Late)
	})
}

// Faults of the engine become failed requests with reasons; the run
// still finishes and says how many failed and why.
func TestEngineFaults(t *testing.T) {
	cases := []struct {
		fault, want string
	}{
		{"http500=0.25", "HTTP 500"},
		{"cut=0.25", "stream cut mid-response"},
		{"stall=0.25", "timed out while streaming"},
	}
	for _, c := range cases {
		url := startSim(t, []string{"SERVELAB_SIM_FAULT=" + c.fault}, "vllm", "serve", "m/m")
		for _, reader := range readers {
			samples, _ := Run(context.Background(), Target{URL: url, Model: "m/m", API: "chat"},
				Load{Kind: "concurrency", Concurrency: 4, Requests: 8, Timeout: 2 * time.Second, reader: reader}, prompts(2, 4, 20))
			m := Summarize(samples)
			// The sim's faults strike by request number: 2 of every 8.
			if *m.Failed != 2 || m.Completed != 6 || len(m.FailReasons) != 1 || !strings.Contains(m.FailReasons[0], c.want) {
				t.Errorf("%s, %s: %d failed, %d ok, reasons %v", c.fault, reader, *m.Failed, m.Completed, m.FailReasons)
			}
		}
	}
}

// readers are the transports the client has: each test of failures
// runs on both.
var readers = []string{ReaderEpoll, ReaderHTTP}

// Targets that are not a working engine give failed requests with a
// reason each.
func TestBadTargets(t *testing.T) {
	html := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, "<html>login</html>")
	}))
	defer html.Close()
	garbage := sse(t, "data: {oops\n\n")
	noUsage := sse(t, "data: {\"choices\":[{\"delta\":{\"content\":\"x\"}}]}\n\ndata: [DONE]\n\n")
	cases := map[string]string{
		fmt.Sprintf("http://127.0.0.1:%d", freePort(t)): "connect: ",
		html.URL:    `response is "text/html", not an event stream`,
		garbage.URL: "malformed chunk",
		noUsage.URL: "stream ended without usage",
	}
	for url, want := range cases {
		for _, reader := range readers {
			samples, _ := Run(context.Background(), Target{URL: url, Model: "m", API: "chat"},
				Load{Kind: "concurrency", Concurrency: 1, Requests: 2, Timeout: 5 * time.Second, reader: reader}, prompts(1, 2, 2))
			m := Summarize(samples)
			if *m.Failed != 2 || len(m.FailReasons) != 1 || !strings.Contains(m.FailReasons[0], want) {
				t.Errorf("%s, %s: %d failed, reasons %v, want %q", url, reader, *m.Failed, m.FailReasons, want)
			}
		}
	}
}

func sse(t *testing.T, body string) *httptest.Server {
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprint(w, body)
	}))
	t.Cleanup(s.Close)
	return s
}
