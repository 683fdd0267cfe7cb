package decide

import "testing"

// A figure the final makes worse is a trade-off with its run counts; one
// whose runs disagree is unsettled, named apart only when it is worse by
// a quarter or more on average.
func TestTradeoffsAndUnsettled(t *testing.T) {
	lo, hi := 61.96, 368.54
	fig := func(metric string, base, fin float64, verdict string, runs int) *ValidationRow {
		r := &ValidationRow{Metric: metric, Baseline: &Value{Mean: base, Runs: 1}, Final: &Value{Mean: fin, Runs: runs}, Verdict: verdict}
		if runs == 2 {
			r.Final.Low, r.Final.High = &lo, &hi
		}
		return r
	}
	rows := []ValidationRow{{
		Profile: "c4",
		Percentiles: []*ValidationRow{
			fig("ttft.p99", 98.59, 215.25, NoDifference, 2), // 2.18x worse, runs disagree
			fig("tpot.p99", 8.19, 21.36, NoNoise, 1),        // 2.61x worse, single runs
			fig("itl.p99", 10, 11, NoDifference, 2),         // 1.1x worse, runs disagree
		},
	}}
	out, unsettled := tradeoffs(rows, 0)
	if len(out) != 1 || out[0].Metric != "tpot.p99" || out[0].Runs != [2]int{1, 1} {
		t.Errorf("trade-offs = %+v, want tpot.p99 of single runs alone", out)
	}
	if len(unsettled) != 1 || unsettled[0].Metric != "ttft.p99" || unsettled[0].Runs != [2]int{1, 2} {
		t.Errorf("unsettled = %+v, want ttft.p99 over 1 and 2 runs alone", unsettled)
	}
}
