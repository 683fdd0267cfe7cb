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
}

// EncodeSamples writes samples as gzip-compressed JSON lines, a header
// line first. gzip's header has no time stamp here, so equal samples give
// equal bytes.
func EncodeSamples(samples []Sample) ([]byte, error) {
	var buf bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	enc := json.NewEncoder(zw)
	if err := enc.Encode(map[string]any{"format": SamplesFormat, "count": len(samples)}); err != nil {
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
	if err := zw.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// DecodeSamples reads a sidecar, refusing a truncated or altered one.
func DecodeSamples(data []byte) ([]Sample, error) {
	zr, err := gzip.NewReader(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("samples: %v", err)
	}
	raw, err := io.ReadAll(zr)
	if err != nil {
		return nil, fmt.Errorf("samples: %v (truncated?)", err)
	}
	sc := bufio.NewScanner(bytes.NewReader(raw))
	sc.Buffer(make([]byte, 1<<16), 64<<20)
	var head struct {
		Format string `json:"format"`
		Count  int    `json:"count"`
	}
	if !sc.Scan() || json.Unmarshal(sc.Bytes(), &head) != nil || head.Format != SamplesFormat {
		return nil, fmt.Errorf("samples: no %s header", SamplesFormat)
	}
	out := make([]Sample, 0, head.Count)
	for n := 2; sc.Scan(); n++ {
		var s Sample
		if err := json.Unmarshal(sc.Bytes(), &s); err != nil {
			return nil, fmt.Errorf("samples line %d: %v", n, err)
		}
		if err := checkSample(&s); err != nil {
			return nil, fmt.Errorf("samples line %d: %v", n, err)
		}
		out = append(out, s)
	}
	if len(out) != head.Count {
		return nil, fmt.Errorf("samples: %d requests, header says %d", len(out), head.Count)
	}
	return out, sc.Err()
}

func checkSample(s *Sample) error {
	for _, v := range append([]float64{s.Intended, s.Sent, s.TTFT, s.Latency}, s.Gaps...) {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("non-finite time %v", v)
		}
	}
	if s.InputTokens < 0 || s.OutputTokens < 0 {
		return fmt.Errorf("negative token count")
	}
	return nil
}
