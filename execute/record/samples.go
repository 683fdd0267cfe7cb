package record

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"math"
)

// SamplesFormat tags a per-request sidecar.
const SamplesFormat = "servelab.samples/v1"

// Sample is one measured request. Times are seconds from the run's
// start (the first intended send); latencies are milliseconds.
type Sample struct {
	// Intended is when the schedule meant to send the request; Sent when
	// the request was written. Latencies are measured from Intended, so a
	// late send counts against the server, not for it.
	Intended float64 `json:"t"`
	Sent     float64 `json:"s"`
	// TTFT and Latency (to the last token) are from Intended, in ms.
	TTFT    float64 `json:"ttft,omitempty"`
	Latency float64 `json:"lat,omitempty"`
	// Gaps are the times between consecutive content chunks, in ms; a
	// chunk carrying several tokens is one gap.
	Gaps         []float64 `json:"gaps,omitempty"`
	InputTokens  int       `json:"in,omitempty"`
	OutputTokens int       `json:"out,omitempty"`
	Warmup       bool      `json:"warmup,omitempty"`
	Error        string    `json:"err,omitempty"`
	// Connect is the time, in ms, the request waited for a connection
	// opened for it (0 when it got a kept-alive one); it is part of the
	// schedule lag, and shown apart so a cold pool is not taken for a
	// slow client.
	Connect float64 `json:"conn,omitempty"`
	// Claimed is the input tokens the client meant to send (its dataset's
	// count plus the template the server adds), to compare with
	// InputTokens, the server's usage; 0 when the client had no count.
	Claimed int `json:"claim,omitempty"`
	// Cached is the prompt tokens the engine found in its prefix cache
	// (usage.prompt_tokens_details.cached_tokens); nil when it did not say.
	Cached *int `json:"cached,omitempty"`
}

// EncodeSamples writes samples as gzip-compressed JSON lines, a header
// line first. gzip's header has no time stamp here, so equal samples give
// equal bytes.
func EncodeSamples(samples []Sample) ([]byte, error) { return EncodeSidecar(samples, nil) }

// header is a sidecar's first line. Series and Source are present only
// when the engine's metrics were scraped; their points follow the
// samples, one a line.
type header struct {
	Format string `json:"format"`
	Count  int    `json:"count"`
	Series int    `json:"series,omitempty"`
	Source string `json:"source,omitempty"`
}

// EncodeSidecar writes samples, then the engine's metric points when
// engine is not nil.
func EncodeSidecar(samples []Sample, engine *EngineSeries) ([]byte, error) {
	var buf bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	enc := json.NewEncoder(zw)
	h := header{Format: SamplesFormat, Count: len(samples)}
	if engine != nil {
		h.Series, h.Source = len(engine.Points), engine.Source
	}
	if err := enc.Encode(h); err != nil {
		return nil, err
	}
	for i := range samples {
		if err := checkSample(&samples[i]); err != nil {
			return nil, fmt.Errorf("sample %d: %w", i, err)
		}
		if err := enc.Encode(&samples[i]); err != nil {
			return nil, err
		}
	}
	for i := 0; i < h.Series; i++ {
		if err := engine.Points[i].check(); err != nil {
			return nil, fmt.Errorf("engine metrics point %d: %w", i, err)
		}
		if err := enc.Encode(&engine.Points[i]); err != nil {
			return nil, err
		}
	}
	if err := zw.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// DecodeSamples reads a sidecar's samples, refusing a truncated or
// altered one.
func DecodeSamples(data []byte) ([]Sample, error) {
	s, _, err := DecodeSidecar(data)
	return s, err
}

// DecodeSidecar reads a sidecar's samples and engine metrics (nil when
// it has none), refusing a truncated or altered one.
func DecodeSidecar(data []byte) ([]Sample, *EngineSeries, error) {
	zr, err := gzip.NewReader(bytes.NewReader(data))
	if err != nil {
		return nil, nil, fmt.Errorf("samples: %w", err)
	}
	raw, err := io.ReadAll(zr)
	if err != nil {
		return nil, nil, fmt.Errorf("samples: %w (truncated?)", err)
	}
	sc := bufio.NewScanner(bytes.NewReader(raw))
	sc.Buffer(make([]byte, 1<<16), 64<<20)
	var head header
	if !sc.Scan() || json.Unmarshal(sc.Bytes(), &head) != nil || head.Format != SamplesFormat || head.Count < 0 || head.Series < 0 {
		return nil, nil, fmt.Errorf("samples: no %s header", SamplesFormat)
	}
	out := make([]Sample, 0, min(head.Count, 1<<20))
	n := 2
	for ; len(out) < head.Count && sc.Scan(); n++ {
		var s Sample
		if err := json.Unmarshal(sc.Bytes(), &s); err != nil {
			return nil, nil, fmt.Errorf("samples line %d: %w", n, err)
		}
		if err := checkSample(&s); err != nil {
			return nil, nil, fmt.Errorf("samples line %d: %w", n, err)
		}
		out = append(out, s)
	}
	var engine *EngineSeries
	if head.Series > 0 || head.Source != "" {
		engine = &EngineSeries{Source: head.Source, Points: make([]EnginePoint, 0, min(head.Series, 1<<20))}
	}
	for ; sc.Scan(); n++ {
		if engine == nil || len(engine.Points) == head.Series {
			return nil, nil, fmt.Errorf("samples line %d: more lines than the header says", n)
		}
		var p EnginePoint
		if err := json.Unmarshal(sc.Bytes(), &p); err != nil {
			return nil, nil, fmt.Errorf("samples line %d: %w", n, err)
		}
		if err := p.check(); err != nil {
			return nil, nil, fmt.Errorf("samples line %d: %w", n, err)
		}
		engine.Points = append(engine.Points, p)
	}
	if err := sc.Err(); err != nil {
		return nil, nil, fmt.Errorf("samples: %w", err)
	}
	if len(out) != head.Count {
		return nil, nil, fmt.Errorf("samples: %d requests, header says %d", len(out), head.Count)
	}
	if engine != nil && len(engine.Points) != head.Series {
		return nil, nil, fmt.Errorf("samples: %d engine metric points, header says %d", len(engine.Points), head.Series)
	}
	return out, engine, nil
}

func checkSample(s *Sample) error {
	for _, v := range append([]float64{s.Intended, s.Sent, s.TTFT, s.Latency, s.Connect}, s.Gaps...) {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("non-finite time %v", v)
		}
	}
	if s.InputTokens < 0 || s.OutputTokens < 0 || s.Claimed < 0 {
		return fmt.Errorf("negative token count")
	}
	return nil
}
