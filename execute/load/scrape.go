package load

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"servelab.dev/execute/record"
)

// The engines' metric names, by what they measure. vLLM's are those of
// V1 (v0.10 and later), then their older spellings; SGLang and llama.cpp
// (with --metrics) export gauges only. Counters end in _total as the
// Prometheus text format spells them.
var (
	famRunning  = []string{"vllm:num_requests_running", "sglang:num_running_reqs", "llamacpp:requests_processing"}
	famWaiting  = []string{"vllm:num_requests_waiting", "sglang:num_queue_reqs", "llamacpp:requests_deferred"}
	famKV       = []string{"vllm:kv_cache_usage_perc", "vllm:gpu_cache_usage_perc", "sglang:token_usage", "llamacpp:kv_cache_usage_ratio"}
	famQueries  = []string{"vllm:prefix_cache_queries_total", "vllm:gpu_prefix_cache_queries_total"}
	famHits     = []string{"vllm:prefix_cache_hits_total", "vllm:gpu_prefix_cache_hits_total"}
	famHitRate  = []string{"sglang:cache_hit_rate"}
	famDrafts   = []string{"vllm:spec_decode_num_drafts_total"}
	famDrafted  = []string{"vllm:spec_decode_num_draft_tokens_total"}
	famAccepted = []string{"vllm:spec_decode_num_accepted_tokens_total"}
	famAccLen   = []string{"sglang:spec_accept_length"}
	// wanted is every name above, to drop the rest (vLLM's histograms
	// are most of its page) before parsing.
	wanted = func() map[string]bool {
		w := map[string]bool{}
		for _, f := range [][]string{famRunning, famWaiting, famKV, famQueries, famHits, famHitRate, famDrafts, famDrafted, famAccepted, famAccLen} {
			for _, n := range f {
				w[n] = true
			}
		}
		return w
	}()
)

// MetricsPath is where an engine kind serves Prometheus metrics: vLLM
// and SGLang always, llama.cpp's llama-server with --metrics (without it
// the first scrape fails and the run goes on unscraped). TensorRT-LLM's
// /metrics is JSON of another shape, and a custom engine's is unknown.
func MetricsPath(kind string) string {
	switch kind {
	case "vllm", "sglang", "llamacpp":
		return "/metrics"
	}
	return ""
}

// scraper reads the engine's Prometheus endpoint every interval while
// the measured requests run. It is given up, leaving no series, when the
// first scrape fails or shows none of the engines' metrics.
type scraper struct {
	url    string
	start  time.Time
	http   *http.Client
	series *record.EngineSeries
	prev   map[string]float64 // counters at the previous point
	every  time.Duration
	ok     bool // the baseline scrape worked
	quit   chan struct{}
	done   chan struct{}
}

// startScrape takes the baseline point (the counters before the
// measured requests) now; run starts the periodic scrapes.
func startScrape(ctx context.Context, t Target, every time.Duration) *scraper {
	// Its own transport, without a proxy, as the client's.
	hc := &http.Client{Timeout: 2 * time.Second, Transport: &http.Transport{Proxy: nil, MaxIdleConnsPerHost: 1, DialContext: t.Dial}}
	s := &scraper{url: strings.TrimRight(t.URL, "/") + t.Metrics, start: time.Now(), http: hc, every: every, quit: make(chan struct{}), done: make(chan struct{})}
	s.ok = s.scrape(ctx)
	return s
}

// run scrapes every interval, with times from start, until stop.
func (s *scraper) run(ctx context.Context, start time.Time) {
	s.start = start
	go s.loop(ctx)
}

func (s *scraper) loop(ctx context.Context) {
	defer close(s.done)
	if !s.ok {
		return
	}
	tick := time.NewTicker(s.every)
	defer tick.Stop()
	for {
		select {
		case <-tick.C:
			s.scrape(ctx)
		case <-s.quit:
			s.scrape(context.WithoutCancel(ctx)) // the counters' last increase
			return
		case <-ctx.Done():
			return
		}
	}
}

// stop takes a last point and returns the series (nil when none).
func (s *scraper) stop() *record.EngineSeries {
	close(s.quit)
	<-s.done
	s.http.CloseIdleConnections()
	return s.series
}

// scrape adds a point; false when the endpoint failed or had nothing.
func (s *scraper) scrape(ctx context.Context) bool {
	req, err := http.NewRequestWithContext(ctx, "GET", s.url, nil)
	if err != nil {
		return false
	}
	resp, err := s.http.Do(req)
	if err != nil {
		return false
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return false
	}
	fams, err := ParseMetrics(resp.Body)
	if err != nil {
		return false
	}
	src := source(fams)
	if src == "" {
		return false
	}
	if s.series == nil {
		s.series = &record.EngineSeries{Source: src}
	}
	s.series.Points = append(s.series.Points, s.point(fams))
	return true
}

// point turns one scrape into gauges and counter increases.
func (s *scraper) point(fams map[string]*dto.MetricFamily) record.EnginePoint {
	p := record.EnginePoint{T: round6(max(0, time.Since(s.start).Seconds()))} // the baseline may precede the start
	p.Running, p.Waiting = sum(fams, famRunning), sum(fams, famWaiting)
	p.KVCache, p.PrefixHitRate, p.AcceptLength = mean(fams, famKV), mean(fams, famHitRate), mean(fams, famAccLen)
	now := map[string]float64{}
	delta := func(key string, names []string) *float64 {
		v := sum(fams, names)
		if v == nil {
			return nil
		}
		now[key] = *v
		if s.prev == nil {
			return nil // the first point is the baseline
		}
		d := *v - s.prev[key]
		if d < 0 { // the engine restarted its counters
			d = *v
		}
		return &d
	}
	p.PrefixQueries, p.PrefixHits = delta("pq", famQueries), delta("ph", famHits)
	p.Drafts, p.DraftTokens, p.Accepted = delta("sd", famDrafts), delta("sdt", famDrafted), delta("sa", famAccepted)
	s.prev = now
	return p
}

func round6(x float64) float64 { return float64(int64(x*1e6+0.5)) / 1e6 }

// ParseMetrics reads the families servelab uses from a Prometheus text
// page, dropping every other line first: an engine's page is mostly
// histograms, and parsing them all each second would take the core the
// stream readers share.
func ParseMetrics(r io.Reader) (map[string]*dto.MetricFamily, error) {
	var keep bytes.Buffer
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		line := sc.Bytes()
		name := line
		if rest, ok := bytes.CutPrefix(line, []byte("# ")); ok {
			_, name, _ = bytes.Cut(rest, []byte(" ")) // # HELP name ... / # TYPE name ...
		}
		if i := bytes.IndexAny(name, "{ \t"); i >= 0 {
			name = name[:i]
		}
		if wanted[string(name)] {
			keep.Write(line)
			keep.WriteByte('\n')
		}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(&keep)
	if err != nil {
		return nil, fmt.Errorf("metrics: %w", err)
	}
	return fams, nil
}

// source names the engine whose metrics the page has.
func source(fams map[string]*dto.MetricFamily) string {
	for name := range fams {
		if kind, _, ok := strings.Cut(name, ":"); ok {
			return kind
		}
	}
	return ""
}

// sum adds the first family present over its label sets (data-parallel
// engines export one series per engine).
func sum(fams map[string]*dto.MetricFamily, names []string) *float64 {
	v, n := total(fams, names)
	if n == 0 {
		return nil
	}
	return &v
}

// mean averages the first family present over its label sets.
func mean(fams map[string]*dto.MetricFamily, names []string) *float64 {
	v, n := total(fams, names)
	if n == 0 {
		return nil
	}
	v /= float64(n)
	return &v
}

func total(fams map[string]*dto.MetricFamily, names []string) (float64, int) {
	for _, name := range names {
		f, ok := fams[name]
		if !ok {
			continue
		}
		v, n := 0.0, 0
		for _, m := range f.Metric {
			switch {
			case m.Gauge != nil:
				v += m.Gauge.GetValue()
			case m.Counter != nil:
				v += m.Counter.GetValue()
			case m.Untyped != nil:
				v += m.Untyped.GetValue()
			default:
				continue
			}
			n++
		}
		if n > 0 && !isBad(v) {
			return v, n
		}
	}
	return 0, 0
}

func isBad(v float64) bool { return v != v || v < 0 || v > 1e300 }
