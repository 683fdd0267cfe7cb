package record

import (
	"fmt"
	"math"
)

// EngineSeries is what the engine's own Prometheus endpoint said during
// a run's measured requests, scraped about once a second. It is kept in
// the samples sidecar; the record holds its summary (EngineMetrics).
type EngineSeries struct {
	// Source names the metric family set read: vllm, sglang or llamacpp.
	Source string
	Points []EnginePoint
}

// EnginePoint is one scrape. Gauges are as read; counters are the
// increase since the previous point (the first point has none), so a
// whole-run rate is a ratio of sums. A figure the engine does not export
// is absent.
type EnginePoint struct {
	T       float64  `json:"t"`                 // seconds from the run's start, as Sample.Intended
	Running *float64 `json:"running,omitempty"` // requests being decoded or prefilled
	Waiting *float64 `json:"waiting,omitempty"` // requests queued
	KVCache *float64 `json:"kv,omitempty"`      // KV-cache usage, 0..1
	// Prefix cache: queried and hit tokens (counters), or the engine's
	// own hit-rate gauge (SGLang).
	PrefixQueries *float64 `json:"pq,omitempty"`
	PrefixHits    *float64 `json:"ph,omitempty"`
	PrefixHitRate *float64 `json:"hit,omitempty"`
	// Speculative decoding: drafts, drafted tokens and accepted tokens
	// (counters), or the engine's acceptance-length gauge (SGLang).
	Drafts       *float64 `json:"drafts,omitempty"`
	DraftTokens  *float64 `json:"drafted,omitempty"`
	Accepted     *float64 `json:"accepted,omitempty"`
	AcceptLength *float64 `json:"accLen,omitempty"`
}

func (p *EnginePoint) check() error {
	for _, v := range []*float64{&p.T, p.Running, p.Waiting, p.KVCache, p.PrefixQueries, p.PrefixHits, p.PrefixHitRate,
		p.Drafts, p.DraftTokens, p.Accepted, p.AcceptLength} {
		if v != nil && (math.IsNaN(*v) || math.IsInf(*v, 0) || *v < 0) {
			return fmt.Errorf("figure %v: want a finite non-negative number", *v)
		}
	}
	return nil
}

// EngineMetrics summarise an EngineSeries: means and peaks of the
// gauges, and the whole run's prefix-cache hit rate and speculative
// acceptance (rates are fractions, 0..1).
type EngineMetrics struct {
	Source      string   `json:"source"`
	Scrapes     int      `json:"scrapes"`
	MeanRunning *float64 `json:"meanRunning,omitempty"`
	MaxRunning  *float64 `json:"maxRunning,omitempty"`
	MeanWaiting *float64 `json:"meanWaiting,omitempty"`
	MaxWaiting  *float64 `json:"maxWaiting,omitempty"`
	MeanKVCache *float64 `json:"meanKvCache,omitempty"`
	MaxKVCache  *float64 `json:"maxKvCache,omitempty"`
	// PrefixHitRate is hit over queried prompt tokens.
	PrefixHitRate *float64 `json:"prefixHitRate,omitempty"`
	// AcceptanceRate is accepted over drafted tokens; AcceptanceLength is
	// the tokens a step yields per draft (1 + accepted/drafts), as
	// `vllm bench serve` prints them.
	AcceptanceRate   *float64 `json:"acceptanceRate,omitempty"`
	AcceptanceLength *float64 `json:"acceptanceLength,omitempty"`
}

func (e *EngineMetrics) check() error {
	if e == nil {
		return nil
	}
	if e.Scrapes < 0 {
		return fmt.Errorf("engine metrics: negative scrape count")
	}
	for _, v := range []*float64{e.MeanRunning, e.MaxRunning, e.MeanWaiting, e.MaxWaiting, e.MeanKVCache, e.MaxKVCache,
		e.PrefixHitRate, e.AcceptanceRate, e.AcceptanceLength} {
		if v != nil && (!finite(*v) || *v < 0) {
			return fmt.Errorf("engine metrics: figure %v", *v)
		}
	}
	return nil
}
