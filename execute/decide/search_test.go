package decide

import (
	"os"
	"path/filepath"
	"testing"

	"servelab.dev/execute/record"
	"servelab.dev/schema"
	"servelab.dev/schema/plan"
)

// stallStudy searches 10 to 100 req/s for P90 TTFT within 100 ms, once
// per probe.
const stallStudy = `import "servelab.dev/schema"
"stall": schema.#Study & {
	title: en: "Stall"
	i18n: fallback: "en"
	model: {id: "m/m", params: 1e9, dtype: "bf16"}
	hardware: gpu: "NVIDIA H200"
	engines: vllm: version: "0.11.0"
	base: knobs: maxSeqs: 4
	benchmark: {client: name: "builtin", dataset: {name: "random", inputLen: 8, outputLen: 16}, warmup: 0}
	profiles: cap: {kind: "search", requests: 10, search: {low: 10, high: 100, precision: 5}}
	objective: {metric: "capacity", profile: "cap", constraints: [{metric: "ttft.p90", max: 100}]}
	baseline: engine: "vllm"
	steps: [{id: "seqs", title: en: "S", variants: [{name: "8", knobs: maxSeqs: 8}]}]
	validate: profiles: ["cap"]
}
`

// studyFrom loads the study src, written to a temporary file.
func studyFrom(t testing.TB, src string) *schema.Study {
	t.Helper()
	file := filepath.Join(t.TempDir(), "s.cue")
	if err := os.WriteFile(file, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	l, err := schema.NewLoader()
	if err != nil {
		t.Fatal(err)
	}
	s, err := l.LoadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// untilDone plans s from rs again and again, letting record store a run
// of every runnable trial, until nothing is runnable; then it analyses.
func untilDone(t testing.TB, s *schema.Study, rs Records, record func(*plan.Trial)) *Analysis {
	t.Helper()
	for range 200 {
		p, err := Plan(s, rs, Auto)
		if err != nil {
			t.Fatal(err)
		}
		ran := 0
		for _, tr := range p.Trials {
			if tr.Status == plan.Runnable {
				record(tr)
				ran++
			}
		}
		if ran == 0 {
			a, err := Analyze(s, rs, Auto)
			if err != nil {
				t.Fatal(err)
			}
			return a
		}
	}
	t.Fatal("the plan never finished")
	return nil
}

// searchUntilDone runs stallStudy, every run's P90 and median TTFT from
// ttft.
func searchUntilDone(t *testing.T, ttft func(tr *plan.Trial) (p90, median float64)) *Analysis {
	runs := Runs{}
	return untilDone(t, studyFrom(t, stallStudy), Records{Runs: runs}, func(tr *plan.Trial) {
		p90, med := ttft(tr)
		runs[tr.Key] = []*record.Record{{Provenance: record.Provenance{Kind: record.Measured},
			Metrics: record.Metrics{Completed: 10, Failed: record.I(0), Duration: 1, OutputThroughput: record.F(100),
				TTFT: &record.Dist{Mean: record.F(med), Median: record.F(med), P90: record.F(p90)}}}}
	})
}

// A probe that breaks the SLO by one stall (its P90 far above a median
// within the bound) gets a second run before the bracket moves below
// it; the second run meets the bound, so the search goes on above.
// Without the confirmation the capacity would read as below 50 req/s.
func TestStalledProbeConfirmed(t *testing.T) {
	stalls := 0
	a := searchUntilDone(t, func(tr *plan.Trial) (float64, float64) {
		if tr.Rate > 80 {
			return 400, 300 // past capacity: the whole run is slow
		}
		if tr.Rate == 55 && tr.Repeat == 0 {
			stalls++
			return 900, 30 // one stall
		}
		return 60, 30
	})
	if stalls == 0 {
		t.Fatal("the search never probed 55 req/s")
	}
	row := a.Validation[0].Capacity
	for _, side := range []*CapacitySide{row.Baseline, row.Final} {
		if side == nil || side.Rate == nil || *side.Rate < 75 || *side.Rate > 80 {
			t.Errorf("capacity %+v, want 75 to 80 req/s (probes %v)", side, side.Search.Probes)
		}
	}
	// A probe whose runs all break the bound in the body is believed.
	if stalled(&record.Record{Metrics: record.Metrics{TTFT: &record.Dist{Median: record.F(300), P90: record.F(400)}}}, bound("ttft.p90", 100)) {
		t.Error("a slow run counted as a stall")
	}
}

// A stall holds up a request or two: it can break the P99 of 200
// requests, never the P90 of 236, which 24 requests above it break (the
// H200 study's final at 7.875 req/s: median 200 ms, P90 1,258 ms).
func TestStallIsFewRequests(t *testing.T) {
	run := func(n int, p90, p99 float64) *record.Record {
		return &record.Record{Metrics: record.Metrics{Completed: n, TTFT: &record.Dist{Median: record.F(200), P90: record.F(p90), P99: record.F(p99)}}}
	}
	if stalled(run(236, 1258, 1500), bound("ttft.p90", 1000)) {
		t.Error("a P90 breach of 236 requests counted as a stall")
	}
	if !stalled(run(200, 300, 1258), bound("ttft.p99", 1000)) {
		t.Error("a P99 breach of 200 requests, 4 times the median, not counted as a stall")
	}
	if stalled(run(1000, 300, 1258), bound("ttft.p99", 1000)) {
		t.Error("a P99 breach of 1,000 requests (10 above it) counted as a stall")
	}
}

// A search whose low end already breaks the SLO is below its low end on
// both sides: no rate, never 0.
func TestSearchBelowLow(t *testing.T) {
	a := searchUntilDone(t, func(*plan.Trial) (float64, float64) { return 400, 300 })
	row := a.Validation[0].Capacity
	for _, side := range []*CapacitySide{row.Baseline, row.Final} {
		if side == nil || !side.BelowLow || side.Rate != nil || side.Probes != 1 {
			t.Errorf("capacity %+v, want below the low end after one probe", side)
		}
	}
	if a.SLO == nil || a.SLO.Met || a.SLO.Capacity == nil || !a.SLO.Capacity.BelowLow {
		t.Errorf("slo %+v, want unmet, below the low end", a.SLO)
	}
}
