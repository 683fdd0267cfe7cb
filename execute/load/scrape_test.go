package load

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"servelab.dev/execute/record"
)

// The fixtures follow the text pages vLLM V1 (two data-parallel engines)
// and SGLang serve, trimmed: HELP and TYPE lines, labels, a histogram and
// counters' _created gauges that must be ignored.
func readFixture(t testing.TB, name string) []byte {
	b, err := os.ReadFile("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestParseVLLMMetrics(t *testing.T) {
	fams, err := ParseMetrics(bytes.NewReader(readFixture(t, "vllm-metrics.txt")))
	if err != nil {
		t.Fatal(err)
	}
	if src := source(fams); src != "vllm" {
		t.Errorf("source %q", src)
	}
	// Summed over both engines, KV usage averaged.
	near(t, "running", sum(fams, famRunning), 12)
	near(t, "waiting", sum(fams, famWaiting), 2)
	near(t, "kv", mean(fams, famKV), 0.5)
	near(t, "queries", sum(fams, famQueries), 4000)
	near(t, "hits", sum(fams, famHits), 2000)
	near(t, "accepted", sum(fams, famAccepted), 180)
	if _, ok := fams["vllm:time_to_first_token_seconds"]; ok {
		t.Error("a histogram was parsed: every family but the wanted ones should be dropped first")
	}
}

// Counters become increases between points; the summary's rates are
// ratios of summed increases, worked out here by hand.
func TestScrapeSeries(t *testing.T) {
	page := string(readFixture(t, "vllm-metrics.txt"))
	var n atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		k := n.Add(1) - 1
		// Each scrape adds 100·k queries, 60·k hits on engine 0, 30 draft
		// tokens (10 drafts) and 12 accepted.
		p := strings.NewReplacer(
			`engine="0",model_name="Qwen/Qwen3-8B"} 1000.0`, fmt.Sprintf(`engine="0",model_name="Qwen/Qwen3-8B"} %d`, 1000+100*k),
			`engine="0",model_name="Qwen/Qwen3-8B"} 500.0`, fmt.Sprintf(`engine="0",model_name="Qwen/Qwen3-8B"} %d`, 500+60*k),
			`engine="0",model_name="Qwen/Qwen3-8B"} 100.0`, fmt.Sprintf(`engine="0",model_name="Qwen/Qwen3-8B"} %d`, 100+10*k),
			`engine="0",model_name="Qwen/Qwen3-8B"} 300.0`, fmt.Sprintf(`engine="0",model_name="Qwen/Qwen3-8B"} %d`, 300+30*k),
			`engine="0",model_name="Qwen/Qwen3-8B"} 180.0`, fmt.Sprintf(`engine="0",model_name="Qwen/Qwen3-8B"} %d`, 180+12*k),
		).Replace(page)
		fmt.Fprint(w, p)
	}))
	defer srv.Close()
	s := startScrape(context.Background(), Target{URL: srv.URL, Metrics: "/metrics"}, 20*time.Millisecond)
	s.run(context.Background(), time.Now())
	time.Sleep(70 * time.Millisecond)
	series := s.stop()
	if series == nil || series.Source != "vllm" || len(series.Points) < 2 {
		t.Fatalf("series %+v", series)
	}
	first := series.Points[0]
	if first.PrefixQueries != nil || first.Accepted != nil {
		t.Error("the first point is the baseline: it has no increases")
	}
	for i, p := range series.Points[1:] {
		if *p.PrefixQueries != 100 || *p.PrefixHits != 60 || *p.DraftTokens != 30 || *p.Accepted != 12 || *p.Drafts != 10 {
			t.Errorf("point %d: %+v", i+1, p)
		}
	}
	e := SummarizeEngine(series)
	near(t, "hit rate", e.PrefixHitRate, 0.6)
	near(t, "acceptance rate", e.AcceptanceRate, 0.4)
	near(t, "acceptance length", e.AcceptanceLength, 2.2)
	near(t, "max running", e.MaxRunning, 12)
	near(t, "mean kv", e.MeanKVCache, 0.5)
}

// SGLang exports rates as gauges: they are averaged over the points.
func TestSummarizeSGLangGauges(t *testing.T) {
	fams, err := ParseMetrics(bytes.NewReader(readFixture(t, "sglang-metrics.txt")))
	if err != nil {
		t.Fatal(err)
	}
	s := &scraper{}
	p := s.point(fams)
	q := p
	q.PrefixHitRate = record.F(0.38)
	e := SummarizeEngine(&record.EngineSeries{Source: source(fams), Points: []record.EnginePoint{p, q}})
	if e.Source != "sglang" {
		t.Errorf("source %q", e.Source)
	}
	near(t, "hit rate", e.PrefixHitRate, 0.5)
	near(t, "acceptance length", e.AcceptanceLength, 3.1)
	near(t, "max waiting", e.MaxWaiting, 3)
	if e.AcceptanceRate != nil {
		t.Error("an acceptance rate without drafted-token counters")
	}
}

// An endpoint that fails, or serves no engine's metrics, leaves no
// series and does not hold up the run.
func TestScrapeGivesUp(t *testing.T) {
	for name, h := range map[string]http.HandlerFunc{
		"404":   func(w http.ResponseWriter, r *http.Request) { http.NotFound(w, r) },
		"other": func(w http.ResponseWriter, r *http.Request) { fmt.Fprintln(w, "go_goroutines 12") },
		"junk":  func(w http.ResponseWriter, r *http.Request) { fmt.Fprintln(w, "vllm:num_requests_running{ 12") },
	} {
		srv := httptest.NewServer(h)
		s := startScrape(context.Background(), Target{URL: srv.URL}, 10*time.Millisecond)
		s.run(context.Background(), time.Now())
		time.Sleep(30 * time.Millisecond)
		if got := s.stop(); got != nil {
			t.Errorf("%s: series %+v", name, got)
		}
		srv.Close()
	}
}

func FuzzParseMetrics(f *testing.F) {
	f.Add(readFixture(f, "vllm-metrics.txt"))
	f.Add(readFixture(f, "sglang-metrics.txt"))
	f.Add([]byte("vllm:num_requests_running 1\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		fams, err := ParseMetrics(bytes.NewReader(b))
		if err != nil {
			return
		}
		s := &scraper{}
		p := s.point(fams)
		_ = SummarizeEngine(&record.EngineSeries{Source: source(fams), Points: []record.EnginePoint{p, p}})
	})
}
