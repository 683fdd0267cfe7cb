package report

import (
	"testing"

	"servelab.dev/execute/decide"
	d "servelab.dev/render/document"
)

// findChart is the chart id in blocks, folds included.
func findChart(blocks []d.Block, id string) *d.Chart {
	for _, b := range blocks {
		switch b := b.(type) {
		case d.Chart:
			if b.ID == id {
				return &b
			}
		case d.Details:
			if c := findChart(b.Blocks, id); c != nil {
				return c
			}
		}
	}
	return nil
}

// The load sweep plots the analysis's throughput and latency, which are
// over every repeat of the validation runs, not over the records of one.
func TestSweepPlotsTheAnalysis(t *testing.T) {
	s, a, runs := seed(t, "qwen3.5-9b-h100-latency")
	for i := range a.Validation {
		row := &a.Validation[i]
		if row.Throughput == nil || row.Metric != "latency.mean" {
			t.Fatalf("%s: the analysis has no throughput row beside %s", row.Profile, row.Metric)
		}
		row.Throughput.Baseline = &decide.Value{Mean: 1000 + float64(i), Runs: 3}
		row.Throughput.Final = &decide.Value{Mean: 2000 + float64(i), Runs: 3}
	}
	c := findChart(Build(s, a, runs).Blocks, "sweep")
	if c == nil || len(c.Series) != 2 {
		t.Fatalf("no sweep chart of two series: %+v", c)
	}
	for i, row := range a.Validation {
		for k, want := range []float64{1000 + float64(i), 2000 + float64(i)} {
			x, y := c.Series[k].X[i], c.Series[k].Values[i]
			lat := []*decide.Value{row.Baseline, row.Final}[k].Mean / 1000
			if x != want || y != lat {
				t.Errorf("%s series %d: point (%v, %v), the analysis says (%v, %v)", row.Profile, k, x, y, want, lat)
			}
		}
	}
}
