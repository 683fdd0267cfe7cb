package report

import (
	"fmt"
	"strings"
	"testing"

	"servelab.dev/execute/decide"
	"servelab.dev/i18n"
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
	s, a, runs := seed(t, "qwen3-8b-h100-latency")
	for i := range a.Validation {
		row := &a.Validation[i]
		if row.Latency == nil || row.Metric != "output_throughput" {
			t.Fatalf("%s: the analysis has no latency row beside %s", row.Profile, row.Metric)
		}
		row.Baseline = &decide.Value{Mean: 1000 + float64(i), Runs: 3}
		row.Final = &decide.Value{Mean: 2000 + float64(i), Runs: 3}
	}
	c := findChart(Build(s, a, runs).Blocks, "sweep")
	if c == nil || len(c.Series) != 2 {
		t.Fatalf("no sweep chart of two series: %+v", c)
	}
	rows, _, _, _, _ := (&builder{s: s, a: a, runs: runs}).loadRows()
	for i, row := range rows {
		for k, x := range []*decide.Value{row.Baseline, row.Final} {
			lat := []*decide.Value{row.Latency.Baseline, row.Latency.Final}[k].Mean / 1000
			if got, y := c.Series[k].X[i], c.Series[k].Values[i]; got != x.Mean || y != lat {
				t.Errorf("%s series %d: point (%v, %v), the analysis says (%v, %v)", row.Profile, k, got, y, x.Mean, lat)
			}
		}
	}
}

// Validation profiles that are one workload at rising rates are drawn on
// a value axis of the rate, in rate order, and the load sweep joins its
// points; once one profile's arrivals differ they are categories: bars,
// mean latency among them.
func TestLoadChartsKnowTheirAxis(t *testing.T) {
	s, a, runs := seed(t, "qwen3.5-9b-h100-latency")
	doc := Build(s, a, runs)
	for _, id := range []string{"validation", "validation_ttft"} {
		c := findChart(doc.Blocks, id)
		if c == nil || c.Kind != "line" || fmt.Sprint(c.Series[0].X) != "[1 4 8 16]" || d.String(c.XName, i18n.MustNew("en")) != "Request rate" {
			t.Fatalf("%s: %+v, want a line over request rates 1, 4, 8, 16", id, c)
		}
	}
	// At fixed rates the client sets the throughput: no sweep.
	if c := findChart(doc.Blocks, "sweep"); c != nil {
		t.Errorf("sweep %+v at fixed rates, want none", c)
	}
	p := s.Profiles["rate-16"]
	p.Kind = "poisson"
	s.Profiles["rate-16"] = p
	doc = Build(s, a, runs)
	if c := findChart(doc.Blocks, "validation_ttft"); c == nil || c.Kind != "bar" || c.Series[0].X != nil {
		t.Errorf("mixed arrivals: %+v, want bars", c)
	}
	// Points of different workloads on one latency-throughput plane
	// invite comparisons across them: latency is drawn as bars instead.
	if c := findChart(doc.Blocks, "sweep"); c != nil {
		t.Errorf("mixed arrivals: sweep %+v, want none", c)
	}
	if c := findChart(doc.Blocks, "validation"); c == nil || c.Kind != "bar" || len(c.Categories) != 4 {
		t.Errorf("mixed arrivals: latency %+v, want bars over 4 loads", c)
	}
}

// The seed's mean TPOTs, which its warnings call impossible (below one
// decode step), are all flagged, so their chart is left out with the
// reason; TTFT, not flagged, is drawn.
func TestImpossibleTPOTNotCharted(t *testing.T) {
	s, a, runs := seed(t, "qwen3.5-9b-h100-latency")
	doc := Build(s, a, runs)
	if c := findChart(doc.Blocks, "validation_tpot"); c != nil {
		t.Errorf("TPOT charted: %+v", c)
	}
	said := false
	for _, bl := range doc.Blocks {
		if p, ok := bl.(d.Para); ok && strings.Contains(d.String(p.Text, i18n.MustNew("en")), "No chart of mean TPOT") {
			said = true
		}
	}
	if !said {
		t.Error("the page does not say why TPOT is not charted")
	}
	if c := findChart(doc.Blocks, "validation_ttft"); c == nil || c.Doubt != nil || c.Series[0].Flagged != nil {
		t.Errorf("TTFT: %+v", c)
	}
	partly := d.Chart{Series: []d.Series{{Values: []float64{1, 2}, Flagged: []bool{true, false}}}}
	if allFlagged(partly) {
		t.Error("a chart with one figure unflagged counts as all flagged")
	}
}

// A tail the final makes three times worse or more is charted at every
// load beside the trade-offs: the 9B page's P99 TTFT, 6.6x at 8 RPS.
func TestTailCharted(t *testing.T) {
	s, a, runs := seed(t, "qwen3.5-9b-h100-latency")
	c := findChart(Build(s, a, runs).Blocks, "tail")
	if c == nil || c.Kind != "line" || len(c.Series) != 2 || fmt.Sprint(c.Series[1].Values) != "[123.14 112.48 933.41 375.11]" {
		t.Fatalf("tail chart %+v, want P99 TTFT of both sides over the four rates", c)
	}
	s8, a8, runs8 := seed(t, "qwen3-8b-h100-latency")
	if c := findChart(Build(s8, a8, runs8).Blocks, "tail"); c != nil {
		t.Errorf("8B: a tail %.2fx worse charted", a8.Tradeoffs[0].Ratio)
	}
}

// The capacity chart draws the bound the searches came closest to
// breaking against the rate, each side up to its first probe above its
// capacity, with the bound across.
func TestProbeChart(t *testing.T) {
	s, a := h200Study(t)
	c := findChart(Build(s, a, nil).Blocks, "capacity_capacity")
	if c == nil || c.Kind != "line" || len(c.Lines) != 1 || c.Lines[0].Value != 1000 {
		t.Fatalf("probe chart %+v, want P90 TTFT against rate with the 1,000 ms bound", c)
	}
	if got := fmt.Sprint(c.Series[0].X); got != "[2 3.125 3.625 4.125 6.25 7.375 7.875]" {
		t.Errorf("rates %s", got)
	}
}
