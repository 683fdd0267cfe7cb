package report

import (
	"math"
	"testing"

	"servelab.dev/execute/importer"
	"servelab.dev/execute/record"
	"servelab.dev/execute/store"
	"servelab.dev/schema/plan"
)

// A run's block in a report, imported back, loses no latency beyond the
// 0.01 ms the block prints (E2EL included), and is recognised as that
// run rather than becoming a second repeat of it.
func TestBlockRoundTrip(t *testing.T) {
	spec := plan.Spec{Profile: plan.ProfileSpec{Kind: "concurrency", Concurrency: 4, Requests: 100}}
	dist := func(base float64) *record.Dist {
		return &record.Dist{Mean: record.F(base + 0.123456), Median: record.F(base - 0.0049), P90: record.F(base * 1.3), P95: record.F(base*1.4 + 0.00731), P99: record.F(base*2 + 0.3333)}
	}
	m := record.Metrics{Completed: 100, Failed: record.I(0), Duration: 44.4123, InputTokens: record.I(23260), OutputTokens: record.I(22061),
		RequestThroughput: record.F(100 / 44.4123), OutputThroughput: record.F(22061 / 44.4123), TotalThroughput: record.F(45321 / 44.4123),
		Latency: dist(1723.5817), TTFT: dist(61.37), TPOT: dist(7.6311), ITL: dist(7.6123)}
	rs, err := importer.Parse("vllm-text", []byte(Block(spec, m, nil)))
	if err != nil {
		t.Fatal(err)
	}
	got := rs[0].Metrics
	for _, f := range []struct {
		name string
		a, b *record.Dist
	}{{"E2EL", got.Latency, m.Latency}, {"TTFT", got.TTFT, m.TTFT}, {"TPOT", got.TPOT, m.TPOT}, {"ITL", got.ITL, m.ITL}} {
		for _, s := range []string{"mean", "median", "p90", "p95", "p99"} {
			x, _ := f.a.Stat(s)
			y, _ := f.b.Stat(s)
			if math.Abs(x-y) > 0.005+1e-9 {
				t.Errorf("%s %s: %v back from %v", f.name, s, x, y)
			}
		}
	}
	old := store.Run{Path: "results/k/run.json", Record: &record.Record{Key: "k", Metrics: m, Provenance: record.Provenance{Kind: record.Measured}}}
	d := importer.FindDuplicate(&rs[0], "sha-of-the-block", "", "k", map[string][]store.Run{"k": {old}})
	if d == nil || d.SameSource || d.Run.Path != old.Path {
		t.Fatalf("the block imported back is not recognised as its run: %+v", d)
	}
	m.TTFT.Mean = record.F(70)
	if d := importer.FindDuplicate(&rs[0], "sha", "", "k", map[string][]store.Run{"k": {old}}); d != nil {
		t.Errorf("a run with other figures taken for a duplicate")
	}
}
